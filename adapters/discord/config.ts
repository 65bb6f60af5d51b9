/**
 * The Discord channel's variables (README "Discord"), parsed from the environment by the channel descriptor
 * (adapters/discord/channel.ts). A malformed value is a ConfigError naming the variable.
 */
import { z } from 'zod';
import { flag, intFrom, invalidConfiguration, list, optionalString, parseEnv } from '../../infra/config.ts';

/** The schema of the `DISCORD_*` variables. */
export const discordConfigSchema = z.object({
  /** The bot token; the channel is off without it. A secret (redacted from logs). */
  DISCORD_TOKEN: optionalString,
  /** Base URL of Discord's REST API (tests point it at the fake); default discord.js's. */
  DISCORD_API_URL: optionalString,
  DISCORD_ALLOWED_GUILDS: list,
  DISCORD_ALLOWED_CHANNELS: list,
  DISCORD_ALLOWED_USERS: list,
  /**
   * User ids (comma list) who may decide any tool call waiting for approval with the message's buttons, besides
   * the person whose message started the turn (./approvals.ts).
   */
  DISCORD_APPROVERS: list,
  /** Explicit opt-in to open Discord access (everyone may talk to the agent); default: pairing. */
  DISCORD_ALLOW_ALL: flag,
  DISCORD_RESPOND: z
    .enum(['mention', 'always'])
    .optional()
    .transform((v) => v ?? 'mention'),
  /**
   * Whether to ask for the privileged Message Content intent: unset = only with DISCORD_RESPOND=always
   * (./gateway-health.ts); `true` also in mention mode (typed `/stop` without a mention, replies to the bot
   * without the ping); `false` never.
   */
  /** `true`: a mention in a guild channel starts a thread, and the conversation (its session) lives there. */
  DISCORD_THREADS: flag,
  /** A reply longer than this many Discord messages is sent as one short message with a `reply.md` attachment. */
  DISCORD_MAX_CHUNKS: intFrom(3, 1, 100),
  DISCORD_MESSAGE_CONTENT: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /**
   * The worker's default tool-approval policy (infra/config.ts), read here too: in a guild channel a non-approver
   * may not loosen `/approval` below the policy in force (adapters/kit/approval-policy.ts).
   */
  KESOKU_TOOL_APPROVAL: z.enum(['off', 'writes', 'all']).optional(),
});

/** The parsed `DISCORD_*` variables. */
export type DiscordSettings = z.output<typeof discordConfigSchema>;

/**
 * Reads the `DISCORD_*` variables.
 * @param env defaults to `process.env`
 * @throws ConfigError listing every invalid variable
 */
export function loadDiscordConfig(env: NodeJS.ProcessEnv = process.env): DiscordSettings {
  const parsed = parseEnv(discordConfigSchema, env);
  if (!parsed.ok) throw invalidConfiguration(parsed.problems);
  return parsed.value;
}

/**
 * Slash commands registered as Discord application commands: `/stop`, `/compact`, `/title`, `/mode`, `/locale`,
 * `/approval` (choices off / writes / all; loosening in a server channel is for DISCORD_APPROVERS), `/new`,
 * `/status` and `/help`, plus commands other modules add ({@link AppCommandExtension}). They show in Discord's
 * command picker, work without a mention, and answer the user who ran them.
 *
 * - Registration: at adapter start, one bulk overwrite (`PUT /applications/{app id}/commands`, or per guild of
 *   `DISCORD_ALLOWED_GUILDS`, where changes show at once). Idempotent: the same list leaves Discord unchanged.
 * - Answer: an interaction must be acknowledged within 3 s. A command that finishes within `deferAfterMs` is
 *   answered with the message itself (callback type 4); a slower one is deferred first (type 5, Discord shows
 *   "thinking…") and its answer then replaces the placeholder (`PATCH /webhooks/{app}/{token}/messages/@original`).
 * - Access: decided exactly as for messages (adapters/kit/access.ts, policy.ts): a user who may not talk to the bot
 *   runs no command and gets only a private (ephemeral) note.
 * - The typed forms stay and do the same: a slash command is turned into its typed text, parsed by the same
 *   rule (adapters/kit/commands.ts) and run by commands.ts `runCommand`, with the update id
 *   `discord-command-<interaction id>` (a repeated delivery of the interaction runs once).
 */
import { Routes, type ChatInputCommandInteraction, type REST } from 'discord.js';
import type { ChatAccess } from '../kit/access.ts';
import type { Logger } from '../../infra/logger.ts';
import { TITLE_MAX_CHARS } from '../../domain/session-settings.ts';
import {
  commandName,
  parseCommand,
  presentSessionError,
  runCommand,
  type CommandSessions,
} from './commands.ts';
import { commandUpdateIdFor, discordSessionAddress } from './ids.ts';
import { chatPlaceOf, type MessagePlace } from './policy.ts';

/** An application command as Discord takes it (chat input, type 1); see Discord's application command object. */
export interface AppCommandDefinition {
  name: string;
  description: string;
  options?: {
    name: string;
    description: string;
    /** 3 = string. */
    type: 3;
    required?: boolean;
    max_length?: number;
    choices?: { name: string; value: string }[];
  }[];
}

/** A slash command as the adapter sees it (no discord.js objects past this point). */
export interface CommandInvocation {
  interactionId: string;
  token: string;
  applicationId: string;
  name: string;
  /** String options by name. */
  options: Record<string, string>;
  channelId: string;
  guildId: string | null;
  parentId: string | null;
  isThread: boolean;
  isDM: boolean;
  user: { id: string; displayName: string };
}

/** What a command answers: text, shown to everyone in the channel or only to its user. */
export interface CommandAnswer {
  content: string;
  ephemeral?: boolean;
}

/**
 * A command another module adds (e.g. the approval command): its definition and what it does for an allowed user.
 * `run` may take its time (the answer is deferred after `deferAfterMs`); a throw becomes a generic failure answer.
 */
export interface AppCommandExtension {
  definition: AppCommandDefinition;
  run(invocation: CommandInvocation, sessionId: string): Promise<CommandAnswer>;
}

/** The session commands' definitions (the typed forms are in adapters/kit/commands.ts). */
export const SESSION_APP_COMMANDS: readonly AppCommandDefinition[] = [
  { name: 'stop', description: 'Stop the turn running in this channel' },
  { name: 'compact', description: 'Summarise the conversation so far to free context' },
  {
    name: 'title',
    description: 'Set the title of this conversation',
    options: [
      { name: 'text', description: 'The new title', type: 3, required: true, max_length: TITLE_MAX_CHARS },
    ],
  },
  {
    name: 'mode',
    description: 'What a new message does while a turn runs',
    options: [
      {
        name: 'mode',
        description: 'interrupt the running turn, or queue behind it',
        type: 3,
        required: true,
        choices: [
          { name: 'interrupt', value: 'interrupt' },
          { name: 'queue', value: 'queue' },
        ],
      },
    ],
  },
  {
    name: 'locale',
    description: 'Language of notices and error messages',
    options: [
      {
        name: 'locale',
        description: 'en or zh',
        type: 3,
        required: true,
        choices: [
          { name: 'English', value: 'en' },
          { name: '中文', value: 'zh' },
        ],
      },
    ],
  },
  {
    name: 'approval',
    description:
      'Which tool calls ask for approval first (loosening it in a server channel is for approvers)',
    options: [
      {
        name: 'policy',
        description: 'off, writes or all',
        type: 3,
        required: true,
        choices: [
          { name: 'off (no call asks)', value: 'off' },
          { name: 'writes (shell commands and file writes ask)', value: 'writes' },
          { name: 'all (every call asks)', value: 'all' },
        ],
      },
    ],
  },
  { name: 'new', description: 'Start a new conversation in this channel (the agent forgets this one)' },
  { name: 'status', description: 'Show what the agent is doing in this channel' },
  { name: 'help', description: 'List the commands' },
];

/** Commands whose answer only their user sees (a status or help read-out, a usage line). */
const PRIVATE_ANSWERS: ReadonlySet<string> = new Set(['status', 'help', 'usage']);

/** Reads a discord.js chat-input interaction into plain data. */
export function fromInteraction(i: ChatInputCommandInteraction): CommandInvocation {
  const channel = i.channel;
  const isThread = channel?.isThread() ?? false;
  const options: Record<string, string> = {};
  for (const o of i.options.data) if (typeof o.value === 'string') options[o.name] = o.value;
  return {
    interactionId: i.id,
    token: i.token,
    applicationId: i.applicationId,
    name: i.commandName,
    options,
    channelId: i.channelId,
    guildId: i.guildId,
    parentId: isThread && channel?.isThread() ? channel.parentId : null,
    isThread,
    isDM: i.guildId === null,
    user: {
      id: i.user.id,
      displayName:
        (i.member && 'displayName' in i.member ? i.member.displayName : null) ??
        i.user.globalName ??
        i.user.username,
    },
  };
}

/** What {@link createAppCommands} needs. */
export interface AppCommandsDeps {
  /** The session commands; `newConversation` and `state` serve `/new` and `/status` (absent: "not available"). */
  sessions: CommandSessions;
  rest: REST;
  logger: Logger;
  access: ChatAccess;
  /** The session of a channel now (default: ids.ts `discordSessionAddress`). */
  sessionOf?(channelId: string): Promise<string>;
  extensions?: readonly AppCommandExtension[];
  /** Answer with the message itself when the command finishes within this, else defer. Default 1500 ms. */
  deferAfterMs?: number;
  /** DISCORD_APPROVERS: in a guild channel only they may loosen `/approval` (kit/command-dispatch.ts). */
  approvers?: readonly string[];
}

/** What happened to an interaction (logged; asserted by tests). */
export type AppCommandOutcome = 'answered' | 'deferred' | 'denied' | 'unknown' | 'failed';

/** The slash commands of one adapter. */
export interface AppCommands {
  /** Every definition: the session commands, then the extensions'. */
  readonly definitions: readonly AppCommandDefinition[];
  /**
   * Registers the definitions (bulk overwrite) globally, or in each of `guildIds` when given.
   * @throws the REST error when Discord refuses the list
   */
  register(applicationId: string, guildIds: readonly string[]): Promise<void>;
  /** Runs and answers one interaction. Never throws. */
  handle(i: CommandInvocation): Promise<AppCommandOutcome>;
}

const EPHEMERAL = 1 << 6;

/** Builds the slash commands (see the module comment). */
export function createAppCommands(deps: AppCommandsDeps): AppCommands {
  const { sessions, rest, logger, access } = deps;
  const extensions = deps.extensions ?? [];
  const definitions = [...SESSION_APP_COMMANDS, ...extensions.map((e) => e.definition)];
  const deferAfterMs = deps.deferAfterMs ?? 1500;
  const sessionOf =
    deps.sessionOf ?? ((channelId: string) => Promise.resolve(discordSessionAddress(channelId).sessionId));

  async function callback(i: CommandInvocation, type: 4 | 5, answer?: CommandAnswer): Promise<void> {
    const flags = answer?.ephemeral ? EPHEMERAL : 0;
    await rest.post(Routes.interactionCallback(i.interactionId, i.token), {
      auth: false,
      body: {
        type,
        data: { ...(answer ? { content: answer.content } : {}), flags, allowed_mentions: { parse: [] } },
      },
    });
  }

  async function editOriginal(i: CommandInvocation, answer: CommandAnswer): Promise<void> {
    await rest.patch(Routes.webhookMessage(i.applicationId, i.token, '@original'), {
      auth: false,
      body: { content: answer.content, allowed_mentions: { parse: [] } },
    });
  }

  async function run(i: CommandInvocation): Promise<CommandAnswer> {
    const sessionId = await sessionOf(i.channelId);
    const extension = extensions.find((e) => e.definition.name === i.name);
    if (extension) return extension.run(i, sessionId);
    // The slash form is the typed form: the same parser and the same code run it (commands.ts).
    const arg = i.options.text ?? i.options.mode ?? i.options.locale ?? i.options.policy ?? '';
    const command = parseCommand(`/${i.name}${arg === '' ? '' : ` ${arg}`}`);
    if (!command) return { content: `⚠️ Unknown command \`/${i.name}\`.`, ephemeral: true };
    const content = await runCommand(
      sessions,
      sessionId,
      command,
      commandUpdateIdFor(i.interactionId),
      undefined,
      {
        id: i.user.id,
        shared: !i.isDM,
        approver: (deps.approvers ?? []).includes(i.user.id),
      },
    );
    return { content, ephemeral: PRIVATE_ANSWERS.has(commandName(command)) };
  }

  async function handle(i: CommandInvocation): Promise<AppCommandOutcome> {
    const place: MessagePlace = {
      guildId: i.guildId,
      channelId: i.channelId,
      parentId: i.parentId,
      userId: i.user.id,
      isDM: i.isDM,
    };
    try {
      if (!definitions.some((d) => d.name === i.name)) {
        await callback(i, 4, { content: `⚠️ Unknown command \`/${i.name}\`.`, ephemeral: true });
        return 'unknown';
      }
      const decision = await access.check(chatPlaceOf(place));
      if (decision !== 'allowed') {
        await callback(i, 4, {
          content:
            decision === 'pairing'
              ? '🔒 You are not paired with this bot yet: send me a direct message to get a pairing code.'
              : '🔒 You are not allowed to use this bot.',
          ephemeral: true,
        });
        return 'denied';
      }
      const work = run(i).catch(
        (err: unknown): CommandAnswer => (
          logger.warn({ command: i.name, err: String(err) }, 'discord slash command failed'),
          { content: presentSessionError(err), ephemeral: true }
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      const quick = await Promise.race([
        work,
        new Promise<null>((r) => (timer = setTimeout(() => r(null), deferAfterMs))),
      ]);
      clearTimeout(timer);
      if (quick !== null) {
        await callback(i, 4, quick);
        return 'answered';
      }
      // Deferred: ephemeral-ness is fixed by the deferral, so slow answers are public unless they fail.
      await callback(i, 5);
      await editOriginal(i, await work);
      return 'deferred';
    } catch (err) {
      logger.warn(
        { command: i.name, interactionId: i.interactionId, err: String(err) },
        'discord interaction not answered',
      );
      return 'failed';
    }
  }

  return {
    definitions,
    async register(applicationId, guildIds) {
      const body = definitions.map((d) => ({ ...d, type: 1 }));
      if (guildIds.length === 0) await rest.put(Routes.applicationCommands(applicationId), { body });
      for (const g of guildIds) await rest.put(Routes.applicationGuildCommands(applicationId, g), { body });
      logger.info(
        { commands: definitions.length, guilds: guildIds.length || 'global' },
        'discord slash commands registered',
      );
    },
    handle,
  };
}

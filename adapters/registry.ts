/**
 * The chat channels Kesoku runs: one line per channel (docs/adding-a-channel.md). Processes (workers/, bin/)
 * loop over {@link CHANNELS}; nothing outside a channel's folder and this list names a channel.
 */
import { discordChannel } from './discord/channel.ts';
import { googleChatChannel } from './googlechat/channel.ts';
import { wechatChannel } from './wechat/channel.ts';
import type { ChannelDescriptor } from './kit/channel.ts';
import { API_CAPABILITIES, NO_CAPABILITIES, type ChannelCapabilities } from '../domain/channels.ts';
import { LOCAL_OPERATOR, defaultApprovalPolicy, type ApprovalPolicy } from '../domain/tool-approval.ts';
import { invalidConfiguration, parseEnv } from '../infra/config.ts';

/** Every chat channel, in start-up order. Add a channel with one line here. */
export const CHANNELS: readonly ChannelDescriptor<unknown>[] = [
  discordChannel,
  googleChatChannel,
  wechatChannel,
];

/** The descriptor of chatbot `id`, or undefined. */
export function channelById(id: string): ChannelDescriptor<unknown> | undefined {
  return CHANNELS.find((c) => c.id === id);
}

/**
 * The capabilities the session workflow gets for chatbot `chatbotId`: a channel's from its `features`, the
 * REST API's (`api`), or none for an unknown chatbot. Given to the SessionClient (`capabilities` option).
 */
export function capabilitiesOf(chatbotId: string): ChannelCapabilities {
  const channel = channelById(chatbotId);
  if (channel)
    return {
      liveProgress: channel.features.liveProgress,
      inlineDelivery: channel.features.inlineDelivery,
    };
  return chatbotId === 'api' ? API_CAPABILITIES : NO_CAPABILITIES;
}

/**
 * The approval policy of chatbot `chatbotId`'s sessions when neither the session nor `KESOKU_TOOL_APPROVAL` sets
 * one: a channel's from its `features.decidesApprovals`; `writes` for the REST API (`api`, whose clients decide
 * with POST …/approval); for the terminal client (`cli`) `off` only in a session the token-less local operator
 * created (`owner` {@link LOCAL_OPERATOR}: the person at the keyboard is the one the agent runs for), `writes` for
 * any other principal's (a token, a remote `npm run chat -- --url …`) or an unknown owner; `off` for an unknown
 * chatbot. Given to the approval activities (`approvalDefaultOf` option).
 * @param owner the API principal that created the session (db/approvals.ts getApprovalSettings)
 */
export function approvalDefaultOf(chatbotId: string, owner?: string | null): ApprovalPolicy {
  const channel = channelById(chatbotId);
  if (channel) return defaultApprovalPolicy(channel.features.decidesApprovals);
  if (chatbotId === 'cli') return defaultApprovalPolicy(owner !== LOCAL_OPERATOR);
  return defaultApprovalPolicy(chatbotId === 'api');
}

/** Session id prefixes the channels own (`discord:`); the REST API never creates a session under one. */
export function chatSessionPrefixes(): string[] {
  return CHANNELS.map((c) => c.sessionPrefix);
}

/** Every variable the channels read (their `configSchema` keys), for the unknown-setting check (infra/env-file.ts). */
export function channelVariableNames(): string[] {
  return CHANNELS.flatMap((c) => Object.keys((c.configSchema as unknown as { shape?: object }).shape ?? {}));
}

/** Message id prefixes the channels own (`discord-`); a REST client never sends an id starting with one. */
export function chatMessageIdPrefixes(): string[] {
  return CHANNELS.map((c) => c.messageIdPrefix);
}

/** Every channel's secret variables, redacted from logs (infra/logger.ts). */
export function channelSecretKeys(): string[] {
  return CHANNELS.flatMap((c) => c.secretKeys);
}

/** Chatbot id → the metadata key of the platform message id on stored user questions (activities/persistence.ts). */
export function platformMessageIdKeys(): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const c of CHANNELS) if (c.platformMessageIdKey) keys[c.id] = c.platformMessageIdKey;
  return keys;
}

/** A channel with its parsed configuration. */
export interface ConfiguredChannel {
  channel: ChannelDescriptor<unknown>;
  config: unknown;
  enabled: boolean;
}

/**
 * Parses every channel's variables (its `configSchema`), optionally only the channels named in `only`.
 * @param env defaults to `process.env`
 * @throws ConfigError listing every invalid variable of every channel, or naming an unknown channel in `only`
 */
export function loadChannelConfigs(
  env: NodeJS.ProcessEnv = process.env,
  only?: readonly string[],
): ConfiguredChannel[] {
  const unknown = (only ?? []).filter((id) => !channelById(id));
  if (unknown.length > 0)
    throw invalidConfiguration([
      `unknown channel ${unknown.join(', ')} (known: ${CHANNELS.map((c) => c.id).join(', ')})`,
    ]);
  const problems: string[] = [];
  const configured: ConfiguredChannel[] = [];
  for (const channel of CHANNELS) {
    if (only && !only.includes(channel.id)) continue;
    const parsed = parseEnv(channel.configSchema, env);
    if (!parsed.ok) problems.push(...parsed.problems);
    else configured.push({ channel, config: parsed.value, enabled: channel.enabled(parsed.value) });
  }
  if (problems.length > 0) throw invalidConfiguration(problems);
  return configured;
}

/**
 * The channel descriptor: everything Kesoku's processes need to know about one chat channel (Discord, Google
 * Chat, WeChat, …). Each channel is one folder under adapters/ exporting one {@link ChannelDescriptor};
 * adapters/registry.ts lists them, and workers/ loops over that list — nothing outside a channel's folder names
 * the channel. docs/adding-a-channel.md walks through writing one.
 *
 * The session workflow never sees a descriptor: it receives the channel's {@link ChannelCapabilities} (the part
 * that decides how a turn is delivered) in its input.
 */
import type { z } from 'zod';
import type { ChannelSink } from '../../activities/sink.ts';
import type { ChannelCapabilities } from '../../domain/channels.ts';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import type { SessionClient } from '../../infra/session-client.ts';

/** How a channel counts the length of a message: UTF-16 code units (Discord), characters, or UTF-8 bytes (WeChat). */
export type LengthUnit = 'utf16' | 'codepoints' | 'utf8_bytes';

/** The Markdown a channel renders: Discord's, Google Chat's text formatting, plain text only, or a terminal. */
export type MarkdownDialect = 'discord' | 'google_chat' | 'plain' | 'terminal';

/**
 * What a channel's platform can do; the shared kit (splitting, live status, visibility) reads these, and the
 * session client hands the {@link ChannelCapabilities} part (`liveProgress`, `inlineDelivery`) to the session
 * workflow in its input (adapters/registry.ts `capabilitiesOf`). A chat channel's `inlineDelivery` is false:
 * its deliveries call the platform.
 */
export interface ChannelFeatures extends ChannelCapabilities {
  /** Sent messages can be edited in place (live status ⏳ → ✅/❌). */
  editsInPlace: boolean;
  /** Longest message the platform takes, in `lengthUnit`. */
  maxMessageLength: number;
  lengthUnit: LengthUnit;
  markdown: MarkdownDialect;
  /** Files can be received and sent. */
  attachments: boolean;
  /** Interactive buttons (message components, card buttons). */
  buttons: boolean;
  /**
   * The channel's people can decide a tool call waiting for approval where they talk (buttons, a typed
   * `/approve`; the sink implements `askApproval`). Its sessions then default to approval policy `writes`, else
   * `off` (a request could only time out); domain/tool-approval.ts `defaultApprovalPolicy`.
   */
  decidesApprovals: boolean;
}

/** What a channel gets when it starts: its parsed configuration and the process's shared parts. */
export interface ChannelContext<C> {
  /** The channel's own configuration, parsed with its `configSchema` from the environment. */
  config: C;
  /** The data directory (attachments staged under it). */
  dataDir: string;
  pool: Pool;
  /** Submits messages and commands to session workflows. */
  sessions: SessionClient;
  logger: Logger;
  /** New conversations (`/new`) one chat user may start per 24 hours (KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY). */
  newConversationsPerDay?: number;
  /** Sessions and channels with a shared memory scope, which `/memory` lists too (KESOKU_MEMORY_SHARED_SCOPES). */
  memorySharedScopes?: readonly string[];
}

/**
 * A running channel ingress (a gateway connection, an HTTP endpoint).
 *
 * Ingress rules (docs/adding-a-channel.md "Ingress"): the session id is `sessionPrefix` + the platform's
 * conversation id; every platform message is submitted with a stable Kesoku message id derived from the
 * platform's id (`<channel>-<platform id>`), so a re-delivered message is de-duplicated by the session.
 */
export interface RunningChannel {
  /**
   * The sink sharing the ingress's platform client; the worker of the same process registers it. Its `close`
   * (when present) is the ingress's to call from `stop`.
   */
  sink?: ChannelSink;
  /** The ingress's state for `/healthz` (`ok` false when it cannot take messages). */
  health?(): Promise<{ ok: boolean; [detail: string]: unknown }>;
  /** Where an HTTP ingress listens, for the start banner. */
  url?: string;
  /** Stops taking messages, waits for the ones being handled, closes connections. */
  stop(): Promise<void>;
}

/**
 * One chat channel.
 *
 * @typeParam C the channel's configuration as its `configSchema` parses it
 */
export interface ChannelDescriptor<C = unknown> {
  /** The chatbot id stored on every message (`discord`, `google_chat`, `wechat`); docs/message-model.md §3. */
  id: string;
  /** A name for people (`Discord`, `Google Chat`). */
  title: string;
  /** Session ids of this channel start with this prefix (`discord:`); REST never creates such sessions. */
  sessionPrefix: string;
  /**
   * The Kesoku message ids this channel derives from platform ids start with this (`discord-`): a REST client
   * may not send an id so prefixed, which would take a platform message's id before it arrives.
   */
  messageIdPrefix: string;
  features: ChannelFeatures;
  /**
   * Parses the channel's variables out of the whole environment (zod object schema over `process.env`); the
   * error names the variable. Keys the channel reads are also redacted from logs ({@link secretKeys}).
   */
  configSchema: z.ZodType<C>;
  /** Variables whose values are secrets (tokens, keys), redacted from logs. */
  secretKeys: readonly string[];
  /** True when the configuration turns the channel on (e.g. its token is set). */
  enabled(config: C): boolean;
  /** What turns the channel on, for the start banner when it is off (`set DISCORD_TOKEN to enable`). */
  disabledHint?: string;
  /**
   * The metadata key under which a stored user question keeps the platform's id of the message it came from
   * (the inbound message's `platformMessageId`); docs/message-model.md §3.3. E.g. `discord_message_id`.
   * Without it the platform id is not stored.
   */
  platformMessageIdKey?: string;
  /** Starts the ingress (gateway, HTTP endpoint); resolves once it takes messages. */
  start(ctx: ChannelContext<C>): Promise<RunningChannel>;
  /**
   * A sink for a worker process that runs no ingress of this channel (delivery over the platform's API only).
   * The process calls `close` (when present) after its worker stopped and before the pool closes.
   */
  createSink(ctx: Omit<ChannelContext<C>, 'sessions'>): ChannelSink & { close?(): Promise<void> };
}

/*
 * The sink's rules (activities/sink.ts ChannelSink; docs/adding-a-channel.md "Sink"):
 * - `send` is idempotent per message id: a retried delivery must find what an earlier attempt posted (record
 *   each posted chunk, e.g. db/deliveries.ts, or use the platform's client-assigned message ids) and post only
 *   the rest.
 * - A refusal that retrying cannot cure (deleted conversation, missing permission, content the platform never
 *   takes) is thrown as `new SinkError('permanent', …)`; delivery then sends the fallback once and records the
 *   failure. One that says the recipient cannot be reached at all for now (`{ recipientUnreachable: true }`)
 *   gets no fallback and no crash notice. Anything else thrown counts as transient and is retried.
 * - `presentProgress` (channels with `features.liveProgress`) renders thoughts and tool lines and returns the
 *   ids it shows; it never throws. A channel that hides them (docs/message-model.md §5.3 `silent`) returns every
 *   id so they become `delivered` without being sent. `presentationFor(channel.id, message)` (adapters/kit/
 *   presentation.ts) says which.
 * - Notifications (the §5.3 "system interaction log") come through `send`: a `live` channel renders them into the
 *   turn's status (adapters/kit/stored-status.ts `showNotice`), falling back to a message of their own when the
 *   status cannot be written; a `silent` channel returns without sending (delivery marks them `delivered`).
 */

/**
 * Discord egress: the {@link ChannelSink} the delivery activities call for sessions with chatbot id "discord".
 * It needs only a REST client and the delivery records in Postgres, so any worker process can build it without
 * the gateway, and several workers can serve one turn.
 *
 * - `send`: the final reply as a direct reply to the user's message with the turn-metrics header; crash notices
 *   as plain replies (no header). Split into ≤ 2000-character chunks; the Discord id of each chunk is recorded
 *   right after it was posted, and a retry skips the recorded chunks (the nonce only covers the moment between
 *   post and record). Before a turn's last message goes out, the turn's live status is brought to its final
 *   state and typing stops, on every worker. A notification (docs/message-model.md §5.3 "system interaction
 *   log", `live` on Discord) is a line of the turn's live status — the stop notice also ends the tools still
 *   running ⏹️ — posted as a status message when the turn has none yet; when the status cannot be written, the
 *   notice goes out as a new status message of its own, so it is never lost. A notification without a turn is
 *   a plain message.
 * - `sendFallback`: the body alone as a plain message (no reply, no header), under its own nonces and records.
 * - `presentProgress`: the turn's live status (live-status.ts), stored in Postgres and continued by whichever
 *   worker runs the next step (adapters/kit/stored-status.ts); the status writes of one turn are serialised by a
 *   Postgres lock. Never throws.
 * - `askApproval`, `showApprovalOutcome`: the approval message of a tool call, with its buttons (approvals.ts).
 * - `setActivity`: the typing indicator. Whether a channel should show it lives in Postgres: the worker that
 *   started it refreshes it every `typingIntervalMs` while the stored state still says so, so a stop from any
 *   worker (or the turn's last message) ends it within one interval; `typingMaxMs` bounds it regardless.
 *
 * The message a reply refers to: the turn trigger's `reply_to` / `discord_message_id` metadata when a loader is
 * given, else the Discord id inside the trigger's Kesoku id (`discord-<snowflake>`, see ingress.ts).
 */
import type { REST } from 'discord.js';
import type { ChannelSink } from '../../activities/sink.ts';
import { messageKind } from '../../domain/message-kind.ts';
import type { Message } from '../../domain/message.ts';
import type { DeliveryStore } from '../../db/deliveries.ts';
import type { SessionRow } from '../../db/sessions.ts';
import type { Logger } from '../../infra/logger.ts';
import { turnEndOf } from '../kit/live-status.ts';
import { createStoredLiveStatus } from '../kit/stored-status.ts';
import { authorIdOf, postApprovalAsk, showApprovalOutcome } from './approvals.ts';
import { metricsHeader, renderEntry } from './format.ts';
import { discordIdOfInbound } from './ids.ts';
import { LiveStatus, statusKey, type LiveStatusDeps, type LiveStatusState } from './live-status.ts';
import { showPlace } from './reactions.ts';
import { QUIET_FLAGS, sendText, sendTyping } from './rest.ts';
import { splitMessage } from './split.ts';

/** The file name of a final reply sent as an attachment. */
export const LONG_REPLY_FILE = 'reply.md';

/** The short message that carries a long final reply as a {@link LONG_REPLY_FILE} attachment. */
export function longReplyNote(header: string | null, body: string): string {
  const note = `📎 The answer is long (${Array.from(body).length} characters), so it is attached as \`${LONG_REPLY_FILE}\`.`;
  return header ? `${header}\n${note}` : note;
}

/**
 * Where the Discord message of a stored user question is: its id and channel (`channel_context.message_channel_id`,
 * else `fallbackChannelId`). Null for messages that did not come from Discord.
 */
export function discordMessageOf(
  m: Message,
  fallbackChannelId: string,
): { channelId: string; messageId: string } | null {
  const md = m.metadata ?? {};
  const messageId =
    typeof md.discord_message_id === 'string' ? md.discord_message_id : discordIdOfInbound(m.id);
  if (!messageId) return null;
  const ctx = md.channel_context as { message_channel_id?: unknown } | undefined;
  const channelId = typeof ctx?.message_channel_id === 'string' ? ctx.message_channel_id : fallbackChannelId;
  return { channelId, messageId };
}

/** What {@link createDiscordSink} needs: a REST client, a logger and the delivery records. */
export interface DiscordSinkOptions {
  rest: REST;
  logger: Logger;
  /** Posted chunks, live statuses and typing state, shared by every worker (db/deliveries.ts). */
  store: DeliveryStore;
  /** Reads a stored message (the turn's trigger) by id; improves reply targets. Optional. */
  loadMessage?: (id: string) => Promise<Message | null>;
  /** ms between writes of a live status. Default 1000. */
  editIntervalMs?: number;
  /** Bound on each REST call of a live status, ms. Default 15 000 (the delivery activity has 1 minute). */
  statusRequestTimeoutMs?: number;
  /** Longest wait for another worker’s write of the same status, ms. Default 15 000. */
  statusLockWaitMs?: number;
  /** ms between typing refreshes. Default 8000 (the indicator lasts about 10 s). */
  typingIntervalMs?: number;
  /** Longest time one typing indicator is kept up without the turn ending, ms. Default 30 minutes. */
  typingMaxMs?: number;
  /**
   * A final reply longer than this many Discord messages goes out as one short message with the whole answer as
   * a `reply.md` attachment (DISCORD_MAX_CHUNKS). Default 3.
   */
  maxChunks?: number;
  /**
   * A session's open inputs (`pending_agent` and `processing`, oldest first; db/messages.ts `listOpenInputs`):
   * with it, the place-in-line reactions are refreshed when a turn starts (reactions.ts). Optional.
   */
  openInputs?: (sessionId: string) => Promise<Message[]>;
}

/** A {@link ChannelSink} with a shutdown hook. */
export interface DiscordSink extends ChannelSink {
  /** Writes pending (throttled) status edits now and stops this process's typing loops (process shutdown). */
  close(): Promise<void>;
}

/** The typing state's key for a Discord channel. */
const typingKey = (channelId: string) => `discord:${channelId}`;

/**
 * Builds the Discord sink (see the module comment). `send` and `sendFallback` throw a DiscordSendError (a
 * SinkError) when a chunk could not be posted; `presentProgress` and `setActivity` never throw.
 */
export function createDiscordSink(opts: DiscordSinkOptions): DiscordSink {
  const { rest, logger, store } = opts;
  const statusDeps: LiveStatusDeps = {
    rest,
    logger,
    editIntervalMs: opts.editIntervalMs ?? 1000,
    requestTimeoutMs: opts.statusRequestTimeoutMs ?? 15_000,
    ledger: store,
  };
  const lockWaitMs = opts.statusLockWaitMs ?? 15_000;
  const typingIntervalMs = opts.typingIntervalMs ?? 8000;
  const typingMaxMs = opts.typingMaxMs ?? 30 * 60_000;
  const maxChunks = opts.maxChunks ?? 3;
  /** This process's place-in-line refreshes, chained per channel so two turn starts do not interleave. */
  const placeRefreshes = new Map<string, Promise<void>>();

  /** Brings the place-in-line reactions of the session's open inputs up to date (a turn just started). */
  function refreshPlaces(session: SessionRow): void {
    const openInputs = opts.openInputs;
    if (!openInputs) return;
    const key = session.channel_id;
    const run = async () => {
      const open = await openInputs(session.id);
      const running = open.some((m) => m.status === 'processing') ? 1 : 0;
      let waiting = 0;
      for (const m of open) {
        const where = discordMessageOf(m, session.channel_id);
        if (!where) continue;
        const place = m.status === 'processing' ? 1 : running + ++waiting;
        await showPlace(rest, logger, where.channelId, where.messageId, place);
      }
    };
    const next = (placeRefreshes.get(key) ?? Promise.resolve())
      .then(run)
      .catch((err: unknown) => logger.debug({ key, err: String(err) }, 'queue reactions not refreshed'));
    placeRefreshes.set(key, next);
    void next.then(() => {
      if (placeRefreshes.get(key) === next) placeRefreshes.delete(key);
    });
  }
  const typing = new Map<string, { timer: NodeJS.Timeout; generation: number }>();
  /** The turns' live statuses, restored from Postgres for each write (adapters/kit/stored-status.ts). */
  const statuses = createStoredLiveStatus<LiveStatus>({
    store,
    logger,
    lockWaitMs,
    label: 'live status',
    restore: async (turnId, session, stored, locked) =>
      new LiveStatus(
        { ...statusDeps, ledger: locked },
        turnId,
        session.channel_id,
        stored ? { state: stored.state as LiveStatusState, lastWriteAt: stored.lastEditAt } : null,
        await locked.listPosts(statusKey(turnId)),
      ),
  });

  function stopLocalTyping(channelId: string, generation?: number): void {
    const t = typing.get(channelId);
    if (!t || (generation !== undefined && t.generation !== generation)) return;
    clearInterval(t.timer);
    typing.delete(channelId);
  }

  async function stopTypingEverywhere(channelId: string): Promise<void> {
    stopLocalTyping(channelId);
    await store.stopTyping(typingKey(channelId));
  }

  /**
   * A notification of a turn, as a line of the turn's live status; when the status cannot take it, as a new
   * status message holding the notice (its own nonces and records, so a retry never posts it twice).
   * @throws DiscordSendError when neither could be posted
   */
  async function sendNotice(message: Message, session: SessionRow): Promise<void> {
    if (await statuses.showNotice(message, session)) return;
    logger.warn(
      { turnId: message.turn_id, messageId: message.id },
      'the live status did not take the notice; posting it as a status message of its own',
    );
    await sendText(rest, logger, {
      channelId: session.channel_id,
      content: noticeLine(message),
      nonceKey: `notice:${message.id}`,
      flags: QUIET_FLAGS,
      ledger: store,
    });
  }

  /**
   * The Discord message a reply to `message` refers to, or null. A message that started a thread is answered
   * inside the thread without a reference (the thread opens with it).
   */
  async function replyTarget(message: Message): Promise<string | null> {
    const triggerId = message.turn_id ?? message.parent_id;
    if (!triggerId) return null;
    if (opts.loadMessage) {
      const trigger = await opts.loadMessage(triggerId).catch(() => null);
      const md = trigger?.metadata ?? {};
      if ((md.channel_context as { started_thread?: unknown } | undefined)?.started_thread === true)
        return null;
      const id = md.reply_to ?? md.discord_message_id;
      if (typeof id === 'string' && id !== '') return id;
    }
    return discordIdOfInbound(triggerId);
  }

  return {
    async send(message, session) {
      const channelId = session.channel_id;
      const kind = messageKind(message);
      if (turnEndOf(message) !== false) {
        await stopTypingEverywhere(channelId).catch((err: unknown) =>
          logger.warn({ channelId, err: String(err) }, 'could not record the end of typing'),
        );
      }
      if (kind === 'notification' && message.turn_id !== null) return sendNotice(message, session);
      const metrics = message.metadata?.turn_metrics;
      const header = kind === 'final_reply' && metrics ? metricsHeader(metrics) : null;
      const content = header ? `${header}\n${message.content}` : message.content;
      const long = kind === 'final_reply' && splitMessage(content).length > maxChunks;
      await sendText(rest, logger, {
        channelId,
        content: long ? longReplyNote(header, message.content) : content,
        ...(long ? { file: { name: LONG_REPLY_FILE, data: message.content } } : {}),
        nonceKey: message.id,
        replyTo: await replyTarget(message),
        pingReplied: kind === 'final_reply',
        ledger: store,
      });
    },

    async settleProgress(message, session) {
      await statuses.finishTurn(message, session);
    },

    async sendFallback(message, session) {
      await sendText(rest, logger, {
        channelId: session.channel_id,
        content: message.content,
        nonceKey: `fallback:${message.id}`,
        ledger: store,
      });
    },

    async presentProgress(messages: Message[], session: SessionRow) {
      return statuses.present(messages, session);
    },

    async presentToolOutput(session, turnId, toolCallMessageId, progress) {
      await statuses.showToolOutput(turnId, session, toolCallMessageId, progress);
    },

    async setActivity(session, active) {
      const channelId = session.channel_id;
      const key = typingKey(channelId);
      if (!active) return stopTypingEverywhere(channelId);
      refreshPlaces(session);
      const generation = await store.startTyping(key);
      stopLocalTyping(channelId);
      const since = Date.now();
      const refresh = async () => {
        if (Date.now() - since > typingMaxMs) return stopLocalTyping(channelId, generation);
        const wanted = await store.typingWanted(key, generation).catch(() => false);
        if (!wanted) return stopLocalTyping(channelId, generation);
        if (typing.get(channelId)?.generation !== generation) return;
        await sendTyping(rest, channelId).catch((err: unknown) =>
          logger.debug({ channelId, err: String(err) }, 'typing failed'),
        );
      };
      const timer = setInterval(() => void refresh(), typingIntervalMs);
      timer.unref?.();
      typing.set(channelId, { timer, generation });
      await sendTyping(rest, channelId).catch((err: unknown) =>
        logger.debug({ channelId, err: String(err) }, 'typing failed'),
      );
    },

    // Tool-call approval: the message with the buttons, replying to the requester; its edit once decided
    // (./approvals.ts).
    async askApproval(call, approval, session) {
      const replyTo = await replyTarget(call);
      const trigger =
        !replyTo && call.turn_id ? await opts.loadMessage?.(call.turn_id).catch(() => null) : null;
      const requesterId = authorIdOf(trigger ?? null);
      await postApprovalAsk(rest, logger, store, {
        channelId: session.channel_id,
        replyTo,
        requesterId,
        call,
        approval,
      });
    },

    async showApprovalOutcome(call, approval, session) {
      await showApprovalOutcome(rest, store, session.channel_id, call, approval);
    },

    async close() {
      for (const channelId of [...typing.keys()]) stopLocalTyping(channelId);
      await Promise.allSettled([...placeRefreshes.values()]);
      await statuses.close();
    },
  };
}

/** A notification as the one line of a status message of its own (the fallback of {@link createDiscordSink}). */
function noticeLine(message: Message): string {
  const text = message.content.trim() === '' ? '…' : message.content;
  return renderEntry({ kind: 'notice', key: message.id, text });
}

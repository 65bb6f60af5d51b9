/**
 * Google Chat egress: the {@link ChannelSink} the delivery activities call for sessions with chatbot id
 * `google_chat`. It needs only the Chat REST client and the delivery records in Postgres, so any worker can
 * build it, and several workers can serve one turn.
 *
 * - `send`: the final reply as formatted text (format.ts `toChatText`) in the session's thread, its first line
 *   the turn metrics; notifications and crash notices as plain text. Split at Chat's 4096-character limit; each
 *   chunk is created with a client-assigned id from the Kesoku message id and the chunk index and recorded in
 *   platform_posts right after, so a retry skips what is posted and a repeated create meets ALREADY_EXISTS.
 *   Before a turn's last message goes out, the turn's card is brought to its final state.
 * - `sendFallback`: the body alone as plain text in the space (no thread, no header), under its own ids.
 * - `presentProgress`: the turn's intermediate card (live-card.ts), stored in Postgres; the card writes of one
 *   turn are serialised by a Postgres lock. Never throws.
 * Chat has no typing indicator, so there is no `setActivity`.
 */
import type { ChannelSink } from '../../activities/sink.ts';
import { ids as persistenceIds } from '../../activities/persistence.ts';
import type { DeliveryStore } from '../../db/deliveries.ts';
import type { SessionRow } from '../../db/sessions.ts';
import { messageKind } from '../../domain/message-kind.ts';
import type { Message } from '../../domain/message.ts';
import type { ToolState } from '../../domain/presentation.ts';
import type { Logger } from '../../infra/logger.ts';
import { splitMessage } from '../discord/split.ts';
import { createMessage, type ChatApi } from './api.ts';
import { metricsLine, toChatText } from './format.ts';
import { clientMessageId, spaceOf } from './ids.ts';
import { LiveCard, cardKey, type LiveCardState, type WriteMode } from './live-card.ts';

/** Chat's limit on a text message, characters (counted here in UTF-16 code units, never fewer). */
export const GOOGLE_CHAT_MAX_TEXT = 4096;

/** What {@link createGoogleChatSink} needs. */
export interface GoogleChatSinkOptions {
  api: ChatApi;
  logger: Logger;
  /** Posted chunks and cards, shared by every worker (db/deliveries.ts). */
  store: DeliveryStore;
  /** ms between writes of a card. Default 1000. */
  editIntervalMs?: number;
  /** Bound on each API call, ms. Default 15 000 (the delivery activity has 1 minute). */
  requestTimeoutMs?: number;
  /** Longest wait for another worker's write of the same card, ms. Default 15 000. */
  statusLockWaitMs?: number;
}

/** A {@link ChannelSink} with a shutdown hook. */
export interface GoogleChatSink extends ChannelSink {
  /** Writes pending (throttled) card patches now. */
  close(): Promise<void>;
}

/** Where a session's messages go: its space, and its thread (null for a DM session). */
export function placeOf(session: Pick<SessionRow, 'channel_id'>): { space: string; thread: string | null } {
  const channel = session.channel_id;
  return { space: spaceOf(channel), thread: channel.includes('/threads/') ? channel : null };
}

/** What {@link sendText} posts. */
export interface TextPost {
  space: string;
  thread: string | null;
  text: string;
  /** Kesoku key of the post (a message id, `fallback:<id>`): the client ids and records derive from it. */
  key: string;
  timeoutMs: number;
  /** Records of posted chunks; without it every chunk is created (a repeat meets ALREADY_EXISTS). */
  ledger?: Pick<DeliveryStore, 'listPosts' | 'recordPost'>;
}

/**
 * Posts `text` in chunks of at most {@link GOOGLE_CHAT_MAX_TEXT} characters (adapters/discord/split.ts rules:
 * paragraphs, lines, words; code fences balanced), skipping chunks already recorded.
 * @throws GoogleChatSendError
 */
export async function sendText(api: ChatApi, p: TextPost): Promise<void> {
  const chunks = splitMessage(p.text, GOOGLE_CHAT_MAX_TEXT);
  const posted = p.ledger ? await p.ledger.listPosts(p.key) : new Map<number, string>();
  for (const [i, text] of chunks.entries()) {
    if (posted.has(i)) continue;
    const r = await createMessage(api, {
      parent: p.space,
      thread: p.thread,
      messageId: clientMessageId(p.key, i),
      text,
      timeoutMs: p.timeoutMs,
    });
    await p.ledger?.recordPost({
      key: p.key,
      chunk: i,
      channelId: p.thread ?? p.space,
      platformMessageId: r.name,
    });
  }
}

/**
 * Builds the Google Chat sink (see the module comment). `send` and `sendFallback` throw a GoogleChatSendError
 * (a SinkError); `presentProgress` never throws.
 */
export function createGoogleChatSink(opts: GoogleChatSinkOptions): GoogleChatSink {
  const { api, logger, store } = opts;
  const editIntervalMs = opts.editIntervalMs ?? 1000;
  const timeoutMs = opts.requestTimeoutMs ?? 15_000;
  const lockWaitMs = opts.statusLockWaitMs ?? 15_000;
  /** Deferred (throttled) card writes of this process, by turn. */
  const pending = new Map<string, { timer: NodeJS.Timeout; flush: () => Promise<void> }>();

  /** Restores a turn's card under its lock, lets `change` update it, writes Chat and stores the result. */
  async function withCard(
    turnId: string,
    session: SessionRow,
    change: (c: LiveCard) => void,
    mode: WriteMode,
  ): Promise<LiveCard> {
    return store.withLiveStatusLock(turnId, lockWaitMs, async (locked) => {
      const stored = await locked.loadLiveStatus(turnId);
      const posts = await locked.listPosts(cardKey(turnId));
      const card = new LiveCard(
        { api, logger, editIntervalMs, requestTimeoutMs: timeoutMs, ledger: locked },
        turnId,
        placeOf(session),
        stored ? { state: stored.state as LiveCardState, lastWriteAt: stored.lastEditAt } : null,
        posts.get(0) ?? null,
      );
      change(card);
      if (card.empty) return card;
      const save = () =>
        locked.saveLiveStatus({
          turnId,
          sessionId: session.id,
          channelId: session.channel_id,
          state: card.toState(),
          lastEditAt: card.lastWriteAt,
        });
      // Stored before Chat is written: if this worker dies now, the next writer still has the new lines.
      await save();
      const dueInMs = await card.write(mode);
      await save();
      if (dueInMs !== null) schedule(turnId, session, dueInMs);
      return card;
    });
  }

  function schedule(turnId: string, session: SessionRow, dueInMs: number): void {
    if (pending.has(turnId)) return;
    const flush = async (mode: WriteMode) => {
      const entry = pending.get(turnId);
      if (entry) clearTimeout(entry.timer);
      pending.delete(turnId);
      await withCard(turnId, session, () => undefined, mode).catch((err: unknown) =>
        logger.warn({ turnId, err: String(err) }, 'google chat card update failed'),
      );
    };
    const timer = setTimeout(() => void flush('throttled'), dueInMs);
    timer.unref?.();
    pending.set(turnId, { timer, flush: () => flush('now') });
  }

  return {
    async send(message, session) {
      const kind = messageKind(message);
      const turnId = message.turn_id;
      const endsTurn =
        turnId !== null &&
        (kind === 'final_reply' ||
          kind === 'crash_notice' ||
          (kind === 'notification' && message.id === persistenceIds.notice(turnId)));
      if (endsTurn && turnId !== null) {
        const endState: Exclude<ToolState, 'running' | 'ok'> | null =
          kind === 'final_reply' ? null : kind === 'crash_notice' ? 'failed' : 'interrupted';
        const deferred = pending.get(turnId);
        if (deferred) {
          clearTimeout(deferred.timer);
          pending.delete(turnId);
        }
        // Best effort: a card that cannot be finished must not hold the reply back.
        await withCard(
          turnId,
          session,
          (c) => (endState ? c.markRunning(endState) : undefined),
          'final',
        ).catch((err: unknown) =>
          logger.warn({ turnId, err: String(err) }, 'could not finish the google chat card'),
        );
      }
      const metrics = message.metadata?.turn_metrics;
      const body = kind === 'final_reply' ? toChatText(message.content) : message.content;
      const text = kind === 'final_reply' && metrics ? `${metricsLine(metrics)}\n${body}` : body;
      await sendText(api, { ...placeOf(session), text, key: message.id, timeoutMs, ledger: store });
    },

    async sendFallback(message, session) {
      await sendText(api, {
        space: placeOf(session).space,
        thread: null,
        text: message.content,
        key: `fallback:${message.id}`,
        timeoutMs,
        ledger: store,
      });
    },

    async presentProgress(messages: Message[], session: SessionRow) {
      const byTurn = new Map<string, Message[]>();
      for (const m of messages) {
        if (m.turn_id === null) continue;
        byTurn.set(m.turn_id, [...(byTurn.get(m.turn_id) ?? []), m]);
      }
      const shown: string[] = [];
      for (const [turnId, list] of byTurn) {
        try {
          const card = await withCard(turnId, session, (c) => c.apply(list), 'throttled');
          if (!card.broken) shown.push(...list.map((m) => m.id));
        } catch (err) {
          logger.warn({ turnId, err: String(err) }, 'google chat card not updated');
        }
      }
      return shown;
    },

    async close() {
      await Promise.allSettled([...pending.values()].map((p) => p.flush()));
    },
  };
}

/**
 * Google Chat egress: the {@link ChannelSink} the delivery activities call for sessions with chatbot id
 * `google_chat`. It needs only the Chat REST client and the delivery records in Postgres, so any worker can
 * build it, and several workers can serve one turn.
 *
 * - `send`: the final reply as formatted text (format.ts `toChatText`) in the session's thread, its first line
 *   the turn metrics; crash notices as plain text. Split at Chat's 4096-character limit; each chunk is created
 *   with a client-assigned id from the Kesoku message id and the chunk index and recorded in platform_posts
 *   right after, so a retry skips what is posted and a repeated create meets ALREADY_EXISTS. Before a turn's
 *   last message goes out, the turn's card is brought to its final state. A notification (docs/message-model.md
 *   §5.3 "system interaction log", `live` on Google Chat) is a line of the turn's intermediate card — the stop
 *   notice also ends the tools still running ⏹️ — created when the turn has no card yet; when the card cannot
 *   be written, the notice goes out as a plain text message in the thread instead, so it is never lost. A
 *   notification without a turn is a plain text message.
 * - `sendFallback`: the body alone as plain text in the space (no thread, no header), under its own ids.
 * - `presentProgress`: the turn's intermediate card (live-card.ts), stored in Postgres (adapters/kit/
 *   stored-status.ts); the card writes of one turn are serialised by a Postgres lock. Never throws.
 * Chat has no typing indicator, so there is no `setActivity`.
 */
import type { ChannelSink } from '../../activities/sink.ts';
import type { DeliveryStore } from '../../db/deliveries.ts';
import type { SessionRow } from '../../db/sessions.ts';
import { messageKind } from '../../domain/message-kind.ts';
import type { Message } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import { markdownProtectedPatterns, splitText } from '../kit/split.ts';
import { createStoredLiveStatus } from '../kit/stored-status.ts';
import { createMessage, type ChatApi } from './api.ts';
import { metricsLine, toChatText } from './format.ts';
import { clientMessageId, spaceOf } from './ids.ts';
import { LiveCard, cardKey, type LiveCardState } from './live-card.ts';

/** Chat's limit on a text message, characters (counted here in UTF-16 code units, never fewer). */
export const GOOGLE_CHAT_MAX_TEXT = 4096;

/** Chat's mention token (`<users/123>`, `<users/all>`), kept whole besides common Markdown's spans. */
const GOOGLE_CHAT_TOKENS = ['<users/[^\\s<>]{1,128}>'];

const PROTECTED = markdownProtectedPatterns(GOOGLE_CHAT_MAX_TEXT, GOOGLE_CHAT_TOKENS);

/** Splits `text` into Chat messages of at most `maxLength` characters (kit/split.ts, code fences balanced). */
export function splitChatText(text: string, maxLength: number = GOOGLE_CHAT_MAX_TEXT): string[] {
  return splitText(text, { maxLength, unit: 'utf16', protectedPatterns: PROTECTED, codeFences: true });
}

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
 * Posts `text` in chunks of at most {@link GOOGLE_CHAT_MAX_TEXT} characters ({@link splitChatText}:
 * paragraphs, lines, words; code fences balanced), skipping chunks already recorded.
 * @throws GoogleChatSendError
 */
export async function sendText(api: ChatApi, p: TextPost): Promise<void> {
  const chunks = splitChatText(p.text);
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
  /** The turns' cards, restored from Postgres for each write (adapters/kit/stored-status.ts). */
  const cards = createStoredLiveStatus<LiveCard>({
    store,
    logger,
    lockWaitMs,
    label: 'google chat card',
    restore: async (turnId, session, stored, locked) =>
      new LiveCard(
        { api, logger, editIntervalMs, requestTimeoutMs: timeoutMs, ledger: locked },
        turnId,
        placeOf(session),
        stored ? { state: stored.state as LiveCardState, lastWriteAt: stored.lastEditAt } : null,
        (await locked.listPosts(cardKey(turnId))).get(0) ?? null,
      ),
  });

  return {
    async send(message, session) {
      const kind = messageKind(message);
      if (kind === 'notification' && message.turn_id !== null) {
        if (await cards.showNotice(message, session)) return;
        logger.warn(
          { turnId: message.turn_id, messageId: message.id },
          'the card did not take the notice; posting it as a message of its own',
        );
        const text = message.content.trim() === '' ? '…' : message.content;
        await sendText(api, {
          ...placeOf(session),
          text,
          key: `notice:${message.id}`,
          timeoutMs,
          ledger: store,
        });
        return;
      }
      const metrics = message.metadata?.turn_metrics;
      const body = kind === 'final_reply' ? toChatText(message.content) : message.content;
      const text = kind === 'final_reply' && metrics ? `${metricsLine(metrics)}\n${body}` : body;
      await sendText(api, { ...placeOf(session), text, key: message.id, timeoutMs, ledger: store });
    },

    async settleProgress(message, session) {
      await cards.finishTurn(message, session);
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
      return cards.present(messages, session);
    },

    async presentToolOutput(session, turnId, toolCallMessageId, progress) {
      await cards.showToolOutput(turnId, session, toolCallMessageId, progress);
    },

    async close() {
      await cards.close();
    },
  };
}

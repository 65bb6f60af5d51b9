/**
 * WeChat egress: the {@link ChannelSink} the delivery activities call for sessions with chatbot id `wechat`
 * (docs/message-model.md §4.3 and §5.3, WeChat column).
 *
 * - `send`: final replies and crash notices as plain text (Markdown stripped, text.ts), in chunks
 *   of at most {@link WECHAT_MAX_TEXT_BYTES} UTF-8 bytes, sent in order through the customer-service message API
 *   to the session's user (the session's channel id is the user's OpenID). Each chunk is recorded in Postgres
 *   (db/deliveries.ts `platform_posts`, key = the Kesoku message id) right after WeChat accepted it, and a retry
 *   skips the recorded chunks, so a retried delivery never sends a chunk twice — except the one chunk whose
 *   acceptance was lost in transit (the API has no idempotency key), which is sent again rather than dropped.
 *   Notifications (the stop notice, the compaction notice: §5.3 "system interaction log", hidden on WeChat) are
 *   not sent: `send` returns at once and the delivery activity marks them `delivered` silently.
 * - `sendFallback`: the same text under its own records (key `fallback:<id>`).
 * - `presentProgress`: thoughts, tool calls, tool output and system logs are never sent on WeChat; every id is
 *   returned as shown, so the delivery activity marks them `delivered` silently.
 * - `askApproval`, `showApprovalOutcome`: tool-call approval as plain texts (approvals.ts): the request, sent once
 *   per call (key `approval:<call id>`), answered by typing `/approve`, `/deny` or `/always`; the outcome only when
 *   the follower did not decide it themselves.
 * No typing indicator.
 */
import type { ChannelSink } from '../../activities/sink.ts';
import { presentationFor } from '../kit/presentation.ts';
import type { DeliveryStore } from '../../db/deliveries.ts';
import type { Logger } from '../../infra/logger.ts';
import type { WechatApi } from './api.ts';
import { approvalAskKey, approvalAskText, approvalOutcomeKey, approvalOutcomeText } from './approvals.ts';
import { WECHAT_MAX_TEXT_BYTES, splitUtf8, toPlainText } from './text.ts';

/** How long an approval text waits for another worker sending the same one, ms (a send takes at most 15 s). */
const APPROVAL_LOCK_WAIT_MS = 20_000;

/** What {@link createWechatSink} needs. */
export interface WechatSinkOptions {
  api: Pick<WechatApi, 'sendText'>;
  /** Sent chunks, shared by every worker (db/deliveries.ts); its advisory lock serialises approval texts. */
  store: Pick<DeliveryStore, 'listPosts' | 'recordPost' | 'withLiveStatusLock'>;
  logger: Logger;
  /** Chunk size, UTF-8 bytes. Default {@link WECHAT_MAX_TEXT_BYTES}. */
  maxBytes?: number;
}

/**
 * Builds the WeChat sink (see the module comment). `send`, `askApproval` and `showApprovalOutcome` throw a
 * WechatApiError (a SinkError).
 */
export function createWechatSink(o: WechatSinkOptions): ChannelSink {
  const maxBytes = o.maxBytes ?? WECHAT_MAX_TEXT_BYTES;

  async function sendChunks(key: string, openId: string, markdown: string): Promise<void> {
    const chunks = splitUtf8(toPlainText(markdown), maxBytes);
    if (chunks.length === 0) chunks.push('…');
    await sendRecorded(o.store, key, openId, chunks);
  }

  /** Sends the chunks not yet recorded under `key`, recording each right after WeChat accepted it. */
  async function sendRecorded(
    store: Pick<DeliveryStore, 'listPosts' | 'recordPost'>,
    key: string,
    openId: string,
    chunks: string[],
  ): Promise<void> {
    const sent = await store.listPosts(key);
    for (const [i, chunk] of chunks.entries()) {
      if (sent.has(i)) continue;
      await o.api.sendText(openId, chunk);
      await store.recordPost({ key, chunk: i, channelId: openId, platformMessageId: `${key}#${i}` });
    }
    o.logger.debug({ key, chunks: chunks.length, skipped: sent.size }, 'wechat message sent');
  }

  /**
   * One text under `key`, at most once: overlapping calls (an activity attempt still running when the next one
   * starts, several workers) are serialised by an advisory lock on the key, so the second finds the record.
   * @throws LockTimeoutError (transient) when the lock is held for longer than a send may take
   */
  const sendOnce = (key: string, openId: string, text: string) =>
    o.store.withLiveStatusLock(key, APPROVAL_LOCK_WAIT_MS, (locked) =>
      sendRecorded(locked, key, openId, [text]),
    );

  return {
    async send(message, session) {
      // WeChat's column of the visibility matrix: system logs stay silent (docs/message-model.md §5.3).
      if (presentationFor('wechat', message) === 'silent') {
        o.logger.debug({ messageId: message.id }, 'wechat: system notice not sent (silent)');
        return;
      }
      await sendChunks(message.id, session.channel_id, message.content);
    },
    sendFallback: (message, session) =>
      sendChunks(`fallback:${message.id}`, session.channel_id, message.content),
    async presentProgress(messages) {
      return messages.map((m) => m.id);
    },
    // Plain text as built (not through toPlainText: a command's `*` or `_` must reach the follower unchanged).
    async askApproval(call, approval, session) {
      await sendOnce(approvalAskKey(call.id), session.channel_id, approvalAskText(call, approval, maxBytes));
    },
    async showApprovalOutcome(call, approval, session) {
      const text = approvalOutcomeText(call, approval, session.channel_id, maxBytes);
      if (text !== null) await sendOnce(approvalOutcomeKey(call.id), session.channel_id, text);
    },
  };
}

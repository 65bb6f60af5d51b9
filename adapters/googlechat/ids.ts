/**
 * How Google Chat names map to Kesoku ids. Pure.
 *
 * - Session: space + thread → `googlechat:<space id>:<thread id>` (chatbot `google_chat`); a direct message
 *   space → `googlechat:<space id>` (each unthreaded message in a DM has a thread of its own, so the
 *   conversation is the space). Session ids allow no `/` (domain/inbound.ts ID_PATTERN), hence the `:`.
 *   The session's channel id is where replies go: the thread's resource name (`spaces/S/threads/T`) or the
 *   space's (`spaces/S`).
 * - An inbound message's Kesoku id is `googlechat-<space id>-<message id>` from its resource name
 *   (`spaces/S/messages/M`): a re-sent event submits the same id, which the session de-duplicates.
 * - Messages Kesoku creates carry a client-assigned id (`client-` + 56 hex digits, Chat's rule: ≤ 63 characters
 *   of lower-case letters, digits and hyphens) derived from a Kesoku key and the chunk index, so a retried
 *   create meets ALREADY_EXISTS instead of posting twice.
 */
import { createHash } from 'node:crypto';
import type { SessionAddress } from '../../workflows/definitions.ts';

/** The chatbot id of Google Chat sessions (docs/message-model.md §3 `chatbot_id`, domain/presentation.ts). */
export const GOOGLE_CHAT_CHATBOT_ID = 'google_chat';
/** Prefix of every Google Chat session id. */
export const GOOGLE_CHAT_SESSION_PREFIX = 'googlechat:';

/** The last segment of a resource name (`spaces/AAA` → `AAA`). */
export function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** The space resource name inside a space, thread or message name (`spaces/S/threads/T` → `spaces/S`). */
export function spaceOf(name: string): string {
  return /^spaces\/[^/]+/.exec(name)?.[0] ?? name;
}

/**
 * The session of a message in `space` (resource name) and `thread` (resource name, or null for a DM).
 * Only letters, digits, `_`, `-` and `.` of the ids are kept (Chat's ids use no others).
 */
export function googleChatSessionAddress(space: string, thread: string | null): SessionAddress {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_');
  const spaceId = safe(lastSegment(space));
  return thread === null
    ? {
        sessionId: `${GOOGLE_CHAT_SESSION_PREFIX}${spaceId}`,
        chatbotId: GOOGLE_CHAT_CHATBOT_ID,
        channelId: space,
      }
    : {
        sessionId: `${GOOGLE_CHAT_SESSION_PREFIX}${spaceId}:${safe(lastSegment(thread))}`,
        chatbotId: GOOGLE_CHAT_CHATBOT_ID,
        channelId: thread,
      };
}

/** The Kesoku message id of Google Chat message `messageName` (`spaces/S/messages/M`), at most 128 characters. */
export function inboundIdFor(messageName: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.@-]/g, '_');
  const id = `googlechat-${safe(lastSegment(spaceOf(messageName)))}-${safe(lastSegment(messageName))}`;
  return id.length <= 128 ? id : `googlechat-${createHash('sha256').update(messageName).digest('hex')}`;
}

/** The Temporal update id of a chat command in Google Chat message `messageName` (run once per message). */
export function commandUpdateIdFor(messageName: string): string {
  return `googlechat-command-${createHash('sha256').update(messageName).digest('hex').slice(0, 32)}`;
}

/** The client-assigned id of chunk `index` of what Kesoku posts under `key` (a message id, `status:<turn>`). */
export function clientMessageId(key: string, index: number): string {
  return `client-${createHash('sha256').update(`${key}\u0000${index}`).digest('hex').slice(0, 56)}`;
}

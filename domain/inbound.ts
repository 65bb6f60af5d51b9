/**
 * Inbound messages: their shape, their limits and the one validation rule that the REST API, the chat adapters
 * and the session workflow's `submitMessage` validator share.
 *
 * Pure module: importable by workflow code.
 */
import type { Attachment } from './message.ts';

/** Size limits of inbound messages and of the session queue. */
export const LIMITS = {
  /** Per-session queue capacity: messages admitted and not yet run (reserved slots included). */
  queueCapacity: 32,
  /** Maximum message content, in bytes of UTF-8. */
  maxContentBytes: 64 * 1024,
  /** Maximum length of a client-chosen message id. */
  maxIdLength: 128,
  maxSenderLength: 128,
  maxAttachments: 16,
} as const;

/**
 * Session ids: 1-128 of letters, digits and `_ - . : @`, not `.` or `..` (a session id names a workspace
 * directory). Discord sessions are `discord:<id>`.
 */
export const ID_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9_.:@-]{1,128}$/;

/**
 * Client-chosen message ids: like session ids but without `:`, which Kesoku reserves for the ids it derives
 * from a turn (`<turn>:s0:reply`, `<turn>:notice`, …), so a client can never take one of those.
 */
export const MESSAGE_ID_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9_.@-]{1,128}$/;

/**
 * An inbound message as an adapter or the API normalised it. `id` is the idempotency key. `receivedAt` is
 * ISO 8601. `channelContext` is opaque to the core and handed back to the channel's sink.
 */
export interface InboundMessage {
  id: string;
  content: string;
  sender: string;
  /**
   * The platform's stable id of the sender (the Discord user id), 1-128 characters. A channel shared by several
   * people sets it: in `interrupt` mode only a message of the same sender interrupts a running turn or supersedes
   * a queued one (docs/architecture.md "shared channels"). Absent (REST, CLI: one person per session) means any
   * new message interrupts, as before.
   */
  senderId?: string;
  receivedAt: string;
  /**
   * What the message is (docs/message-model.md §3): a person's question (`user`, the default), a scheduled prompt
   * (`cron`, sender `Cronjob`) or the alert of a finished background job (`background_alert`, system/text from
   * `System`, hidden from people; `content` is the job's report and `jobId` names the job).
   */
  kind?: 'user' | 'cron' | 'background_alert';
  /** The background job a `background_alert` reports on (domain/jobs.ts). */
  jobId?: string;
  attachments?: Attachment[];
  replyTo?: string;
  channelContext?: unknown;
  /** The platform's id of the message; stored under the channel's `platformMessageIdKey` (adapters/kit/channel.ts). */
  platformMessageId?: string;
}

/**
 * Why a text cannot be stored, or null: Postgres text and jsonb refuse NUL, and a lone UTF-16 surrogate has no
 * UTF-8 form (it would be silently replaced by U+FFFD), so both are refused up front with a clear error.
 */
export function textProblem(s: string): string | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return 'contains a NUL character';
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d < 0xdc00 || d > 0xdfff) return 'contains an unpaired UTF-16 surrogate';
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return 'contains an unpaired UTF-16 surrogate';
  }
  return null;
}

/** Byte length of a string in UTF-8, without Node's Buffer (workflow-safe). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** What is wrong with an inbound message: the field it concerns (empty for the message as a whole) and why. */
export interface InboundProblem {
  field: 'id' | 'content' | 'sender' | 'receivedAt' | 'attachments' | '';
  /** The whole sentence, naming the field, e.g. `content is empty`. */
  message: string;
}

/**
 * Checks an inbound message against the session's rules (shared by the workflow's update validator and the REST
 * API): id pattern, content size and storable text, sender, timestamp, attachments.
 * @returns the problem with its field, or null when the message is acceptable
 */
export function inboundFieldProblem(msg: InboundMessage): InboundProblem | null {
  const p = (field: InboundProblem['field'], message: string): InboundProblem => ({ field, message });
  if (typeof msg !== 'object' || msg === null) return p('', 'message must be an object');
  if (typeof msg.id !== 'string' || !MESSAGE_ID_PATTERN.test(msg.id))
    return p('id', 'id must be 1-128 characters of A-Z a-z 0-9 _ . @ -');
  if (typeof msg.content !== 'string') return p('content', 'content must be a string');
  const attachments = msg.attachments ?? [];
  if (!Array.isArray(attachments) || attachments.length > LIMITS.maxAttachments)
    return p('attachments', `at most ${LIMITS.maxAttachments} attachments`);
  if (msg.content.trim().length === 0 && attachments.length === 0) return p('content', 'content is empty');
  if (utf8Length(msg.content) > LIMITS.maxContentBytes)
    return p('content', `content is over ${LIMITS.maxContentBytes} bytes`);
  if (typeof msg.sender !== 'string' || msg.sender.length === 0 || msg.sender.length > LIMITS.maxSenderLength)
    return p('sender', `sender must be 1-${LIMITS.maxSenderLength} characters`);
  if (
    msg.senderId !== undefined &&
    (typeof msg.senderId !== 'string' ||
      msg.senderId.length === 0 ||
      msg.senderId.length > LIMITS.maxSenderLength ||
      textProblem(msg.senderId) !== null)
  )
    return p('sender', `senderId must be 1-${LIMITS.maxSenderLength} characters`);
  if (typeof msg.receivedAt !== 'string' || Number.isNaN(Date.parse(msg.receivedAt)))
    return p('receivedAt', 'receivedAt must be an ISO timestamp');
  const content = textProblem(msg.content);
  if (content) return p('content', `content ${content}`);
  const sender = textProblem(msg.sender);
  if (sender) return p('sender', `sender ${sender}`);
  for (const a of attachments) {
    if (typeof a !== 'object' || a === null || typeof a.name !== 'string')
      return p('attachments', 'attachments must have a name');
    for (const [key, value] of Object.entries(a)) {
      const bad = typeof value === 'string' ? textProblem(value) : null;
      if (bad) return p('attachments', `attachment ${key} ${bad}`);
    }
  }
  return null;
}

/** {@link inboundFieldProblem} as one sentence, or null when the message is acceptable. */
export function inboundProblem(msg: InboundMessage): string | null {
  return inboundFieldProblem(msg)?.message ?? null;
}

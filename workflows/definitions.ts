/**
 * The session workflow's public surface: task queue, workflow ids, signals, updates, queries and the shapes
 * they carry. Workflows, workers, the API and adapters all import this one module.
 *
 * Pure module (only `@temporalio/workflow` definitions): safe in the workflow bundle.
 */
import * as wf from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Attachment, Message } from '../domain/message.ts';

export const TASK_QUEUE = 'kesoku';

/** Custom search attributes (all Keyword). They carry ids and states only, never message content. */
export const SEARCH_ATTRIBUTE_NAMES = ['KesokuChatbotId', 'KesokuChannelId', 'KesokuSessionStatus'] as const;
export const SA_CHATBOT = defineSearchAttributeKey('KesokuChatbotId', SearchAttributeType.KEYWORD);
export const SA_CHANNEL = defineSearchAttributeKey('KesokuChannelId', SearchAttributeType.KEYWORD);
export const SA_SESSION_STATUS = defineSearchAttributeKey('KesokuSessionStatus', SearchAttributeType.KEYWORD);

/** Limits from DESIGN.md and seed 2 §6.3. */
export const LIMITS = {
  /** Per-session queue capacity (seed 2 §6.3). */
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

/** Titles: 1-200 characters (code points) after trimming, storable text. Shared by the API and `setTitle`. */
export function titleProblem(title: unknown): string | null {
  if (typeof title !== 'string') return 'title must be a string';
  const t = title.trim();
  if (t.length === 0 || [...t].length > 200) return 'title must be 1-200 characters';
  const bad = textProblem(t);
  return bad ? `title ${bad}` : null;
}

export function sessionWorkflowId(sessionId: string): string {
  return `session:${sessionId}`;
}
export function titleWorkflowId(sessionId: string): string {
  return `title:${sessionId}`;
}

export type SessionMode = 'interrupt' | 'queue';

/** Where a session lives (seed 1 §3 `chatbot_id` / `channel_id`). */
export interface SessionAddress {
  sessionId: string;
  chatbotId: string;
  channelId: string;
}

/**
 * An inbound message as an adapter or the API normalised it (seed 2 §10). `id` is the idempotency key.
 * `receivedAt` is ISO 8601. `channelContext` is opaque to the core and handed back to the channel's sink.
 */
export interface InboundMessage {
  id: string;
  content: string;
  sender: string;
  receivedAt: string;
  kind?: 'user' | 'cron';
  attachments?: Attachment[];
  replyTo?: string;
  channelContext?: unknown;
  /** Platform message id (seed 1 §3 `discord_message_id` for Discord). */
  platformMessageId?: string;
}

/** What `submitMessage` returns: the stored message and how many turns are ahead of it. */
export interface SubmitResult {
  message: Message;
  queue_position: number;
  /** True when this id had been accepted before (nothing new was queued). */
  duplicate: boolean;
}

/** Workflow input; also what continue-as-new carries. */
export interface SessionWorkflowInput extends SessionAddress {
  mode?: SessionMode;
  /** Queued trigger message ids, oldest first. */
  queue?: QueueItem[];
  /** Recently accepted message ids, for de-duplication across continue-as-new (bounded). */
  seenIds?: string[];
  title?: string | null;
  turnCount?: number;
  /** Turns completed in this run (continue-as-new bound). */
  runTurns?: number;
}

export interface QueueItem {
  messageId: string;
  kind: 'user' | 'compaction';
}

/** Query `state` answer. */
export interface SessionState {
  sessionId: string;
  status: 'idle' | 'processing';
  mode: SessionMode;
  currentTurn: { messageId: string; step: number; activity: string } | null;
  queueLength: number;
  title: string | null;
  turnCount: number;
}

export const submitMessageUpdate = wf.defineUpdate<SubmitResult, [InboundMessage]>('submitMessage');
export const userMessageSignal = wf.defineSignal<[InboundMessage]>('userMessage');
export const stopSignal = wf.defineSignal('stop');
export const stopUpdate = wf.defineUpdate<{ stopped: boolean }>('stop');
export const compactUpdate = wf.defineUpdate<{ queued: boolean; message_id: string }>('compact');
export const setTitleUpdate = wf.defineUpdate<{ title: string }, [string]>('setTitle');
export const setModeUpdate = wf.defineUpdate<{ mode: SessionMode }, [SessionMode]>('setMode');
export const stateQuery = wf.defineQuery<SessionState>('state');
/** Sent by the title child workflow when it committed a title, so `state` and the Web UI summary follow. */
export const titleChangedSignal = wf.defineSignal<[string]>('titleChanged');

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

/**
 * Validates an inbound message's shape (the `submitMessage` validator and the API share it).
 * @returns null when valid, else a short reason naming the field
 */
export function inboundProblem(msg: InboundMessage): string | null {
  if (typeof msg !== 'object' || msg === null) return 'message must be an object';
  if (typeof msg.id !== 'string' || !MESSAGE_ID_PATTERN.test(msg.id)) return 'id must be 1-128 characters of A-Z a-z 0-9 _ . @ -';
  if (typeof msg.content !== 'string') return 'content must be a string';
  const attachments = msg.attachments ?? [];
  if (!Array.isArray(attachments) || attachments.length > LIMITS.maxAttachments) return `at most ${LIMITS.maxAttachments} attachments`;
  if (msg.content.trim().length === 0 && attachments.length === 0) return 'content is empty';
  if (utf8Length(msg.content) > LIMITS.maxContentBytes) return `content is over ${LIMITS.maxContentBytes} bytes`;
  if (typeof msg.sender !== 'string' || msg.sender.length === 0 || msg.sender.length > LIMITS.maxSenderLength)
    return `sender must be 1-${LIMITS.maxSenderLength} characters`;
  if (typeof msg.receivedAt !== 'string' || Number.isNaN(Date.parse(msg.receivedAt))) return 'receivedAt must be an ISO timestamp';
  const content = textProblem(msg.content);
  if (content) return `content ${content}`;
  const sender = textProblem(msg.sender);
  if (sender) return `sender ${sender}`;
  for (const a of attachments) {
    if (typeof a !== 'object' || a === null || typeof a.name !== 'string') return 'attachments must have a name';
    for (const [key, value] of Object.entries(a)) {
      const bad = typeof value === 'string' ? textProblem(value) : null;
      if (bad) return `attachment ${key} ${bad}`;
    }
  }
  return null;
}

/**
 * Chatbots whose delivery is a database write with no platform call (the REST API's sink: clients read
 * Postgres and the event stream). Their deliveries run as local activities; every other sink calls a platform
 * and is a normal activity.
 */
export const INLINE_DELIVERY_CHATBOTS: readonly string[] = ['api'];
export function isInlineDelivery(chatbotId: string): boolean {
  return INLINE_DELIVERY_CHATBOTS.includes(chatbotId);
}

/** Chatbots whose sinks render thoughts and tool calls live (seed 1 §4.3, §5.3): they get progress per step. */
export const LIVE_CHATBOTS: readonly string[] = ['discord', 'google_chat'];
export function isLiveChannel(chatbotId: string): boolean {
  return LIVE_CHATBOTS.includes(chatbotId);
}

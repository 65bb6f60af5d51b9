/**
 * The Kesoku Message model: the three axes (role, type, status) and the stored record.
 *
 * Source: docs/message-model.md §2 and §3. Every enum value and metadata key here is
 * taken literally from it; field names are the spec's (snake_case), plus what ordering and sync need
 * (`turn_id`, `step`, `seq`, `revision`, `received_at`, `created_at`, `updated_at`).
 *
 * Pure module: no I/O, importable by workflow code.
 */

/** docs/message-model.md §2.1: which kind of entity produced or leads the message. */
export const ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type Role = (typeof ROLES)[number];

/** docs/message-model.md §2.2: the structure and meaning of the content. */
export const MESSAGE_TYPES = ['text', 'thought', 'tool_call', 'tool_result'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/**
 * docs/message-model.md §2.3: where the message is in the pipeline. The first five are the user-message (input) lifecycle,
 * the last three the assistant/tool (output) lifecycle.
 */
export const STATUSES = [
  'pending_agent',
  'processing',
  'processed',
  'interrupted',
  'error',
  'pending',
  'delivered',
  'responded',
] as const;
export type Status = (typeof STATUSES)[number];

/** docs/message-model.md §3, "智能体最终回复" row: the metrics block on a final reply. `turn_time` is in seconds. */
export type TurnMetrics = {
  /** Completed turns in the session, this one included. */
  session_turns: number;
  /** Estimated tokens of the prepared model input at the last step. */
  context_tokens: number;
  /** Tool calls made in this turn. */
  turn_tool_calls: number;
  /** Tokens used by the model in this turn (input + output, as reported by the provider). */
  turn_tokens: number;
  /** Wall time of the turn in seconds (claim to final reply). */
  turn_time: number;
};

/** An attachment recorded on a user message (docs/message-model.md §3 "标准用户提问", `attachments`). */
export type Attachment = {
  /** File name shown to people and used in the history placeholder. */
  name: string;
  /** MIME type when known. */
  content_type?: string;
  /** Size in bytes when known. */
  size?: number;
  /** Where the staged file lives (a path under the data dir, or a URL). */
  path?: string;
  url?: string;
};

/**
 * Message metadata. The spec's keys are spelled exactly as in docs/message-model.md §3; the others are Kesoku's additions and
 * are documented where they are written.
 */
export type MessageMetadata = {
  // docs/message-model.md §3 keys.
  discord_message_id?: string;
  attachments?: Attachment[];
  is_cronjob?: boolean;
  is_compaction?: boolean;
  turn_metrics?: TurnMetrics;
  tool_name?: string;
  tool_arguments?: Record<string, unknown>;
  tool_result?: string;
  // Kesoku additions.
  /** The provider's id for a tool call; set on both the tool_call and its tool_result. */
  tool_call_id?: string;
  /** True on a synthetic tool_result made for a tool_call whose run never finished (docs/message-model.md §4.4). */
  synthetic?: boolean;
  /** Platform message this message replies to (docs/message-flow.md §10, typed `reply_to`). */
  reply_to?: string;
  /**
   * On a user question: its sender's platform id (InboundMessage `senderId`), so that a session restored from
   * Postgres applies the same-sender interrupt rule of shared channels to its queued messages.
   */
  sender_id?: string;
  /** Opaque platform context, passed through untouched to the channel's sink (docs/message-flow.md §10.1). */
  channel_context?: unknown;
  /** On a compaction summary: the highest `seq` the summary covers. */
  compacted_through_seq?: number;
  /** Why a turn failed, as a typed kind (docs/message-flow.md §13); on the crash notice and the failed user message. */
  failure_kind?: string;
  /**
   * On a tool_call whose arguments were not one JSON object: what was wrong with them (domain/tool-arguments.ts);
   * the call is answered with an error result naming it, without running the tool.
   */
  tool_arguments_problem?: string;
  /** On a tool_result: whether the tool succeeded (exit 0, no input error); sinks show ✅/❌ from it. */
  tool_ok?: boolean;
  /** Full output of a tool run when the model was given a truncated slice. */
  full_output_path?: string;
  /** On a user question edited while queued: when (ISO 8601); its content is the edited one. */
  edited_at?: string;
  /** On a user question deleted on its platform while queued: it ended `interrupted` without running. */
  withdrawn?: boolean;
  /**
   * On a user question that ended `interrupted` as a turn: why — `stop` (a `/stop`), `interrupt` (a newer message
   * of the same sender, interrupt mode) or `restart` (the session's run ended while it was being handled).
   */
  interrupt_reason?: 'stop' | 'interrupt' | 'restart';
  /**
   * On a final reply (or compaction summary) committed by a step just before a stop reached it: the turn ended
   * `interrupted` without delivering it, so it stays `pending` and is left out of the model's history (clean
   * history) and of compaction, as if it had never been written.
   */
  stale?: boolean;
  [key: string]: unknown;
};

/** A stored message: the spec's fields plus ordering and sync fields. Timestamps are ISO 8601 strings. */
export interface Message {
  id: string;
  session_id: string;
  parent_id: string | null;
  chatbot_id: string;
  channel_id: string;
  sender: string;
  role: Role;
  type: MessageType;
  status: Status;
  content: string;
  metadata: MessageMetadata | null;
  /** The id of the user (or trigger) message whose turn produced this message; a trigger's own id. */
  turn_id: string | null;
  /** Model step within the turn, from 0; null for the trigger itself and for messages outside a turn. */
  step: number | null;
  /** Global insertion sequence (monotonic across all sessions). */
  seq: number;
  /** The session's history revision at which this message was last committed. */
  revision: number;
  /** When the platform received the message (user input), else null. */
  received_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The well-known senders of docs/message-model.md §3. */
export const SENDERS = {
  agent: 'Kesoku',
  system: 'System',
  cronjob: 'Cronjob',
  notification: 'Notification',
} as const;

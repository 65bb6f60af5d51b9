/**
 * One factory per row of the docs/message-model.md §3 field matrix. Each returns a {@link NewMessage} with exactly that row's
 * role, type, sender, initial status and metadata; the database assigns `seq`, `revision` and the timestamps.
 *
 * Pure module: ids and timestamps are arguments (no clock, no randomness), so it runs inside workflow code.
 */
import { SENDERS } from './message.ts';
import type {
  Attachment,
  Message,
  MessageMetadata,
  MessageType,
  Role,
  Status,
  TurnMetrics,
} from './message.ts';
import { SYSTEM_PROMPT_ADDRESS } from './message-kind.ts';
import type { MessageKind } from './message-kind.ts';

/** A message before it is stored: everything but the fields the database assigns. */
export type NewMessage = Omit<Message, 'seq' | 'revision' | 'created_at' | 'updated_at'>;

/** One row of the docs/message-model.md §3 field matrix. `null` means "varies per message" (user name, tool name, platform). */
export interface FieldMatrixRow {
  /** The spec's 消息分类 label. */
  label: string;
  role: Role;
  type: MessageType;
  /** Fixed sender, or null when it is the user's name (user question) or the tool's name (tool result). */
  sender: string | null;
  /** Fixed chatbot_id/channel_id, or null when they are the current platform and channel. */
  address: { chatbot_id: string; channel_id: string } | null;
  /** 初始 status. */
  initial_status: Status;
  /** 终态 status: the statuses the message may end in. */
  final_statuses: readonly Status[];
  /** The metadata keys the spec lists for this row (Kesoku additions excluded); empty when the spec says None. */
  metadata_keys: readonly string[];
}

/** docs/message-model.md §3, row by row. The factories below read role, type, sender and initial status from here. */
export const FIELD_MATRIX: Readonly<Record<MessageKind, FieldMatrixRow>> = {
  user_question: {
    label: '标准用户提问',
    role: 'user',
    type: 'text',
    sender: null,
    address: null,
    initial_status: 'pending_agent',
    final_statuses: ['processed', 'interrupted', 'error'],
    metadata_keys: ['discord_message_id', 'attachments'],
  },
  cron_prompt: {
    label: '定时任务消息',
    role: 'user',
    type: 'text',
    sender: SENDERS.cronjob,
    address: null,
    initial_status: 'pending_agent',
    final_statuses: ['processed'],
    metadata_keys: ['is_cronjob'],
  },
  manual_compaction_prompt: {
    label: '手动压缩提问',
    role: 'user',
    type: 'text',
    sender: SENDERS.system,
    address: null,
    initial_status: 'pending_agent',
    final_statuses: ['processed'],
    metadata_keys: ['is_compaction'],
  },
  thought: {
    label: '智能体思维链',
    role: 'assistant',
    type: 'thought',
    sender: SENDERS.agent,
    address: null,
    initial_status: 'responded',
    final_statuses: ['responded', 'delivered'],
    metadata_keys: [],
  },
  final_reply: {
    label: '智能体最终回复',
    role: 'assistant',
    type: 'text',
    sender: SENDERS.agent,
    address: null,
    initial_status: 'pending',
    final_statuses: ['delivered'],
    metadata_keys: ['turn_metrics'],
  },
  tool_call: {
    label: '工具调用指令',
    role: 'tool',
    type: 'tool_call',
    sender: SENDERS.agent,
    address: null,
    initial_status: 'responded',
    final_statuses: ['responded', 'delivered'],
    metadata_keys: ['tool_name', 'tool_arguments'],
  },
  tool_result: {
    label: '工具执行输出',
    role: 'tool',
    type: 'tool_result',
    sender: null,
    address: null,
    initial_status: 'responded',
    final_statuses: ['responded', 'delivered'],
    metadata_keys: ['tool_name', 'tool_result'],
  },
  system_prompt: {
    label: '系统提示词',
    role: 'system',
    type: 'text',
    sender: SENDERS.system,
    address: SYSTEM_PROMPT_ADDRESS,
    initial_status: 'responded',
    final_statuses: ['responded'],
    metadata_keys: [],
  },
  background_alert: {
    label: '后台唤醒警报',
    role: 'system',
    type: 'text',
    sender: SENDERS.system,
    address: null,
    initial_status: 'pending_agent',
    final_statuses: ['processed'],
    metadata_keys: [],
  },
  empty_reply_nudge: {
    label: '模型防空催化剂',
    role: 'system',
    type: 'text',
    sender: SENDERS.system,
    address: null,
    initial_status: 'responded',
    final_statuses: ['responded'],
    metadata_keys: [],
  },
  notification: {
    label: '轻量系统通知',
    role: 'assistant',
    type: 'text',
    sender: SENDERS.notification,
    address: null,
    initial_status: 'pending',
    final_statuses: ['delivered'],
    metadata_keys: [],
  },
  crash_notice: {
    label: '崩溃报错通知',
    role: 'assistant',
    type: 'text',
    sender: SENDERS.agent,
    address: null,
    initial_status: 'pending',
    final_statuses: ['delivered'],
    metadata_keys: [],
  },
};

/**
 * docs/message-model.md §3 "手动压缩提问": the virtual question written when the user sends `/compact`. The model's answer
 * becomes the compaction summary (a final reply carrying `metadata.compacted_through_seq`).
 */
export const MANUAL_COMPACTION_PROMPT =
  '[System Notification] The user manually requested compaction of this conversation. ' +
  'Summarise the conversation so far into a concise but complete briefing that will replace the earlier ' +
  "messages in your context: the user's goals and requests, the decisions made and why, the facts, files, " +
  'commands and tool results that still matter, what is finished and what is still open, and any preferences ' +
  'the user stated. Write it in the language the user has been using, as short paragraphs or bullet points, ' +
  'and do not call any tools.';

/** docs/message-model.md §3 "模型防空催化剂": injected after the model returned an empty response. */
export const EMPTY_REPLY_NUDGE =
  'Your previous response had empty content. Please answer the last message properly: either reply to the ' +
  'user with a non-empty text answer, or call one of the available tools if you need more information first.';

/** The ids every factory needs: the new message's id and where it lives. */
export interface MessageAddress {
  id: string;
  session_id: string;
  /** The platform ("cli", "discord", "api", …). */
  chatbot_id: string;
  /** The platform's channel/thread id. */
  channel_id: string;
}

/** Where a message produced inside a turn sits. */
export interface TurnPosition {
  /** The trigger message's id. */
  turn_id: string;
  /** The model step, from 0. */
  step: number;
  /** Defaults to `turn_id` (docs/message-model.md §6.1: thoughts, calls and the reply point at the user message). */
  parent_id?: string;
}

function build(
  kind: MessageKind,
  address: MessageAddress,
  fields: Pick<NewMessage, 'content' | 'metadata' | 'parent_id' | 'turn_id' | 'step'> &
    Partial<Pick<NewMessage, 'sender' | 'received_at'>>,
): NewMessage {
  const row = FIELD_MATRIX[kind];
  const sender = fields.sender ?? row.sender;
  if (sender === null) throw new TypeError(`factory for ${kind} needs a sender`);
  return {
    id: address.id,
    session_id: address.session_id,
    parent_id: fields.parent_id,
    chatbot_id: row.address?.chatbot_id ?? address.chatbot_id,
    channel_id: row.address?.channel_id ?? address.channel_id,
    sender,
    role: row.role,
    type: row.type,
    status: row.initial_status,
    content: fields.content,
    metadata: fields.metadata,
    turn_id: fields.turn_id,
    step: fields.step,
    received_at: fields.received_at ?? null,
  };
}

/** Drops undefined values; null when nothing is left (the spec's "None"). */
function compactMetadata(metadata: MessageMetadata): MessageMetadata | null {
  const entries = Object.entries(metadata).filter(([, value]) => value !== undefined);
  return entries.length === 0 ? null : Object.fromEntries(entries);
}

function inTurn(position: TurnPosition): Pick<NewMessage, 'turn_id' | 'step' | 'parent_id'> {
  return {
    turn_id: position.turn_id,
    step: position.step,
    parent_id: position.parent_id ?? position.turn_id,
  };
}

/**
 * docs/message-model.md §3 "标准用户提问": user/text from `sender`, `pending_agent`, opens its own turn (`turn_id = id`).
 * Metadata `{discord_message_id?, attachments?}` plus Kesoku's `reply_to?`, `channel_context?` and `sender_id?`; null if
 * none.
 * `platform_ids` adds a channel's own key for the platform message id (`{ google_chat_message_name: … }`).
 * `received_at` is the platform's receive time (ISO 8601).
 */
export function userQuestion(
  input: MessageAddress & {
    sender: string;
    content: string;
    received_at: string | null;
    attachments?: Attachment[];
    discord_message_id?: string;
    platform_ids?: Readonly<Record<string, string>>;
    reply_to?: string;
    channel_context?: unknown;
    /** The sender's platform id (InboundMessage `senderId`), kept as metadata `sender_id`. */
    sender_id?: string;
  },
): NewMessage {
  const attachments =
    input.attachments !== undefined && input.attachments.length > 0 ? input.attachments : undefined;
  return build('user_question', input, {
    sender: input.sender,
    content: input.content,
    metadata: compactMetadata({
      discord_message_id: input.discord_message_id,
      attachments,
      reply_to: input.reply_to,
      channel_context: input.channel_context,
      sender_id: input.sender_id,
      ...input.platform_ids,
    }),
    parent_id: null,
    turn_id: input.id,
    step: null,
    received_at: input.received_at,
  });
}

/** docs/message-model.md §3 "定时任务消息": user/text from "Cronjob", `pending_agent`, `{is_cronjob: true}`, its own turn. */
export function cronPrompt(
  input: MessageAddress & { content: string; received_at?: string | null },
): NewMessage {
  return build('cron_prompt', input, {
    content: input.content,
    metadata: { is_cronjob: true },
    parent_id: null,
    turn_id: input.id,
    step: null,
    received_at: input.received_at ?? null,
  });
}

/**
 * docs/message-model.md §3 "手动压缩提问": user/text from "System", `pending_agent`, `{is_compaction: true}`, its own turn.
 * `content` defaults to {@link MANUAL_COMPACTION_PROMPT}; automatic compaction uses the same row with its own
 * prompt text.
 */
export function manualCompactionPrompt(
  input: MessageAddress & { content?: string; received_at?: string | null },
): NewMessage {
  return build('manual_compaction_prompt', input, {
    content: input.content ?? MANUAL_COMPACTION_PROMPT,
    metadata: { is_compaction: true },
    parent_id: null,
    turn_id: input.id,
    step: null,
    received_at: input.received_at ?? null,
  });
}

/** docs/message-model.md §3 "智能体思维链": assistant/thought from "Kesoku", `responded`, no metadata. */
export function thought(input: MessageAddress & TurnPosition & { content: string }): NewMessage {
  return build('thought', input, { content: input.content, metadata: null, ...inTurn(input) });
}

/**
 * docs/message-model.md §3 "智能体最终回复": assistant/text from "Kesoku", `pending`, `{turn_metrics}`. A compaction summary is
 * a final reply with `compacted_through_seq` (the highest `seq` it summarises, see clean-history.ts).
 */
export function finalReply(
  input: MessageAddress &
    TurnPosition & { content: string; turn_metrics: TurnMetrics; compacted_through_seq?: number },
): NewMessage {
  return build('final_reply', input, {
    content: input.content,
    metadata: compactMetadata({
      turn_metrics: input.turn_metrics,
      compacted_through_seq: input.compacted_through_seq,
    }),
    ...inTurn(input),
  });
}

/** docs/message-model.md §6.1: "Calling tool `name` with arguments:\n```json\n{…}\n```" (JSON indented by 2 spaces). */
export function toolCallContent(toolName: string, toolArguments: Record<string, unknown>): string {
  return `Calling tool \`${toolName}\` with arguments:\n\`\`\`json\n${JSON.stringify(toolArguments, null, 2)}\n\`\`\``;
}

/**
 * docs/message-model.md §3 "工具调用指令": tool/tool_call from "Kesoku", `responded`, `{tool_name, tool_arguments,
 * tool_call_id}` (`tool_call_id` is the provider's id, a Kesoku addition), content from {@link toolCallContent}.
 */
export function toolCall(
  input: MessageAddress &
    TurnPosition & {
      tool_name: string;
      tool_arguments: Record<string, unknown>;
      tool_call_id: string;
      /** What was wrong with arguments that were not one JSON object (a Kesoku addition). */
      tool_arguments_problem?: string;
    },
): NewMessage {
  return build('tool_call', input, {
    content: toolCallContent(input.tool_name, input.tool_arguments),
    metadata: {
      tool_name: input.tool_name,
      tool_arguments: input.tool_arguments,
      tool_call_id: input.tool_call_id,
      ...(input.tool_arguments_problem ? { tool_arguments_problem: input.tool_arguments_problem } : {}),
    },
    ...inTurn(input),
  });
}

/**
 * docs/message-model.md §3 "工具执行输出": tool/tool_result whose sender is the tool's name, `responded`, `{tool_name,
 * tool_result, tool_call_id}` where `tool_result` is a short summary ("5 passed in 0.42s") and `content` the
 * (possibly truncated) output. `parent_id` is required: the tool_call message's id (docs/message-model.md §6.1).
 */
export function toolResult(
  input: MessageAddress &
    TurnPosition & {
      parent_id: string;
      tool_name: string;
      tool_call_id: string;
      content: string;
      summary: string;
    },
): NewMessage {
  return build('tool_result', input, {
    sender: input.tool_name,
    content: input.content,
    metadata: { tool_name: input.tool_name, tool_result: input.summary, tool_call_id: input.tool_call_id },
    ...inTurn(input),
  });
}

/**
 * docs/message-model.md §3 "系统提示词": the virtual system/text record, chatbot_id and channel_id `"system"`, sender "System",
 * `responded`, no metadata, outside any turn.
 */
export function systemPrompt(input: { id: string; session_id: string; content: string }): NewMessage {
  return build(
    'system_prompt',
    { ...input, ...SYSTEM_PROMPT_ADDRESS },
    { content: input.content, metadata: null, parent_id: null, turn_id: null, step: null },
  );
}

/**
 * docs/message-model.md §3 "后台唤醒警报": system/text from "System", `pending_agent` (it triggers its own turn, `turn_id =
 * id`), no metadata. Content `[System Alert] Background Job <job_id> finished.` followed by `report` (exit
 * status, output tail) on the next line when given.
 */
export function backgroundAlert(
  input: MessageAddress & {
    job_id: string;
    report?: string;
    parent_id?: string | null;
    received_at?: string | null;
  },
): NewMessage {
  const head = `[System Alert] Background Job ${input.job_id} finished.`;
  return build('background_alert', input, {
    content: input.report === undefined || input.report === '' ? head : `${head}\n${input.report}`,
    metadata: null,
    parent_id: input.parent_id ?? null,
    turn_id: input.id,
    step: null,
    received_at: input.received_at ?? null,
  });
}

/**
 * docs/message-model.md §3 "模型防空催化剂": system/text from "System", `responded`, no metadata, content
 * {@link EMPTY_REPLY_NUDGE}. `step` is the step whose response was empty, so phased sorting puts the nudge after
 * that step and before the next model output.
 */
export function emptyReplyNudge(input: MessageAddress & TurnPosition): NewMessage {
  return build('empty_reply_nudge', input, { content: EMPTY_REPLY_NUDGE, metadata: null, ...inTurn(input) });
}

/**
 * docs/message-model.md §3 "轻量系统通知": assistant/text from "Notification", `pending`, no metadata (e.g. "🔄 聊天历史已自动压缩。").
 * Outside any turn unless `turn_id` is given; never shown to the model (docs/message-model.md §5.2).
 */
export function notification(
  input: MessageAddress & { content: string; turn_id?: string | null; parent_id?: string | null },
): NewMessage {
  return build('notification', input, {
    content: input.content,
    metadata: null,
    parent_id: input.parent_id ?? null,
    turn_id: input.turn_id ?? null,
    step: null,
  });
}

/**
 * docs/message-model.md §3 "崩溃报错通知": assistant/text from "Kesoku", `pending`. `content` is the presented notice
 * ("⚠️ 处理您的请求时发生异常: ...", written by the failure presenter, never a raw provider/database error), so
 * the wording and locale live with the presenter, not here. The spec's metadata is None;
 * Kesoku records `{failure_kind}` (docs/message-flow.md §13), which is also how {@link messageKind} tells the notice from a
 * final reply. `step` is the step that failed, or null when the turn failed outside a step (sorted last).
 */
export function crashNotice(
  input: MessageAddress & {
    turn_id: string;
    parent_id?: string;
    step?: number | null;
    content: string;
    failure_kind: string;
  },
): NewMessage {
  return build('crash_notice', input, {
    content: input.content,
    metadata: { failure_kind: input.failure_kind },
    parent_id: input.parent_id ?? input.turn_id,
    turn_id: input.turn_id,
    step: input.step ?? null,
  });
}

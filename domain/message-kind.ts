/**
 * Which row of the docs/message-model.md §3 field matrix a stored message belongs to. History rules, transpilation and
 * presentation all decide by kind, so the classification lives here once.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import { SENDERS } from './message.ts';
import type { Message } from './message.ts';
import { isInputStatus } from './status-machine.ts';

/** The twelve rows of docs/message-model.md §3, in the spec's order. */
export const MESSAGE_KINDS = [
  'user_question', // 标准用户提问
  'cron_prompt', // 定时任务消息
  'manual_compaction_prompt', // 手动压缩提问
  'thought', // 智能体思维链
  'final_reply', // 智能体最终回复
  'tool_call', // 工具调用指令
  'tool_result', // 工具执行输出
  'system_prompt', // 系统提示词
  'background_alert', // 后台唤醒警报
  'empty_reply_nudge', // 模型防空催化剂
  'notification', // 轻量系统通知
  'crash_notice', // 崩溃报错通知
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** docs/message-model.md §3 "系统提示词": the virtual system-prompt record uses `"system"` as both chatbot_id and channel_id. */
export const SYSTEM_PROMPT_ADDRESS = { chatbot_id: 'system', channel_id: 'system' } as const;

/** The fields {@link messageKind} reads. */
export type ClassifiableMessage = Pick<
  Message,
  'role' | 'type' | 'sender' | 'status' | 'chatbot_id' | 'metadata'
>;

/**
 * Classifies a message into its docs/message-model.md §3 row. Total: messages outside the matrix fall back by type, then by role.
 *
 * - user text: `is_compaction` → manual_compaction_prompt, `is_cronjob` → cron_prompt, else user_question;
 * - system text: chatbot_id `"system"` → system_prompt; an input-lifecycle status (pending_agent … error) →
 *   background_alert; otherwise (responded/delivered) → empty_reply_nudge;
 * - assistant text: sender `"Notification"` → notification; `metadata.failure_kind` set → crash_notice (the
 *   spec gives both the crash notice and the final reply sender "Kesoku"; Kesoku tells them apart by the
 *   failure kind it records on the notice); else final_reply.
 */
export function messageKind(message: ClassifiableMessage): MessageKind {
  switch (message.type) {
    case 'thought':
    case 'tool_call':
    case 'tool_result':
      return message.type;
    case 'text':
      break;
  }
  const metadata = message.metadata ?? {};
  switch (message.role) {
    case 'user':
      if (metadata.is_compaction === true) return 'manual_compaction_prompt';
      if (metadata.is_cronjob === true) return 'cron_prompt';
      return 'user_question';
    case 'system':
      if (message.chatbot_id === SYSTEM_PROMPT_ADDRESS.chatbot_id) return 'system_prompt';
      return isInputStatus(message.status) ? 'background_alert' : 'empty_reply_nudge';
    case 'assistant':
    case 'tool':
      if (message.sender === SENDERS.notification) return 'notification';
      if (typeof metadata.failure_kind === 'string') return 'crash_notice';
      return 'final_reply';
  }
}

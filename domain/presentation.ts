/**
 * Per-channel visibility (seed 1 §5.3, §4.3): whether a channel's sink shows a message, live-renders it, or marks
 * it delivered without sending it.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { Message } from './message.ts';
import { messageKind } from './message-kind.ts';
import type { MessageKind } from './message-kind.ts';

/** The channels (chatbot_ids) Kesoku presents to. `api` is Kesoku's REST channel (not in the seed). */
export const CHANNELS = ['cli', 'discord', 'google_chat', 'wechat', 'api'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The rows of seed 1 §5.3. */
export const PRESENTATION_KINDS = [
  'user_question', // 用户提问
  'final_text', // 智能体最终文本/文件
  'thought', // 智能体思维链
  'tool_call', // 工具调用
  'tool_result', // 工具执行输出
  'system_log', // 系统交互日志
] as const;
export type PresentationKind = (typeof PRESENTATION_KINDS)[number];

/**
 * - `shown`: sent/printed as a message of its own (CLI panels, a Discord reply, a card, a WeChat text chunk);
 * - `live`: rendered as an intermediate status line/card that is edited in place (⏳ → ✅/❌), then delivered;
 * - `silent`: marked `delivered` without sending anything (seed 1 §4.3, WeChat).
 */
export type Presentation = 'shown' | 'live' | 'silent';

/**
 * Seed 1 §5.3, as data. Google Chat's "折叠中间卡片" (folded intermediate card) and the "状态 emoji 变更" of tool
 * output are `live`. The `api` column is Kesoku's: REST clients get intermediate messages as live turn
 * snapshots over SSE, and final text as a message.
 */
export const VISIBILITY_MATRIX: Readonly<Record<Channel, Readonly<Record<PresentationKind, Presentation>>>> =
  {
    cli: {
      user_question: 'shown',
      final_text: 'shown',
      thought: 'shown',
      tool_call: 'shown',
      tool_result: 'shown',
      system_log: 'shown',
    },
    discord: {
      user_question: 'shown',
      final_text: 'shown',
      thought: 'live',
      tool_call: 'live',
      tool_result: 'live',
      system_log: 'live',
    },
    google_chat: {
      user_question: 'shown',
      final_text: 'shown',
      thought: 'live',
      tool_call: 'live',
      tool_result: 'live',
      system_log: 'live',
    },
    wechat: {
      user_question: 'shown',
      final_text: 'shown',
      thought: 'silent',
      tool_call: 'silent',
      tool_result: 'silent',
      system_log: 'silent',
    },
    api: {
      user_question: 'shown',
      final_text: 'shown',
      thought: 'live',
      tool_call: 'live',
      tool_result: 'live',
      system_log: 'live',
    },
  };

/**
 * Which §5.3 row a message kind is presented as; null for kinds no channel ever receives (seed 1 §3 "不可见"):
 * the system prompt, background alerts and empty-reply nudges.
 */
export const PRESENTATION_KIND_OF: Readonly<Record<MessageKind, PresentationKind | null>> = {
  user_question: 'user_question',
  cron_prompt: 'user_question',
  manual_compaction_prompt: 'user_question',
  thought: 'thought',
  final_reply: 'final_text',
  tool_call: 'tool_call',
  tool_result: 'tool_result',
  system_prompt: null,
  background_alert: null,
  empty_reply_nudge: null,
  notification: 'system_log',
  crash_notice: 'final_text',
};

/** True when `value` is one of {@link CHANNELS}. */
export function isChannel(value: string): value is Channel {
  return (CHANNELS as readonly string[]).includes(value);
}

/**
 * How `channel` presents `message` (seed 1 §5.3): `shown`, `live` or `silent` per {@link VISIBILITY_MATRIX}, or
 * `hidden` when the message is never delivered at all (system prompt, background alert, nudge).
 */
export function presentationFor(channel: Channel, message: Message): Presentation | 'hidden' {
  const kind = PRESENTATION_KIND_OF[messageKind(message)];
  return kind === null ? 'hidden' : VISIBILITY_MATRIX[channel][kind];
}

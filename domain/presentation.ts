/**
 * Per-channel visibility (docs/message-model.md §5.3, §4.3): whether a channel's sink shows a message, live-renders it, or marks
 * it delivered without sending it.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { Message, TurnMetrics } from './message.ts';
import { messageKind } from './message-kind.ts';
import type { MessageKind } from './message-kind.ts';

/** The channels (chatbot_ids) Kesoku presents to. `api` is Kesoku's REST channel (not in the spec). */
export const CHANNELS = ['cli', 'discord', 'google_chat', 'wechat', 'api'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The rows of docs/message-model.md §5.3. */
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
 * - `silent`: marked `delivered` without sending anything (docs/message-model.md §4.3, WeChat).
 */
export type Presentation = 'shown' | 'live' | 'silent';

/**
 * docs/message-model.md §5.3, as data. Google Chat's "折叠中间卡片" (folded intermediate card) and the "状态 emoji 变更" of tool
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
 * Which §5.3 row a message kind is presented as; null for kinds no channel ever receives (docs/message-model.md §3 "不可见"):
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
 * How `channel` presents `message` (docs/message-model.md §5.3): `shown`, `live` or `silent` per {@link VISIBILITY_MATRIX}, or
 * `hidden` when the message is never delivered at all (system prompt, background alert, nudge).
 */
export function presentationFor(channel: Channel, message: Message): Presentation | 'hidden' {
  const kind = PRESENTATION_KIND_OF[messageKind(message)];
  return kind === null ? 'hidden' : VISIBILITY_MATRIX[channel][kind];
}

/** Seconds for people: "0.4s", "2.1s", "42s", "3m 05s". */
export function formatSeconds(s: number): string {
  if (s < 10) return `${(Math.round(s * 10) / 10).toFixed(1)}s`;
  if (s < 60) return `${Math.round(s)}s`;
  const m = Math.floor(s / 60);
  return `${m}m ${String(Math.round(s - m * 60)).padStart(2, '0')}s`;
}

/** docs/message-model.md §3 `turn_metrics` for people, shared by every channel: "⏱ 2.1s · 🔧 1 tool · 1042 tokens". */
export function metricsSummary(m: TurnMetrics): string {
  const tools = `🔧 ${m.turn_tool_calls} ${m.turn_tool_calls === 1 ? 'tool' : 'tools'}`;
  return `⏱ ${formatSeconds(m.turn_time)} · ${tools} · ${m.turn_tokens} tokens`;
}

/** How a tool call stands in the live status. */
export type ToolState = 'running' | 'ok' | 'failed' | 'interrupted';

/** The emoji of each tool state in the live status. */
export const TOOL_MARK: Readonly<Record<ToolState, string>> = {
  running: '⏳',
  ok: '✅',
  failed: '❌',
  interrupted: '⏹️',
};

/**
 * Whether a tool_result reports success. `metadata.tool_ok` (boolean) wins when present; otherwise the summary
 * the tool activity wrote (activities/tools/shell.ts `summarizeShellRun`, `error: …`, `interrupted`) decides.
 */
export function toolResultState(result: Message): Exclude<ToolState, 'running'> {
  const md = result.metadata ?? {};
  if (typeof md.tool_ok === 'boolean') return md.tool_ok ? 'ok' : 'failed';
  const summary = typeof md.tool_result === 'string' ? md.tool_result : '';
  if (md.synthetic === true || summary === 'interrupted') return 'interrupted';
  if (/^(error:|timed out after |killed by |exit -?[1-9]\d* in )/.test(summary)) return 'failed';
  return 'ok';
}

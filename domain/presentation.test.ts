import { describe, expect, it } from 'vitest';
import {
  backgroundAlert,
  crashNotice,
  cronPrompt,
  emptyReplyNudge,
  finalReply,
  manualCompactionPrompt,
  notification,
  systemPrompt,
  thought,
  toolCall,
  toolResult,
  userQuestion,
} from './factories.ts';
import { MESSAGE_KINDS, messageKind } from './message-kind.ts';
import type { MessageKind } from './message-kind.ts';
import {
  CHANNELS,
  PRESENTATION_KINDS,
  VISIBILITY_MATRIX,
  isChannel,
  presentationFor,
} from './presentation.ts';
import type { Channel, Presentation, PresentationKind } from './presentation.ts';
import { persist } from './fixtures/persist.ts';

// docs/message-model.md §5.3, transcribed: 可见 → shown, Live 状态条 / 折叠中间卡片 / 状态 emoji 变更 → live, 隐藏 (后台静默) → silent.
const SEED_5_3: Record<Exclude<Channel, 'api'>, Record<PresentationKind, Presentation>> = {
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
};

const AT = { session_id: 's', chatbot_id: 'discord', channel_id: 'c' };
const IN_TURN = { turn_id: 'q', step: 0 };
const METRICS = { session_turns: 1, context_tokens: 1, turn_tool_calls: 0, turn_tokens: 1, turn_time: 1 };
const EXAMPLES = [
  userQuestion({ ...AT, id: 'q', sender: 'Chii', content: 'hi', received_at: null }),
  cronPrompt({ ...AT, id: 'cron', content: 'Run status diagnostics' }),
  manualCompactionPrompt({ ...AT, id: 'k' }),
  thought({ ...AT, ...IN_TURN, id: 't', content: 't' }),
  finalReply({ ...AT, ...IN_TURN, id: 'a', content: 'a', turn_metrics: METRICS }),
  toolCall({
    ...AT,
    ...IN_TURN,
    id: 'c',
    tool_name: 'run_shell_command',
    tool_arguments: {},
    tool_call_id: 'c',
  }),
  toolResult({
    ...AT,
    ...IN_TURN,
    id: 'r',
    parent_id: 'c',
    tool_name: 'run_shell_command',
    tool_call_id: 'c',
    content: '',
    summary: '',
  }),
  systemPrompt({ id: 'sp', session_id: 's', content: '# System' }),
  backgroundAlert({ ...AT, id: 'b', job_id: 'job_123' }),
  emptyReplyNudge({ ...AT, ...IN_TURN, id: 'n' }),
  notification({ ...AT, id: 'no', content: '🔄 聊天历史已自动压缩。' }),
  crashNotice({
    ...AT,
    turn_id: 'q',
    id: 'x',
    content: '⚠️ 处理您的请求时发生异常: x',
    failure_kind: 'provider',
  }),
].map((message, index) => persist(message, index + 1));

const EXPECTED_ROW: Record<MessageKind, PresentationKind | 'hidden'> = {
  user_question: 'user_question',
  cron_prompt: 'user_question',
  manual_compaction_prompt: 'user_question',
  thought: 'thought',
  final_reply: 'final_text',
  tool_call: 'tool_call',
  tool_result: 'tool_result',
  system_prompt: 'hidden',
  background_alert: 'hidden',
  empty_reply_nudge: 'hidden',
  notification: 'system_log',
  crash_notice: 'final_text',
};

describe('channel visibility (docs/message-model.md §5.3)', () => {
  it('transcribes the spec’s matrix for the four spec channels', () => {
    for (const [channel, row] of Object.entries(SEED_5_3))
      expect(VISIBILITY_MATRIX[channel as Channel]).toEqual(row);
  });

  it('covers every channel and row', () => {
    for (const channel of CHANNELS)
      expect(Object.keys(VISIBILITY_MATRIX[channel]).sort()).toEqual([...PRESENTATION_KINDS].sort());
    expect(isChannel('wechat')).toBe(true);
    expect(isChannel('feishu')).toBe(false);
  });

  it('has an example of every message kind', () => {
    expect(EXAMPLES.map(messageKind)).toEqual([...MESSAGE_KINDS]);
  });

  const cases = CHANNELS.flatMap((channel) =>
    EXAMPLES.map((message) => ({ channel, kind: messageKind(message), message })),
  );
  it.each(cases)('$channel presents a $kind as its §5.3 row says', ({ channel, kind, message }) => {
    const row = EXPECTED_ROW[kind];
    expect(presentationFor(channel, message)).toBe(
      row === 'hidden' ? 'hidden' : VISIBILITY_MATRIX[channel][row],
    );
  });

  it('silently delivers intermediate messages on WeChat but shows the final text and crash notice', () => {
    const on = (kind: MessageKind) =>
      presentationFor(
        'wechat',
        EXAMPLES.find((m) => messageKind(m) === kind)!,
      );
    expect([on('thought'), on('tool_call'), on('tool_result'), on('notification')]).toEqual([
      'silent',
      'silent',
      'silent',
      'silent',
    ]);
    expect([on('final_reply'), on('crash_notice')]).toEqual(['shown', 'shown']);
  });

  it('never delivers the system prompt, background alerts or nudges on any channel (docs/message-model.md §3 不可见)', () => {
    const invisible = EXAMPLES.filter((m) =>
      ['system_prompt', 'background_alert', 'empty_reply_nudge'].includes(messageKind(m)),
    );
    for (const channel of CHANNELS)
      for (const message of invisible) expect(presentationFor(channel, message)).toBe('hidden');
  });
});

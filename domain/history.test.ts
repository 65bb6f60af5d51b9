import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backgroundAlert,
  cronPrompt,
  emptyReplyNudge,
  finalReply,
  notification,
  thought,
  toolCall,
  toolResult,
  userQuestion,
} from './factories.ts';
import type { TurnMetrics } from './message.ts';
import { groupTurns, sortHistory } from './history.ts';
import { persist } from './fixtures/persist.ts';

const AT = { session_id: 's', chatbot_id: 'cli', channel_id: 'tty' };
const METRICS: TurnMetrics = {
  session_turns: 1,
  context_tokens: 1,
  turn_tool_calls: 0,
  turn_tokens: 1,
  turn_time: 1,
};
const call = (id: string, turn_id: string, step: number) =>
  toolCall({
    ...AT,
    id,
    turn_id,
    step,
    tool_name: 'run_shell_command',
    tool_arguments: { command: id },
    tool_call_id: `id_${id}`,
  });
const result = (id: string, of: string, turn_id: string, step: number) =>
  toolResult({
    ...AT,
    id,
    turn_id,
    step,
    parent_id: of,
    tool_name: 'run_shell_command',
    tool_call_id: `id_${of}`,
    content: 'ok',
    summary: 'ok',
  });

// Every message carries the same timestamps (persist uses one instant); seq is the insertion order.
const HISTORY = [
  persist(userQuestion({ ...AT, id: 'u1', sender: 'me', content: 'q', received_at: null }), 1),
  persist(thought({ ...AT, id: 'u1.think', turn_id: 'u1', step: 0, content: 't' }), 2),
  persist(call('u1.call_a', 'u1', 0), 3),
  persist(call('u1.call_b', 'u1', 0), 4),
  persist(result('u1.result_b', 'u1.call_b', 'u1', 0), 5), // parallel calls: b finished first
  persist(result('u1.result_a', 'u1.call_a', 'u1', 0), 6),
  persist(emptyReplyNudge({ ...AT, id: 'u1.nudge', turn_id: 'u1', step: 1 }), 7),
  persist(
    finalReply({ ...AT, id: 'u1.reply', turn_id: 'u1', step: 2, content: 'a', turn_metrics: METRICS }),
    8,
  ),
  persist(notification({ ...AT, id: 'notice', content: '🔄 聊天历史已自动压缩。' }), 9),
  persist(cronPrompt({ ...AT, id: 'cron', content: 'Run status diagnostics' }), 10),
  persist(
    finalReply({ ...AT, id: 'cron.reply', turn_id: 'cron', step: 0, content: 'ok', turn_metrics: METRICS }),
    11,
  ),
  persist(backgroundAlert({ ...AT, id: 'alert', job_id: 'job_1' }), 12),
  persist(call('alert.call', 'alert', 0), 13), // the thought was persisted after the call it explains
  persist(thought({ ...AT, id: 'alert.think', turn_id: 'alert', step: 0, content: 't' }), 14),
  persist(result('alert.result', 'alert.call', 'alert', 0), 15),
  persist(
    finalReply({
      ...AT,
      id: 'alert.reply',
      turn_id: 'alert',
      step: 1,
      content: 'done',
      turn_metrics: METRICS,
    }),
    16,
  ),
];

const EXPECTED = [
  'u1',
  'u1.think',
  'u1.call_a',
  'u1.call_b',
  'u1.result_b',
  'u1.result_a',
  'u1.nudge',
  'u1.reply',
  'notice',
  'cron',
  'cron.reply',
  'alert',
  'alert.think',
  'alert.call',
  'alert.result',
  'alert.reply',
];

const ids = (messages: readonly { id: string }[]): string[] => messages.map((message) => message.id);

describe('phased sorting (docs/message-model.md §5.1)', () => {
  it('orders turns, steps and phases: trigger, thought, tool_call, tool_result, text', () => {
    expect(ids(sortHistory(HISTORY))).toEqual(EXPECTED);
  });

  it('sorts by phase across the whole turn, not step by step: every thought, every call, every result, the text', () => {
    const turn = [
      persist(userQuestion({ ...AT, id: 'm', sender: 'me', content: 'q', received_at: null }), 1),
      persist(thought({ ...AT, id: 'm.think0', turn_id: 'm', step: 0, content: 't0' }), 2),
      persist(call('m.call0', 'm', 0), 3),
      persist(result('m.result0', 'm.call0', 'm', 0), 4),
      persist(thought({ ...AT, id: 'm.think1', turn_id: 'm', step: 1, content: 't1' }), 5),
      persist(call('m.call1', 'm', 1), 6),
      persist(result('m.result1', 'm.call1', 'm', 1), 7),
      persist(
        finalReply({ ...AT, id: 'm.reply', turn_id: 'm', step: 2, content: 'a', turn_metrics: METRICS }),
        8,
      ),
    ];
    expect(ids(sortHistory([...turn].reverse()))).toEqual([
      'm',
      'm.think0',
      'm.think1',
      'm.call0',
      'm.call1',
      'm.result0',
      'm.result1',
      'm.reply',
    ]);
  });

  it('gives the same order for any input order when all timestamps are equal', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(HISTORY, { minLength: HISTORY.length, maxLength: HISTORY.length }),
        (shuffled) => {
          expect(ids(sortHistory(shuffled))).toEqual(EXPECTED);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('ignores timestamps entirely, even when they contradict seq', () => {
    const skewed = HISTORY.map((message, index) => ({
      ...message,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, HISTORY.length - index)).toISOString(),
    }));
    expect(ids(sortHistory(skewed.reverse()))).toEqual(EXPECTED);
  });

  it('orders turns by their smallest seq, so an interrupted turn’s late messages stay in it', () => {
    const first = persist(
      userQuestion({ ...AT, id: 'first', sender: 'me', content: '1', received_at: null }),
      1,
    );
    const second = persist(
      userQuestion({ ...AT, id: 'second', sender: 'me', content: '2', received_at: null }),
      2,
    );
    const lateCall = persist(call('first.call', 'first', 0), 3);
    expect(ids(sortHistory([second, lateCall, first]))).toEqual(['first', 'first.call', 'second']);
    expect(groupTurns([second, lateCall, first]).map(ids)).toEqual([['first', 'first.call'], ['second']]);
  });

  it('keeps messages without a turn as groups of their own, placed by seq', () => {
    const a = persist(notification({ ...AT, id: 'n_a', content: 'a' }), 5);
    const b = persist(notification({ ...AT, id: 'n_b', content: 'b' }), 2);
    const q = persist(userQuestion({ ...AT, id: 'q', sender: 'me', content: 'q', received_at: null }), 3);
    expect(ids(sortHistory([a, q, b]))).toEqual(['n_b', 'q', 'n_a']);
  });

  it('breaks ties by seq, then by id', () => {
    const x = persist(call('x', 't', 0), 7);
    const y = persist(call('y', 't', 0), 7);
    const z = persist(call('z', 't', 0), 6);
    expect(ids(sortHistory([y, x, z]))).toEqual(['z', 'x', 'y']);
  });

  it('puts in-turn messages without a step after every step', () => {
    const q = persist(userQuestion({ ...AT, id: 'q', sender: 'me', content: 'q', received_at: null }), 1);
    const late = persist(notification({ ...AT, id: 'late', content: 'n', turn_id: 'q' }), 2);
    const reply = persist(
      finalReply({ ...AT, id: 'r', turn_id: 'q', step: 3, content: 'a', turn_metrics: METRICS }),
      3,
    );
    expect(ids(sortHistory([late, reply, q]))).toEqual(['q', 'r', 'late']);
  });

  it('returns a new array and leaves the input untouched', () => {
    const input = [...HISTORY].reverse();
    const copy = structuredClone(input);
    const sorted = sortHistory(input);
    expect(sorted).not.toBe(input);
    expect(input).toEqual(copy);
    expect(ids(sortHistory(sorted))).toEqual(ids(sorted));
  });
});

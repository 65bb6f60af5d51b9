import { describe, expect, it } from 'vitest';
import { buildCleanHistory, estimateTokens, findCompaction, selectCompactionCut } from './clean-history.ts';
import {
  crashNotice,
  finalReply,
  manualCompactionPrompt,
  notification,
  systemPrompt,
  thought,
  toolCall,
  toolResult,
  userQuestion,
} from './factories.ts';
import type { Message, TurnMetrics } from './message.ts';
import { sortHistory } from './history.ts';
import { INTERRUPTED_TOOL_RESULT } from './tool-flow.ts';
import { persist } from './fixtures/persist.ts';

const AT = { session_id: 's', chatbot_id: 'discord', channel_id: 'c' };
const METRICS: TurnMetrics = {
  session_turns: 1,
  context_tokens: 1,
  turn_tool_calls: 0,
  turn_tokens: 1,
  turn_time: 1,
};
const ask = (id: string, seq: number, extra: Partial<Parameters<typeof userQuestion>[0]> = {}): Message =>
  persist(
    userQuestion({ ...AT, id, sender: 'Chii', content: `question ${id}`, received_at: null, ...extra }),
    seq,
  );
const reply = (
  id: string,
  turn_id: string,
  step: number,
  seq: number,
  compacted_through_seq?: number,
): Message =>
  persist(
    finalReply({
      ...AT,
      id,
      turn_id,
      step,
      content: `answer ${id}`,
      turn_metrics: METRICS,
      compacted_through_seq,
    }),
    seq,
  );
const call = (id: string, turn_id: string, step: number, seq: number): Message =>
  persist(
    toolCall({
      ...AT,
      id,
      turn_id,
      step,
      tool_name: 'run_shell_command',
      tool_arguments: { command: id },
      tool_call_id: `id_${id}`,
    }),
    seq,
  );
const result = (id: string, of: string, turn_id: string, step: number, seq: number): Message =>
  persist(
    toolResult({
      ...AT,
      id,
      turn_id,
      step,
      parent_id: of,
      tool_name: 'run_shell_command',
      tool_call_id: `id_${of}`,
      content: `out ${of}`,
      summary: 'ok',
    }),
    seq,
  );
const ids = (messages: readonly Message[]): string[] => messages.map((message) => message.id);

describe('clean history (docs/message-model.md §5.2)', () => {
  it('drops Notification messages and a stored system prompt', () => {
    const history = [
      ask('q1', 1),
      persist(notification({ ...AT, id: 'n', content: '🔄 聊天历史已自动压缩。' }), 2),
      persist(systemPrompt({ id: 'sp', session_id: 's', content: '# System' }), 3),
      reply('r1', 'q1', 0, 4),
    ];
    expect(ids(buildCleanHistory(history, { currentTurnId: null }))).toEqual(['q1', 'r1']);
  });

  it('drops a reply a stop made stale (never delivered), and no stale summary bounds the history', () => {
    const stale = (m: Message): Message => ({ ...m, metadata: { ...m.metadata, stale: true } });
    const prompt = persist(manualCompactionPrompt({ ...AT, id: 'c1' }), 3);
    const history = [
      ask('q1', 1),
      stale(reply('r1', 'q1', 0, 2)),
      prompt,
      stale(reply('sum', 'c1', 0, 4, 2)),
      ask('q2', 5),
    ];
    expect(findCompaction(history)).toBeNull();
    expect(ids(buildCleanHistory(history, { currentTurnId: 'q2' }))).toEqual(['q1', 'c1', 'q2']);
  });

  it('keeps thoughts of the current turn only', () => {
    const history = [
      ask('q1', 1),
      persist(thought({ ...AT, id: 't1', turn_id: 'q1', step: 0, content: 'old' }), 2),
      reply('r1', 'q1', 0, 3),
      ask('q2', 4),
      persist(thought({ ...AT, id: 't2', turn_id: 'q2', step: 0, content: 'now' }), 5),
    ];
    expect(ids(buildCleanHistory(history, { currentTurnId: 'q2' }))).toEqual(['q1', 'r1', 'q2', 't2']);
    expect(ids(buildCleanHistory(history, { currentTurnId: null }))).toEqual(['q1', 'r1', 'q2']);
  });

  it('strips attachments from historical user messages, leaving a placeholder, but not from the current trigger', () => {
    const attachments = [{ name: 'a.csv', size: 10 }, { name: 'b.png' }];
    const old = ask('q1', 1, { attachments, discord_message_id: 'd1' });
    const current = ask('q2', 3, { attachments: [{ name: 'c.pdf' }] });
    const clean = buildCleanHistory([old, reply('r1', 'q1', 0, 2), current], { currentTurnId: 'q2' });
    expect(clean[0]).toMatchObject({
      content: 'question q1\n[Attachments stripped from history: a.csv, b.png]',
      metadata: { discord_message_id: 'd1' },
    });
    expect(clean[0]?.metadata).not.toHaveProperty('attachments');
    expect(clean[2]).toBe(current);
    expect(old.metadata?.attachments).toEqual(attachments); // input untouched
  });

  it('keeps tool calls and results whole, matched by tool_call_id or by parent_id', () => {
    const byParentOnly = {
      ...result('r_b', 'c_b', 'q1', 0, 5),
      metadata: { tool_name: 'run_shell_command', tool_result: 'ok' },
    };
    const history = [
      ask('q1', 1),
      call('c_a', 'q1', 0, 2),
      call('c_b', 'q1', 0, 3),
      result('r_a', 'c_a', 'q1', 0, 4),
      byParentOnly,
      reply('r', 'q1', 1, 6),
    ];
    expect(ids(buildCleanHistory(history, { currentTurnId: null }))).toEqual([
      'q1',
      'c_a',
      'c_b',
      'r_a',
      'r_b',
      'r',
    ]);
  });

  it('repairs a dangling tool call with a synthetic interrupted result after the step’s other results (docs/message-model.md §4.4)', () => {
    const history = [
      ask('q1', 1),
      call('c_a', 'q1', 0, 2),
      call('c_b', 'q1', 0, 3),
      result('r_b', 'c_b', 'q1', 0, 4),
      ask('q2', 5),
    ];
    const clean = buildCleanHistory(history, { currentTurnId: 'q2' });
    expect(ids(clean)).toEqual(['q1', 'c_a', 'c_b', 'r_b', 'c_a:interrupted', 'q2']);
    expect(clean[4]).toMatchObject({
      role: 'tool',
      type: 'tool_result',
      sender: 'run_shell_command',
      parent_id: 'c_a',
      turn_id: 'q1',
      step: 0,
      content: INTERRUPTED_TOOL_RESULT,
      metadata: {
        tool_name: 'run_shell_command',
        tool_call_id: 'id_c_a',
        tool_result: 'interrupted',
        synthetic: true,
      },
    });
  });

  it('drops tool results without a call, and a call’s duplicate results', () => {
    const history = [
      ask('q1', 1),
      call('c_a', 'q1', 0, 2),
      result('r_a', 'c_a', 'q1', 0, 3),
      result('r_a_again', 'c_a', 'q1', 0, 4),
      result('orphan', 'c_gone', 'q1', 0, 5),
    ];
    expect(ids(buildCleanHistory(history, { currentTurnId: null }))).toEqual(['q1', 'c_a', 'r_a']);
  });

  it('keeps an interrupted or failed user message and the crash notice', () => {
    const failed = { ...ask('q1', 1), status: 'error' as const };
    const notice = persist(
      crashNotice({
        ...AT,
        id: 'x',
        turn_id: 'q1',
        content: '⚠️ 处理您的请求时发生异常: 模型服务暂时不可用。',
        failure_kind: 'provider',
      }),
      2,
    );
    const interrupted = { ...ask('q2', 3), status: 'interrupted' as const };
    expect(ids(buildCleanHistory([notice, interrupted, failed], { currentTurnId: null }))).toEqual([
      'q1',
      'x',
      'q2',
    ]);
  });

  it('sorts its input first', () => {
    const history = [
      ask('q1', 1),
      call('c', 'q1', 0, 2),
      result('r', 'c', 'q1', 0, 3),
      reply('a', 'q1', 1, 4),
    ];
    expect(buildCleanHistory([...history].reverse(), { currentTurnId: null })).toEqual(
      buildCleanHistory(history, { currentTurnId: null }),
    );
  });
});

describe('compaction', () => {
  // Turns q1 (1–4) and q2 (5–6) were summarised by the compaction turn k (7–8); q3 (9–10) came after.
  const compactionPrompt = persist(manualCompactionPrompt({ ...AT, id: 'k' }), 7);
  const summary = reply('k.summary', 'k', 0, 8, 6);
  const history = [
    ask('q1', 1),
    call('c1', 'q1', 0, 2),
    result('r1', 'c1', 'q1', 0, 3),
    reply('a1', 'q1', 1, 4),
    ask('q2', 5),
    reply('a2', 'q2', 0, 6),
    compactionPrompt,
    persist(thought({ ...AT, id: 'k.think', turn_id: 'k', step: 0, content: 'summarising' }), 9),
    summary,
    ask('q3', 10),
    reply('a3', 'q3', 0, 11),
  ].map((message, index) => ({ ...message, seq: index + 1 }));

  it('finds the latest summary whose turn was triggered by a compaction prompt', () => {
    expect(findCompaction(history)).toMatchObject({
      prompt: { id: 'k' },
      summary: { id: 'k.summary' },
      throughSeq: 6,
    });
    const notCompaction = history.map((m) => (m.id === 'k' ? { ...m, metadata: null } : m));
    expect(findCompaction(notCompaction)).toBeNull();
  });

  it('starts the model history with the compaction pair and drops everything it covers', () => {
    const clean = buildCleanHistory(history, { currentTurnId: 'q3' });
    expect(ids(clean)).toEqual(['k', 'k.summary', 'q3', 'a3']);
  });

  it('cuts after whole turns before the kept turn', () => {
    const sorted = sortHistory(history.slice(0, 6));
    expect(selectCompactionCut(sorted, 'q2')).toBe(4);
    expect(selectCompactionCut(sorted, null)).toBe(6);
    expect(selectCompactionCut(sorted, 'q1')).toBeNull();
  });

  it('never splits turns whose seqs interleave', () => {
    // q1's tool result arrived (seq 5) after q2 was queued (seq 3).
    const interleaved = [
      ask('q1', 1),
      call('c', 'q1', 0, 2),
      ask('q2', 3),
      reply('a2', 'q2', 0, 4),
      result('r', 'c', 'q1', 0, 5),
      ask('q3', 6),
    ];
    expect(selectCompactionCut(sortHistory(interleaved), 'q3')).toBe(5);
    expect(selectCompactionCut(sortHistory(interleaved), 'q2')).toBeNull();
  });

  it('never separates a tool call from its result, even across turns', () => {
    const crossTurn = [
      ask('q1', 1),
      call('c', 'q1', 0, 2),
      ask('q2', 3),
      { ...result('r', 'c', 'q2', 0, 4) },
      ask('q3', 5),
    ];
    expect(selectCompactionCut(sortHistory(crossTurn), 'q2')).toBeNull();
    expect(selectCompactionCut(sortHistory(crossTurn), 'q3')).toBe(4);
  });

  it('has nothing to compact when only the last compaction precedes the kept turn', () => {
    const sorted = sortHistory(history);
    expect(selectCompactionCut(sorted, 'q3')).toBeNull();
    expect(selectCompactionCut(sorted, null)).toBe(11);
  });
});

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['abcd', 1],
    ['abcde', 2],
    ['你好', 2],
    ['こんにちは', 5],
    ['你好 world', 4],
    ['运行 agent 历史模块的单元测试', 11 + 2],
    ['😀😀😀😀', 1],
  ])('estimates %j as %i tokens', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });
});

describe('queued inputs', () => {
  it('leaves out triggers still waiting for their own turn, but keeps the current one', async () => {
    const { buildCleanHistory: clean } = await import('./clean-history.ts');
    const base = {
      session_id: 's',
      parent_id: null,
      chatbot_id: 'api',
      channel_id: 's',
      sender: 'u',
      role: 'user' as const,
      type: 'text' as const,
      metadata: null,
      step: null,
      revision: 1,
      received_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const current = { ...base, id: 'a', turn_id: 'a', seq: 1, status: 'processing' as const, content: 'now' };
    const queued = {
      ...base,
      id: 'b',
      turn_id: 'b',
      seq: 2,
      status: 'pending_agent' as const,
      content: 'later',
    };
    expect(clean([current, queued], { currentTurnId: 'a' }).map((m) => m.id)).toEqual(['a']);
    expect(clean([current, queued], { currentTurnId: 'b' }).map((m) => m.id)).toEqual(['a', 'b']);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCleanHistory } from './clean-history.ts';
import {
  EMPTY_REPLY_NUDGE,
  backgroundAlert,
  crashNotice,
  cronPrompt,
  emptyReplyNudge,
  finalReply,
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
import { NUDGE_PREFIX, toProviderInput } from './transpile.ts';
import { persist } from './fixtures/persist.ts';
import { providerInvariantViolations } from './fixtures/provider-invariants.ts';

const AT = { session_id: 's', chatbot_id: 'discord', channel_id: 'c' };
const METRICS: TurnMetrics = {
  session_turns: 1,
  context_tokens: 1,
  turn_tool_calls: 0,
  turn_tokens: 1,
  turn_time: 1,
};
const ask = (id: string, content = `question ${id}`): Message =>
  persist(userQuestion({ ...AT, id, sender: 'Chii', content, received_at: null }), 0);
const reply = (id: string, turn_id: string, step: number, content = `answer ${id}`): Message =>
  persist(finalReply({ ...AT, id, turn_id, step, content, turn_metrics: METRICS }), 0);
const call = (id: string, turn_id: string, step: number): Message =>
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
    0,
  );
const result = (id: string, of: string, turn_id: string, step: number): Message =>
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
    0,
  );
/** Gives messages increasing seqs in the order written. */
const session = (...messages: Message[]): Message[] =>
  messages.map((message, index) => ({ ...message, seq: index + 1 }));

describe('role transpilation (docs/message-model.md §5.4)', () => {
  it('keeps each step together although the stored history is phase-first across the turn', () => {
    const step = (n: number): Message[] => [
      persist(
        {
          ...thought({ ...AT, id: `m.t${n}`, turn_id: 'm', step: n, content: `why ${n}` }),
          metadata: { reasoning_content: `reason ${n}` },
        },
        2 + 3 * n,
      ),
      persist(
        toolCall({
          ...AT,
          id: `m.c${n}`,
          turn_id: 'm',
          step: n,
          tool_name: 'run_shell_command',
          tool_arguments: { command: `cmd ${n}` },
          tool_call_id: `id${n}`,
        }),
        3 + 3 * n,
      ),
      persist(
        toolResult({
          ...AT,
          id: `m.r${n}`,
          turn_id: 'm',
          step: n,
          parent_id: `m.c${n}`,
          tool_name: 'run_shell_command',
          tool_call_id: `id${n}`,
          content: `out ${n}`,
          summary: 'ok',
        }),
        4 + 3 * n,
      ),
    ];
    const stored = sortHistory([
      persist(userQuestion({ ...AT, id: 'm', sender: 'me', content: 'go', received_at: null }), 1),
      ...step(0),
      ...step(1),
    ]);
    expect(stored.map((m) => m.type)).toEqual([
      'text',
      'thought',
      'thought',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
    ]);
    const { messages } = toProviderInput(buildCleanHistory(stored, { currentTurnId: 'm' }), 'S');
    expect(messages.map((m) => [m.role, m.role === 'assistant' ? m.reasoning : m.content])).toEqual([
      ['user', 'go'],
      ['assistant', 'reason 0'],
      ['tool', 'out 0'],
      ['assistant', 'reason 1'],
      ['tool', 'out 1'],
    ]);
  });

  it('maps every kind to its provider role', () => {
    const history = session(
      persist(systemPrompt({ id: 'sp', session_id: 's', content: 'stored prompt' }), 0),
      ask('q1', 'question'),
      persist(thought({ ...AT, id: 't', turn_id: 'q1', step: 0, content: 'plan' }), 0),
      call('c_a', 'q1', 0),
      call('c_b', 'q1', 0),
      result('r_a', 'c_a', 'q1', 0),
      result('r_b', 'c_b', 'q1', 0),
      persist(emptyReplyNudge({ ...AT, id: 'nudge', turn_id: 'q1', step: 1 }), 0),
      reply('a1', 'q1', 2, 'answer'),
      // Later turns that already ran (a trigger still pending_agent after the current turn would be queued).
      {
        ...persist(cronPrompt({ ...AT, id: 'cron', content: 'Run status diagnostics' }), 0),
        status: 'processed' as const,
      },
      reply('a2', 'cron', 0, 'all good'),
      { ...persist(backgroundAlert({ ...AT, id: 'alert', job_id: 'job_1' }), 0), status: 'error' as const },
      persist(
        crashNotice({
          ...AT,
          id: 'x',
          turn_id: 'alert',
          step: 0,
          content: '⚠️ 处理您的请求时发生异常: 模型服务暂时不可用。',
          failure_kind: 'provider',
        }),
        0,
      ),
    );
    const input = toProviderInput(
      buildCleanHistory(history, { currentTurnId: 'q1' }),
      '# System Instructions',
    );
    expect(input).toEqual({
      system: '# System Instructions',
      messages: [
        { role: 'user', content: 'question' },
        {
          role: 'assistant',
          content: 'plan',
          tool_calls: [
            { id: 'id_c_a', name: 'run_shell_command', arguments: { command: 'c_a' } },
            { id: 'id_c_b', name: 'run_shell_command', arguments: { command: 'c_b' } },
          ],
        },
        { role: 'tool', tool_call_id: 'id_c_a', name: 'run_shell_command', content: 'out c_a' },
        { role: 'tool', tool_call_id: 'id_c_b', name: 'run_shell_command', content: 'out c_b' },
        { role: 'user', content: `[System Notification]\n${EMPTY_REPLY_NUDGE}` },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'Run status diagnostics' },
        { role: 'assistant', content: 'all good' },
        { role: 'user', content: '[System Alert] Background Job job_1 finished.' },
        { role: 'assistant', content: '⚠️ 处理您的请求时发生异常: 模型服务暂时不可用。' },
      ],
    });
    expect(NUDGE_PREFIX).toBe('[System Notification]\n');
  });

  it('treats a delivered nudge as a nudge and a processed alert as an alert', () => {
    const nudge = {
      ...persist(emptyReplyNudge({ ...AT, id: 'n', turn_id: 'q', step: 0 }), 1),
      status: 'delivered' as const,
    };
    const alert = {
      ...persist(backgroundAlert({ ...AT, id: 'b', job_id: 'j' }), 2),
      status: 'processed' as const,
    };
    expect(toProviderInput([nudge, alert], '').messages).toEqual([
      {
        role: 'user',
        content: `${NUDGE_PREFIX}${EMPTY_REPLY_NUDGE}\n\n[System Alert] Background Job j finished.`,
      },
    ]);
  });

  it('merges consecutive user turns and consecutive plain assistant turns with a blank line', () => {
    const history = session(ask('q1', 'first'), ask('q2', 'second'), reply('a', 'q2', 0, 'answer'));
    const crashed = {
      ...persist(
        crashNotice({
          ...AT,
          id: 'x',
          turn_id: 'q2',
          content: '⚠️ 处理您的请求时发生异常: oops',
          failure_kind: 'provider',
        }),
        99,
      ),
    };
    const input = toProviderInput(buildCleanHistory([...history, crashed], { currentTurnId: null }), 'sys');
    expect(input.messages).toEqual([
      { role: 'user', content: 'first\n\nsecond' },
      { role: 'assistant', content: 'answer\n\n⚠️ 处理您的请求时发生异常: oops' },
    ]);
  });

  it('marks a stopped or restarted question so the next turn does not carry it out; an interrupted one is joined as is', () => {
    const ended = (
      id: string,
      content: string,
      interrupt_reason: 'stop' | 'interrupt' | 'restart',
    ): Message => ({
      ...ask(id, content),
      status: 'interrupted',
      metadata: { interrupt_reason },
    });
    const history = session(
      ended('q1', 'delete the build dir', 'stop'),
      ask('q2', 'never mind, what time is it?'),
      reply('a2', 'q2', 0, 'noon'),
      ended('q3', 'deploy', 'restart'),
      ended('q4', 'list files', 'interrupt'),
      ask('q5', 'in /tmp'),
    );
    const input = toProviderInput(buildCleanHistory(history, { currentTurnId: 'q5' }), 'sys');
    expect(input.messages).toEqual([
      {
        role: 'user',
        content: `delete the build dir\n\n${NUDGE_PREFIX}The user stopped the request above (/stop) before it was finished. Do not carry it out or continue it unless they ask for it again.\n\nnever mind, what time is it?`,
      },
      { role: 'assistant', content: 'noon' },
      {
        role: 'user',
        content: `deploy\n\n${NUDGE_PREFIX}The request above was not answered: the session restarted while handling it (what was done for it is unknown), and the user may send it again.\n\nlist files\n\nin /tmp`,
      },
    ]);
  });

  it('joins a thought with the next step’s tool calls but never appends to a message that has tool calls', () => {
    const history = session(
      ask('q'),
      persist(thought({ ...AT, id: 't0', turn_id: 'q', step: 0, content: 'think' }), 0),
      call('c1', 'q', 1),
    );
    const messages = toProviderInput(buildCleanHistory(history, { currentTurnId: 'q' }), '').messages;
    expect(messages).toEqual([
      { role: 'user', content: 'question q' },
      {
        role: 'assistant',
        content: 'think',
        tool_calls: [{ id: 'id_c1', name: 'run_shell_command', arguments: { command: 'c1' } }],
      },
      { role: 'tool', tool_call_id: 'id_c1', name: 'run_shell_command', content: INTERRUPTED_TOOL_RESULT },
    ]);
  });

  it('answers an interrupted tool call exactly once and drops results without a call', () => {
    const history = session(
      ask('q1'),
      call('c_done', 'q1', 0),
      call('c_lost', 'q1', 0),
      result('r_done', 'c_done', 'q1', 0),
      result('r_done_twice', 'c_done', 'q1', 0),
      result('r_orphan', 'c_never', 'q1', 0),
      ask('q2'),
    );
    for (const prepared of [buildCleanHistory(history, { currentTurnId: 'q2' }), sortHistory(history)]) {
      const messages = toProviderInput(prepared, 'sys').messages;
      expect(providerInvariantViolations(messages)).toEqual([]);
      const tools = messages.filter((message) => message.role === 'tool');
      expect(tools).toEqual([
        { role: 'tool', tool_call_id: 'id_c_done', name: 'run_shell_command', content: 'out c_done' },
        {
          role: 'tool',
          tool_call_id: 'id_c_lost',
          name: 'run_shell_command',
          content: INTERRUPTED_TOOL_RESULT,
        },
      ]);
    }
  });
});

// Any history the gateway can write: turns of questions/cron/alerts, steps with thoughts, tool calls that are
// answered, lost, answered twice or answered for a call that does not exist, nudges, replies, crashes, notices.
const stepArb = fc.record({
  thought: fc.boolean(),
  calls: fc.array(fc.constantFrom('answered', 'lost', 'twice', 'orphan'), { maxLength: 3 }),
  nudge: fc.boolean(),
});
const turnArb = fc.record({
  trigger: fc.constantFrom('user', 'cron', 'alert'),
  steps: fc.array(stepArb, { maxLength: 3 }),
  end: fc.constantFrom('reply', 'crash', 'none'),
  notice: fc.boolean(),
});

type GeneratedTurn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;

function buildSession(turns: GeneratedTurn[]): Message[] {
  const out: Message[] = [];
  turns.forEach((turn, t) => {
    const q = `q${t}`;
    out.push(
      turn.trigger === 'user'
        ? ask(q)
        : turn.trigger === 'cron'
          ? persist(cronPrompt({ ...AT, id: q, content: 'cron' }), 0)
          : persist(backgroundAlert({ ...AT, id: q, job_id: `job${t}` }), 0),
    );
    turn.steps.forEach((step, s) => {
      if (step.thought)
        out.push(persist(thought({ ...AT, id: `${q}.t${s}`, turn_id: q, step: s, content: 'hm' }), 0));
      step.calls.forEach((kind, c) => {
        const id = `${q}.c${s}.${c}`;
        if (kind !== 'orphan') out.push(call(id, q, s));
        if (kind !== 'lost') out.push(result(`${id}.r`, id, q, s));
        if (kind === 'twice') out.push(result(`${id}.r2`, id, q, s));
      });
      if (step.nudge) out.push(persist(emptyReplyNudge({ ...AT, id: `${q}.n${s}`, turn_id: q, step: s }), 0));
    });
    const last = turn.steps.length;
    if (turn.end === 'reply') out.push(reply(`${q}.a`, q, last));
    if (turn.end === 'crash')
      out.push(
        persist(
          crashNotice({
            ...AT,
            id: `${q}.x`,
            turn_id: q,
            step: last,
            content: '⚠️ 处理您的请求时发生异常: x',
            failure_kind: 'tool',
          }),
          0,
        ),
      );
    if (turn.notice) out.push(persist(notification({ ...AT, id: `${q}.notice`, content: 'n' }), 0));
  });
  return session(...out);
}

describe('transpilation invariants over generated histories', () => {
  it('always alternates roles and pairs every tool call with exactly one tool message', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 5 }), fc.boolean(), (turns, inTurn) => {
        const history = buildSession(turns);
        const currentTurnId = inTurn ? `q${turns.length - 1}` : null;
        const clean = buildCleanHistory(history, { currentTurnId });
        expect(providerInvariantViolations(toProviderInput(clean, 'sys').messages)).toEqual([]);
        expect(providerInvariantViolations(toProviderInput(sortHistory(history), 'sys').messages)).toEqual(
          [],
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('the provider invariant checker used above', () => {
  it('reports each kind of violation', () => {
    const callA = { id: 'a', name: 'n', arguments: {} };
    expect(
      providerInvariantViolations([
        { role: 'user', content: '1' },
        { role: 'user', content: '2' },
      ]),
    ).toHaveLength(1);
    expect(
      providerInvariantViolations([
        { role: 'assistant', content: '1' },
        { role: 'assistant', content: '2' },
      ]),
    ).toHaveLength(1);
    expect(providerInvariantViolations([{ role: 'assistant', content: '', tool_calls: [callA] }])).toEqual([
      'call a has 0 results',
    ]);
    expect(
      providerInvariantViolations([{ role: 'tool', tool_call_id: 'a', name: 'n', content: '' }]),
    ).toEqual(['#0: tool message a has no call']);
  });
});

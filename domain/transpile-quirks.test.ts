// Transpilation of reasoning, partial replies, attachments and the plainer history form.
import { describe, expect, it } from 'vitest';
import { buildCleanHistory } from './clean-history.ts';
import { thought, toolCall, toolResult, userQuestion } from './factories.ts';
import type { Message } from './message.ts';
import { partialReply } from './partial-reply.ts';
import { toProviderInput } from './transpile.ts';
import { persist } from './fixtures/persist.ts';

const AT = { session_id: 's', chatbot_id: 'api', channel_id: 's' };
const ask = (id: string, extra: Partial<Parameters<typeof userQuestion>[0]> = {}): Message =>
  persist(
    userQuestion({ ...AT, id, sender: 'tester', content: `question ${id}`, received_at: null, ...extra }),
    0,
  );
const think = (id: string, turn_id: string, content: string, reasoning?: string): Message => {
  const m = persist(thought({ ...AT, id, turn_id, step: 0, content }), 0);
  return reasoning === undefined ? m : { ...m, metadata: { reasoning_content: reasoning } };
};
const call = (id: string, turn_id: string): Message =>
  persist(
    toolCall({
      ...AT,
      id,
      turn_id,
      step: 0,
      tool_name: 'run_shell_command',
      tool_arguments: { command: 'ls' },
      tool_call_id: `c_${id}`,
    }),
    0,
  );
const result = (id: string, of: string, turn_id: string): Message =>
  persist(
    toolResult({
      ...AT,
      id,
      turn_id,
      step: 0,
      parent_id: of,
      tool_name: 'run_shell_command',
      tool_call_id: `c_${of}`,
      content: 'a.txt',
      summary: 'ok',
    }),
    0,
  );
const session = (...messages: Message[]): Message[] => messages.map((m, i) => ({ ...m, seq: i + 1 }));

describe('transpilation of provider quirks', () => {
  it('sends a thought’s reasoning as the assistant message’s reasoning, apart from its visible text', () => {
    const h = session(
      ask('q'),
      think('t', 'q', 'deep thoughts\n\nI will list files.', 'deep thoughts'),
      call('k', 'q'),
      result('r', 'k', 'q'),
    );
    const { messages } = toProviderInput(buildCleanHistory(h, { currentTurnId: 'q' }), 'sys');
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      content: 'I will list files.',
      reasoning: 'deep thoughts',
    });
  });

  it('writes past tool flows as assistant text in the plainer form, keeping the current turn’s tool calls', () => {
    const h = session(
      ask('q1'),
      call('k1', 'q1'),
      result('r1', 'k1', 'q1'),
      ask('q2'),
      call('k2', 'q2'),
      result('r2', 'k2', 'q2'),
    );
    const { messages } = toProviderInput(buildCleanHistory(h, { currentTurnId: 'q2' }), 'sys', {
      pastToolFlowsAsText: 'q2',
    });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    expect(messages[1]?.content).toBe(
      '[Earlier tool call: run_shell_command {"command":"ls"}]\n[Its result:]\na.txt',
    );
    expect(messages[3]).toMatchObject({ tool_calls: [{ id: 'c_k2' }] });
  });

  it('keeps an interrupted partial reply in history as assistant text that says it was cut off', () => {
    const partial = persist(partialReply({ ...AT, turn_id: 'q1', step: 0, text: 'Once upon a time ' }), 0);
    const h = session(ask('q1'), partial, ask('q2'));
    const { messages } = toProviderInput(buildCleanHistory(h, { currentTurnId: 'q2' }), 'sys');
    expect(messages).toEqual([
      { role: 'user', content: 'question q1' },
      { role: 'assistant', content: 'Once upon a time\n\n⏹️ (interrupted: this reply was cut off)' },
      { role: 'user', content: 'question q2' },
    ]);
  });

  it('gives only the current question its attachments; earlier ones get the placeholder', () => {
    const file = { name: 'a.csv', content_type: 'text/csv', path: '/w/attachments/q/0-a.csv' };
    const h = session(
      ask('q1', { attachments: [{ ...file, name: 'old.csv' }] }),
      ask('q2', { attachments: [file] }),
    );
    const { messages } = toProviderInput(buildCleanHistory(h, { currentTurnId: 'q2' }), 'sys');
    expect(messages).toEqual([
      {
        role: 'user',
        content: 'question q1\n[Attachments stripped from history: old.csv]\n\nquestion q2',
        attachments: [file],
      },
    ]);
  });
});

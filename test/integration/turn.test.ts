import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

describe('a plain turn', () => {
  it('stores the question, answers it, delivers the reply and marks the question processed', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'hello there');
    expect(r.message.status).toBe('pending_agent');
    expect(r.queue_position).toBe(0);
    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted']);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    const reply = msgs.find((m) => m.role === 'assistant' && m.type === 'text' && m.sender === 'Kesoku');
    expect(reply?.content).toBe('echo: hello there');
    expect(reply?.status).toBe('delivered');
    expect(reply?.metadata?.turn_metrics).toMatchObject({ session_turns: 1, turn_tool_calls: 0 });
  });
});

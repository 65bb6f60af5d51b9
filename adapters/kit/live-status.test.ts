// The live status of a chat channel: when a delivered message ends its turn, and the plan shown live.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { renderEntryPlain, statusEntryFor, turnEndOf } from './live-status.ts';

describe('turnEndOf', () => {
  it('says when a delivered message ends its turn, and how running tool lines end', () => {
    const m = (over: Partial<Message>) =>
      ({
        id: 't1:x',
        turn_id: 't1',
        type: 'text',
        role: 'assistant',
        sender: 'agent',
        metadata: null,
        ...over,
      }) as Message;
    expect(turnEndOf(m({}))).toBeNull();
    expect(turnEndOf(m({ metadata: { failure_kind: 'model' } }))).toBe('failed');
    expect(turnEndOf(m({ id: 't1:notice', sender: 'Notification' }))).toBe('interrupted');
    expect(turnEndOf(m({ id: 'other', sender: 'Notification' }))).toBe(false);
    expect(turnEndOf(m({ type: 'thought' }))).toBe(false);
    expect(turnEndOf(m({ turn_id: null }))).toBe(false);
  });
});

describe('the active plan in the status', () => {
  const call = (args: unknown) =>
    ({
      id: 't1:s0:call0',
      turn_id: 't1',
      type: 'tool_call',
      role: 'assistant',
      sender: 'update_plan',
      content: '',
      metadata: { tool_name: 'update_plan', tool_call_id: 'c1', tool_arguments: args },
    }) as unknown as Message;

  it('an update_plan line shows the steps it sets with their marks, not its JSON', () => {
    const entry = statusEntryFor(
      call({
        steps: [
          { title: 'Read the logs', status: 'done' },
          { title: 'Fix  the\nbug', status: 'in_progress' },
          { title: 'Test', status: 'pending' },
        ],
      }),
    );
    expect(entry).toMatchObject({ kind: 'tool', name: 'update_plan' });
    expect(renderEntryPlain(entry!)).toBe('🛠️ update_plan ✅ Read the logs · ▶️ Fix the bug · ◻️ Test ⏳');
  });

  it('a malformed plan is shown as its arguments, a cleared one as "clear"', () => {
    expect(statusEntryFor(call({ steps: [{ title: 'x', status: 'later' }] }))).toMatchObject({
      args: '{"steps":[{"title":"x","status":"later"}]}',
    });
    expect(statusEntryFor(call({ steps: [] }))).toMatchObject({ args: 'clear' });
  });
});

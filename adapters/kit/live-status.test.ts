// When a delivered message ends its turn, for the live status of a chat channel.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { turnEndOf } from './live-status.ts';

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

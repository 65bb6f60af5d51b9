import { describe, expect, it } from 'vitest';
import { SEEN_CARRY_LIMIT, SessionQueue, interruptsTurnOf } from './session-queue.ts';

describe('SessionQueue', () => {
  it('counts reserved slots against the capacity and frees them on release', () => {
    const q = new SessionQueue([], [], 2);
    q.reserve('a');
    q.reserve('b');
    expect(q.hasRoom()).toBe(false);
    q.release('b');
    expect(q.hasRoom()).toBe(true);
    expect(q.isSeen('b')).toBe(false);
    expect(q.isSeen('a')).toBe(true);
  });

  it('queues a committed reservation once, and nothing for a message that already ended', () => {
    const q = new SessionQueue([], [], 4);
    q.reserve('a');
    expect(q.commit('a', true)).toBe(0);
    expect(q.commit('a', true)).toBe(0);
    q.reserve('b');
    expect(q.commit('b', false)).toBeNull();
    expect(q.items()).toEqual([{ messageId: 'a', kind: 'user' }]);
    expect(q.hasRoom()).toBe(true);
  });

  it('in interrupt mode keeps only the newest user item, compaction items keep their place', () => {
    const q = new SessionQueue(
      [
        { messageId: 'u1', kind: 'user' },
        { messageId: 'c1', kind: 'compaction' },
        { messageId: 'u2', kind: 'user' },
        { messageId: 'u3', kind: 'user' },
      ],
      [],
      32,
    );
    expect(q.takeSupersededUserItems().map((i) => i.messageId)).toEqual(['u1', 'u2']);
    expect(q.items().map((i) => i.messageId)).toEqual(['c1', 'u3']);
  });

  it('supersedes per sender: each sender keeps its newest user item, items without a sender form one group', () => {
    const q = new SessionQueue(
      [
        { messageId: 'a1', kind: 'user', senderId: 'alice' },
        { messageId: 'b1', kind: 'user', senderId: 'bob' },
        { messageId: 'a2', kind: 'user', senderId: 'alice' },
        { messageId: 'n1', kind: 'user' },
        { messageId: 'c1', kind: 'compaction' },
        { messageId: 'n2', kind: 'user' },
      ],
      [],
      32,
    );
    expect(q.takeSupersededUserItems().map((i) => i.messageId)).toEqual(['a1', 'n1']);
    expect(q.items().map((i) => i.messageId)).toEqual(['b1', 'a2', 'c1', 'n2']);
  });

  it('only the same sender interrupts a running turn; no sender id on either side interrupts as before', () => {
    expect(interruptsTurnOf('alice', 'alice')).toBe(true);
    expect(interruptsTurnOf('alice', 'bob')).toBe(false);
    expect(interruptsTurnOf(undefined, 'bob')).toBe(true);
    expect(interruptsTurnOf('alice', undefined)).toBe(true);
    expect(interruptsTurnOf(undefined, undefined)).toBe(true);
  });

  it('keeps the sender on a committed item, removes a withdrawn item and can put it back in place', () => {
    const q = new SessionQueue([], [], 32);
    for (const id of ['a', 'b', 'c']) {
      q.reserve(id);
      q.commit(id, true, 'user', undefined, `u-${id}`);
    }
    expect(q.items()[1]).toEqual({ messageId: 'b', kind: 'user', senderId: 'u-b' });
    const removed = q.remove('b');
    expect(removed?.messageId).toBe('b');
    expect(q.remove('b')).toBeNull();
    expect(q.items().map((i) => i.messageId)).toEqual(['a', 'c']);
    q.insertAt(1, removed as NonNullable<typeof removed>);
    expect(q.items().map((i) => i.messageId)).toEqual(['a', 'b', 'c']);
  });

  it('takes the items admitted before a stop generation', () => {
    const q = new SessionQueue([], [], 32);
    q.reserve('old');
    q.commit('old', true, 'user', 0);
    q.reserve('new');
    q.commit('new', true, 'user', 1);
    expect(q.takeAdmittedBefore(1).map((i) => i.messageId)).toEqual(['old']);
    expect(q.items().map((i) => i.messageId)).toEqual(['new']);
    expect(q.takeAdmittedBefore(1)).toEqual([]);
  });

  it('carries at most the newest SEEN_CARRY_LIMIT ids across continue-as-new, and queued ids count as seen', () => {
    const ids = Array.from({ length: SEEN_CARRY_LIMIT + 5 }, (_, i) => `m${i}`);
    const q = new SessionQueue([{ messageId: 'queued', kind: 'user' }], ids, 32);
    expect(q.isSeen('queued')).toBe(true);
    const carried = q.seenForCarry();
    expect(carried).toHaveLength(SEEN_CARRY_LIMIT);
    expect(carried.at(-1)).toBe('queued');
    expect(carried).not.toContain('m0');
  });

  it('restores an item from storage unless it is queued already', () => {
    const q = new SessionQueue([{ messageId: 'a', kind: 'user' }], [], 32);
    q.restore({ messageId: 'a', kind: 'user' });
    q.restore({ messageId: 'b', kind: 'compaction' });
    expect(q.items().map((i) => i.messageId)).toEqual(['a', 'b']);
    expect(q.isSeen('b')).toBe(true);
  });
});

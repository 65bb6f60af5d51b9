import { describe, expect, it } from 'vitest';
import { SEEN_CARRY_LIMIT, SessionQueue } from '../../workflows/session-queue.ts';

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

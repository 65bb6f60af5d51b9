import { describe, expect, it } from 'vitest';
import { accessPolicy, decideAccess, type ChatPlace } from './access-policy.ts';

const dm: ChatPlace = {
  chatbotId: 'x',
  userId: 'u1',
  channelId: 'd1',
  parentId: null,
  groupId: null,
  isDirect: true,
};
const room: ChatPlace = {
  chatbotId: 'x',
  userId: 'u1',
  channelId: 'c1',
  parentId: null,
  groupId: 'g1',
  isDirect: false,
};
const thread: ChatPlace = { ...room, channelId: 't1', parentId: 'c1' };

describe('chat access policy', () => {
  it('defaults to pairing: strangers are asked to pair, paired users are allowed everywhere', () => {
    const p = accessPolicy({ allowAll: false });
    expect(p.mode).toBe('pairing');
    for (const place of [dm, room, thread]) {
      expect(decideAccess(p, place, false)).toBe('pairing');
      expect(decideAccess(p, place, true)).toBe('allowed');
    }
  });

  it('is open only on the explicit opt-in, even with lists set', () => {
    const p = accessPolicy({ allowAll: true, users: ['u9'] });
    expect(p.mode).toBe('open');
    for (const place of [dm, room, thread]) expect(decideAccess(p, place, false)).toBe('allowed');
  });

  it('with lists, every set list must match; strangers are denied without a code; paired users count as listed', () => {
    const users = accessPolicy({ allowAll: false, users: ['u9'] });
    expect(decideAccess(users, dm, false)).toBe('denied');
    expect(decideAccess(users, dm, true)).toBe('allowed');
    expect(decideAccess(users, room, true)).toBe('allowed');
    const channels = accessPolicy({ allowAll: false, channels: ['c1'] });
    expect(decideAccess(channels, thread, false)).toBe('allowed');
    expect(decideAccess(channels, { ...room, channelId: 'c2' }, true)).toBe('denied');
    expect(decideAccess(channels, dm, false)).toBe('denied');
    expect(decideAccess(channels, dm, true)).toBe('allowed');
    const groups = accessPolicy({ allowAll: false, groups: ['g2'], users: ['u1'] });
    expect(decideAccess(groups, room, false)).toBe('denied');
    expect(decideAccess(groups, dm, false)).toBe('allowed');
  });
});

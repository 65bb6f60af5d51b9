// Which shared memory scope covers a turn, and which keys a speaker recalls from.
import { describe, expect, it } from 'vitest';
import { recallKeys, sharedScopeOf } from './people.ts';

describe('sharedScopeOf', () => {
  const scopes = new Set(['session:s1', 'channel:discord:c9']);

  it("is the session's own scope first, else its channel's, else none", () => {
    expect(sharedScopeOf(scopes, 's1', 'discord', 'c9')).toBe('shared:session:s1');
    expect(sharedScopeOf(scopes, 's2', 'discord', 'c9')).toBe('shared:channel:discord:c9');
    expect(sharedScopeOf(scopes, 's2', 'googlechat', 'c9')).toBeNull();
    expect(sharedScopeOf(new Set(), 's1', 'discord', 'c9')).toBeNull();
  });

  it('adds the shared key to what a speaker recalls only when there is one', () => {
    expect(recallKeys({ persons: ['principal:ann'], shared: 'shared:session:s1' })).toEqual([
      'principal:ann',
      'shared:session:s1',
    ]);
    expect(recallKeys({ persons: ['principal:ann'], shared: null })).toEqual(['principal:ann']);
  });
});

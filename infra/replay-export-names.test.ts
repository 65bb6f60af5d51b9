/** Exported history file names (infra/temporal-replay.ts): one file per workflow id, never shared. */
import { describe, expect, it } from 'vitest';
import { historyFileName } from './temporal-replay.ts';

describe('historyFileName', () => {
  it('gives ids that differ only in unsafe characters different files', () => {
    const names = ['session:a/b', 'session:a_b', 'session:a:b', 'session:a b'].map(historyFileName);
    expect(new Set(names).size).toBe(4);
    for (const n of names) expect(n).toMatch(/^session_a_b\.[0-9a-f]{8}\.json$/);
  });

  it('is stable for one id', () => {
    expect(historyFileName('session:x')).toBe(historyFileName('session:x'));
  });
});

import { describe, expect, it } from 'vitest';
import { lessAdvanced } from './build-worker.ts';

describe('lessAdvanced', () => {
  it('reports a pair whose tool worker still drains as draining, whichever worker stopped first', () => {
    expect(lessAdvanced('STOPPED', 'DRAINING')).toBe('DRAINING');
    expect(lessAdvanced('DRAINING', 'STOPPED')).toBe('DRAINING');
    expect(lessAdvanced('RUNNING', 'STOPPING')).toBe('RUNNING');
  });

  it('reports a pair as stopped only when both are', () => {
    expect(lessAdvanced('STOPPED', 'STOPPED')).toBe('STOPPED');
    expect(lessAdvanced('FAILED', 'STOPPED')).toBe('FAILED');
    expect(lessAdvanced('DRAINED', 'FAILED')).toBe('DRAINED');
  });
});

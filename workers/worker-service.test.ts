// What `npm start` prints after the first Ctrl-C while the worker still runs tool commands or model calls.
import { describe, expect, it } from 'vitest';
import { drainNotice } from './worker-service.ts';

describe('drainNotice', () => {
  it('says what the stop waits for, how long at most, and how to exit at once', () => {
    expect(drainNotice(1, 300)).toBe(
      'waiting for 1 running tool command or model call to finish (up to 300 s); press Ctrl-C again to exit now',
    );
    expect(drainNotice(3, 20)).toContain('3 running tool commands or model calls');
    expect(drainNotice(3, 20)).toContain('(up to 20 s)');
  });

  it('says nothing when nothing runs', () => {
    expect(drainNotice(0, 300)).toBeNull();
  });
});

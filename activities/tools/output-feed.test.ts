import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OUTPUT_TAIL_LIMITS, OutputFeed, tailLines } from './output-feed.ts';

describe('tailLines', () => {
  it('keeps the last non-empty lines, what follows a carriage return, and the end of a long line', () => {
    expect(tailLines('a\n\nb\nc\nd\ne\nf\n')).toBe('b\nc\nd\ne\nf');
    expect(tailLines('downloading 10%\rdownloading 55%\n')).toBe('downloading 55%');
    const long = `${'x'.repeat(300)}END`;
    const cut = tailLines(long);
    expect(cut.endsWith('END')).toBe(true);
    expect(cut).toHaveLength(OUTPUT_TAIL_LIMITS.lineChars + 1);
  });
});

describe('OutputFeed', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('publishes at most once per interval while output comes, nothing for silence, nothing after close', () => {
    const published: { tail: string; outputChars: number }[] = [];
    const feed = new OutputFeed((t) => published.push(t), 1000);
    feed.push('line 1\n');
    feed.push('line 2\n');
    vi.advanceTimersByTime(999);
    expect(published).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(published).toEqual([{ tail: 'line 1\nline 2', outputChars: 14 }]);
    // Silence: nothing more.
    vi.advanceTimersByTime(5000);
    expect(published).toHaveLength(1);
    feed.push('line 3\n');
    vi.advanceTimersByTime(1000);
    expect(published.at(-1)?.tail).toBe('line 1\nline 2\nline 3');
    feed.push('line 4\n');
    feed.close();
    vi.advanceTimersByTime(5000);
    expect(published).toHaveLength(2);
  });

  it('keeps publishing when a listener throws', () => {
    let calls = 0;
    const feed = new OutputFeed(() => {
      calls++;
      throw new Error('listener down');
    }, 10);
    feed.push('a\n');
    vi.advanceTimersByTime(10);
    feed.push('b\n');
    vi.advanceTimersByTime(10);
    expect(calls).toBe(2);
    feed.close();
  });
});

// The running turn as an API process keeps it from transient events (api/live-turns.ts): whole text from the
// first delta, continuations by offset, new streams, gaps, bounds, ended turns.
import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../db/notify.ts';
import { LiveTurns } from './live-turns.ts';

const S = 'sess';
const T = 'turn-1';
const delta = (text: string, offset?: number, stream?: string, step = 0): TurnEvent => ({
  s: S,
  t: T,
  type: 'delta',
  step,
  text,
  ...(offset !== undefined ? { offset } : {}),
  ...(stream !== undefined ? { stream } : {}),
});

describe('LiveTurns', () => {
  it('keeps the whole text of a step from its first delta, whoever watches', () => {
    const turns = new LiveTurns();
    turns.apply({ s: S, t: T, type: 'status', status: 'thinking', step: 0 }, 1);
    turns.apply(delta('Hello ', 0, '1'), 2);
    turns.apply(delta('world', 6, '1'), 3);
    expect(turns.get(S)).toMatchObject({ turn_id: T, step: 0, status: 'thinking', text: 'Hello world' });
    expect(turns.get(S)?.text_offset).toBeUndefined();
  });

  it('starts again on a delta of another stream of the same step (a retried attempt)', () => {
    const turns = new LiveTurns();
    turns.apply(delta('first try', 0, '1'), 1);
    turns.apply(delta('second', 0, '2'), 2);
    expect(turns.get(S)?.text).toBe('second');
  });

  it('cuts an overlap and marks a gap with text_offset instead of joining text that does not meet', () => {
    const turns = new LiveTurns();
    turns.apply(delta('abc', 0, '1'), 1);
    turns.apply(delta('bcdef', 1, '1'), 2);
    expect(turns.get(S)?.text).toBe('abcdef');
    // An API that joined mid-stream: its first delta starts at 40.
    const late = new LiveTurns();
    late.apply(delta('tail', 40, '1'), 1);
    expect(late.get(S)).toMatchObject({ text: 'tail', text_offset: 40 });
    late.apply(delta(' more', 44, '1'), 2);
    expect(late.get(S)).toMatchObject({ text: 'tail more', text_offset: 40 });
  });

  it('a new step starts with empty text; late events of an earlier step change nothing', () => {
    const turns = new LiveTurns();
    turns.apply(delta('step zero', 0, '1', 0), 1);
    turns.apply(delta('step one', 0, '1', 1), 2);
    expect(turns.get(S)).toMatchObject({ step: 1, text: 'step one' });
    expect(turns.apply(delta(' late', 9, '1', 0), 3)).toBeNull();
    expect(turns.get(S)?.text).toBe('step one');
  });

  it('tracks tool progress with the times it saw', () => {
    const turns = new LiveTurns();
    turns.apply(
      { s: S, t: T, type: 'tool_started', step: 0, call_id: 'c1', name: 'run_shell_command' },
      1000,
    );
    expect(turns.get(S)?.tools).toEqual([
      {
        call_id: 'c1',
        name: 'run_shell_command',
        status: 'running',
        started_at: new Date(1000).toISOString(),
      },
    ]);
    turns.apply(
      {
        s: S,
        t: T,
        type: 'tool_finished',
        step: 0,
        call_id: 'c1',
        name: 'run_shell_command',
        ok: true,
        summary: 'exit 0',
      },
      3500,
    );
    expect(turns.get(S)?.tools[0]).toMatchObject({
      status: 'ok',
      summary: 'exit 0',
      started_at: new Date(1000).toISOString(),
      finished_at: new Date(3500).toISOString(),
    });
  });

  it("keeps a running command's output tail, drops it when the call finishes, and ignores a late tail", () => {
    const turns = new LiveTurns();
    const output = (tail: string) =>
      ({
        s: S,
        t: T,
        type: 'tool_output',
        step: 0,
        call_id: 'c1',
        name: 'run_shell_command',
        tail,
        output_chars: tail.length,
      }) as const;
    turns.apply({ s: S, t: T, type: 'tool_started', step: 0, call_id: 'c1', name: 'run_shell_command' }, 1);
    expect(turns.apply(output('line 1\nline 2'), 2)?.tools[0]).toMatchObject({
      status: 'running',
      output_tail: 'line 1\nline 2',
      started_at: new Date(1).toISOString(),
    });
    turns.apply(
      {
        s: S,
        t: T,
        type: 'tool_finished',
        step: 0,
        call_id: 'c1',
        name: 'run_shell_command',
        ok: true,
        summary: 'ok',
      },
      3,
    );
    expect(turns.get(S)?.tools[0]?.output_tail).toBeUndefined();
    // A tail published just before the end can arrive after it: nothing changes.
    expect(turns.apply(output('line 3'), 4)).toBeNull();
    expect(turns.get(S)?.tools[0]).toMatchObject({ status: 'ok' });
    // The tail of a call whose start this API did not see shows it running.
    expect(turns.apply({ ...output('late joiner'), call_id: 'c2' }, 5)?.tools[1]).toEqual({
      call_id: 'c2',
      name: 'run_shell_command',
      status: 'running',
      output_tail: 'late joiner',
    });
  });

  it('ends a turn once: the last snapshot comes back finished, later events of it are dropped', () => {
    const turns = new LiveTurns();
    turns.apply(delta('partial', 0, '1'), 1);
    expect(turns.end(S, T, 'interrupted')).toMatchObject({ status: 'finished', outcome: 'interrupted' });
    expect(turns.get(S)).toBeNull();
    expect(turns.hasEnded(S, T)).toBe(true);
    expect(turns.apply(delta(' more', 7, '1'), 2)).toBeNull();
    expect(turns.end(S, T, 'interrupted')).toBeNull();
  });

  it('is bounded: text per step, sessions held, idle entries', () => {
    const turns = new LiveTurns({ maxTextChars: 5, maxSessions: 2, idleMs: 100 });
    turns.apply(delta('abc', 0, '1'), 1);
    turns.apply(delta('defgh', 3, '1'), 2);
    expect(turns.get(S)?.text).toBe('abcde');
    turns.apply(delta('ij', 8, '1'), 3);
    expect(turns.get(S)).toMatchObject({ text: 'abcde' });
    expect(turns.get(S)?.text_offset).toBeUndefined();
    turns.apply({ s: 'b', t: 'x', type: 'status', status: 'thinking', step: 0 }, 4);
    turns.apply({ s: 'c', t: 'y', type: 'status', status: 'thinking', step: 0 }, 5);
    expect(turns.size).toBe(2);
    expect(turns.get(S)).toBeNull(); // the least recently updated went first
    turns.sweep(5 + 101);
    expect(turns.size).toBe(0);
  });

  it('shows the plan the turn set, keeps it into the next step, and ignores an older plan arriving late', () => {
    const turns = new LiveTurns();
    const plan = (revision: number, status: 'pending' | 'done'): TurnEvent => ({
      s: S,
      t: T,
      type: 'plan_updated',
      plan: { steps: [{ title: 'read the logs', status }], revision },
    });
    turns.apply({ s: S, t: T, type: 'status', status: 'running_tools', step: 0 }, 1);
    expect(turns.apply(plan(1, 'pending'), 2)?.plan).toEqual({
      steps: [{ title: 'read the logs', status: 'pending' }],
      revision: 1,
    });
    turns.apply(plan(2, 'done'), 3);
    expect(turns.apply(plan(1, 'pending'), 4)).toBeNull();
    turns.apply(delta('next step', 0, '1', 1), 5);
    expect(turns.get(S)).toMatchObject({ step: 1, text: 'next step', plan: { revision: 2 } });
    // Another turn starts without it (its prompt has the plan; its own updates come as events).
    turns.apply({ s: S, t: 'turn-2', type: 'status', status: 'thinking', step: 0 }, 6);
    expect(turns.get(S)?.plan).toBeUndefined();
  });
});

// The running turn shown live from turn.updated snapshots: only new text is printed, resets are noticed, and
// what has been committed is not shown again.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { TRACE_6_1 } from '../../domain/fixtures/trace-6-1.ts';
import type { TurnUpdated } from '../../adapters/cli/api-client.ts';
import { LiveTurn } from '../../adapters/cli/live.ts';
import { createStyle } from '../../adapters/cli/render.ts';
import { Screen } from '../../adapters/cli/screen.ts';

const snap = (fields: Partial<TurnUpdated>): TurnUpdated => ({
  session_id: 's',
  turn_id: 't1',
  step: 0,
  status: 'thinking',
  text: '',
  tools: [],
  ...fields,
});

const base = TRACE_6_1[1] as Message;
const committed = (fields: Partial<Message>): Message => ({ ...base, turn_id: 't1', step: 0, ...fields });

describe('LiveTurn', () => {
  it('gives only the new suffix of the text', () => {
    const live = new LiveTurn();
    expect(live.update(snap({ text: 'Hel' }))).toEqual({ reset: false, appended: 'Hel', tools: [] });
    expect(live.update(snap({ text: 'Hello, wo' }))).toEqual({ reset: false, appended: 'lo, wo', tools: [] });
    expect(live.update(snap({ text: 'Hello, wo' })).appended).toBe('');
  });

  it('resets on a new step, a new turn, or text that does not continue the old one', () => {
    const live = new LiveTurn();
    live.update(snap({ text: 'I will run it.' }));
    expect(live.update(snap({ step: 1, text: 'Do' }))).toMatchObject({ reset: true, appended: 'Do' });
    expect(live.update(snap({ step: 1, text: 'Retry' }))).toMatchObject({ reset: true, appended: 'Retry' });
    expect(live.update(snap({ turn_id: 't2', text: 'x' }))).toMatchObject({ reset: true, appended: 'x' });
    // A late snapshot of an earlier step of the same turn is ignored.
    expect(live.update(snap({ turn_id: 't2', step: 0, text: 'xy' }))).toMatchObject({ appended: 'y' });
    live.update(snap({ turn_id: 't2', step: 2, text: 'z' }));
    expect(live.update(snap({ turn_id: 't2', step: 1, text: 'old' }))).toEqual({
      reset: false,
      appended: '',
      tools: [],
    });
  });

  it('reports tool progress changes once', () => {
    const live = new LiveTurn();
    const running = { call_id: 'c1', name: 'run_shell_command', status: 'running' as const };
    expect(live.update(snap({ status: 'running_tools', tools: [running] })).tools).toEqual([running]);
    expect(live.update(snap({ status: 'running_tools', tools: [running] })).tools).toEqual([]);
    const ok = { ...running, status: 'ok' as const, summary: 'hi' };
    expect(live.update(snap({ tools: [ok] })).tools).toEqual([ok]);
  });

  it('drops committed text and tool results from the view, and the turn once its trigger ended', () => {
    const live = new LiveTurn();
    live.update(
      snap({
        text: 'I will run it.',
        status: 'running_tools',
        tools: [{ call_id: 'c1', name: 'sh', status: 'running' }],
      }),
    );
    expect(live.view()).toMatchObject({ text: 'I will run it.', tools: [{ call_id: 'c1' }] });
    live.commit(committed({ id: 'th', type: 'thought' }));
    expect(live.view()).toMatchObject({ text: '', tools: [{ call_id: 'c1' }] });
    live.commit(committed({ id: 'r', type: 'tool_result', role: 'tool', metadata: { tool_call_id: 'c1' } }));
    expect(live.view()).toMatchObject({ text: '', tools: [] });
    // A snapshot trailing the commit brings nothing back.
    expect(
      live.update(snap({ text: 'I will run it.', tools: [{ call_id: 'c1', name: 'sh', status: 'ok' }] })),
    ).toEqual({
      reset: false,
      appended: '',
      tools: [],
    });
    live.commit(committed({ id: 't1', role: 'user', type: 'text', status: 'processed', step: null }));
    expect(live.view()).toBeNull();
    expect(live.update(snap({ step: 1, text: 'late' }))).toEqual({ reset: false, appended: '', tools: [] });
  });

  it('ends the turn on the finished snapshot', () => {
    const live = new LiveTurn();
    live.update(snap({ text: 'abc' }));
    expect(live.update(snap({ status: 'finished', outcome: 'processed', text: 'abc' })).reset).toBe(true);
    expect(live.view()).toBeNull();
  });
});

describe('Screen in append mode (--live on a pipe)', () => {
  it('writes streamed text as it grows, ends it with a newline before other output, and prints tool progress on lines of their own', () => {
    let out = '';
    const screen = new Screen({ write: (s) => (out += s) }, 'append', { style: createStyle(0), columns: 80 });
    const live = new LiveTurn();
    for (const text of ['I ', 'I will ', 'I will run it.'])
      screen.live(live.update(snap({ text })), live.view());
    screen.live(
      live.update(
        snap({
          text: 'I will run it.',
          status: 'running_tools',
          tools: [{ call_id: 'c', name: 'sh', status: 'running' }],
        }),
      ),
      live.view(),
    );
    screen.live(live.update(snap({ step: 1, text: 'Done' })), live.view());
    screen.print('panel');
    expect(stripVTControlCharacters(out)).toBe('I will run it.\n⏳ sh\nDone\npanel\n');
  });
});

// The running turn shown live from turn.updated snapshots: only new text is printed, resets are noticed, and
// what has been committed is not shown again.
import type { Interface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { TRACE_6_1 } from '../../domain/fixtures/trace-6-1.ts';
import type { TurnUpdated } from './api-client.ts';
import { LiveTurn } from './live.ts';
import { createStyle } from './render.ts';
import { Screen } from './screen.ts';

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

  it('ends the turn when its final reply is committed, before its trigger’s final status or the finished snapshot', () => {
    const live = new LiveTurn();
    live.update(snap({ step: 1, text: 'Done: hi' }));
    live.commit(
      committed({ id: 'reply', role: 'assistant', type: 'text', sender: 'Kesoku', step: 1, metadata: null }),
    );
    expect(live.view()).toBeNull();
    // Snapshots trailing the reply (the turn's bookkeeping runs on) bring no live line back.
    expect(live.update(snap({ step: 1, text: 'Done: hi' }))).toEqual({
      reset: false,
      appended: '',
      tools: [],
    });
    expect(
      live.update(snap({ step: 1, status: 'finished', outcome: 'processed', text: 'Done: hi' })),
    ).toEqual({
      reset: false,
      appended: '',
      tools: [],
    });
    expect(live.view()).toBeNull();
  });

  it('ends the turn on its crash notice, but not on a notification (a compaction notice may come mid-turn)', () => {
    const live = new LiveTurn();
    live.update(snap({ text: 'working' }));
    live.commit(
      committed({
        id: 'n',
        role: 'assistant',
        type: 'text',
        sender: 'Notification',
        step: null,
        metadata: null,
      }),
    );
    expect(live.view()).toMatchObject({ text: 'working' });
    live.commit(
      committed({
        id: 'crash',
        role: 'assistant',
        type: 'text',
        sender: 'Kesoku',
        step: null,
        metadata: { failure_kind: 'provider' },
      }),
    );
    expect(live.view()).toBeNull();
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

describe('Screen in region mode (a terminal)', () => {
  /** A readline stand-in: the prompt `› ` on one row. */
  const fakeRl = () =>
    ({
      getPrompt: () => '› ',
      getCursorPos: () => ({ rows: 0, cols: 2 }),
      prompt: () => undefined,
    }) as unknown as Interface;

  it('the live line is erased, not redrawn, once the turn’s reply is committed', () => {
    let out = '';
    const screen = new Screen({ write: (s) => (out += s), columns: 80 }, 'region', {
      style: createStyle(0),
      columns: 80,
    });
    screen.attach(fakeRl());
    screen.showPrompt();
    const live = new LiveTurn();
    screen.live(live.update(snap({ step: 1, text: 'Done: hi' })), live.view());
    expect(out).toContain('  Done: hi\n');
    // As the client does on a commit: note the message, redraw the live region from the view, print it.
    const reply = committed({
      id: 'reply',
      role: 'assistant',
      type: 'text',
      sender: 'Kesoku',
      step: 1,
      metadata: null,
    });
    live.commit(reply);
    out = '';
    screen.refresh(live.view());
    // Up over the one live line, then clear to the end of the screen: nothing is drawn again.
    expect(out).toBe('\u001b[1A\r\u001b[J');
    out = '';
    screen.print('Kesoku › Done: hi');
    expect(out).toBe('\r\u001b[JKesoku › Done: hi\n');
    out = '';
    screen.live(live.update(snap({ step: 1, text: 'Done: hi' })), live.view());
    expect(out).toBe('');
  });

  it('a terminal that reports 0 columns is measured with the render width: Enter erases only the typed line', () => {
    let out = '';
    const screen = new Screen({ write: (s) => (out += s), columns: 0 }, 'region', {
      style: createStyle(0),
      columns: 80,
    });
    screen.attach(fakeRl());
    screen.showPrompt();
    screen.entered('hello there', '› hello there');
    // One row up (the prompt and the typed text fit in 80 columns), not one row per character.
    expect(out.startsWith('\u001b[1A\r\u001b[J')).toBe(true);
  });

  describe('the active plan, live', () => {
    const plan = (revision: number, second: 'pending' | 'in_progress' | 'done') => ({
      revision,
      steps: [
        { title: 'Read the logs', status: 'done' as const },
        { title: 'Fix the bug', status: second },
      ],
    });

    it('is news once per revision, stays in the view from step to step, and goes with the turn', () => {
      const live = new LiveTurn();
      expect(live.update(snap({ plan: plan(1, 'pending') })).plan?.revision).toBe(1);
      expect(live.update(snap({ plan: plan(1, 'pending'), text: 'a' })).plan).toBeUndefined();
      expect(live.update(snap({ step: 1, plan: plan(2, 'in_progress') })).plan?.revision).toBe(2);
      expect(live.view()?.plan?.revision).toBe(2);
      live.update(snap({ status: 'finished', outcome: 'processed' }));
      expect(live.view()).toBeNull();
      // Another turn's first snapshot with the same plan is news again (a new turn starts with no live plan).
      expect(live.update(snap({ turn_id: 't2', plan: plan(2, 'in_progress') })).plan?.revision).toBe(2);
    });

    it('is printed under the tools in append mode and drawn in the live region', () => {
      const live = new LiveTurn();
      let out = '';
      const screen = new Screen({ write: (s) => (out += s) }, 'append', {
        style: createStyle(0),
        columns: 80,
      });
      const u = snap({ status: 'running_tools', plan: plan(1, 'in_progress') });
      screen.live(live.update(u), live.view());
      expect(stripVTControlCharacters(out)).toBe(
        '📋 Plan 1/2 done\n   ✅ Read the logs\n   ▶️ Fix the bug\n',
      );
      let region = '';
      const regional = new Screen({ write: (s) => (region += s), columns: 80 }, 'region', {
        style: createStyle(0),
        columns: 80,
      });
      regional.live(live.update(snap({ status: 'running_tools', plan: plan(2, 'done') })), live.view());
      expect(stripVTControlCharacters(region)).toContain(
        '📋 Plan 2/2 done\n   ✅ Read the logs\n   ✅ Fix the bug',
      );
    });
  });
});

/**
 * The kit's stored live status (adapters/kit/stored-status.ts) on its own, with the real delivery records in
 * Postgres and a toy view that "writes" to an in-memory platform: the state survives from one sink (worker) to
 * the next, throttled writes are deferred and flushed, `present` groups by turn and leaves a broken status's
 * messages out, and `showNotice` / `finishTurn` bring a turn's status to its end.
 */
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createDeliveryStore } from '../../db/deliveries.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import type { SessionRow } from '../../db/sessions.ts';
import type { Message } from '../../domain/message.ts';
import { createLogger } from '../../infra/logger.ts';
import {
  applyToolResult,
  entryOfResult,
  renderEntryPlain,
  setToolTail,
  statusEntryFor,
  type StatusEntry,
  type ToolState,
} from './live-status.ts';
import { createStoredLiveStatus, type LiveStatusView, type WriteMode } from './stored-status.ts';

let pool: Pool;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'));
});
afterAll(async () => pool?.end());

const logger = createLogger('kit-stored-status-test', process.env.KESOKU_TEST_LOG ?? 'silent');
const now = new Date().toISOString();
let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${Date.now()}-${++n}`;

/** The toy platform: what each turn's status shows, every write, and whether writes fail. */
interface Platform {
  shown: Map<string, string>;
  writes: { turnId: string; mode: WriteMode; at: number }[];
  failing: boolean;
}

/** A toy view: its lines as plain text, written to {@link Platform}; `intervalMs` is its throttle. */
class ToyView implements LiveStatusView {
  broken: boolean;
  lastWriteAt: number;
  readonly entries: StatusEntry[];
  private readonly platform: Platform;
  private readonly turnId: string;
  private readonly intervalMs: number;
  constructor(
    platform: Platform,
    turnId: string,
    stored: { state: { entries: StatusEntry[]; broken: boolean }; lastWriteAt: number } | null,
    intervalMs: number,
  ) {
    this.platform = platform;
    this.turnId = turnId;
    this.intervalMs = intervalMs;
    this.entries = stored?.state.entries ?? [];
    this.broken = stored?.state.broken ?? false;
    this.lastWriteAt = stored?.lastWriteAt ?? 0;
  }
  get empty(): boolean {
    return this.entries.length === 0;
  }
  toState() {
    return { entries: this.entries, broken: this.broken };
  }
  apply(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.type === 'tool_result') {
        const call = entryOfResult(new Map(this.entries.map((x) => [x.key, x])), m);
        if (call) applyToolResult(call, m);
        continue;
      }
      const e = statusEntryFor(m);
      if (e && !this.entries.some((x) => x.key === e.key)) this.entries.push(e);
    }
  }
  markRunning(endState: Exclude<ToolState, 'running' | 'ok'>): void {
    for (const e of this.entries) if (e.kind === 'tool' && e.state === 'running') e.state = endState;
  }
  setToolTail(toolCallMessageId: string, tail: string, elapsedMs: number): boolean {
    return setToolTail(this.entries, toolCallMessageId, tail, elapsedMs);
  }
  async write(mode: WriteMode): Promise<number | null> {
    if (this.broken) return null;
    const text = this.entries.map(renderEntryPlain).join('\n');
    if (this.platform.shown.get(this.turnId) === text) return null;
    const wait = mode === 'now' ? 0 : this.lastWriteAt + this.intervalMs - Date.now();
    if (wait > 0 && mode === 'throttled') return wait;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (this.platform.failing) {
      this.broken = true;
      return null;
    }
    this.platform.shown.set(this.turnId, text);
    this.platform.writes.push({ turnId: this.turnId, mode, at: Date.now() });
    this.lastWriteAt = Date.now();
    return null;
  }
}

function statusesFor(platform: Platform, intervalMs = 0) {
  return createStoredLiveStatus<ToyView>({
    store: createDeliveryStore(pool),
    logger,
    lockWaitMs: 5000,
    label: 'toy status',
    restore: async (turnId, _session, stored) =>
      new ToyView(
        platform,
        turnId,
        stored
          ? {
              state: stored.state as { entries: StatusEntry[]; broken: boolean },
              lastWriteAt: stored.lastEditAt,
            }
          : null,
        intervalMs,
      ),
  });
}

const session = (): SessionRow => ({
  id: unique('kit'),
  timezone: null,
  chatbot_id: 'toy',
  channel_id: 'c1',
  title: null,
  title_source: 'default',
  mode: 'interrupt',
  locale: 'en',
  revision: 0,
  turn_count: 0,
  channel_context: null,
  created_at: now,
  updated_at: now,
});

function msg(turnId: string, p: Partial<Message> & Pick<Message, 'id' | 'type' | 'role'>): Message {
  return {
    session_id: 's',
    parent_id: turnId,
    chatbot_id: 'toy',
    channel_id: 'c1',
    sender: 'Kesoku',
    status: 'responded',
    content: '',
    metadata: null,
    turn_id: turnId,
    step: 0,
    seq: 1,
    revision: 1,
    received_at: null,
    created_at: now,
    updated_at: now,
    ...p,
  };
}
const thought = (turn: string, text: string) =>
  msg(turn, { id: `${turn}:t:${text}`, type: 'thought', role: 'assistant', content: text });
const call = (turn: string, command: string) =>
  msg(turn, {
    id: `${turn}:call`,
    type: 'tool_call',
    role: 'tool',
    sender: 'run_shell_command',
    metadata: { tool_name: 'run_shell_command', tool_arguments: { command } },
  });
const notice = (turn: string, id: string, content: string) =>
  msg(turn, { id, type: 'text', role: 'assistant', sender: 'Notification', status: 'pending', content });

const newPlatform = (): Platform => ({ shown: new Map(), writes: [], failing: false });

describe('stored live status (adapters/kit/stored-status.ts)', () => {
  it('continues a turn’s status in a fresh sink from what Postgres holds', async () => {
    const platform = newPlatform();
    const s = session();
    const turn = unique('turn');
    const first = statusesFor(platform);
    expect(await first.present([thought(turn, 'one')], s)).toEqual([`${turn}:t:one`]);
    await first.close();
    const second = statusesFor(platform);
    await second.present([thought(turn, 'two')], s);
    expect(platform.shown.get(turn)).toBe('💭 one\n💭 two');
    await second.close();
  });

  it("shows a running command's time and last output lines under its call, and drops them with its result", async () => {
    const platform = newPlatform();
    const s = session();
    const turn = unique('turn');
    const statuses = statusesFor(platform);
    const tail = (t: string, elapsedMs: number) => ({ tail: t, elapsedMs });
    // No status yet: nothing is written or stored.
    await statuses.showToolOutput(turn, s, `${turn}:call`, tail('early', 900));
    expect(platform.shown.has(turn)).toBe(false);
    await statuses.present([call(turn, 'make')], s);
    await statuses.showToolOutput(
      turn,
      s,
      `${turn}:call`,
      tail('compiling a\ncompiling b\ncompiling c', 1200),
    );
    expect(platform.shown.get(turn)).toBe(
      '🛠️ run_shell_command make ⏳ · 1.0s\n   compiling b\n   compiling c',
    );
    // A silent command: the time moves, the lines stay.
    await statuses.showToolOutput(turn, s, `${turn}:call`, tail('', 12_600));
    expect(platform.shown.get(turn)).toBe(
      '🛠️ run_shell_command make ⏳ · 12s\n   compiling b\n   compiling c',
    );
    // Another call's tail changes nothing.
    await statuses.showToolOutput(turn, s, `${turn}:other`, tail('not mine', 13_000));
    expect(platform.shown.get(turn)).not.toContain('not mine');
    const result = msg(turn, {
      id: `${turn}:result`,
      type: 'tool_result',
      role: 'tool',
      sender: 'run_shell_command',
      parent_id: `${turn}:call`,
      metadata: { tool_name: 'run_shell_command', tool_call_id: 'x', tool_result: 'exit 0', tool_ok: true },
    });
    await statuses.present([result], s);
    expect(platform.shown.get(turn)).toBe('🛠️ run_shell_command make ✅ exit 0');
    // A tail arriving after the result is not shown.
    await statuses.showToolOutput(turn, s, `${turn}:call`, tail('late line', 14_000));
    expect(platform.shown.get(turn)).toBe('🛠️ run_shell_command make ✅ exit 0');
    await statuses.close();
  });

  it('defers a throttled write and flushes it on close', async () => {
    const platform = newPlatform();
    const s = session();
    const turn = unique('turn');
    const statuses = statusesFor(platform, 60_000);
    await statuses.present([thought(turn, 'first')], s);
    await statuses.present([thought(turn, 'second')], s);
    expect(platform.shown.get(turn)).toBe('💭 first');
    await statuses.close();
    expect(platform.shown.get(turn)).toBe('💭 first\n💭 second');
    expect(platform.writes.map((w) => w.mode)).toEqual(['throttled', 'now']);
  });

  it('groups messages by turn and leaves a broken status’s messages out', async () => {
    const platform = newPlatform();
    const s = session();
    const [ok, bad] = [unique('ok'), unique('bad')];
    const statuses = statusesFor(platform);
    await statuses.present([thought(bad, 'x')], s);
    platform.failing = true;
    await statuses.present([thought(bad, 'y')], s);
    platform.failing = false;
    const shown = await statuses.present(
      [
        thought(ok, 'a'),
        thought(bad, 'z'),
        msg('', { id: 'no-turn', type: 'thought', role: 'assistant', turn_id: null }),
      ],
      s,
    );
    expect(shown).toEqual([`${ok}:t:a`]);
    expect(platform.shown.get(bad)).toBe('💭 x');
    await statuses.close();
  });

  it('shows a stop notice as a line of the status, ending running tools ⏹️; false once the status is broken', async () => {
    const platform = newPlatform();
    const s = session();
    const turn = unique('turn');
    const statuses = statusesFor(platform, 200);
    await statuses.present([call(turn, 'sleep 60')], s);
    expect(await statuses.showNotice(notice(turn, `${turn}:notice`, '⏹️ Stopped.'), s)).toBe(true);
    expect(platform.shown.get(turn)).toBe('🛠️ run_shell_command sleep 60 ⏹️\n⏹️ Stopped.');
    // `final` waits the throttle out rather than deferring: the notice is on the platform when showNotice returns.
    const [before, last] = platform.writes.slice(-2);
    expect(last?.mode).toBe('final');
    expect((last?.at ?? 0) - (before?.at ?? 0)).toBeGreaterThanOrEqual(150);

    const other = unique('turn');
    platform.failing = true;
    expect(await statuses.showNotice(notice(other, `${other}:notice`, '⏹️ Stopped.'), s)).toBe(false);
    platform.failing = false;
    // Broken for good: a retry is still refused, so the sink shows the notice another way.
    expect(await statuses.showNotice(notice(other, `${other}:notice`, '⏹️ Stopped.'), s)).toBe(false);
    await statuses.close();
  });

  it('a notice that does not end the turn leaves running tools running; finishTurn ends them', async () => {
    const platform = newPlatform();
    const s = session();
    const turn = unique('turn');
    const statuses = statusesFor(platform);
    await statuses.present([call(turn, 'make')], s);
    expect(await statuses.showNotice(notice(turn, `${turn}:1:compact`, '🔄 Compacted.'), s)).toBe(true);
    expect(platform.shown.get(turn)).toBe('🛠️ run_shell_command make ⏳\n🔄 Compacted.');
    const crash = msg(turn, {
      id: `${turn}:notice`,
      type: 'text',
      role: 'assistant',
      status: 'pending',
      content: 'crashed',
      metadata: { failure_kind: 'llm' },
    });
    await statuses.finishTurn(crash, s);
    expect(platform.shown.get(turn)).toBe('🛠️ run_shell_command make ❌\n🔄 Compacted.');
    await statuses.close();
  });
});

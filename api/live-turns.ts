/**
 * The running turn of every session, as one API process sees it from the transient TURN_CHANNEL events
 * (db/notify.ts): the step, its status, the text streamed so far in the step, and the step's tool progress. The
 * event hub (api/event-hub.ts) sends this snapshot as `turn.updated`, and sends it whole to every stream that
 * opens mid-turn, so a reloaded page or a reconnected client rebuilds the streamed text from its first character
 * and goes on live with no duplicate and no missing prefix.
 *
 * Why every API process accumulates every running turn, whether or not anyone watches it: token deltas are never
 * stored (docs/message-flow.md §3, they do not pass through workflow history or Postgres tables) and Postgres
 * NOTIFY reaches every listening API process, so each API already receives every delta of every turn. Keeping the
 * current step's text costs one string per running turn; it makes the snapshot right on whichever API a client
 * reaches (several APIs behind a load balancer) and after a client's reload, when that API had no subscriber for
 * the session before. What no API can rebuild is text streamed before it started listening (an API started, or
 * whose LISTEN connection dropped, mid-step): deltas carry their character `offset` in the stream, so such a gap is
 * known, and the snapshot's `text_offset` says where its text starts (the client marks the missing part); the
 * committed message carries the whole text when the step ends. Bounds: at most {@link LiveTurnsOptions.maxTextChars}
 * characters per step (later deltas are dropped until the step commits), entries idle for `idleMs` are dropped,
 * and at most `maxSessions` sessions are held (the least recently updated go first).
 *
 * Pure bookkeeping: no I/O, no timers (the hub calls {@link LiveTurns.sweep}).
 */
import type { LivePlan, TurnEvent } from '../db/notify.ts';

/** `turn.updated` status: the TurnEvent statuses of db/notify.ts. */
export type TurnUpdateStatus = 'started' | 'thinking' | 'running_tools' | 'finished';

/**
 * Progress of one tool call in the current step. `summary` is the tool's short result summary; `started_at` and
 * `finished_at` (ISO 8601) are when this API saw the call start and finish (absent when it did not see it).
 * `output_tail` is, while the call runs, the last lines of its command's output (up to 5 lines of 200
 * characters, refreshed about once a second while output comes; absent before any); gone once it finished.
 */
export interface ToolProgress {
  call_id: string;
  name: string;
  status: 'running' | 'ok' | 'error';
  summary?: string;
  started_at?: string;
  finished_at?: string;
  output_tail?: string;
}

/**
 * A snapshot of a running turn (the data of `event: turn.updated`, less the notices the hub adds). `text_offset`
 * is present when the text does not start at the step's first character (this API missed the beginning).
 */
export interface LiveTurnSnapshot {
  session_id: string;
  /** The trigger message's id. */
  turn_id: string;
  /** Model step, from 0. */
  step: number;
  status: TurnUpdateStatus;
  /** Text streamed so far in this step (from `text_offset` when that is set). */
  text: string;
  text_offset?: number;
  tools: ToolProgress[];
  /** The session's active plan as this turn last set it (`update_plan`), kept from step to step of the turn. */
  plan?: LivePlan;
  outcome?: 'processed' | 'interrupted' | 'error';
}

export interface LiveTurnsOptions {
  /** Sessions held at most (default 10 000); beyond, the least recently updated is dropped. */
  maxSessions?: number;
  /** Characters of streamed text kept per step (default 1 048 576); later deltas of the step are dropped. */
  maxTextChars?: number;
  /** An entry without events for this long is dropped by {@link LiveTurns.sweep}, in ms (default 1 hour). */
  idleMs?: number;
}

interface Entry {
  snapshot: LiveTurnSnapshot | null;
  /** The stream (db/notify.ts delta `stream`) the text belongs to. */
  stream: string | undefined;
  /** Turns whose end was seen, newest last; their late events are dropped. */
  ended: string[];
  touchedAt: number;
}

const ENDED_MEMORY = 16;

/** See the module comment. One per event hub. */
export class LiveTurns {
  private readonly entries = new Map<string, Entry>();
  private readonly maxSessions: number;
  private readonly maxTextChars: number;
  private readonly idleMs: number;

  constructor(opts: LiveTurnsOptions = {}) {
    this.maxSessions = opts.maxSessions ?? 10_000;
    this.maxTextChars = opts.maxTextChars ?? 1024 * 1024;
    this.idleMs = opts.idleMs ?? 60 * 60 * 1000;
  }

  /** Sessions held (for stats and tests). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Applies a transient event (`approval_requested` is not part of a snapshot and is ignored).
   * @param nowMs epoch ms, for idle eviction and the tools' times
   * @returns the session's new snapshot, or null when the event changed nothing (a late event of an ended turn
   *   or an earlier step, an unknown type)
   */
  apply(ev: TurnEvent, nowMs: number): LiveTurnSnapshot | null {
    if (typeof ev?.s !== 'string' || typeof ev.t !== 'string' || ev.type === 'approval_requested')
      return null;
    const entry = this.entry(ev.s, nowMs);
    if (entry.ended.includes(ev.t)) return null;
    let snap = entry.snapshot;
    const step = 'step' in ev && typeof ev.step === 'number' ? ev.step : (snap?.step ?? 0);
    if (!snap || snap.turn_id !== ev.t || step > snap.step) {
      const plan = snap?.turn_id === ev.t ? snap.plan : undefined;
      snap = {
        session_id: ev.s,
        turn_id: ev.t,
        step,
        status: 'thinking',
        text: '',
        tools: [],
        ...(plan ? { plan } : {}),
      };
      entry.stream = undefined;
    } else if (step < snap.step) {
      return null; // a late event of an earlier step
    }
    const at = new Date(nowMs).toISOString();
    switch (ev.type) {
      case 'status':
        snap = { ...snap, status: ev.status };
        break;
      case 'delta':
        snap = this.withDelta(entry, snap, ev);
        break;
      case 'tool_started':
        snap = {
          ...snap,
          status: 'running_tools',
          tools: [
            ...snap.tools.filter((t) => t.call_id !== ev.call_id),
            { call_id: ev.call_id, name: ev.name, status: 'running', started_at: at },
          ],
        };
        break;
      case 'tool_output': {
        // A tail that arrives after its call's end (NOTIFYs race) changes nothing; one of a call whose start this
        // API did not see (it started listening since) shows the call as running.
        const before = snap.tools.find((t) => t.call_id === ev.call_id);
        if (typeof ev.tail !== 'string' || (before && before.status !== 'running')) return null;
        const output_tail = ev.tail.slice(0, 2000);
        snap = {
          ...snap,
          status: 'running_tools',
          tools: before
            ? snap.tools.map((t) => (t.call_id === ev.call_id ? { ...t, output_tail } : t))
            : [...snap.tools, { call_id: ev.call_id, name: ev.name, status: 'running', output_tail }],
        };
        break;
      }
      case 'tool_finished': {
        const before = snap.tools.find((t) => t.call_id === ev.call_id);
        const done: ToolProgress = {
          call_id: ev.call_id,
          name: ev.name,
          status: ev.ok ? 'ok' : 'error',
          summary: ev.summary,
          ...(before?.started_at ? { started_at: before.started_at } : {}),
          finished_at: at,
        };
        snap = {
          ...snap,
          tools: before
            ? snap.tools.map((t) => (t.call_id === ev.call_id ? done : t))
            : [...snap.tools, done],
        };
        break;
      }
      case 'plan_updated':
        // Plan events of one turn may arrive out of order (NOTIFYs from parallel tool calls): the newest wins.
        if (!Array.isArray(ev.plan?.steps) || (snap.plan && snap.plan.revision > ev.plan.revision))
          return null;
        snap = { ...snap, plan: ev.plan };
        break;
      default:
        return null;
    }
    entry.snapshot = snap;
    return snap;
  }

  /** The session's running turn, or null. */
  get(sessionId: string): LiveTurnSnapshot | null {
    return this.entries.get(sessionId)?.snapshot ?? null;
  }

  /** True when the end of `turnId` was seen. */
  hasEnded(sessionId: string, turnId: string): boolean {
    return this.entries.get(sessionId)?.ended.includes(turnId) ?? false;
  }

  /**
   * Notes that `turnId` ended (its trigger reached a final status) with `outcome`.
   * @returns the turn's last snapshot with status `finished` when it was the running one, else null
   */
  end(sessionId: string, turnId: string, outcome: LiveTurnSnapshot['outcome']): LiveTurnSnapshot | null {
    const entry = this.entries.get(sessionId);
    if (!entry) {
      // Nothing held: remember the end anyway, so late events of the turn do not bring it back.
      this.entry(sessionId, Date.now()).ended.push(turnId);
      return null;
    }
    if (!entry.ended.includes(turnId)) {
      entry.ended.push(turnId);
      if (entry.ended.length > ENDED_MEMORY) entry.ended.shift();
    }
    const snap = entry.snapshot;
    if (snap?.turn_id !== turnId) return null;
    entry.snapshot = null;
    entry.stream = undefined;
    return { ...snap, status: 'finished', ...(outcome ? { outcome } : {}) };
  }

  /** Drops entries idle for longer than `idleMs`. @param nowMs epoch ms */
  sweep(nowMs: number): void {
    for (const [id, entry] of this.entries)
      if (nowMs - entry.touchedAt > this.idleMs) this.entries.delete(id);
  }

  private entry(sessionId: string, nowMs: number): Entry {
    let entry = this.entries.get(sessionId);
    if (entry) {
      this.entries.delete(sessionId); // re-inserted below: the Map's order is the recency order
    } else {
      entry = { snapshot: null, stream: undefined, ended: [], touchedAt: nowMs };
      while (this.entries.size >= this.maxSessions) {
        const oldest = this.entries.keys().next();
        if (oldest.done) break;
        this.entries.delete(oldest.value);
      }
    }
    entry.touchedAt = nowMs;
    this.entries.set(sessionId, entry);
    return entry;
  }

  /**
   * The snapshot with a delta's text. A delta of another stream (a retried attempt, the plainer second try)
   * starts the text again; one that continues the text is appended; one that starts past the end of the text
   * held (deltas this API did not receive) starts the text there, with `text_offset`; an overlap is cut.
   * Deltas without `offset` (older workers) are appended.
   */
  private withDelta(
    entry: Entry,
    snap: LiveTurnSnapshot,
    ev: Extract<TurnEvent, { type: 'delta' }>,
  ): LiveTurnSnapshot {
    const status = snap.status === 'started' ? 'thinking' : snap.status;
    let base = snap;
    if (ev.stream !== undefined && entry.stream !== undefined && ev.stream !== entry.stream) {
      const { text_offset: _dropped, ...rest } = snap;
      base = { ...rest, text: '' };
    }
    entry.stream = ev.stream ?? entry.stream;
    // A step's text past the bound is not kept: the committed message carries it.
    if (base.text.length >= this.maxTextChars) return { ...base, status };
    const from = base.text_offset ?? 0;
    const end = from + base.text.length;
    let next: LiveTurnSnapshot;
    if (ev.offset === undefined || ev.offset === end) next = { ...base, text: base.text + ev.text };
    else if (ev.offset < end) next = { ...base, text: base.text + ev.text.slice(end - ev.offset) };
    else next = { ...base, text: ev.text, text_offset: ev.offset };
    if (next.text.length > this.maxTextChars) next = { ...next, text: next.text.slice(0, this.maxTextChars) };
    return { ...next, status };
  }
}

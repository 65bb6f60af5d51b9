/**
 * The running turn as the terminal shows it live, from `turn.updated` snapshots (api/event-hub.ts): each
 * snapshot carries the text streamed so far in the current step and the step's tool progress. Pure: no I/O.
 *
 * - {@link LiveTurn.update} says what is new in a snapshot: the suffix of `text` not seen yet, or a reset when
 *   the turn or step changed or the text is not a continuation (a retried step), so an append-only printer
 *   never repeats text.
 * - The active plan a snapshot carries is news once per plan revision ({@link LiveChange.plan}) and stays in the
 *   view until the turn ends (`/plan` shows it afterwards).
 * - {@link LiveTurn.commit} is told about committed messages, so {@link LiveTurn.view} keeps only what has not
 *   been printed for good yet: a step's text disappears once its thought or reply is committed, a tool's
 *   progress once its tool_result is, and the whole turn once its final reply (or crash notice) is committed or
 *   its trigger reaches a final status, whichever comes first.
 */
import type { Message } from '../../domain/message.ts';
import { messageKind } from '../../domain/message-kind.ts';
import { isTerminalStatus } from '../../domain/status-machine.ts';
import type { ToolProgress, TurnUpdated } from './api-client.ts';

/** What a snapshot added. */
export interface LiveChange {
  /** The previous stream of text ended (another turn or step, or text that is not a continuation). */
  reset: boolean;
  /** Text to append: only the part of the snapshot's text not seen before. */
  appended: string;
  /** Tools whose status is new in this snapshot. */
  tools: ToolProgress[];
  /** The plan, when this snapshot is the first to carry its revision. */
  plan?: LivePlan;
}

/** The active plan of a `turn.updated` snapshot. */
export type LivePlan = NonNullable<TurnUpdated['plan']>;

/** The uncommitted part of the running turn. */
export interface LiveView {
  turnId: string;
  step: number;
  status: TurnUpdated['status'];
  /** The step's text while it is not committed, else ''. */
  text: string;
  /** Tool calls of the step whose tool_result is not committed yet. */
  tools: ToolProgress[];
  /** The active plan as the turn last set it, if it did. */
  plan?: LivePlan;
}

const NOTHING: LiveChange = { reset: false, appended: '', tools: [] };
const ENDED_MEMORY = 32;

/** Tracks one session's running turn; see the module comment. */
export class LiveTurn {
  private turnId: string | null = null;
  private step = 0;
  private status: TurnUpdated['status'] = 'started';
  private text = '';
  private tools = new Map<string, ToolProgress>();
  private plan: LivePlan | undefined;
  /** `${turnId}:${step}` of steps whose text (thought or reply) was committed. */
  private readonly committedSteps = new Set<string>();
  /** Tool call ids whose tool_result was committed. */
  private readonly doneCalls = new Set<string>();
  /** Turns that ended; later snapshots of them are stale. */
  private readonly ended: string[] = [];

  /** Applies a snapshot. @returns what is new in it (nothing for a stale or finished snapshot's text) */
  update(u: TurnUpdated): LiveChange {
    if (this.ended.includes(u.turn_id)) return NOTHING;
    const plan = this.newPlan(u);
    if (u.status === 'finished') {
      const reset = this.turnId === u.turn_id && this.text !== '';
      this.end(u.turn_id);
      return { ...NOTHING, reset, ...(plan ? { plan } : {}) };
    }
    let reset = false;
    if (this.turnId === u.turn_id && u.step < this.step) return NOTHING; // a late snapshot of an earlier step
    if (this.turnId !== u.turn_id || u.step !== this.step) {
      reset = this.text !== '';
      if (this.turnId !== u.turn_id) this.plan = undefined;
      this.turnId = u.turn_id;
      this.step = u.step;
      this.text = '';
      this.tools = new Map();
    }
    if (!u.text.startsWith(this.text)) {
      reset = reset || this.text !== '';
      this.text = '';
    }
    // Snapshots trail commits (they are throttled): what is committed already is not news.
    const committed = this.committedSteps.has(`${u.turn_id}:${u.step}`);
    const appended = committed ? '' : u.text.slice(this.text.length);
    this.text = u.text;
    this.status = u.status;
    const changed: ToolProgress[] = [];
    for (const t of u.tools) {
      const before = this.tools.get(t.call_id);
      if ((!before || before.status !== t.status) && !this.doneCalls.has(t.call_id)) changed.push(t);
      this.tools.set(t.call_id, t);
    }
    if (plan) this.plan = plan;
    return { reset, appended, tools: changed, ...(plan ? { plan } : {}) };
  }

  /** The snapshot's plan when its revision is new for this turn, else undefined. */
  private newPlan(u: TurnUpdated): LivePlan | undefined {
    if (!u.plan) return undefined;
    const known = this.turnId === u.turn_id ? this.plan : undefined;
    return known && known.revision >= u.plan.revision ? undefined : u.plan;
  }

  /** Notes a committed message (any order, repeats allowed). */
  commit(m: Message): void {
    if (m.turn_id === null) return;
    if (m.id === m.turn_id) {
      if (isTerminalStatus(m.status)) this.end(m.id);
      return;
    }
    // The turn's answer, or its crash notice, is its last word: nothing of it is live any more, although its
    // trigger reaches its final status (and the `finished` snapshot comes) only after the turn's bookkeeping.
    const kind = messageKind(m);
    if (kind === 'final_reply' || kind === 'crash_notice') {
      this.end(m.turn_id);
      return;
    }
    if ((m.type === 'thought' || m.type === 'text') && m.step !== null) {
      this.committedSteps.add(`${m.turn_id}:${m.step}`);
    }
    const callId = m.metadata?.tool_call_id;
    if (m.type === 'tool_result' && typeof callId === 'string') this.doneCalls.add(callId);
  }

  /** The uncommitted part of the running turn, or null when no turn is running. */
  view(): LiveView | null {
    if (this.turnId === null) return null;
    const committed = this.committedSteps.has(`${this.turnId}:${this.step}`);
    return {
      turnId: this.turnId,
      step: this.step,
      status: this.status,
      text: committed ? '' : this.text,
      tools: [...this.tools.values()].filter((t) => !this.doneCalls.has(t.call_id)),
      ...(this.plan ? { plan: this.plan } : {}),
    };
  }

  private end(turnId: string): void {
    if (!this.ended.includes(turnId)) this.ended.push(turnId);
    if (this.ended.length > ENDED_MEMORY) this.ended.shift();
    if (this.turnId !== turnId) return;
    this.turnId = null;
    this.text = '';
    this.tools = new Map();
    this.plan = undefined;
    this.step = 0;
    for (const key of [...this.committedSteps])
      if (key.startsWith(`${turnId}:`)) this.committedSteps.delete(key);
  }
}

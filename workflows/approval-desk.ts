/**
 * The session's open tool-call approvals as plain state (no Temporal calls): which calls wait for a person, the
 * decisions that arrived for them (update `decideApproval`) and are not yet applied by the turn, and the
 * validation of a decision. The wait that uses it is workflows/approvals.ts.
 *
 * Pure module: safe in the workflow bundle and in unit tests.
 */
import type { ApprovalDecision } from '../domain/tool-approval.ts';
import type { ApprovalDecisionInput, PendingApproval } from './definitions.ts';

/** A decision that arrived, in arrival order. */
export interface ArrivedDecision {
  callId: string;
  decision: ApprovalDecision;
  by: string;
}

/** Why a decision is refused (the update validator throws it as a typed failure). */
export type DecisionProblem = { kind: 'not_pending' | 'invalid'; message: string };

export class ApprovalDesk {
  private readonly open = new Map<string, PendingApproval>();
  private readonly arrived: ArrivedDecision[] = [];
  /** Calls a decision was taken for (applied or not), until they are closed. */
  private readonly decided = new Set<string>();
  /**
   * Calls of the step being checked: their approval records may already be in Postgres (and seen by people)
   * before the check's answer reaches the workflow, so a decision for them is taken too.
   */
  private readonly expected = new Set<string>();

  /**
   * @param carried the approvals a continued-as-new run left open
   * @param decisions decisions the previous run took for them and had not applied; taken again here (those for a
   *   call not carried as open are dropped)
   */
  constructor(carried: readonly PendingApproval[] = [], decisions: readonly ArrivedDecision[] = []) {
    for (const p of carried) this.open.set(p.callId, p);
    for (const d of decisions) {
      if (!this.open.has(d.callId) || this.decided.has(d.callId)) continue;
      this.arrived.push({ callId: d.callId, decision: d.decision, by: d.by });
      this.decided.add(d.callId);
    }
  }

  /** Decisions taken for open calls and not yet applied, in arrival order (what continue-as-new carries). */
  unapplied(): ArrivedDecision[] {
    return this.arrived.filter((a) => this.open.has(a.callId)).map((a) => ({ ...a }));
  }

  /** The calls waiting for a person, in the order they were asked about. */
  list(): PendingApproval[] {
    return [...this.open.values()];
  }

  /** Accepts decisions for `callIds` while the step's approval check runs. */
  expect(callIds: readonly string[]): void {
    for (const id of callIds) this.expected.add(id);
  }

  /** Ends {@link expect} for `callIds` (the check answered). */
  unexpect(callIds: readonly string[]): void {
    for (const id of callIds) this.expected.delete(id);
  }

  /** Starts waiting for `p` (no change when it is open already). */
  ask(p: PendingApproval): void {
    if (!this.open.has(p.callId)) this.open.set(p.callId, p);
  }

  isOpen(callId: string): boolean {
    return this.open.has(callId);
  }

  /** Stops waiting for `callId`, dropping any decision that arrived for it and was not applied. */
  close(callId: string): void {
    this.open.delete(callId);
    this.decided.delete(callId);
    for (let i = this.arrived.length - 1; i >= 0; i--)
      if (this.arrived[i]?.callId === callId) this.arrived.splice(i, 1);
  }

  /** The `decideApproval` validator's rule. @returns null when the decision may be taken */
  problemWith(input: unknown): DecisionProblem | null {
    const d = input as Partial<ApprovalDecisionInput> | null;
    if (typeof d?.callId !== 'string' || d.callId === '')
      return { kind: 'invalid', message: 'callId must be the id of a tool_call message' };
    if (d.decision !== 'approve' && d.decision !== 'deny' && d.decision !== 'always')
      return { kind: 'invalid', message: 'decision must be "approve", "deny" or "always"' };
    if (d.by !== undefined && (typeof d.by !== 'string' || d.by.length > 200))
      return { kind: 'invalid', message: 'by must be a string of at most 200 characters' };
    if (!this.open.has(d.callId) && !this.expected.has(d.callId))
      return { kind: 'not_pending', message: `tool call ${d.callId} is not waiting for approval` };
    if (this.decided.has(d.callId))
      return { kind: 'not_pending', message: `tool call ${d.callId} has already been decided` };
    return null;
  }

  /** Takes a validated decision; the turn applies it. */
  decide(input: ApprovalDecisionInput): ArrivedDecision {
    const d: ArrivedDecision = { callId: input.callId, decision: input.decision, by: input.by ?? 'unknown' };
    this.arrived.push(d);
    this.decided.add(d.callId);
    return d;
  }

  /**
   * The calls a decision was taken for whose turn has not recorded it yet: their stored approval still reads
   * `pending` for a moment, so a reader of Postgres must not count them as waiting.
   */
  settling(): string[] {
    return [...this.decided];
  }

  /** True when a decision for one of `callIds` is waiting to be applied. */
  hasDecisionFor(callIds: readonly string[]): boolean {
    return this.arrived.some((a) => callIds.includes(a.callId));
  }

  /** Removes and returns the decisions for `callIds`, in arrival order. */
  takeDecisionsFor(callIds: readonly string[]): ArrivedDecision[] {
    const taken = this.arrived.filter((a) => callIds.includes(a.callId));
    for (const t of taken) this.arrived.splice(this.arrived.indexOf(t), 1);
    return taken;
  }
}

/**
 * Thrown out of a turn that waits for approval when the run should continue-as-new: the session carries the
 * turn (and the open approvals) into the next run, which resumes it at the same step.
 */
export class TurnSuspended extends Error {
  readonly step: number;
  readonly turnStartedAt: number;
  readonly nudges: number;
  constructor(at: { step: number; turnStartedAt: number; nudges: number }) {
    super(`turn suspended at step ${at.step} to continue as new`);
    this.name = 'TurnSuspended';
    this.step = at.step;
    this.turnStartedAt = at.turnStartedAt;
    this.nudges = at.nudges;
  }
}

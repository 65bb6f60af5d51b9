/**
 * The approval gate of a step's tool calls, in the workflow: before any tool activity is scheduled, the calls
 * that need a person (activity `requestApprovals`, or the model step's own check when none waits, see
 * {@link APPROVAL_IN_STEP_PATCH}; policy in domain/tool-approval.ts) wait for a decision —
 * `approve`, `deny` or `always` (approve, and the session approves matching calls from now on) — each on its
 * own, with a timeout that counts as deny. The wait is durable: it is a workflow condition, so it survives worker
 * crashes and deploys, and a run that should continue-as-new while waiting throws {@link TurnSuspended} so the
 * session carries the turn and its open approvals into the next run.
 *
 * A `/stop` cancels the wait like any other part of the turn: the open approvals are recorded `cancelled`.
 */
import * as wf from '@temporalio/workflow';
import type { ApprovalCheck } from './activity-contracts.ts';
import { alwaysPatternFor, describeCall, matchesPattern } from '../domain/tool-approval.ts';
import { approvalWrites } from './activity-options.ts';
import { TurnSuspended, type ApprovalDesk, type ArrivedDecision } from './approval-desk.ts';
import { call } from './turn-failure.ts';

/**
 * Patch: a step whose calls the model step already judged, none of them waiting for a person (StepOutcome
 * `approvals`), runs them without activity `requestApprovals` — one activity and one workflow task less per tool
 * step.
 */
export const APPROVAL_IN_STEP_PATCH = 'approval-check-in-step';

/** What the gate needs from the turn. */
export interface GateInput {
  sessionId: string;
  turnId: string;
  step: number;
  calls: { messageId: string; name: string }[];
  desk: ApprovalDesk;
  /** True when the run should continue-as-new: a wait still open then suspends the turn. */
  shouldSuspend(): boolean;
  /** Where the turn is, for a suspension. */
  position: { turnStartedAt: number; nudges: number };
  onWaiting(activity: string): void;
  /**
   * The check the model step made as it stored the calls (StepOutcome `approvals`, none waiting), taken instead of
   * activity `requestApprovals`.
   */
  checked?: { calls: ApprovalCheck[]; timeoutS: number };
}

/** The gate's answer: the calls that may run, and the results stored for the calls that were refused. */
export interface GateResult {
  run: string[];
  refused: { resultId: string }[];
}

/**
 * Waits until every call of the step that needs approval is decided.
 * @throws TurnSuspended when the run should continue-as-new while a call still waits
 * @throws CancelledFailure when the turn is stopped while waiting (open approvals are recorded `cancelled`)
 */
export async function gateToolCalls(g: GateInput): Promise<GateResult> {
  const { calls, timeoutS } = g.checked ?? (await checkCalls(g));
  const gate = new StepApprovals(g, calls, timeoutS);
  gate.ask();
  await gate.waitForDecisions();
  return gate.outcome();
}

/** Runs activity `requestApprovals` for the step's calls; decisions for them are accepted while it runs. */
async function checkCalls(g: GateInput): Promise<{ calls: ApprovalCheck[]; timeoutS: number }> {
  const callIds = g.calls.map((c) => c.messageId);
  g.desk.expect(callIds);
  try {
    return await call(
      () =>
        approvalWrites.requestApprovals({ sessionId: g.sessionId, turnId: g.turnId, step: g.step, callIds }),
      'tool',
    );
  } finally {
    g.desk.unexpect(callIds);
  }
}

/** How a waiting call was settled, and by whom (the fields of activity `recordApproval`). */
interface Settlement {
  by: string;
  decision?: 'approve' | 'deny' | 'always';
  pattern?: string;
  addPattern?: string;
}

/** The approval state of one step's calls, from the check's answer to the refusals of the calls not approved. */
class StepApprovals {
  private readonly g: GateInput;
  /** The check's answer, in the step's order (the states as the check found them). */
  private readonly checks: ApprovalCheck[];
  /** The current state of each call, by call id. */
  private readonly byId: Map<string, ApprovalCheck>;
  /** Seconds a call waits before it counts as denied. */
  private readonly timeoutS: number;

  constructor(g: GateInput, checks: ApprovalCheck[], timeoutS: number) {
    this.g = g;
    this.checks = checks;
    this.timeoutS = timeoutS;
    this.byId = new Map(checks.map((c) => [c.callId, { ...c }]));
  }

  /** The calls still waiting for a decision, in the step's order. */
  private waiting(): ApprovalCheck[] {
    return this.checks.filter((c) => this.byId.get(c.callId)?.state === 'pending');
  }

  /** Puts the waiting calls on the desk; decisions that arrived for calls that do not wait are dropped. */
  ask(): void {
    for (const c of this.checks) if (c.state !== 'pending') this.g.desk.close(c.callId);
    for (const c of this.waiting()) {
      this.g.desk.ask({
        callId: c.callId,
        turnId: this.g.turnId,
        name: c.name,
        subject: c.subject,
        expiresAt: c.expiresAt ?? new Date(Date.now() + this.timeoutS * 1000).toISOString(),
      });
    }
  }

  /** Records the end of a call's wait (activity `recordApproval`) and takes it off the desk. */
  private async settle(
    callId: string,
    state: 'approved' | 'denied' | 'timed_out' | 'cancelled',
    extra: Settlement,
  ): Promise<void> {
    const { sessionId } = this.g;
    await call(() => approvalWrites.recordApproval({ sessionId, callId, state, ...extra }), 'tool');
    const check = this.byId.get(callId);
    if (check) check.state = state;
    this.g.desk.close(callId);
  }

  /**
   * Waits, round by round, until no call waits. A stop records the open calls `cancelled`, then rethrows.
   * @throws TurnSuspended, CancelledFailure as {@link gateToolCalls}
   */
  async waitForDecisions(): Promise<void> {
    try {
      for (let open = this.waiting(); open.length > 0; open = this.waiting()) await this.waitRound(open);
    } catch (err) {
      if (wf.isCancellation(err)) await this.cancelWaiting();
      throw err;
    }
  }

  /**
   * One round: shows what is waited for, waits until a decision arrives, the earliest expiry passes or the run
   * should suspend, then applies the decisions and the timeouts.
   */
  private async waitRound(open: ApprovalCheck[]): Promise<void> {
    const first = open[0] as ApprovalCheck;
    const more = open.length > 1 ? ` (+${open.length - 1} more)` : '';
    this.g.onWaiting(`waiting for approval: ${describeCall(first.name, first.subject)}${more}`);
    const ids = open.map((c) => c.callId);
    const nextExpiry = Math.min(...open.map((c) => Date.parse(c.expiresAt ?? '') || Date.now()));
    const ms = nextExpiry - Date.now();
    if (ms > 0 && !this.g.desk.hasDecisionFor(ids))
      await wf.condition(() => this.g.desk.hasDecisionFor(ids) || this.g.shouldSuspend(), ms);

    for (const d of this.g.desk.takeDecisionsFor(ids)) await this.apply(d);
    await this.expireOverdue();
    if (this.waiting().length > 0 && this.g.shouldSuspend() && !this.g.desk.hasDecisionFor(ids))
      throw new TurnSuspended({ step: this.g.step, ...this.g.position });
  }

  /** Applies one decision to its call (if it still waits); `always` also approves the calls its pattern matches. */
  private async apply(d: ArrivedDecision): Promise<void> {
    const check = this.byId.get(d.callId);
    if (!check || check.state !== 'pending') return;
    if (d.decision === 'deny') {
      await this.settle(d.callId, 'denied', { by: d.by, decision: 'deny' });
      return;
    }
    const pattern = d.decision === 'always' ? alwaysPatternFor(check.name, check.subject) : undefined;
    await this.settle(d.callId, 'approved', {
      by: d.by,
      decision: d.decision,
      ...(pattern ? { pattern, addPattern: pattern } : {}),
    });
    if (!pattern) return;
    for (const other of this.waiting()) {
      if (other.name === check.name && matchesPattern(pattern, other.subject))
        await this.settle(other.callId, 'approved', { by: 'pattern', pattern });
    }
  }

  /** Settles the waiting calls whose time is up as `timed_out`. */
  private async expireOverdue(): Promise<void> {
    for (const c of this.waiting()) {
      if ((Date.parse(c.expiresAt ?? '') || 0) <= Date.now())
        await this.settle(c.callId, 'timed_out', { by: 'timeout' });
    }
  }

  /** Records the calls still waiting as `cancelled` (best effort, outside the stopped turn's cancellation). */
  private async cancelWaiting(): Promise<void> {
    await wf.CancellationScope.nonCancellable(async () => {
      for (const c of this.waiting()) {
        await this.settle(c.callId, 'cancelled', { by: 'stop' }).catch((e: unknown) =>
          wf.log.warn('approval not recorded as cancelled', { callId: c.callId, error: String(e) }),
        );
      }
    });
  }

  /** The calls that may run (approved or not needing approval); the others get a refusal result stored. */
  async outcome(): Promise<GateResult> {
    const run: string[] = [];
    const refused: { resultId: string }[] = [];
    for (const c of this.g.calls) {
      const state = this.byId.get(c.messageId)?.state ?? 'not_required';
      if (state === 'not_required' || state === 'approved') run.push(c.messageId);
      else refused.push(await this.refuse(c.messageId, state === 'timed_out' ? 'timed_out' : 'denied'));
    }
    return { run, refused };
  }

  /** Stores the result of a call that was not approved (activity `refuseToolCall`). */
  private refuse(callId: string, why: 'timed_out' | 'denied'): Promise<{ resultId: string }> {
    const { sessionId, turnId } = this.g;
    return call(
      () => approvalWrites.refuseToolCall({ sessionId, turnId, callId, why, timeoutS: this.timeoutS }),
      'tool',
    );
  }
}

/**
 * The approval gate of a step's tool calls, in the workflow: before any tool activity is scheduled, the calls
 * that need a person (activity `requestApprovals`, policy in domain/tool-approval.ts) wait for a decision —
 * `approve`, `deny` or `always` (approve, and the session approves matching calls from now on) — each on its
 * own, with a timeout that counts as deny. The wait is durable: it is a workflow condition, so it survives worker
 * crashes and deploys, and a run that should continue-as-new while waiting throws {@link TurnSuspended} so the
 * session carries the turn and its open approvals into the next run.
 *
 * A `/stop` cancels the wait like any other part of the turn: the open approvals are recorded `cancelled`.
 */
import * as wf from '@temporalio/workflow';
import type { ApprovalCheck } from '../activities/contracts.ts';
import { alwaysPatternFor, describeCall, matchesPattern } from '../domain/tool-approval.ts';
import { approvalWrites } from './activity-options.ts';
import { TurnSuspended, type ApprovalDesk } from './approval-desk.ts';
import { call } from './turn-failure.ts';

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
  const callIds = g.calls.map((c) => c.messageId);
  g.desk.expect(callIds);
  let checked: { calls: ApprovalCheck[]; timeoutS: number };
  try {
    checked = await call(
      () =>
        approvalWrites.requestApprovals({ sessionId: g.sessionId, turnId: g.turnId, step: g.step, callIds }),
      'tool',
    );
  } finally {
    g.desk.unexpect(callIds);
  }
  const { calls: checks, timeoutS } = checked;
  const byId = new Map<string, ApprovalCheck>(checks.map((c) => [c.callId, { ...c }]));
  const waiting = () => checks.filter((c) => byId.get(c.callId)?.state === 'pending');
  // Decisions that arrived for calls that do not wait (nothing to decide) are dropped.
  for (const c of checks) if (c.state !== 'pending') g.desk.close(c.callId);
  for (const c of waiting()) {
    g.desk.ask({
      callId: c.callId,
      turnId: g.turnId,
      name: c.name,
      subject: c.subject,
      expiresAt: c.expiresAt ?? new Date(Date.now() + timeoutS * 1000).toISOString(),
    });
  }
  const settle = async (
    callId: string,
    state: 'approved' | 'denied' | 'timed_out' | 'cancelled',
    extra: { by: string; decision?: 'approve' | 'deny' | 'always'; pattern?: string; addPattern?: string },
  ) => {
    await call(
      () => approvalWrites.recordApproval({ sessionId: g.sessionId, callId, state, ...extra }),
      'tool',
    );
    const check = byId.get(callId);
    if (check) check.state = state;
    g.desk.close(callId);
  };

  try {
    for (let open = waiting(); open.length > 0; open = waiting()) {
      const first = open[0] as ApprovalCheck;
      g.onWaiting(
        `waiting for approval: ${describeCall(first.name, first.subject)}${open.length > 1 ? ` (+${open.length - 1} more)` : ''}`,
      );
      const ids = open.map((c) => c.callId);
      const nextExpiry = Math.min(...open.map((c) => Date.parse(c.expiresAt ?? '') || Date.now()));
      const ms = nextExpiry - Date.now();
      if (ms > 0 && !g.desk.hasDecisionFor(ids))
        await wf.condition(() => g.desk.hasDecisionFor(ids) || g.shouldSuspend(), ms);

      for (const d of g.desk.takeDecisionsFor(ids)) {
        const check = byId.get(d.callId);
        if (!check || check.state !== 'pending') continue;
        if (d.decision === 'deny') {
          await settle(d.callId, 'denied', { by: d.by, decision: 'deny' });
          continue;
        }
        const pattern = d.decision === 'always' ? alwaysPatternFor(check.name, check.subject) : undefined;
        await settle(d.callId, 'approved', {
          by: d.by,
          decision: d.decision,
          ...(pattern ? { pattern, addPattern: pattern } : {}),
        });
        // `always` also answers the step's other calls that its pattern matches.
        if (pattern) {
          for (const other of waiting()) {
            if (other.name === check.name && matchesPattern(pattern, other.subject))
              await settle(other.callId, 'approved', { by: 'pattern', pattern });
          }
        }
      }
      for (const c of waiting()) {
        if ((Date.parse(c.expiresAt ?? '') || 0) <= Date.now())
          await settle(c.callId, 'timed_out', { by: 'timeout' });
      }
      if (waiting().length > 0 && g.shouldSuspend() && !g.desk.hasDecisionFor(ids))
        throw new TurnSuspended({ step: g.step, ...g.position });
    }
  } catch (err) {
    if (wf.isCancellation(err)) {
      await wf.CancellationScope.nonCancellable(async () => {
        for (const c of waiting()) {
          await settle(c.callId, 'cancelled', { by: 'stop' }).catch((e: unknown) =>
            wf.log.warn('approval not recorded as cancelled', { callId: c.callId, error: String(e) }),
          );
        }
      });
    }
    throw err;
  }

  const run: string[] = [];
  const refused: { resultId: string }[] = [];
  for (const c of g.calls) {
    const state = byId.get(c.messageId)?.state ?? 'not_required';
    if (state === 'not_required' || state === 'approved') {
      run.push(c.messageId);
      continue;
    }
    const why = state === 'timed_out' ? 'timed_out' : 'denied';
    refused.push(
      await call(
        () =>
          approvalWrites.refuseToolCall({
            sessionId: g.sessionId,
            turnId: g.turnId,
            callId: c.messageId,
            why,
            timeoutS,
          }),
        'tool',
      ),
    );
  }
  return { run, refused };
}

/**
 * Typed approval answers: `/approve`, `/deny` and `/always` as chat commands, for a channel without buttons
 * (WeChat) and usable by any channel whose people may type rather than click.
 *
 * A typed answer names no call: it decides the session's **oldest** call waiting for approval
 * (db/approvals.ts `listPendingApprovals`, the order of the calls), through the session update `decideApproval`
 * (`SessionClient.decideApproval`) as `by` (`<channel>:<user id>`), and the answer says which call it decided.
 * Parallel calls of one step are thus answered one by one, oldest first; a call decided a moment ago but not yet
 * recorded by the turn is skipped (the update's validator refuses it as `not_pending`) and the next one decided.
 *
 * A channel opts in by passing {@link APPROVAL_COMMANDS} as `local` to `createCommandDispatcher`
 * (adapters/kit/command-dispatch.ts) and giving its {@link CommandSessions} a `decidePending` member, usually
 * {@link decideOldestPending} bound to its pool and session client, with its own rule of who may decide
 * (`mayDecide`: WeChat's one-to-one chat has none, the follower is the requester; a shared channel would check
 * the requester and its approvers as the buttons do).
 */
import { listPendingApprovals, type PendingApprovalRow } from '../../db/approvals.ts';
import type { Queryable } from '../../db/pool.ts';
import { alwaysPatternFor, describeCall, type ApprovalDecision } from '../../domain/tool-approval.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import type { CommandRun, LocalCommandHandler, TypedDecision } from './command-dispatch.ts';

export type { TypedDecision };

/** What {@link decideOldestPending} needs. */
export interface DecideOldestDeps {
  pool: Queryable;
  /** The session update `decideApproval` (SessionClient). */
  decide: SessionClient['decideApproval'];
  /** Whether `by` may decide `call`; absent: anyone who can type in the session may. */
  mayDecide?(call: PendingApprovalRow, by: string): Promise<boolean> | boolean;
}

/**
 * Decides the oldest call of session `sessionId` waiting for approval, as `by`. `updateId` (from the platform's
 * message id) makes a re-delivered command decide once: a repeat returns what the first one decided.
 * @throws SessionClientError `unavailable` | `persistence` (Temporal or storage down), as the update does
 */
export async function decideOldestPending(
  deps: DecideOldestDeps,
  sessionId: string,
  decision: ApprovalDecision,
  o: { by: string; updateId?: string },
): Promise<TypedDecision> {
  const pending = await listPendingApprovals(deps.pool, sessionId);
  let refused = false;
  let attempt = 0;
  for (const call of pending) {
    if (deps.mayDecide && !(await deps.mayDecide(call, o.by))) {
      refused = true;
      continue;
    }
    // A rejected update leaves no trace, so the first attempt may reuse the message's id; later ones get their own.
    const updateId =
      o.updateId === undefined ? undefined : attempt === 0 ? o.updateId : `${o.updateId}:${attempt}`;
    attempt += 1;
    try {
      const r = await deps.decide(
        sessionId,
        { callId: call.call_id, decision, by: o.by },
        updateId === undefined ? {} : { updateId },
      );
      const decided = pending.find((p) => p.call_id === r.callId) ?? call;
      return { kind: 'decided', decision: r.decision, call: decided };
    } catch (err) {
      // Decided meanwhile, or no run to take it (the turn ended): the next one, if any.
      if (err instanceof SessionClientError && (err.kind === 'not_pending' || err.kind === 'not_found'))
        continue;
      throw err;
    }
  }
  return refused ? { kind: 'refused' } : { kind: 'nothing_pending' };
}

/** What the channel tells the person who typed the answer (Markdown code spans, like the other commands). */
export function presentTypedDecision(r: TypedDecision): string {
  if (r.kind === 'nothing_pending') return 'Nothing is waiting for your approval.';
  if (r.kind === 'refused') return '⛔ Only the person who asked, or an approver, can decide this.';
  const what = describeCall(r.call.tool_name, r.call.subject, 300);
  const call = what.includes('`') ? what : `\`${what}\``;
  switch (r.decision) {
    case 'approve':
      return `✅ Approved: ${call}`;
    case 'deny':
      return `❌ Denied: ${call}`;
    case 'always': {
      const pattern = alwaysPatternFor(r.call.tool_name, r.call.subject);
      return `✅ Approved (always): ${call}\nFrom now on \`${pattern}\` runs without asking in this conversation.`;
    }
  }
}

function typed(decision: ApprovalDecision): LocalCommandHandler {
  return async ({ sessions, sessionId, opts, sender }: CommandRun) => {
    if (!sessions.decidePending) return `⚠️ \`/${decision}\` is not available here.`;
    return presentTypedDecision(await sessions.decidePending(sessionId, decision, { ...opts, sender }));
  };
}

/** `/approve`, `/deny`, `/always`: a channel's `local` commands (see the module comment). */
export const APPROVAL_COMMANDS: Readonly<Record<ApprovalDecision, LocalCommandHandler>> = {
  approve: typed('approve'),
  deny: typed('deny'),
  always: typed('always'),
};

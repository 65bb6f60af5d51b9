/**
 * Tool-call approvals over REST: a person's decision on a call waiting for approval
 * (`POST /v1/sessions/{sessionId}/tool-calls/{callId}/approval`), and the approval part of the session answer
 * (its own policy, the policy in force, the approve patterns and the calls waiting). The decision goes to the session workflow as the update
 * `decideApproval`; the turn records it on the tool_call message (docs/message-model.md §3.3 `approval`). With
 * `wait`, the decision then waits for the call's turn as `POST …/messages` does (api/turn-wait.ts).
 */
import { Router, type Request, type Response } from 'express';
import type { SessionView } from '../../db/sessions.ts';
import { getApprovalSettings, listPendingApprovals } from '../../db/approvals.ts';
import { getMessage } from '../../db/messages.ts';
import type { Pool } from '../../db/pool.ts';
import { approvalDefaultOf } from '../../adapters/registry.ts';
import { approvalPolicyInForce, type ToolApproval } from '../../domain/tool-approval.ts';
import type { ApiApprovalSettings, ResolvedDeps } from '../deps.ts';
import { callerOf, requireSessionFor } from '../access.ts';
import { contextOf } from '../context.ts';
import { HttpProblem } from '../problems.ts';
import {
  approvalDecisionSchema,
  parseBody,
  requireJson,
  type ApprovalDecisionResult,
  type SessionBody,
} from '../schemas.ts';
import { answerAfterWait } from '../turn-wait.ts';
import { checkSessionIdParam, presentSession, withTemporalDeadline } from './common.ts';

/**
 * The session answer with its approvals (api/schemas.ts `sessionSchema` less `plan`): `approval` (its own policy,
 * null: none set), `approval_in_force` (the policy the next tool step applies: domain/tool-approval.ts
 * `approvalPolicyInForce`), the patterns that approve calls without asking — `session` (added by `always`
 * decisions in this session) and `configured` (`KESOKU_TOOL_AUTO_APPROVE`, every session) — and the calls waiting.
 */
export type SessionWithApprovals = Omit<SessionBody, 'plan'>;

/** {@link presentSession} plus the approval fields. */
export async function presentSessionWithApprovals(
  pool: Pool,
  v: SessionView,
  configured: ApiApprovalSettings = {},
): Promise<SessionWithApprovals> {
  const [settings, pending] = await Promise.all([
    getApprovalSettings(pool, v.id),
    listPendingApprovals(pool, v.id),
  ]);
  const own = settings?.policy ?? null;
  return {
    ...presentSession(v),
    approval: own,
    approval_in_force: approvalPolicyInForce(
      own,
      configured.policy,
      approvalDefaultOf(v.chatbot_id, settings?.owner),
    ),
    approve_patterns: { session: settings?.patterns ?? [], configured: configured.autoApprove ?? [] },
    pending_approvals: pending,
  };
}

/** A tool_call message id: `<turn id>:s<step>:call<i>` (turn ids are message ids, up to 128 characters). */
const CALL_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,200}$/;

type ApprovalRequest = Request<{ sessionId: string; callId: string }>;

/** Routes of tool-call approvals. */
export function approvalsRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  const bodySchema = approvalDecisionSchema(d.waitMaxS);

  router.post(
    '/v1/sessions/:sessionId/tool-calls/:callId/approval',
    async (req: ApprovalRequest, res: Response) => {
      const { sessionId, callId } = req.params;
      requireJson(req);
      const body = parseBody(bodySchema, req.body);
      const caller = callerOf(res);
      await requireSessionFor(d.pool, caller, sessionId);
      const call = CALL_ID_PATTERN.test(callId) ? await getMessage(d.pool, callId) : null;
      if (!call || call.session_id !== sessionId || call.type !== 'tool_call')
        throw new HttpProblem('not_found', `session ${sessionId} has no tool call ${callId}`);
      const approval = (call.metadata as { approval?: ToolApproval } | null)?.approval;
      if (approval?.state !== 'pending') {
        throw new HttpProblem('conflict', `tool call ${callId} is not waiting for approval`, {
          extensions: { state: approval?.state ?? null },
        });
      }
      const by = `api:${caller.name}`;
      const r = await withTemporalDeadline(d.sessions, d.temporalTimeoutMs, () =>
        d.sessions.decideApproval(sessionId, { callId, decision: body.decision, by }),
      );
      const log = contextOf(res).log.child({ sessionId });
      log.info({ messageId: callId, decision: r.decision, by }, 'approval decided');
      if (body.wait && call.turn_id) {
        // Every call decided but not yet recorded, this one included, still reads `pending` in Postgres.
        const decidedCallIds = [...new Set([callId, ...(r.settling ?? [])])];
        const target = { sessionId, messageId: call.turn_id, waitS: body.wait, decidedCallIds };
        await answerAfterWait(d, res, log, target);
        return;
      }
      res.status(200).json({ call_id: r.callId, decision: r.decision, by } satisfies ApprovalDecisionResult);
    },
  );

  return router;
}

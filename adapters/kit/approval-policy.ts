/**
 * The tool-approval policy in force for a session, as the worker decides it (activities/approvals.ts): the
 * session's own (`/approval`, PATCH), else `KESOKU_TOOL_APPROVAL`, else the channel's default (one rule:
 * domain/tool-approval.ts `approvalPolicyInForce`). The chat channels
 * read it to tell whether an `/approval` loosens the policy (kit/command-dispatch.ts `CommandCaller`).
 */
import { getApprovalSettings } from '../../db/approvals.ts';
import type { Queryable } from '../../db/pool.ts';
import { approvalPolicyInForce, type ApprovalPolicy } from '../../domain/tool-approval.ts';
import { SessionClientError } from '../../infra/session-client.ts';

/**
 * @param configured `KESOKU_TOOL_APPROVAL` as the channel's configuration read it (undefined: not set)
 * @throws SessionClientError `not_found` for an unknown session
 */
export async function currentApprovalPolicy(
  q: Queryable,
  sessionId: string,
  chatbotId: string,
  configured?: ApprovalPolicy,
): Promise<ApprovalPolicy> {
  const settings = await getApprovalSettings(q, sessionId);
  if (!settings) throw new SessionClientError('not_found', `no session ${sessionId}`);
  return approvalPolicyInForce(settings.policy, configured, chatbotId);
}

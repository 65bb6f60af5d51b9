/**
 * The tool-approval policy in force for a session, as the worker decides it (activities/approvals.ts): the
 * session's own (`/approval`, PATCH), else `KESOKU_TOOL_APPROVAL`, else the channel's default (its descriptor's
 * `features.decidesApprovals`; one rule: domain/tool-approval.ts `approvalPolicyInForce`). The chat channels
 * read it to tell whether an `/approval` loosens the policy (kit/command-dispatch.ts `CommandCaller`).
 */
import { getApprovalSettings } from '../../db/approvals.ts';
import type { Queryable } from '../../db/pool.ts';
import {
  approvalPolicyInForce,
  defaultApprovalPolicy,
  type ApprovalPolicy,
} from '../../domain/tool-approval.ts';
import type { ChannelFeatures } from './channel.ts';
import { SessionClientError } from '../../infra/session-client.ts';

/**
 * @param features the channel's descriptor features (`decidesApprovals` gives its default)
 * @param configured `KESOKU_TOOL_APPROVAL` as the channel's configuration read it (undefined: not set)
 * @throws SessionClientError `not_found` for an unknown session
 */
export async function currentApprovalPolicy(
  q: Queryable,
  sessionId: string,
  features: Pick<ChannelFeatures, 'decidesApprovals'>,
  configured?: ApprovalPolicy,
): Promise<ApprovalPolicy> {
  const settings = await getApprovalSettings(q, sessionId);
  if (!settings) throw new SessionClientError('not_found', `no session ${sessionId}`);
  return approvalPolicyInForce(settings.policy, configured, defaultApprovalPolicy(features.decidesApprovals));
}

/**
 * Tool-call approval on WeChat, which has no buttons: the request is a plain customer-service text to the
 * follower, who answers by typing `/approve`, `/deny` or `/always` (adapters/kit/typed-approvals.ts; the ingress
 * runs them as the channel's local commands, by `wechat:<OpenID>`). In WeChat's one-to-one chat the follower is
 * the requester, so nobody else needs to be kept out.
 *
 * - Asking ({@link approvalAskText}, the sink's `askApproval`): the `requestApprovals` activity hands each call
 *   that starts waiting to the sink, which sends the text once per call: it is recorded in Postgres
 *   (db/deliveries.ts `platform_posts`, key `approval:<call id>`) right after WeChat accepted it, under an
 *   advisory lock on that key, and a retry, a continue-as-new or another worker (also one overlapping the first)
 *   finds the record and sends nothing (the API has no idempotency key: only an acceptance lost in transit can
 *   make it show twice).
 * - Outcome ({@link approvalOutcomeText}, the sink's `showApprovalOutcome`): a text cannot be edited, so the end
 *   of a wait is a new message, and only when the follower does not know it yet: decided by someone else (REST,
 *   the Web UI), timed out, or ended with the turn (a stop, an interrupt, a failure). A decision the follower
 *   typed was already answered by the ingress ("✅ Approved: …") and is not repeated. Recorded under
 *   `approval-outcome:<call id>`, so it too is sent once.
 */
import type { Message } from '../../domain/message.ts';
import { alwaysPatternFor, describeCall, type ToolApproval } from '../../domain/tool-approval.ts';
import { WECHAT_MAX_TEXT_BYTES } from './text.ts';

/** The delivery-record key of the approval request of tool call `callId`. */
export const approvalAskKey = (callId: string): string => `approval:${callId}`;

/** The delivery-record key of the outcome text of tool call `callId`. */
export const approvalOutcomeKey = (callId: string): string => `approval-outcome:${callId}`;

/** The `by` of a decision typed by follower `openId`. */
export const wechatDecider = (openId: string): string => `wechat:${openId}`;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** `text(desc)` with the longest {@link describeCall} of the call that keeps it within `maxBytes`. */
function fitting(
  toolName: string,
  subject: string,
  maxBytes: number,
  text: (desc: string) => string,
): string {
  let max = 600;
  let out = text(describeCall(toolName, subject, max));
  while (bytes(out) > maxBytes && max > 20) {
    max = Math.max(20, Math.floor(max * 0.8));
    out = text(describeCall(toolName, subject, max));
  }
  return out;
}

/** "10 minutes", "90 seconds", "2 hours": a wait for people. */
export function presentWait(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s % 3600 === 0) return s === 3600 ? '1 hour' : `${s / 3600} hours`;
  if (s % 60 === 0) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  return s === 1 ? '1 second' : `${s} seconds`;
}

/** The tool name of a stored tool_call message. */
const toolNameOf = (call: Message): string => call.metadata?.tool_name ?? call.sender;

/**
 * The request text: the call ({@link describeCall}), the three answers (with the pattern an `/always` adds) and
 * the timeout, as plain text within `maxBytes` UTF-8 bytes (the description is shortened to fit).
 */
export function approvalAskText(
  call: Message,
  approval: Pick<ToolApproval, 'subject' | 'requested_at' | 'expires_at'>,
  maxBytes: number = WECHAT_MAX_TEXT_BYTES,
): string {
  const name = toolNameOf(call);
  const waitS = (Date.parse(approval.expires_at ?? '') - Date.parse(approval.requested_at)) / 1000;
  const pattern = alwaysPatternFor(name, approval.subject);
  // An `/always` of a compound command approves exactly that command again (alwaysPatternFor).
  const later =
    pattern === approval.subject.trim()
      ? 'this same call'
      : `calls like it${Array.from(pattern).length > 80 ? '' : ` (${pattern})`}`;
  const timeout =
    Number.isFinite(waitS) && waitS > 0 ? `\nNo answer within ${presentWait(waitS)} counts as /deny.` : '';
  return fitting(
    name,
    approval.subject,
    maxBytes,
    (desc) =>
      `🔐 Approval needed: ${desc}\n` +
      `Reply /approve to run it, /deny to refuse, or /always to run it and, from now on, ${later} without asking.` +
      timeout,
  );
}

/**
 * The outcome text for the follower of session channel `openId`, or null when there is nothing to tell: still
 * pending, or decided by the follower themselves (their typed answer was already answered).
 */
export function approvalOutcomeText(
  call: Message,
  approval: Pick<ToolApproval, 'state' | 'subject' | 'by' | 'decision'>,
  openId: string,
  maxBytes: number = WECHAT_MAX_TEXT_BYTES,
): string | null {
  if (approval.state === 'pending') return null;
  if (approval.by === wechatDecider(openId)) return null;
  const by = approval.by ? ` by ${approval.by}` : '';
  let head: string;
  switch (approval.state) {
    case 'approved':
      head = approval.decision === 'always' ? `✅ Approved (always)${by}` : `✅ Approved${by}`;
      break;
    case 'denied':
      head = `❌ Denied${by}, not run`;
      break;
    case 'timed_out':
      head = '⌛ Nobody answered in time, not run';
      break;
    case 'cancelled':
      head = '⏹️ No longer waiting (the turn ended), not run';
      break;
  }
  return fitting(toolNameOf(call), approval.subject, maxBytes, (desc) => `${head}: ${desc}`);
}

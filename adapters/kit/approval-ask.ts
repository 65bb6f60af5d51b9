/**
 * A tool call waiting for approval, as a chat channel shows it, and the words every channel uses for how the
 * wait ended. Each channel wraps these in its own message format (Discord's buttons, Google Chat's cards).
 */
import type { Message } from '../../domain/message.ts';
import type { ToolApproval } from '../../domain/tool-approval.ts';

/** A call waiting for approval, as the message shows it. */
export interface ApprovalAsk {
  callId: string;
  toolName: string;
  subject: string;
  /** ISO 8601; '' when the approval has no deadline. */
  expiresAt: string;
}

/** The ask of a stored tool_call message and its approval record. */
export function askOf(call: Message, approval: ToolApproval): ApprovalAsk {
  return {
    callId: call.id,
    toolName: call.metadata?.tool_name ?? call.sender,
    subject: approval.subject,
    expiresAt: approval.expires_at ?? '',
  };
}

/** Whether `userId` may decide: the person whose message started the turn, or a configured approver. */
export function mayDecide(userId: string, requesterId: string | null, approvers: readonly string[]): boolean {
  return userId === requesterId || approvers.includes(userId);
}

/**
 * One line saying how the approval ended (`approval.state` not `pending`; `pending` reads as still waiting).
 * Approved: "✅ Approved by X." (`(always)` for an always, "by the pattern `p`." for an auto-approval); denied:
 * "❌ Denied by X."; timed out: "⌛ Nobody decided in time: not run."; cancelled: "⏹️ Not decided: the turn
 * ended." Markdown inline code marks the pattern.
 * @param nameOf how the channel names a decider (`approval.by`, a principal such as `discord:<id>`); an absent
 *   or empty `by` reads "someone"
 */
export function outcomeText(
  approval: Pick<ToolApproval, 'state' | 'by' | 'decision' | 'pattern'>,
  nameOf: (by: string) => string,
): string {
  const who = approval.by === undefined || approval.by === '' ? 'someone' : nameOf(approval.by);
  switch (approval.state) {
    case 'approved':
      return approval.by === 'pattern'
        ? `✅ Approved by the pattern \`${approval.pattern ?? ''}\`.`
        : `${approval.decision === 'always' ? '✅ Approved (always)' : '✅ Approved'} by ${who}.`;
    case 'denied':
      return `❌ Denied by ${who}.`;
    case 'timed_out':
      return '⌛ Nobody decided in time: not run.';
    case 'cancelled':
      return '⏹️ Not decided: the turn ended.';
    default:
      return '⏳ Waiting for a decision.';
  }
}

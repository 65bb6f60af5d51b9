/**
 * Tool-call approval on Discord, the platform-neutral part: the message with Approve / Deny / Always buttons
 * (message components, as the REST payload), the buttons' custom ids, who may click them (the person whose
 * message started the turn, or an id in DISCORD_APPROVERS), and what a click does — the decision goes to the
 * session (update `decideApproval`, by `discord:<user id>`) and the message is edited to show it, or the clicker
 * gets a refusal only they see.
 *
 * Not wired yet: posting the message when a call starts waiting, and the `interactionCreate` listener, belong in
 * adapters/discord/run.ts and ingress.ts (see README "Tool approval").
 */
import type { ApprovalDecision } from '../../domain/tool-approval.ts';

/** Prefix of the buttons' custom ids: `kesoku:approval:<decision>:<tool_call message id>` (≤ 100 characters). */
export const APPROVAL_CUSTOM_ID_PREFIX = 'kesoku:approval:';

/** Discord's component types and button styles used here (discord-api-types ComponentType / ButtonStyle). */
const ACTION_ROW = 1;
const BUTTON = 2;
const STYLE = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;

/** The custom id of a button, or null when the call id is too long for Discord's 100 characters. */
export function approvalCustomId(decision: ApprovalDecision, callId: string): string | null {
  const id = `${APPROVAL_CUSTOM_ID_PREFIX}${decision}:${callId}`;
  return id.length <= 100 ? id : null;
}

/** The decision and call of a button's custom id, or null for any other component. */
export function parseApprovalCustomId(
  customId: string,
): { decision: ApprovalDecision; callId: string } | null {
  if (!customId.startsWith(APPROVAL_CUSTOM_ID_PREFIX)) return null;
  const rest = customId.slice(APPROVAL_CUSTOM_ID_PREFIX.length);
  const colon = rest.indexOf(':');
  const decision = rest.slice(0, colon);
  const callId = rest.slice(colon + 1);
  if (colon < 1 || callId === '') return null;
  if (decision !== 'approve' && decision !== 'deny' && decision !== 'always') return null;
  return { decision, callId };
}

/** A call waiting for approval, as the message shows it. */
export interface ApprovalAsk {
  callId: string;
  toolName: string;
  subject: string;
  /** ISO 8601. */
  expiresAt: string;
}

function describe(a: ApprovalAsk): string {
  const subject = a.subject.length > 1500 ? `${a.subject.slice(0, 1499)}…` : a.subject;
  const what = a.toolName === 'run_shell_command' ? 'run a command' : `call ${a.toolName}`;
  return `🔐 The agent wants to ${what}:\n\`\`\`\n${subject.replaceAll('```', '`\u200b``')}\n\`\`\``;
}

/** The REST payload of the approval message (create), buttons included; mentions nobody. */
export function approvalMessage(a: ApprovalAsk): {
  content: string;
  components: unknown[];
  allowed_mentions: { parse: [] };
} {
  const expires = Math.floor(Date.parse(a.expiresAt) / 1000);
  const content =
    `${describe(a)}\n${Number.isFinite(expires) ? `Counts as denied <t:${expires}:R>.` : ''}`.trim();
  const button = (decision: ApprovalDecision, label: string, style: number) => ({
    type: BUTTON,
    style,
    label,
    custom_id: approvalCustomId(decision, a.callId),
  });
  return {
    content,
    components: [
      {
        type: ACTION_ROW,
        components: [
          button('approve', 'Approve', STYLE.success),
          button('deny', 'Deny', STYLE.danger),
          button('always', 'Always', STYLE.secondary),
        ],
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

/** The edit after a decision: the question, the answer, and no buttons. */
export function decidedMessage(
  a: ApprovalAsk,
  decision: ApprovalDecision,
  userId: string,
): { content: string; components: []; allowed_mentions: { parse: [] } } {
  const answer =
    decision === 'deny' ? '❌ Denied' : decision === 'always' ? '✅ Approved (always)' : '✅ Approved';
  return {
    content: `${describe(a)}\n${answer} by <@${userId}>.`,
    components: [],
    allowed_mentions: { parse: [] },
  };
}

/** Whether `userId` may decide: the person whose message started the turn, or a configured approver. */
export function mayDecide(userId: string, requesterId: string | null, approvers: readonly string[]): boolean {
  return userId === requesterId || approvers.includes(userId);
}

/** What a click on an approval button leads to. */
export type ApprovalClickOutcome =
  | { kind: 'decided'; edit: ReturnType<typeof decidedMessage> }
  | { kind: 'refused'; reply: string }
  | { kind: 'not_pending'; reply: string };

/**
 * Handles a click: checks who clicked, sends the decision and tells what to answer (edit the message, or a
 * reply only the clicker sees). `decide` throws a SessionClientError `not_pending` when the call no longer
 * waits; other errors propagate.
 */
export async function handleApprovalClick(input: {
  ask: ApprovalAsk;
  decision: ApprovalDecision;
  userId: string;
  requesterId: string | null;
  approvers: readonly string[];
  decide(callId: string, decision: ApprovalDecision, by: string): Promise<void>;
}): Promise<ApprovalClickOutcome> {
  if (!mayDecide(input.userId, input.requesterId, input.approvers))
    return {
      kind: 'refused',
      reply: '⛔ Only the person who asked, or an approver, can decide this.',
    };
  try {
    await input.decide(input.ask.callId, input.decision, `discord:${input.userId}`);
  } catch (err) {
    if ((err as { kind?: unknown }).kind === 'not_pending')
      return { kind: 'not_pending', reply: 'This was already decided (or it timed out).' };
    throw err;
  }
  return { kind: 'decided', edit: decidedMessage(input.ask, input.decision, input.userId) };
}

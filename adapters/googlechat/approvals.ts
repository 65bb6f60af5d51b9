/**
 * Tool-call approval on Google Chat: a card with Approve / Deny / Always buttons in the session's thread, clicks
 * (CARD_CLICKED events) by the requester or a GOOGLE_CHAT_APPROVERS user decide (update `decideApproval`, by
 * `googlechat:users/<id>`), and the card is replaced to show the decision. The Discord counterpart is
 * adapters/discord/approvals.ts; the wording of the outcome is the kit's (kit/approval-ask.ts).
 *
 * - Asking ({@link withApprovalCards} `askApproval`): called by the `requestApprovals` activity; the card is
 *   created with a client message id derived from `approval:<call id>` and recorded in the delivery records, so
 *   retries, a continue-as-new and several workers post it once (activities/approvals.ts says why the activity).
 *   The card's text mentions the requester (`<users/…>`).
 * - Clicks ({@link createApprovalClicks}): the HTTP endpoint (channel.ts) answers a CARD_CLICKED event of these
 *   buttons synchronously: `actionResponse: UPDATE_MESSAGE` with the decided card, or a private message
 *   (`privateMessageViewer`) for a refusal. Everything is read from Postgres by the call id in the button's
 *   parameters; the requester is the sender of the turn's trigger message (`channel_context.message_name`, read
 *   back through the Chat API).
 * - Outcome (`showApprovalOutcome`): when the workflow records how the wait ended (any decider, timeout, stop),
 *   the card is patched to show it.
 */
import type { chat_v1 } from '@googleapis/chat';
import type { SessionRow } from '../../db/sessions.ts';
import { getMessage } from '../../db/messages.ts';
import type { DeliveryStore } from '../../db/deliveries.ts';
import type { Pool } from '../../db/pool.ts';
import type { Message } from '../../domain/message.ts';
import { isApprovalDecision, type ApprovalDecision, type ToolApproval } from '../../domain/tool-approval.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError } from '../../infra/session-client.ts';
import { askOf, mayDecide, outcomeText, type ApprovalAsk } from '../kit/approval-ask.ts';
import { createMessage, updateCards, type ChatApi } from './api.ts';
import { escapeCardText } from './format.ts';
import type { ChatAccess } from '../kit/access.ts';
import { GOOGLE_CHAT_CHATBOT_ID, clientMessageId, lastSegment, spaceOf } from './ids.ts';

/** The `function` of the buttons' `onClick.action` (what a CARD_CLICKED event names). */
export const APPROVAL_FUNCTION = 'kesoku_approval';

/** The delivery-record (and client message id) key of the approval card of tool call `callId`. */
export const approvalCardKey = (callId: string): string => `approval:${callId}`;

/** A user as GOOGLE_CHAT_APPROVERS or an event names them, normalised to `users/<id>`. */
export function chatUserName(id: string): string {
  return id.startsWith('users/') ? id : `users/${id}`;
}

/** The question as card text (card text reads HTML: the tool name and the command are escaped). */
function askText(a: ApprovalAsk): string {
  const what = a.toolName === 'run_shell_command' ? 'run a command' : `call ${a.toolName}`;
  const subject = a.subject.length > 1500 ? `${a.subject.slice(0, 1499)}…` : a.subject;
  return escapeCardText(`🔐 The agent wants to ${what}:\n${subject}`);
}

/** The approval card with its three buttons. */
export function approvalCard(a: ApprovalAsk): chat_v1.Schema$CardWithId[] {
  const button = (decision: ApprovalDecision, text: string) => ({
    text,
    onClick: {
      action: {
        function: APPROVAL_FUNCTION,
        parameters: [
          { key: 'decision', value: decision },
          { key: 'call', value: a.callId },
        ],
      },
    },
  });
  const expires = Date.parse(a.expiresAt);
  return [
    {
      cardId: 'approval',
      card: {
        header: { title: 'Approval needed' },
        sections: [
          {
            widgets: [
              { textParagraph: { text: askText(a) } },
              ...(Number.isFinite(expires)
                ? [{ textParagraph: { text: `Counts as denied at ${new Date(expires).toISOString()}.` } }]
                : []),
              {
                buttonList: {
                  buttons: [button('approve', 'Approve'), button('deny', 'Deny'), button('always', 'Always')],
                },
              },
            ],
          },
        ],
      },
    },
  ];
}

/** The card once the wait ended: the question and how it ended, no buttons. */
export function outcomeCard(
  a: ApprovalAsk,
  approval: Pick<ToolApproval, 'state' | 'by' | 'decision' | 'pattern'>,
): chat_v1.Schema$CardWithId[] {
  const answer = outcomeText(approval, (by) => by.replaceAll('`', "'")).replaceAll('`', '');
  return [
    {
      cardId: 'approval',
      card: {
        header: { title: 'Approval' },
        sections: [{ widgets: [{ textParagraph: { text: `${askText(a)}\n${escapeCardText(answer)}` } }] }],
      },
    },
  ];
}

/** The requester: the sender of the turn's trigger message (`users/<id>`), or null. */
async function requesterOf(api: ChatApi, pool: Pool, call: Message): Promise<string | null> {
  if (!call.turn_id) return null;
  const trigger = await getMessage(pool, call.turn_id).catch(() => null);
  const senderId = trigger?.metadata?.sender_id;
  if (typeof senderId === 'string') return senderId;
  const ctx = trigger?.metadata?.channel_context as { message_name?: unknown } | undefined;
  if (typeof ctx?.message_name !== 'string') return null;
  try {
    const res = await api.spaces.messages.get({ name: ctx.message_name }, { timeout: 10_000 });
    return res.data.sender?.name ?? null;
  } catch {
    return null;
  }
}

/** Where a session's messages go: its space, and its thread (null for a DM session). */
function placeOf(session: Pick<SessionRow, 'channel_id'>): { space: string; thread: string | null } {
  const channel = session.channel_id;
  return { space: spaceOf(channel), thread: channel.includes('/threads/') ? channel : null };
}

/**
 * Adds `askApproval` and `showApprovalOutcome` to a Google Chat sink (see the module comment).
 * Both throw a GoogleChatSendError (a SinkError) when Chat refuses or fails.
 */
export function withApprovalCards<S extends object>(
  sink: S,
  deps: { api: ChatApi; store: DeliveryStore; pool: Pool; timeoutMs?: number },
): S & {
  askApproval(call: Message, approval: ToolApproval, session: SessionRow): Promise<void>;
  showApprovalOutcome(call: Message, approval: ToolApproval, session: SessionRow): Promise<void>;
} {
  const { api, store, pool } = deps;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  return Object.assign(sink, {
    async askApproval(call: Message, approval: ToolApproval, session: SessionRow): Promise<void> {
      const key = approvalCardKey(call.id);
      if ((await store.listPosts(key)).has(0)) return;
      const { space, thread } = placeOf(session);
      const requester = await requesterOf(api, pool, call);
      const { name } = await createMessage(api, {
        parent: space,
        thread,
        messageId: clientMessageId(key, 0),
        text: requester ? `<${requester}> please decide:` : 'Please decide:',
        cardsV2: approvalCard(askOf(call, approval)),
        timeoutMs,
      });
      await store.recordPost({ key, chunk: 0, channelId: thread ?? space, platformMessageId: name });
    },
    async showApprovalOutcome(call: Message, approval: ToolApproval): Promise<void> {
      if (approval.state === 'pending') return;
      const name = (await store.listPosts(approvalCardKey(call.id))).get(0);
      if (name === undefined) return;
      await updateCards(api, name, outcomeCard(askOf(call, approval), approval), timeoutMs);
    },
  });
}

/** The synchronous answer to a CARD_CLICKED event (Chat's interaction response). */
export type CardClickResponse = Record<string, unknown>;

/** The space of a click, as the event names it. */
interface ClickSpace {
  name: string;
  type?: string | undefined;
  spaceType?: string | undefined;
  singleUserBotDm?: boolean | undefined;
}

/** The part of a CARD_CLICKED event the handler reads. */
interface CardClick {
  type: string;
  user?: { name: string };
  space?: ClickSpace;
  message?: { space?: ClickSpace };
  action?: { actionMethodName?: string; parameters?: { key?: string; value?: string }[] };
  common?: { invokedFunction?: string; parameters?: Record<string, string> };
}

/** The decision and call of an approval button's click, or null for any other event. */
export function parseApprovalClick(
  event: CardClick,
): { decision: ApprovalDecision; callId: string; user: string | null } | null {
  if (event.type !== 'CARD_CLICKED') return null;
  const fn = event.common?.invokedFunction ?? event.action?.actionMethodName;
  if (fn !== APPROVAL_FUNCTION) return null;
  const params: Record<string, string | undefined> = { ...event.common?.parameters };
  for (const p of event.action?.parameters ?? []) if (p.key) params[p.key] ??= p.value;
  const decision = params.decision;
  const callId = params.call;
  if (!isApprovalDecision(decision) || !callId) return null;
  return { decision, callId, user: event.user?.name ?? null };
}

/**
 * The click handler of the approval cards: `handles(event)` says whether an event is such a click; `handle`
 * returns the response body (never throws).
 */
export function createApprovalClicks(deps: {
  api: ChatApi;
  pool: Pool;
  logger: Logger;
  /** GOOGLE_CHAT_APPROVERS, as `users/<id>`. */
  approvers: readonly string[];
  /**
   * Who may use the app (the rule messages follow): a click by anyone else (e.g. a user whose pairing was
   * revoked) is refused before the requester/approver rule. Absent: not checked.
   */
  access?: ChatAccess;
  decide(
    sessionId: string,
    input: { callId: string; decision: ApprovalDecision; by: string },
  ): Promise<unknown>;
}): { handles(event: CardClick): boolean; handle(event: CardClick): Promise<CardClickResponse> } {
  const { api, pool, logger } = deps;
  const approvers = deps.approvers.map(chatUserName);
  const privately = (user: string | null, text: string): CardClickResponse => ({
    actionResponse: { type: 'NEW_MESSAGE' },
    ...(user ? { privateMessageViewer: { name: user } } : {}),
    text,
  });
  const update = (cardsV2: chat_v1.Schema$CardWithId[]): CardClickResponse => ({
    actionResponse: { type: 'UPDATE_MESSAGE' },
    cardsV2,
  });
  const approvalOf = (m: Message | null) => (m?.metadata as { approval?: ToolApproval } | null)?.approval;

  async function handle(event: CardClick): Promise<CardClickResponse> {
    const click = parseApprovalClick(event);
    if (!click) return {};
    const call = await getMessage(pool, click.callId);
    const approval = approvalOf(call);
    if (!call || call.type !== 'tool_call' || !approval)
      return privately(click.user, '⚠️ This approval request is unknown here.');
    const user = click.user;
    if (deps.access && user) {
      const sp = event.space ?? event.message?.space;
      const allowed = await deps.access.check({
        chatbotId: GOOGLE_CHAT_CHATBOT_ID,
        userId: lastSegment(user),
        channelId: sp ? lastSegment(sp.name) : '',
        parentId: null,
        groupId: null,
        isDirect: sp?.type === 'DM' || sp?.spaceType === 'DIRECT_MESSAGE' || sp?.singleUserBotDm === true,
      });
      if (allowed !== 'allowed') {
        logger.info({ callId: call.id, user, access: allowed }, 'approval click refused: no access');
        return privately(user, '🔒 You are not allowed to use this app, so you cannot decide this.');
      }
    }
    const requester = await requesterOf(api, pool, call);
    if (!user || !mayDecide(user, requester, approvers)) {
      logger.info({ callId: call.id, user }, 'approval click refused: not the requester or an approver');
      return privately(user, '⛔ Only the person who asked, or an approver, can decide this.');
    }
    try {
      await deps.decide(call.session_id, {
        callId: call.id,
        decision: click.decision,
        by: `googlechat:${user}`,
      });
    } catch (err) {
      const late =
        err instanceof SessionClientError && (err.kind === 'not_pending' || err.kind === 'not_found');
      if (!late) throw err;
      const now = approvalOf(await getMessage(pool, call.id)) ?? approval;
      if (now.state === 'pending') return privately(user, 'This was already decided (or it timed out).');
      return update(outcomeCard(askOf(call, now), now));
    }
    logger.info({ callId: call.id, user, decision: click.decision }, 'approval decided on Google Chat');
    return update(
      outcomeCard(askOf(call, approval), {
        state: click.decision === 'deny' ? 'denied' : 'approved',
        by: `googlechat:${user}`,
        decision: click.decision,
      }),
    );
  }

  return {
    handles: (event) => parseApprovalClick(event) !== null,
    async handle(event) {
      try {
        return await handle(event);
      } catch (err) {
        logger.warn({ err: String(err) }, 'approval click failed');
        return privately(event.user?.name ?? null, '⚠️ The decision could not be sent; please try again.');
      }
    },
  };
}

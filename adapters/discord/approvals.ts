/**
 * Tool-call approval on Discord: the message with Approve / Deny / Always buttons (message components), the
 * buttons' custom ids, who may click them (the person whose message started the turn, or an id in
 * DISCORD_APPROVERS), and what a click does — the decision goes to the session (update `decideApproval`, by
 * `discord:<user id>`) and the message is edited to show it, or the clicker gets a refusal only they see.
 *
 * - Asking ({@link postApprovalAsk}, the sink's `askApproval`): the `requestApprovals` activity hands each call
 *   that starts waiting to the Discord sink, which posts the message as a reply to the requester's message (the
 *   reply pings them) under the nonce and delivery-record key `approval:<call id>`, so retries, a continue-as-new
 *   and several workers post it once (activities/approvals.ts says why the activity, not the NOTIFY).
 * - Clicks ({@link createApprovalButtons}): the adapter's INTERACTION_CREATE listener (run.ts) hands a button
 *   click (type 3, MESSAGE_COMPONENT) here. Everything it needs is read from Postgres by the call id in the
 *   custom id (the tool_call message, its approval record, the turn's trigger and its author), so any adapter
 *   process can answer any click, also after a restart. Answers: callback type 7 (UPDATE_MESSAGE: the decision,
 *   buttons removed), or type 4 with flag 64 (EPHEMERAL) for a refusal. A click that comes too late (decided,
 *   timed out, stopped) updates the message to the recorded outcome.
 * - Outcome ({@link showApprovalOutcome}, the sink's `showApprovalOutcome`): when the workflow records how the
 *   approval ended (any decider, the timeout, a stop), the recorded message is edited to show it.
 */
import { Routes, type REST } from 'discord.js';
import type { Message } from '../../domain/message.ts';
import type { ToolApproval } from '../../domain/tool-approval.ts';
import { getMessage } from '../../db/messages.ts';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError } from '../../infra/session-client.ts';
import type { ChatAccess } from '../kit/access.ts';
import { askOf, mayDecide, outcomeText, type ApprovalAsk } from '../kit/approval-ask.ts';
import { chatPlaceOf } from './policy.ts';
import { sendText, toSendError, type PostLedger } from './rest.ts';
import { APPROVAL_DECISIONS, type ApprovalDecision } from '../../domain/tool-approval.ts';

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

/**
 * The longest approval message, UTF-16 code units: Discord's 2000, less room for the requester's mention
 * (`<@id> `) that may precede it. One message, so the outcome edit replaces all of it.
 */
export const APPROVAL_CONTENT_MAX = 2000 - 32;

/** Where the whole of a shortened command can be read. */
const FULL_TEXT_NOTE = '(shortened here: the full command is in the Web UI and in `GET /v1/sessions/{id}`)';

/** The question, the command in a code block cut at `max` code units (with a note when cut). */
function describeWithin(a: ApprovalAsk, max: number): string {
  const what = a.toolName === 'run_shell_command' ? 'run a command' : `call ${a.toolName.slice(0, 100)}`;
  const fenced = a.subject.replaceAll('```', '`\u200b``');
  const cut = fenced.length > max;
  // Cut in code units, never inside a surrogate pair.
  const head = fenced.slice(0, Math.max(0, max - 1)).replace(/[\uD800-\uDBFF]$/, '');
  const shown = cut ? `${head}…` : fenced;
  return `🔐 The agent wants to ${what}:\n\`\`\`\n${shown}\n\`\`\`${cut ? `\n${FULL_TEXT_NOTE}` : ''}`;
}

/** The question + `\n` + `tail`, the command cut so that the whole stays within {@link APPROVAL_CONTENT_MAX}. */
function fitted(a: ApprovalAsk, tail: string): string {
  const end = tail === '' ? '' : `\n${tail.length > 300 ? `${tail.slice(0, 299)}…` : tail}`;
  let max = 1500;
  for (;;) {
    const content = `${describeWithin(a, max)}${end}`;
    if (content.length <= APPROVAL_CONTENT_MAX || max <= 0) return content;
    max -= content.length - APPROVAL_CONTENT_MAX;
  }
}

/** The REST payload of the approval message (create), buttons included; mentions nobody. */
export function approvalMessage(a: ApprovalAsk): {
  content: string;
  components: unknown[];
  allowed_mentions: { parse: [] };
} {
  const expires = Math.floor(Date.parse(a.expiresAt) / 1000);
  const deadline = Number.isFinite(expires) ? `Counts as denied <t:${expires}:R>.` : '';
  const ids = APPROVAL_DECISIONS.map((d) => approvalCustomId(d, a.callId));
  if (ids.some((id) => id === null)) {
    // Discord refuses a button without a custom id: no buttons, and the message says where to decide instead.
    const elsewhere =
      'This call cannot be decided with buttons here (its id is too long): decide it in the Web UI or with ' +
      '`POST /v1/sessions/{id}/tool-calls/{callId}/approval`.';
    return {
      content: fitted(a, `${deadline}\n${elsewhere}`.trim()),
      components: [],
      allowed_mentions: { parse: [] },
    };
  }
  const button = (decision: ApprovalDecision, label: string, style: number) => ({
    type: BUTTON,
    style,
    label,
    custom_id: approvalCustomId(decision, a.callId),
  });
  return {
    content: fitted(a, deadline),
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
  return outcomeMessage(a, {
    state: decision === 'deny' ? 'denied' : 'approved',
    by: `discord:${userId}`,
    decision,
  });
}

/** Who decided, for people: a Discord mention for `discord:<id>`, the principal otherwise. */
function decider(by: string): string {
  if (by.startsWith('discord:')) return `<@${by.slice('discord:'.length)}>`;
  return `\`${by.replaceAll('`', "'")}\``;
}

/**
 * The message once the approval ended (`approval.state` not `pending`): the question, how it ended
 * (kit/approval-ask.ts `outcomeText`, deciders as Discord mentions), no buttons.
 */
export function outcomeMessage(
  a: ApprovalAsk,
  approval: Pick<ToolApproval, 'state' | 'by' | 'decision' | 'pattern'>,
): { content: string; components: []; allowed_mentions: { parse: [] } } {
  return {
    content: fitted(a, outcomeText(approval, decider)),
    components: [],
    allowed_mentions: { parse: [] },
  };
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

/** The delivery-record (and nonce) key of the approval message of tool call `callId`. */
export function approvalPostKey(callId: string): string {
  return `approval:${callId}`;
}

/**
 * Posts the approval message of a waiting call into `channelId`, replying to (and pinging) the requester's
 * message `replyTo`; without one (a message that started a thread is not replied to), the message starts with
 * a mention of `requesterId` that pings them. At most once per call: the posted id is recorded under {@link approvalPostKey} and a
 * repeated call finds it (the nonce covers the moment between post and record).
 * @throws DiscordSendError (a SinkError)
 */
export async function postApprovalAsk(
  rest: REST,
  logger: Logger,
  ledger: PostLedger,
  input: {
    channelId: string;
    replyTo: string | null;
    requesterId?: string | null;
    call: Message;
    approval: ToolApproval;
  },
): Promise<void> {
  const key = approvalPostKey(input.call.id);
  if ((await ledger.listPosts(key)).has(0)) return;
  const payload = approvalMessage(askOf(input.call, input.approval));
  if (payload.components.length === 0)
    logger.warn({ callId: input.call.id }, 'tool call id too long for Discord buttons: posted without them');
  const mention = input.replyTo ? null : (input.requesterId ?? null);
  await sendText(rest, logger, {
    channelId: input.channelId,
    content: mention ? `<@${mention}> ${payload.content}` : payload.content,
    ...(mention ? { mentionUsers: [mention] } : {}),
    nonceKey: key,
    replyTo: input.replyTo,
    pingReplied: true,
    components: payload.components,
    ledger,
  });
}

/**
 * Edits the approval message of `call` (when one was posted: {@link approvalPostKey}) to show how its approval
 * ended, buttons removed. Nothing when the record is still pending or nothing was posted.
 * @throws DiscordSendError
 */
export async function showApprovalOutcome(
  rest: REST,
  ledger: PostLedger,
  channelId: string,
  call: Message,
  approval: ToolApproval,
): Promise<void> {
  if (approval.state === 'pending') return;
  const posted = (await ledger.listPosts(approvalPostKey(call.id))).get(0);
  if (posted === undefined) return;
  try {
    await rest.patch(Routes.channelMessage(channelId, posted), {
      body: outcomeMessage(askOf(call, approval), approval),
    });
  } catch (err) {
    throw toSendError(err, 'edit approval message');
  }
}

/** Interaction callback types and the ephemeral flag used by the buttons. */
const CALLBACK = { message: 4, deferredUpdate: 6, updateMessage: 7 } as const;
const EPHEMERAL = 1 << 6;

/** A button click (INTERACTION_CREATE type 3) as the adapter hands it over: no discord.js objects. */
export interface ButtonClick {
  interactionId: string;
  token: string;
  applicationId: string;
  customId: string;
  /** The clicker. */
  userId: string;
  /** The message that carries the button. */
  messageId: string;
  channelId: string;
  /** The guild of the channel, null in a DM (undefined: unknown, taken as a DM for the access check). */
  guildId?: string | null;
  /** The parent channel when `channelId` is a thread. */
  parentId?: string | null;
}

/** What {@link createApprovalButtons} needs. */
export interface ApprovalButtonsDeps {
  rest: REST;
  pool: Pool;
  logger: Logger;
  /** DISCORD_APPROVERS: user ids who may decide any call, besides the requester. */
  approvers: readonly string[];
  /**
   * Who may use the bot (the rule messages and slash commands follow): a click by anyone else (e.g. a user whose
   * pairing was revoked) is refused before the requester/approver rule. Absent: not checked.
   */
  access?: ChatAccess;
  /** The session update `decideApproval` (infra/session-client.ts); absent: clicks are refused with a note. */
  decide?: (
    sessionId: string,
    input: { callId: string; decision: ApprovalDecision; by: string },
  ) => Promise<unknown>;
  /** How long a decision may take before the click is acknowledged first (callback 6), ms. Default 2000. */
  deferAfterMs?: number;
}

/**
 * The Discord user id of whoever sent a turn's trigger (its `metadata.sender_id`, the ingress's `senderId`), or
 * null.
 */
export function authorIdOf(trigger: Message | null): string | null {
  const id = trigger?.metadata?.sender_id;
  return typeof id === 'string' ? id : null;
}

async function requesterOf(pool: Pool, call: Message): Promise<string | null> {
  if (!call.turn_id) return null;
  return authorIdOf(await getMessage(pool, call.turn_id).catch(() => null));
}

const approvalOfMessage = (m: Message | null): ToolApproval | undefined =>
  (m?.metadata as { approval?: ToolApproval } | null)?.approval;

/**
 * The click handler of the approval buttons (see the module comment). `handle` answers the interaction and
 * never throws (failures are logged; the clicker then sees Discord's "interaction failed").
 * @returns `handles(customId)`: whether a component is an approval button; `handle(click)`
 */
export function createApprovalButtons(deps: ApprovalButtonsDeps): {
  handles(customId: string): boolean;
  handle(click: ButtonClick): Promise<void>;
} {
  const { rest, pool, logger } = deps;
  const deferAfterMs = deps.deferAfterMs ?? 2000;

  async function callback(c: ButtonClick, type: number, data?: Record<string, unknown>): Promise<void> {
    await rest.post(Routes.interactionCallback(c.interactionId, c.token), {
      auth: false,
      body: { type, ...(data ? { data } : {}) },
    });
  }

  /** The answers of one click; after a deferral (type 6) they go through the interaction's webhook. */
  function answerer(c: ButtonClick, deferred: () => boolean) {
    return {
      /** A note only the clicker sees. */
      async refuse(content: string): Promise<void> {
        const data = { content, flags: EPHEMERAL, allowed_mentions: { parse: [] } };
        if (!deferred()) return callback(c, CALLBACK.message, data);
        await rest.post(Routes.webhook(c.applicationId, c.token), { auth: false, body: data });
      },
      /** The message's new look. */
      async update(edit: Record<string, unknown>): Promise<void> {
        if (!deferred()) return callback(c, CALLBACK.updateMessage, edit);
        await rest.patch(Routes.webhookMessage(c.applicationId, c.token, '@original'), {
          auth: false,
          body: edit,
        });
      },
    };
  }

  /** Handles a click; calls `decided` once the decision itself went through (before the message is updated). */
  async function run(
    c: ButtonClick,
    answer: ReturnType<typeof answerer>,
    decided: () => void,
  ): Promise<void> {
    const parsed = parseApprovalCustomId(c.customId);
    if (!parsed) return;
    const call = await getMessage(pool, parsed.callId);
    const approval = approvalOfMessage(call);
    if (!call || call.type !== 'tool_call' || !approval)
      return answer.refuse('⚠️ This approval request is unknown here.');
    if (deps.access) {
      const guildId = c.guildId ?? null;
      const place = { guildId, channelId: c.channelId, parentId: c.parentId ?? null, userId: c.userId };
      const allowed = await deps.access.check(chatPlaceOf({ ...place, isDM: guildId === null }));
      if (allowed !== 'allowed') {
        logger.info(
          { callId: call.id, userId: c.userId, access: allowed },
          'approval click refused: no access',
        );
        return answer.refuse('🔒 You are not allowed to use this bot, so you cannot decide this.');
      }
    }
    const outcome = await handleApprovalClick({
      ask: askOf(call, approval),
      decision: parsed.decision,
      userId: c.userId,
      requesterId: await requesterOf(pool, call),
      approvers: deps.approvers,
      decide: async (callId, decision, by) => {
        if (!deps.decide) throw new Error('approvals cannot be decided from this process');
        try {
          await deps.decide(call.session_id, { callId, decision, by });
          decided();
        } catch (err) {
          // No session run to take it (the turn ended without recording its wait): nothing waits any more.
          if (err instanceof SessionClientError && err.kind === 'not_found')
            throw new SessionClientError('not_pending', err.message);
          throw err;
        }
      },
    });
    if (outcome.kind === 'refused') {
      logger.info(
        { callId: call.id, userId: c.userId },
        'approval click refused: not the requester or an approver',
      );
      return answer.refuse(outcome.reply);
    }
    if (outcome.kind === 'decided') {
      logger.info(
        { callId: call.id, userId: c.userId, decision: parsed.decision },
        'approval decided on Discord',
      );
      return answer.update(outcome.edit);
    }
    // Too late (decided, timed out, stopped): show what the record says. The workflow records the end of a wait
    // a moment after it; until then the clicker gets a note.
    const now = approvalOfMessage(await getMessage(pool, call.id)) ?? approval;
    if (now.state === 'pending') return answer.refuse(outcome.reply);
    return answer.update(outcomeMessage(askOf(call, now), now));
  }

  return {
    handles: (customId) => parseApprovalCustomId(customId) !== null,
    async handle(c) {
      // A decision normally takes well under a second; when it does not, the click is acknowledged (type 6,
      // within Discord's 3 s) and the message is edited through the interaction's webhook afterwards.
      let deferred = false;
      let acked: Promise<void> = Promise.resolve();
      const timer = setTimeout(() => {
        deferred = true;
        acked = callback(c, CALLBACK.deferredUpdate).catch((err: unknown) =>
          logger.warn({ err: String(err) }, 'approval click not acknowledged'),
        );
      }, deferAfterMs);
      const answer = answerer(c, () => deferred);
      /** Answers once the acknowledgement (if one was started) went out. */
      const settled = async (send: () => Promise<void>) => {
        clearTimeout(timer);
        await acked;
        await send();
      };
      let decided = false;
      try {
        await run(
          c,
          {
            refuse: (content) => settled(() => answer.refuse(content)),
            update: (edit) => settled(() => answer.update(edit)),
          },
          () => (decided = true),
        );
      } catch (err) {
        logger.warn(
          { customId: c.customId, userId: c.userId, decided, err: String(err) },
          decided ? 'approval decided, but the message could not be updated' : 'approval click failed',
        );
        // Only a decision that did not go through is worth trying again; a failed message update is not.
        const note = decided
          ? '✅ Your decision was recorded; the message could not be updated to show it.'
          : '⚠️ The decision could not be sent; please try again.';
        await settled(() => answer.refuse(note)).catch(() => undefined);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

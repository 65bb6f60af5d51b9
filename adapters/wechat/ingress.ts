/**
 * WeChat ingress: what Kesoku does with a verified push (endpoint.ts checked its signature and decrypted it).
 *
 * 1. De-duplication. WeChat pushes a message again when it got no answer within five seconds, up to three times
 *    (developers.weixin.qq.com/doc/offiaccount/Message_Management/Receiving_standard_messages.html), and the
 *    documented key is MsgId (FromUserName + CreateTime for events). A push whose key this process saw in the last
 *    {@link DEDUP_TTL_MS} is dropped at once; a text message whose Kesoku message (`wechat-<MsgId>`) is already
 *    stored is dropped too (a re-push that reached another process, or this one after a restart); and the session
 *    de-duplicates by message id as the last line (a re-push can never make a second message).
 * 2. Access (adapters/kit/access.ts): one-to-one chats only, so the OpenID is both the user and the channel. An
 *    allowed user goes on; a stranger in pairing mode is sent a pairing code; anyone else gets no answer.
 * 3. A message that is wholly a chat command (`/stop`, `/compact`, `/title …`, `/mode …`, `/locale …`,
 *    `/approval …`, `/new`, `/status`, `/help`, and `/approve`, `/deny`, `/always`; adapters/kit/commands.ts and
 *    command-dispatch.ts) runs on the session (update id from the MsgId, so a re-pushed command runs once) and is
 *    answered. `/new` moves the user to a new conversation (session `wechat:<OpenID>:<n>`,
 *    adapters/kit/conversations.ts) when the channel passes `addressOf` and `sessions.newConversation`.
 *    `/approve`, `/deny`, `/always` decide the oldest tool call of the session waiting for approval
 *    (adapters/kit/typed-approvals.ts, `sessions.decidePending`) on behalf of the follower, who is the requester
 *    in this one-to-one chat; the answer names the call (approvals.ts has the request side).
 * 4. Text (and a voice message's speech recognition result, when the account has recognition on) is submitted to
 *    session `wechat:<OpenID>` as InboundMessage `{id: "wechat-<MsgId>", sender: OpenID, receivedAt: CreateTime,
 *    channelContext: {open_id, msg_id, account}}`; a refused submission is told to the user.
 * 5. Other messages (image, voice without recognition, video, location, link, …) get a short answer that only
 *    text is read; a `subscribe` event gets a greeting (or, for a stranger, the pairing code); other events
 *    (unsubscribe, menu clicks, scans, …) are ignored.
 *
 * Answers go through the customer-service message API (api.ts), never in the HTTP response, so the push is
 * acknowledged at once. One user's messages are handled in arrival order; chat commands skip that queue, except
 * `/new`, which keeps its place (the messages before it stay in the old conversation).
 */
import { createChatAccess, type ChatAccess } from '../kit/access.ts';
import {
  commandName,
  createCommandDispatcher,
  presentSessionError,
  type CommandSessions,
} from '../kit/command-dispatch.ts';
import { APPROVAL_COMMANDS } from '../kit/typed-approvals.ts';
import { getMessage } from '../../db/messages.ts';
import type { Pool } from '../../db/pool.ts';
import type { AccessPolicy, ChatPlace } from '../../domain/access-policy.ts';
import { neutraliseUserText } from '../../domain/prompt-safety.ts';
import type { Logger } from '../../infra/logger.ts';
import type { SessionClient } from '../../infra/session-client.ts';
import type { InboundMessage, SessionAddress } from '../../workflows/definitions.ts';
import type { WechatPush } from './xml.ts';
import { toPlainText, splitUtf8 } from './text.ts';

/** The chatbot id of WeChat sessions (docs/message-model.md §3 `chatbot_id`). */
export const WECHAT_CHATBOT_ID = 'wechat';

/** How long a push key is remembered in process, ms (WeChat's three re-pushes come within about 15 s). */
export const DEDUP_TTL_MS = 10 * 60_000;
/** Most keys remembered at once (the oldest are forgotten first). */
const DEDUP_MAX_KEYS = 100_000;

/** The session of a WeChat user. */
export function wechatSessionAddress(openId: string): SessionAddress {
  return { sessionId: `wechat:${openId}`, chatbotId: WECHAT_CHATBOT_ID, channelId: openId };
}

/** The Kesoku message id of a WeChat message. */
export function wechatInboundId(msgId: string): string {
  return `wechat-${msgId}`;
}

/** The de-duplication key of a push: MsgId, or sender + time + event for events (which have no MsgId). */
export function pushKey(p: WechatPush): string {
  return p.MsgId ?? `${p.FromUserName}:${p.CreateTime}:${p.Event ?? p.MsgType}`;
}

/** What the ingress did with a push (logged; counted for health; asserted by tests). */
export type WechatOutcome =
  | 'duplicate'
  | 'ignored'
  | 'denied'
  | 'pairing'
  | 'command'
  | 'submitted'
  | 'rejected'
  | 'unsupported'
  | 'greeted';

/** What the ingress needs. */
export interface WechatIngressDeps {
  sessions: Pick<SessionClient, 'submit'> & CommandSessions;
  /** Sends answers (customer-service text messages). */
  answer: (openId: string, text: string) => Promise<void>;
  /** Stored messages, for the de-duplication of re-pushes that reach another process. Optional. */
  pool?: Pool;
  policy: AccessPolicy;
  /** Default: the policy's rule with no database (modes `open` and `lists` only). */
  access?: ChatAccess;
  logger: Logger;
  /** Clock, ms (tests). */
  now?: () => number;
  /** The session a user is in now (after `/new`). Default: {@link wechatSessionAddress}. */
  addressOf?(openId: string): Promise<SessionAddress>;
}

/** The ingress: one entry point per verified push. */
export interface WechatIngress {
  /** Handles a push in its user's order (commands at once). Never throws. */
  accept(push: WechatPush): Promise<WechatOutcome>;
  /** Outcomes so far, by kind. */
  counts(): Record<WechatOutcome, number>;
}

/** What a WeChat user is told when they send something other than text. */
export const UNSUPPORTED_TEXT = 'Sorry, I can only read text messages. Please type your message.';
/** The greeting for a new follower who may talk to the agent. */
export const GREETING_TEXT =
  'Hello! Send me a message and I will get to work. Type /stop to stop a running turn.';

/** Builds the ingress (see the module comment). */
export function createWechatIngress(deps: WechatIngressDeps): WechatIngress {
  const { sessions, logger } = deps;
  const now = deps.now ?? Date.now;
  const addressOf = deps.addressOf ?? ((openId: string) => Promise.resolve(wechatSessionAddress(openId)));
  const access = deps.access ?? createChatAccess({ policy: deps.policy, pool: null, logger });
  const seen = new Map<string, number>();
  const tails = new Map<string, Promise<unknown>>();
  const commands = createCommandDispatcher({ sessions, local: APPROVAL_COMMANDS });
  const counts = Object.fromEntries(
    (
      [
        'duplicate',
        'ignored',
        'denied',
        'pairing',
        'command',
        'submitted',
        'rejected',
        'unsupported',
        'greeted',
      ] as const
    ).map((k) => [k, 0]),
  ) as Record<WechatOutcome, number>;

  /** Remembers `key`; false when it was already seen within the TTL. */
  function firstSighting(key: string): boolean {
    const t = now();
    for (const [k, expiry] of seen) {
      if (expiry > t && seen.size < DEDUP_MAX_KEYS) break;
      seen.delete(k);
    }
    if (seen.has(key)) return false;
    seen.set(key, t + DEDUP_TTL_MS);
    return true;
  }

  async function answer(openId: string, text: string): Promise<void> {
    try {
      for (const chunk of splitUtf8(toPlainText(text))) await deps.answer(openId, chunk);
    } catch (err) {
      logger.warn({ openId, err: String(err) }, 'wechat answer failed');
    }
  }

  const placeOf = (openId: string): ChatPlace => ({
    chatbotId: WECHAT_CHATBOT_ID,
    userId: openId,
    channelId: openId,
    parentId: null,
    groupId: null,
    isDirect: true,
  });

  /** The text a push carries for the agent, or null. */
  function textOf(p: WechatPush): string | null {
    if (p.MsgType === 'text') return p.Content ?? '';
    if (p.MsgType === 'voice' && p.Recognition && p.Recognition.trim() !== '') return p.Recognition;
    return null;
  }

  async function handle(p: WechatPush): Promise<WechatOutcome> {
    const openId = p.FromUserName;
    const isEvent = p.MsgType === 'event';
    if (isEvent && p.Event !== 'subscribe') return 'ignored';
    const decision = await access.check(placeOf(openId));
    if (decision === 'denied') return 'denied';
    if (decision === 'pairing') {
      const ticket = await access.pairingCode(placeOf(openId), openId);
      if (ticket === null || !ticket.notify) return 'pairing';
      if (ticket.issued)
        logger.warn(
          { openId, code: ticket.code },
          `WeChat user ${openId} asks to talk to the agent; approve with: npm run kesoku -- pairing approve ${ticket.code}`,
        );
      await answer(openId, pairingText(ticket.code));
      return 'pairing';
    }
    if (isEvent) {
      await answer(openId, GREETING_TEXT);
      return 'greeted';
    }
    const text = textOf(p);
    if (text === null || p.MsgId === undefined) {
      await answer(openId, UNSUPPORTED_TEXT);
      return 'unsupported';
    }
    const address = await addressOf(openId);
    const reply = await commands.dispatch(text, address.sessionId, `wechat-command-${p.MsgId}`, openId);
    if (reply !== null) {
      await answer(openId, reply);
      return 'command';
    }
    const messageId = wechatInboundId(p.MsgId);
    if (deps.pool && (await getMessage(deps.pool, messageId).catch(() => null)) !== null) return 'duplicate';
    const receivedAt = new Date(p.CreateTime * 1000);
    const inbound: InboundMessage = {
      id: messageId,
      content: formatInbound(openId, receivedAt, text),
      sender: openId,
      receivedAt: receivedAt.toISOString(),
      channelContext: { open_id: openId, msg_id: p.MsgId, account: p.ToUserName },
      platformMessageId: p.MsgId,
    };
    try {
      const r = await sessions.submit(address, inbound);
      logger.info(
        { sessionId: address.sessionId, messageId, queuePosition: r.queue_position, duplicate: r.duplicate },
        'wechat message submitted',
      );
      return r.duplicate ? 'duplicate' : 'submitted';
    } catch (err) {
      logger.warn(
        { sessionId: address.sessionId, messageId, err: String(err) },
        'wechat message not accepted',
      );
      await answer(openId, presentSessionError(err));
      return 'rejected';
    }
  }

  async function safely(p: WechatPush): Promise<WechatOutcome> {
    let outcome: WechatOutcome;
    try {
      outcome = await handle(p);
    } catch (err) {
      logger.error(
        { openId: p.FromUserName, msgId: p.MsgId, err: String(err) },
        'wechat push handling failed',
      );
      outcome = 'rejected';
    }
    counts[outcome] += 1;
    logger.debug({ openId: p.FromUserName, msgId: p.MsgId, outcome }, 'wechat push handled');
    return outcome;
  }

  return {
    accept(p) {
      if (!firstSighting(pushKey(p))) {
        counts.duplicate += 1;
        return Promise.resolve('duplicate');
      }
      const text = textOf(p);
      // Commands skip the user's queue, except `/new`: the messages before it stay in the old conversation.
      const command = text === null ? null : commands.parse(text);
      if (command !== null && commandName(command) !== 'new') return safely(p);
      const user = p.FromUserName;
      const outcome = (tails.get(user) ?? Promise.resolve()).then(() => safely(p));
      tails.set(user, outcome);
      void outcome.then(() => {
        if (tails.get(user) === outcome) tails.delete(user);
      });
      return outcome;
    },
    counts: () => ({ ...counts }),
  };
}

/** "`<OpenID>` at `2026-05-27 12:50:00 UTC`:\n<text>" (docs/message-model.md §6.1: who spoke and when). */
export function formatInbound(openId: string, at: Date, text: string): string {
  const when = `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  const header = `WeChat user \`${openId.replace(/[^A-Za-z0-9_-]/g, '')}\` at \`${when}\`:`;
  return text.trim() === '' ? header : `${header}\n${neutraliseUserText(text)}`;
}

/** What a stranger is told: the code and what the operator runs. */
export function pairingText(code: string): string {
  return (
    `🔒 I only talk with people my operator has approved. Your pairing code is ${code} (valid for one hour). ` +
    `Give it to the operator of this Kesoku; they approve it with: npm run kesoku -- pairing approve ${code}. ` +
    'After that, just write to me again.'
  );
}

/**
 * WeChat ingress: what Kesoku does with a verified push (endpoint.ts checked its signature and decrypted it).
 *
 * 1. De-duplication. WeChat pushes a message again when it got no answer within five seconds, up to three times
 *    (developers.weixin.qq.com/doc/offiaccount/Message_Management/Receiving_standard_messages.html), and the
 *    documented key is MsgId (FromUserName + CreateTime for events). A push whose key this process took in the
 *    last {@link DEDUP_TTL_MS} is a duplicate at once; a re-push of one still being handled waits for that
 *    handling instead of starting another; a text message whose Kesoku message (`wechat-<MsgId>`) is already
 *    stored is dropped too (a re-push that reached another process, or this one after a restart); and the session
 *    de-duplicates by message id as the last line (a re-push can never make a second message). A push that was
 *    not taken (outcome `failed`) is handled anew when WeChat pushes it again.
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
 * A push is *taken* when its handling ended with any outcome but `failed`: for a message, once the session stored
 * it. A handling that fails for a reason that may pass (Temporal or the database unreachable or stalled, an
 * unexpected error) is tried again in process, with backoff, for up to {@link RETRY_FOR_MS}: the endpoint
 * (endpoint.ts) has acknowledged the push within WeChat's 5 s meanwhile, so WeChat pushes nothing again. Only when
 * the retries run out is it `failed` (not taken) — or, when the push was acknowledged before it was taken, the
 * failure is told to the user, as there will be no other push.
 *
 * Answers go through the customer-service message API (api.ts), never in the HTTP response. One user's messages
 * are handled in arrival order; chat commands skip that queue, except `/new`, which keeps its place (the messages
 * before it stay in the old conversation).
 */
import { createChatAccess, type ChatAccess } from '../kit/access.ts';
import {
  commandName,
  createCommandDispatcher,
  presentSessionError,
  type CommandSessions,
} from '../kit/command-dispatch.ts';
import { APPROVAL_COMMANDS } from '../kit/typed-approvals.ts';
import { claimCommandMessage } from '../../db/command-claims.ts';
import { getMessage } from '../../db/messages.ts';
import { SessionClientError } from '../../infra/session-client.ts';
import type { Pool } from '../../db/pool.ts';
import type { AccessPolicy, ChatPlace } from '../../domain/access-policy.ts';
import { neutraliseUserText, speakerHeader } from '../../domain/prompt-safety.ts';
import type { Logger } from '../../infra/logger.ts';
import type { SessionClient } from '../../infra/session-client.ts';
import type { InboundMessage, SessionAddress } from '../../workflows/definitions.ts';
import type { WechatPush } from './xml.ts';
import { toPlainText, splitUtf8 } from './text.ts';

/** The chatbot id of WeChat sessions (docs/message-model.md §3 `chatbot_id`). */
export const WECHAT_CHATBOT_ID = 'wechat';

/** How often WeChat pushes a message again that it got no answer for (so a push arrives at most 1 + this times). */
export const WECHAT_REPUSHES = 3;

/** How long a push key is remembered in process, ms (WeChat's three re-pushes come within about 15 s). */
export const DEDUP_TTL_MS = 10 * 60_000;
/** How long a handling that failed for a reason that may pass is tried again, ms. */
export const RETRY_FOR_MS = 5 * 60_000;
/** Longest wait between two tries, ms. */
const RETRY_MAX_DELAY_MS = 10_000;
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
  | 'greeted'
  | 'failed';

/** One push as {@link WechatIngress.accept} took it. */
export interface WechatPushHandling {
  /**
   * What became of the push; resolves once it was handled (a message: once the session stored it or refused it).
   * `failed`: not taken, WeChat should push it again. A re-push of a push already taken resolves `duplicate`.
   * Never rejects.
   */
  outcome: Promise<WechatOutcome>;
  /** How many times this push (by its key) has arrived so far: 1 for the first, 1 + {@link WECHAT_REPUSHES} at most. */
  attempt: number;
  /**
   * Says the push was acknowledged to WeChat before it was taken (WeChat will not push it again): if it then
   * fails, the user is told instead.
   */
  acknowledgedEarly(): void;
}

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
  /** Default {@link RETRY_FOR_MS}, ms (tests shorten it). */
  retryForMs?: number;
}

/** The ingress: one entry point per verified push. */
export interface WechatIngress {
  /** Handles a push in its user's order (commands at once), or joins the handling of its earlier push. Never throws. */
  accept(push: WechatPush): WechatPushHandling;
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
  /** Push keys seen within the TTL, with what became of them. */
  const seen = new Map<string, Sighting>();
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
        'failed',
      ] as const
    ).map((k) => [k, 0]),
  ) as Record<WechatOutcome, number>;

  /** The sighting of `key`, a new one when it was not seen within the TTL. */
  function sightingOf(key: string): Sighting {
    const t = now();
    for (const [k, s] of seen) {
      if (s.expiry > t && seen.size < DEDUP_MAX_KEYS) break;
      seen.delete(k);
    }
    let s = seen.get(key);
    if (s === undefined) {
      s = { expiry: t + DEDUP_TTL_MS, attempts: 0, running: null, taken: false, ackedEarly: false };
      seen.set(key, s);
    }
    return s;
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
    // A command is answered, not stored, so only its claim tells a re-push that reached another process (or this
    // one after a restart) that it ran already: the first claim runs it, a later one does nothing.
    if (deps.pool && commands.parse(text) !== null) {
      const first = await claimCommandMessage(deps.pool, WECHAT_CHATBOT_ID, p.MsgId).catch(() => null);
      if (first === null) return 'failed'; // nothing claimed: WeChat pushes it again
      if (!first) return 'duplicate';
    }
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
    let r: Awaited<ReturnType<typeof sessions.submit>>;
    try {
      r = await sessions.submit(address, inbound);
    } catch (err) {
      // Temporal or the database unreachable: not taken, for WeChat to push again (see safely).
      if (mayPass(err)) throw err;
      logger.warn(
        { sessionId: address.sessionId, messageId, err: String(err) },
        'wechat message not accepted',
      );
      await answer(openId, presentSessionError(err));
      return 'rejected';
    }
    logger.info(
      { sessionId: address.sessionId, messageId, queuePosition: r.queue_position, duplicate: r.duplicate },
      'wechat message submitted',
    );
    return r.duplicate ? 'duplicate' : 'submitted';
  }

  /**
   * {@link handle}, tried again with backoff while it fails for a reason that may pass, for up to
   * {@link RETRY_FOR_MS}; then `failed` (not taken), or told to the user when the push was acknowledged.
   */
  async function safely(p: WechatPush, s: Sighting): Promise<WechatOutcome> {
    const giveUpAt = now() + (deps.retryForMs ?? RETRY_FOR_MS);
    for (let tries = 1; ; tries++) {
      try {
        return await handle(p);
      } catch (err) {
        const delay = Math.min(250 * 2 ** tries, RETRY_MAX_DELAY_MS);
        if (now() + delay < giveUpAt) {
          logger.info(
            { openId: p.FromUserName, msgId: p.MsgId, tries, err: String(err) },
            'wechat push not taken yet; trying again',
          );
          await new Promise((r) => setTimeout(r, delay));
          continue;
        }
        logger.warn(
          { openId: p.FromUserName, msgId: p.MsgId, tries, err: String(err), acknowledged: s.ackedEarly },
          'wechat push not taken',
        );
        if (!s.ackedEarly) return 'failed';
        await answer(p.FromUserName, presentSessionError(err));
        return 'rejected';
      }
    }
  }

  /** Starts handling `p`: commands at once, anything else in its user's order. */
  function start(p: WechatPush, s: Sighting): Promise<WechatOutcome> {
    const text = textOf(p);
    // Commands skip the user's queue, except `/new`: the messages before it stay in the old conversation.
    const command = text === null ? null : commands.parse(text);
    if (command !== null && commandName(command) !== 'new') return safely(p, s);
    const user = p.FromUserName;
    const outcome = (tails.get(user) ?? Promise.resolve()).then(() => safely(p, s));
    tails.set(user, outcome);
    void outcome.then(() => {
      if (tails.get(user) === outcome) tails.delete(user);
    });
    return outcome;
  }

  return {
    accept(p) {
      const s = sightingOf(pushKey(p));
      s.attempts += 1;
      let outcome: Promise<WechatOutcome>;
      if (s.taken) outcome = Promise.resolve('duplicate');
      else if (s.running !== null) outcome = s.running.then((o) => (o === 'failed' ? 'failed' : 'duplicate'));
      else {
        const running = start(p, s);
        s.running = running;
        void running.then((o) => {
          s.running = null;
          s.taken = o !== 'failed';
        });
        outcome = running;
      }
      void outcome.then((o) => {
        counts[o] += 1;
        logger.debug(
          { openId: p.FromUserName, msgId: p.MsgId, attempt: s.attempts, outcome: o },
          'wechat push handled',
        );
      });
      return {
        outcome,
        attempt: s.attempts,
        acknowledgedEarly() {
          s.ackedEarly = true;
        },
      };
    },
    counts: () => ({ ...counts }),
  };
}

/** What the ingress remembers of a push key. */
interface Sighting {
  /** When the key is forgotten, ms. */
  expiry: number;
  /** Pushes with this key so far. */
  attempts: number;
  /** The handling under way, if any. */
  running: Promise<WechatOutcome> | null;
  /** A handling ended with an outcome other than `failed`. */
  taken: boolean;
  /** The endpoint acknowledged a push with this key before it was taken. */
  ackedEarly: boolean;
}

/**
 * A submission failure that may pass (Temporal or the database unreachable, or an error that is no
 * SessionClientError): WeChat's re-push is worth waiting for. A refusal (queue full, invalid, id taken) is final.
 */
function mayPass(err: unknown): boolean {
  return !(err instanceof SessionClientError) || err.kind === 'unavailable' || err.kind === 'persistence';
}

/** "`<OpenID>` at `2026-05-27 12:50:00 UTC`:\n<text>" (docs/message-model.md §6.1: who spoke and when). */
export function formatInbound(openId: string, at: Date, text: string): string {
  const when = `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  const header = speakerHeader('wechat', { openId: openId.replace(/[^A-Za-z0-9_-]/g, ''), at: when });
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

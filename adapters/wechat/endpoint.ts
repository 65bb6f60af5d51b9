/**
 * The HTTP endpoint WeChat calls (the "server URL" of the Official Account's server configuration).
 *
 * - GET: server URL verification. WeChat sends `signature`, `timestamp`, `nonce`, `echostr`; the endpoint answers
 *   `echostr` when the signature matches (crypto.ts), 401 otherwise.
 * - POST: a pushed message. The `signature` query parameter must match, and its signed `timestamp` must lie
 *   within crypto.ts MAX_PUSH_AGE_MS (5 minutes) of this server's clock, so that a captured push cannot be replayed
 *   later (401 otherwise). With an EncodingAESKey configured only safe-mode pushes are taken: a body without
 *   `Encrypt` is refused (401), since `signature` covers no part of the body and anyone holding one push URL could
 *   send any text under it; `msg_signature` must match (it covers the ciphertext) and the body is decrypted with
 *   the EncodingAESKey (401 for a bad signature, 400 when it cannot be decrypted or is meant for another appid).
 *   Without a key (plain mode) the body is taken as sent: plain mode authenticates no message (docs/security.md).
 *   Every taken request is claimed by its `signature` in Postgres (db/push-nonces.ts, shared by all adapter
 *   processes) until its timestamp expires: the same signed request a second time is a replay, refused (401).
 *   WeChat signs each of its re-pushes anew, so they pass and are de-duplicated by MsgId (ingress.ts). When the
 *   claim cannot be made (Postgres down) the push is left unanswered, so WeChat pushes it again.
 *   Nothing is stored or answered for a refused push. A verified push is handed to the ingress first and
 *   acknowledged with `success` once it was taken (ingress.ts: a message once the session stored it), or after
 *   {@link WECHAT_ACK_BUDGET_MS} (4 s) at the latest: WeChat waits five seconds, and a push it got no answer for
 *   makes it show the user "该公众号暂时无法提供服务" whatever comes later. A push not taken by then (Temporal
 *   stalled or unreachable) is first held in Postgres (db/held-pushes.ts) and then acknowledged; the ingress
 *   keeps trying to hand it to the session (ingress.ts), a restarted adapter takes it up again from the hold
 *   (channel.ts), and if it finally cannot be taken the user is told. Only when the hold cannot be written
 *   (Postgres down too) is the push left unanswered (the connection is closed after {@link UNANSWERED_HOLD_MS} if
 *   WeChat has not closed it), so that WeChat pushes it again and the re-push joins the handling under way (by
 *   MsgId); an answer other than `success`, an empty body or a reply message would make WeChat show the user an
 *   error instead.
 */
import express, { type Request, type Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import type { EnabledWechatConfig } from './config.ts';
import {
  MAX_PUSH_AGE_MS,
  WechatCryptoError,
  decryptWechatMessage,
  signatureMatches,
  timestampFresh,
} from './crypto.ts';
import type { WechatIngress } from './ingress.ts';
import { WechatXmlError, parsePush, parseXmlFields, type WechatPush } from './xml.ts';

/** Largest push body taken, bytes (a text message is at most a few KiB). */
const MAX_BODY = '256kb';

/** How long a push waits to be taken before it is held and acknowledged anyway, ms (WeChat waits 5 s). */
export const WECHAT_ACK_BUDGET_MS = 4000;

/** How long an unanswered push's connection is kept before this side closes it, ms (WeChat hangs up after 5 s). */
export const UNANSWERED_HOLD_MS = 10_000;

/** What {@link createWechatApp} needs. */
export interface WechatAppDeps {
  config: Pick<
    EnabledWechatConfig,
    'WECHAT_APP_ID' | 'WECHAT_TOKEN' | 'WECHAT_ENCODING_AES_KEY' | 'WECHAT_PATH'
  >;
  ingress: Pick<WechatIngress, 'accept'>;
  /**
   * Claims a signed request by its key (the `signature`) until `expiresAt`: true the first time, false for a
   * request taken before (db/push-nonces.ts claimPushNonce). Throws when it cannot tell (the push then waits for
   * WeChat's re-push).
   */
  claimNonce(key: string, expiresAt: Date): Promise<boolean>;
  /**
   * Holds a push that is acknowledged before it was taken, until its handling ended (db/held-pushes.ts).
   * `hold` throws when it cannot (the push is then left unanswered). Absent: pushes are acknowledged unheld.
   */
  holds?: { hold(push: WechatPush): Promise<void>; release(push: WechatPush): Promise<void> };
  logger: Logger;
  /** Default {@link WECHAT_ACK_BUDGET_MS}, ms (tests shorten it). */
  ackBudgetMs?: number;
  /** Called with each accepted push's handling (for shutdown, which waits for them). */
  track?: (handling: Promise<unknown>) => void;
}

/** A refused request: HTTP status and a short reason (logged; sent as plain text). */
class Refusal extends Error {
  readonly status: 400 | 401;
  constructor(status: 400 | 401, message: string) {
    super(message);
    this.status = status;
  }
}

const q = (req: Request, name: string): string => {
  const v = req.query[name];
  return typeof v === 'string' ? v : '';
};

/** Builds the express app serving {@link WechatAppDeps.config}'s WECHAT_PATH. */
export function createWechatApp(deps: WechatAppDeps): express.Express {
  const { config, logger } = deps;
  const token = config.WECHAT_TOKEN;
  const app = express();
  app.disable('x-powered-by');

  app.get(config.WECHAT_PATH, (req: Request, res: Response) => {
    if (!signatureMatches(q(req, 'signature'), token, q(req, 'timestamp'), q(req, 'nonce'))) {
      logger.warn({ ip: req.ip }, 'wechat URL verification with a bad signature');
      res.status(401).type('text/plain').send('invalid signature');
      return;
    }
    res.type('text/plain').send(q(req, 'echostr'));
  });

  app.post(
    config.WECHAT_PATH,
    express.text({ type: () => true, limit: MAX_BODY }),
    async (req: Request, res: Response) => {
      let push: WechatPush;
      try {
        push = readPush(req);
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        logger.warn({ ip: req.ip, status: err.status, reason: err.message }, 'wechat push refused');
        res.status(err.status).type('text/plain').send(err.message);
        return;
      }
      const signature = q(req, 'signature').toLowerCase();
      const expiresAt = new Date(Number(q(req, 'timestamp')) * 1000 + MAX_PUSH_AGE_MS);
      let first: boolean;
      try {
        first = await deps.claimNonce(signature, expiresAt);
      } catch (err) {
        // Not taken: without an answer WeChat pushes the message again, signed anew.
        logger.warn(
          { msgId: push.MsgId, err: String(err) },
          'wechat push not checked for replay; left unanswered',
        );
        res.destroy();
        return;
      }
      if (!first) {
        logger.warn({ ip: req.ip, msgId: push.MsgId }, 'wechat push refused: a signed request seen before');
        res.status(401).type('text/plain').send('replayed request');
        return;
      }
      const handling = deps.ingress.accept(push);
      deps.track?.(handling.outcome);
      let settled = false;
      const acknowledge = () => {
        if (!res.headersSent && !res.destroyed) res.type('text/plain').send('success');
      };
      const unanswered = setTimeout(() => {
        if (!res.headersSent) res.destroy();
      }, UNANSWERED_HOLD_MS);
      const budget = setTimeout(() => {
        if (res.headersSent || res.destroyed) return;
        void (async () => {
          try {
            await deps.holds?.hold(push);
          } catch (err) {
            logger.warn(
              { msgId: push.MsgId, attempt: handling.attempt, err: String(err) },
              'wechat push not held; left unanswered for WeChat to push again',
            );
            return;
          }
          if (res.headersSent || res.destroyed) return;
          handling.acknowledgedEarly();
          logger.warn(
            { msgId: push.MsgId, attempt: handling.attempt },
            'wechat push acknowledged before it was taken',
          );
          acknowledge();
          // The handling may have ended while the hold was written.
          if (settled) void releaseHeld(push);
          else void handling.outcome.then(() => releaseHeld(push));
        })();
      }, deps.ackBudgetMs ?? WECHAT_ACK_BUDGET_MS);
      res.once('close', () => {
        clearTimeout(unanswered);
        clearTimeout(budget);
      });
      void handling.outcome.then((outcome) => {
        settled = true;
        clearTimeout(budget);
        // Not taken: no answer, so that WeChat pushes the message again.
        if (outcome !== 'failed') acknowledge();
      });
    },
  );

  /** Forgets a held push; a failure only logs (the push is then taken up once more at the next start). */
  async function releaseHeld(push: WechatPush): Promise<void> {
    await deps.holds
      ?.release(push)
      .catch((err: unknown) =>
        logger.warn({ msgId: push.MsgId, err: String(err) }, 'held wechat push not released'),
      );
  }

  /** Verifies and opens a push. @throws Refusal */
  function readPush(req: Request): WechatPush {
    const timestamp = q(req, 'timestamp');
    const nonce = q(req, 'nonce');
    if (!signatureMatches(q(req, 'signature'), token, timestamp, nonce))
      throw new Refusal(401, 'invalid signature');
    if (!timestampFresh(timestamp, Date.now())) throw new Refusal(401, 'stale timestamp');
    const body = typeof req.body === 'string' ? req.body : '';
    try {
      const outer = parseXmlFields(body);
      const encrypted = outer.Encrypt;
      if (!config.WECHAT_ENCODING_AES_KEY) {
        if (encrypted !== undefined || q(req, 'encrypt_type') === 'aes')
          throw new Refusal(400, 'encrypted push, but WECHAT_ENCODING_AES_KEY is not set');
        return parsePush(body);
      }
      if (encrypted === undefined)
        throw new Refusal(
          401,
          'unencrypted push refused: WECHAT_ENCODING_AES_KEY is set, so only safe-mode (encrypted) pushes are taken',
        );
      if (!signatureMatches(q(req, 'msg_signature'), token, timestamp, nonce, encrypted))
        throw new Refusal(401, 'invalid msg_signature');
      return parsePush(decryptWechatMessage(config.WECHAT_ENCODING_AES_KEY, config.WECHAT_APP_ID, encrypted));
    } catch (err) {
      if (err instanceof WechatXmlError || err instanceof WechatCryptoError)
        throw new Refusal(400, err.message);
      throw err;
    }
  }

  return app;
}

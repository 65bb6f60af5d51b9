/**
 * The HTTP endpoint WeChat calls (the "server URL" of the Official Account's server configuration).
 *
 * - GET: server URL verification. WeChat sends `signature`, `timestamp`, `nonce`, `echostr`; the endpoint answers
 *   `echostr` when the signature matches (crypto.ts), 401 otherwise.
 * - POST: a pushed message. The `signature` query parameter must match, and its signed `timestamp` must lie
 *   within crypto.ts MAX_PUSH_AGE_MS (5 minutes) of this server's clock, so that a captured push cannot be replayed
 *   later (401 otherwise). In safe mode
 *   (`encrypt_type=aes`, or a body with `Encrypt`) `msg_signature` must match too and the body is decrypted with
 *   the EncodingAESKey (401 for a bad signature, 400 when it cannot be decrypted or is meant for another appid).
 *   Nothing is stored or answered for a refused push. A verified push is handed to the ingress first and
 *   acknowledged with `success` only once it was taken (ingress.ts: a message once the session stored it), so a
 *   crash or restart before that loses nothing: WeChat, which waits five seconds for the answer and then pushes
 *   the message again (up to three times), pushes it again, and the re-push is handled once (by MsgId). A push
 *   that is not taken (ingress outcome `failed`) gets no answer at all (the connection is closed after
 *   {@link UNANSWERED_HOLD_MS} if WeChat has not closed it), which makes WeChat push it again; an answer other
 *   than `success`, an empty body or a reply message would make WeChat show the user an error instead. Only
 *   WeChat's last push (the fourth) is acknowledged early, after {@link WECHAT_ACK_BUDGET_MS}, when it is not
 *   taken by then: no other push would come, and an unanswered last push makes WeChat tell the user the account
 *   cannot answer; the handling goes on, and if it then fails the user is told.
 */
import express, { type Request, type Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import type { EnabledWechatConfig } from './config.ts';
import { WechatCryptoError, decryptWechatMessage, signatureMatches, timestampFresh } from './crypto.ts';
import { WECHAT_REPUSHES, type WechatIngress } from './ingress.ts';
import { WechatXmlError, parsePush, parseXmlFields, type WechatPush } from './xml.ts';

/** Largest push body taken, bytes (a text message is at most a few KiB). */
const MAX_BODY = '256kb';

/** How long WeChat's last push of a message waits to be taken before it is acknowledged anyway, ms (WeChat: 5 s). */
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
    (req: Request, res: Response) => {
      let push: WechatPush;
      try {
        push = readPush(req);
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        logger.warn({ ip: req.ip, status: err.status, reason: err.message }, 'wechat push refused');
        res.status(err.status).type('text/plain').send(err.message);
        return;
      }
      const handling = deps.ingress.accept(push);
      deps.track?.(handling.outcome);
      const lastPush = handling.attempt > WECHAT_REPUSHES;
      const acknowledge = () => {
        if (!res.headersSent && !res.destroyed) res.type('text/plain').send('success');
      };
      const hold = setTimeout(() => {
        if (!res.headersSent) res.destroy();
      }, UNANSWERED_HOLD_MS);
      const budget = lastPush
        ? setTimeout(() => {
            if (res.headersSent || res.destroyed) return;
            handling.acknowledgedEarly();
            logger.warn(
              { msgId: push.MsgId, attempt: handling.attempt },
              'wechat push acknowledged before it was taken',
            );
            acknowledge();
          }, deps.ackBudgetMs ?? WECHAT_ACK_BUDGET_MS)
        : undefined;
      res.once('close', () => {
        clearTimeout(hold);
        clearTimeout(budget);
      });
      void handling.outcome.then((outcome) => {
        clearTimeout(budget);
        // Not taken: no answer, so that WeChat pushes the message again.
        if (outcome !== 'failed') acknowledge();
      });
    },
  );

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
      if (q(req, 'encrypt_type') !== 'aes' && encrypted === undefined) return parsePush(body);
      if (encrypted === undefined) throw new Refusal(400, 'no Encrypt element');
      if (!config.WECHAT_ENCODING_AES_KEY)
        throw new Refusal(400, 'encrypted push, but WECHAT_ENCODING_AES_KEY is not set');
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

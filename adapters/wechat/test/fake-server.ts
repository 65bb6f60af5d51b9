/**
 * A fake WeChat on 127.0.0.1 for the real WeChat channel (adapters/wechat/), speaking WeChat's wire formats.
 *
 * Toward the channel's endpoint it plays WeChat's servers: {@link FakeWechat.verifyUrl} does the server URL
 * verification (GET with `signature`, `timestamp`, `nonce`, `echostr`), {@link FakeWechat.push} POSTs a message
 * as XML, in plain mode or in safe mode (`encrypt_type=aes`, `msg_signature`, body `<xml><ToUserName/><Encrypt/></xml>`
 * encrypted with the EncodingAESKey). Like WeChat, a push that is not answered within `answerTimeoutMs` (5 s) is
 * pushed again, up to `maxRetries` (3) times; `loseAnswers` makes the fake treat the first answers as lost (as
 * when the answer does not reach WeChat in time), re-pushing `retryIntervalMs` later.
 *
 * As WeChat's API (`apiUrl`), with WeChat's token semantics:
 * - `POST /cgi-bin/stable_token` with JSON `{grant_type: "client_credential", appid, secret, force_refresh}` (the
 *   stable token): in normal mode every caller gets the account's current stable token with its remaining
 *   lifetime as `expires_in`; a new one is issued only when there is none or the current one is in its last
 *   `stableRenewWindowS` (300 s), and the old one stays valid until it expires. `force_refresh: true` revokes the
 *   current one at once and issues a new one (counted in {@link FakeWechat.forcedRefreshes}). Errcode 40013 for an
 *   unknown appid, 40125 for a wrong secret, 40002 for another grant type, 47001 for a body that is not JSON.
 * - `GET /cgi-bin/token?grant_type=client_credential&appid=&secret=` (the plain token, isolated from the stable
 *   one): every call issues a new token and revokes the previous one `tokenGraceMs` later (WeChat: five minutes),
 *   so processes that each fetch their own knock each other out; errcode 40013 / 40001 for a wrong appid / secret.
 * - `POST /cgi-bin/message/custom/send?access_token=` takes customer-service messages (errcode 40001 for an unknown
 *   or revoked token, 42001 for an expired one, 45002 for text over 2048 UTF-8 bytes) and records each accepted
 *   one in {@link FakeWechat.sent}.
 * {@link FakeWechat.failNext} injects failures into the next calls of a route (`token`: either token endpoint), in
 * order: `pass` (the call works), a WeChat errcode (42001 also expires the token used), or an HTTP 5xx before or
 * after the message was applied.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readBody, sendJson } from '../../../test/fakes/http.ts';
import { encryptWechatMessage, wechatSignature } from '../crypto.ts';
import { cdata } from '../xml.ts';

/** Options of {@link startFakeWechat}. */
export interface FakeWechatOptions {
  appId?: string;
  appSecret?: string;
  /** The Token of the server configuration. */
  token?: string;
  encodingAesKey?: string;
  /** The account's original id (ToUserName of pushes). */
  accountId?: string;
  /** `expires_in` of issued tokens, s. Default 7200. */
  tokenTtlS?: number;
  /** `/cgi-bin/token`: how long the previous token stays valid after a new one is issued, ms. Default 300 000. */
  tokenGraceMs?: number;
  /** `/cgi-bin/stable_token`: a new stable token is issued in the current one's last this many s. Default 300. */
  stableRenewWindowS?: number;
  /** How long WeChat waits for the endpoint's answer, ms. Default 5000. */
  answerTimeoutMs?: number;
  /** Wait before pushing again after a lost answer, ms. Default 0 (right away, as after a timeout). */
  retryIntervalMs?: number;
  /** Re-pushes of an unanswered message. Default 3. */
  maxRetries?: number;
  /** Pushes are in safe mode unless a push says `safe: false` (an account configured for safe mode). Default false. */
  safeByDefault?: boolean;
}

/** A customer-service message WeChat accepted. */
export interface SentMessage {
  touser: string;
  msgtype: string;
  content: string;
  token: string;
  at: number;
}

/** An injected failure of the next call of a route. */
export type FakeFailure =
  | { kind: 'pass' }
  | { kind: 'errcode'; errcode: number; errmsg?: string }
  | { kind: 'http'; status: number; applied: boolean };

/** What {@link FakeWechat.push} sends. */
export interface PushOptions {
  /** The sender's OpenID. */
  from: string;
  msgType?: string;
  content?: string;
  /** Default: a fresh 19-digit id (absent for events). */
  msgId?: string;
  event?: string;
  /** Extra XML fields (e.g. `Recognition`, `MediaId`). */
  fields?: Record<string, string>;
  createTime?: number;
  /** Safe mode (encrypted). Default: the fake's `safeByDefault`. */
  safe?: boolean;
  /** How long this push's attempts wait for the answer, ms. Default: the fake's `answerTimeoutMs`. */
  answerTimeoutMs?: number;
  /** Answers the fake treats as lost (the first N attempts get re-pushed). */
  loseAnswers?: number;
  /** Sign with a wrong token (the `signature` parameter; in safe mode also `msg_signature`). */
  badSignature?: boolean;
  /** Safe mode only: a wrong `msg_signature` with a correct `signature`. */
  badMsgSignature?: boolean;
  /**
   * The signed `timestamp`, seconds since the epoch (default: now). An old one is a captured push replayed
   * later; the signatures stay valid.
   */
  signedAt?: number;
}

/** One delivery attempt of a push. */
export interface PushAttempt {
  status: number | null;
  body: string;
  /** No answer within `answerTimeoutMs`, or an answer treated as lost. */
  unanswered: boolean;
}

export interface FakeWechat {
  apiUrl: string;
  appId: string;
  appSecret: string;
  token: string;
  encodingAesKey: string;
  accountId: string;
  /** Where pushes go (the channel's endpoint URL). */
  setEndpoint(url: string): void;
  push(o: PushOptions): Promise<{ msgId: string | undefined; attempts: PushAttempt[] }>;
  verifyUrl(o: { echostr: string; badSignature?: boolean }): Promise<{ status: number; body: string }>;
  /** Accepted customer-service messages, in order. */
  readonly sent: SentMessage[];
  /** Texts sent to `openId`, in order. */
  sentTo(openId: string): string[];
  /** Calls of the stable token endpoint (`/cgi-bin/stable_token`). */
  readonly tokenRequests: number;
  /** Calls of the plain token endpoint (`/cgi-bin/token`), which Kesoku does not use. */
  readonly plainTokenRequests: number;
  /** Stable token calls with `force_refresh: true`. */
  readonly forcedRefreshes: number;
  /** Stable tokens issued so far. */
  readonly stableTokensIssued: number;
  /** Calls of the send endpoint (accepted or not). */
  readonly sendCalls: number;
  /**
   * Well-formed send calls to `openId` with a valid token (accepted or refused by an injected failure), only those
   * carrying `content` when given.
   */
  sendAttemptsTo(openId: string, content?: string): number;
  failNext(route: 'send' | 'token', ...failures: FakeFailure[]): void;
  /** Makes every token issued so far expired (42001 on use). */
  expireTokens(): void;
  /** Revokes the current stable token and issues a new one, as a `force_refresh: true` call by someone else. */
  forceRefreshStable(): void;
  waitFor<T>(check: () => T | undefined | null | false, timeoutMs: number, what: string): Promise<T>;
  close(): Promise<void>;
}

let msgCounter = 0;
/** A fresh 19-digit MsgId. */
export function newMsgId(): string {
  msgCounter += 1;
  return `${Date.now()}${String(process.pid % 1000).padStart(3, '0')}${String(msgCounter % 1_000_000).padStart(6, '0')}`.slice(
    0,
    19,
  );
}

/** A fake OpenID (28 characters, as WeChat's). */
export function newOpenId(): string {
  return `o${randomBytes(21).toString('base64url').slice(0, 27)}`;
}

export async function startFakeWechat(opts: FakeWechatOptions = {}): Promise<FakeWechat> {
  const appId = opts.appId ?? 'wx' + randomBytes(8).toString('hex');
  const appSecret = opts.appSecret ?? randomBytes(16).toString('hex');
  const token = opts.token ?? 'kesokutest' + randomBytes(4).toString('hex');
  const encodingAesKey = opts.encodingAesKey ?? randomBytes(32).toString('base64').slice(0, 43);
  const accountId = opts.accountId ?? 'gh_' + randomBytes(6).toString('hex');
  const answerTimeoutMs = opts.answerTimeoutMs ?? 5000;
  const retryIntervalMs = opts.retryIntervalMs ?? 0;
  const maxRetries = opts.maxRetries ?? 3;
  const safeByDefault = opts.safeByDefault ?? false;
  const tokenTtlS = opts.tokenTtlS ?? 7200;
  const tokenGraceMs = opts.tokenGraceMs ?? 300_000;
  const stableRenewWindowMs = (opts.stableRenewWindowS ?? 300) * 1000;

  /** Every token issued: when it expires and when it was revoked (ms since the epoch). */
  interface IssuedToken {
    expiresAt: number;
    revokedAt: number | null;
    expired: boolean;
  }
  const tokens = new Map<string, IssuedToken>();
  let currentPlain: string | null = null;
  let currentStable: string | null = null;
  let plainTokenRequests = 0;
  let forcedRefreshes = 0;
  let stableTokensIssued = 0;
  const issue = (): string => {
    const issued = randomBytes(24).toString('base64url');
    tokens.set(issued, { expiresAt: Date.now() + tokenTtlS * 1000, revokedAt: null, expired: false });
    return issued;
  };
  const usable = (t: IssuedToken | undefined, at: number): t is IssuedToken =>
    t !== undefined && !t.expired && at < t.expiresAt && (t.revokedAt === null || at < t.revokedAt);
  const issueStable = (force: boolean): string => {
    const old = currentStable === null ? undefined : tokens.get(currentStable);
    if (force && old && old.revokedAt === null) old.revokedAt = Date.now();
    currentStable = issue();
    stableTokensIssued += 1;
    return currentStable;
  };
  const sent: SentMessage[] = [];
  const failures: Record<'send' | 'token', FakeFailure[]> = { send: [], token: [] };
  let tokenRequests = 0;
  let sendCalls = 0;
  const sendAttempts: { touser: string; content: string }[] = [];
  let endpoint: string | null = null;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (req.method === 'GET' && url.pathname === '/cgi-bin/token') {
      plainTokenRequests += 1;
      const failure = failures.token.shift();
      if (failure?.kind === 'http')
        return sendJson(res, failure.status, { errcode: -1, errmsg: 'system error' });
      if (failure?.kind === 'errcode')
        return sendJson(res, 200, { errcode: failure.errcode, errmsg: failure.errmsg ?? 'injected' });
      if (url.searchParams.get('grant_type') !== 'client_credential')
        return sendJson(res, 200, { errcode: 40002, errmsg: 'invalid grant_type' });
      if (url.searchParams.get('appid') !== appId)
        return sendJson(res, 200, { errcode: 40013, errmsg: 'invalid appid' });
      if (url.searchParams.get('secret') !== appSecret)
        return sendJson(res, 200, { errcode: 40001, errmsg: 'invalid credential, access_token is invalid' });
      // A new plain token replaces the previous one, which dies tokenGraceMs later.
      const previous = currentPlain === null ? undefined : tokens.get(currentPlain);
      if (previous && previous.revokedAt === null) previous.revokedAt = Date.now() + tokenGraceMs;
      currentPlain = issue();
      return sendJson(res, 200, { access_token: currentPlain, expires_in: tokenTtlS });
    }
    if (url.pathname === '/cgi-bin/stable_token') {
      tokenRequests += 1;
      if (req.method !== 'POST') return sendJson(res, 200, { errcode: 43002, errmsg: 'require POST method' });
      const failure = failures.token.shift();
      if (failure?.kind === 'http')
        return sendJson(res, failure.status, { errcode: -1, errmsg: 'system error' });
      if (failure?.kind === 'errcode')
        return sendJson(res, 200, { errcode: failure.errcode, errmsg: failure.errmsg ?? 'injected' });
      let q: { grant_type?: unknown; appid?: unknown; secret?: unknown; force_refresh?: unknown };
      try {
        q = JSON.parse(body) as typeof q;
      } catch {
        return sendJson(res, 200, { errcode: 47001, errmsg: 'data format error' });
      }
      if (q.grant_type !== 'client_credential')
        return sendJson(res, 200, { errcode: 40002, errmsg: 'invalid grant_type' });
      if (q.appid !== appId) return sendJson(res, 200, { errcode: 40013, errmsg: 'invalid appid' });
      if (q.secret !== appSecret) return sendJson(res, 200, { errcode: 40125, errmsg: 'invalid appsecret' });
      const now = Date.now();
      const force = q.force_refresh === true;
      if (force) forcedRefreshes += 1;
      const current = currentStable === null ? undefined : tokens.get(currentStable);
      const token =
        !force && usable(current, now) && current.expiresAt - now > stableRenewWindowMs
          ? (currentStable as string)
          : issueStable(force);
      const expiresAt = (tokens.get(token) as IssuedToken).expiresAt;
      return sendJson(res, 200, { access_token: token, expires_in: Math.ceil((expiresAt - now) / 1000) });
    }
    if (req.method === 'POST' && url.pathname === '/cgi-bin/message/custom/send') {
      sendCalls += 1;
      const accessToken = url.searchParams.get('access_token') ?? '';
      const known = tokens.get(accessToken);
      const at = Date.now();
      if (!known || (known.revokedAt !== null && at >= known.revokedAt))
        return sendJson(res, 200, {
          errcode: 40001,
          errmsg: 'invalid credential, access_token is invalid or not latest',
        });
      if (known.expired || at >= known.expiresAt)
        return sendJson(res, 200, { errcode: 42001, errmsg: 'access_token expired' });
      let msg: { touser?: unknown; msgtype?: unknown; text?: { content?: unknown } };
      try {
        msg = JSON.parse(body) as typeof msg;
      } catch {
        return sendJson(res, 200, { errcode: 40038, errmsg: 'invalid request format' });
      }
      if (typeof msg.touser !== 'string' || msg.touser === '')
        return sendJson(res, 200, { errcode: 40003, errmsg: 'invalid openid' });
      if (msg.msgtype !== 'text' || typeof msg.text?.content !== 'string')
        return sendJson(res, 200, { errcode: 40008, errmsg: 'invalid message type' });
      if (Buffer.byteLength(msg.text.content, 'utf8') > 2048)
        return sendJson(res, 200, { errcode: 45002, errmsg: 'content size out of limit' });
      sendAttempts.push({ touser: msg.touser, content: msg.text.content });
      const failure = failures.send.shift();
      if (failure?.kind === 'errcode') {
        if (failure.errcode === 42001) known.expired = true;
        return sendJson(res, 200, { errcode: failure.errcode, errmsg: failure.errmsg ?? 'injected' });
      }
      const record = () =>
        sent.push({
          touser: msg.touser as string,
          msgtype: 'text',
          content: msg.text?.content as string,
          token: accessToken,
          at: Date.now(),
        });
      if (failure?.kind === 'http') {
        if (failure.applied) record();
        return sendJson(res, failure.status, { errcode: -1, errmsg: 'system error' });
      }
      record();
      return sendJson(res, 200, { errcode: 0, errmsg: 'ok' });
    }
    sendJson(res, 404, { errcode: 404, errmsg: 'not found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => sendJson(res, 500, { errmsg: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function signedUrl(extra: Record<string, string>, signToken: string, signedAt?: number): URL {
    if (!endpoint) throw new Error('setEndpoint first');
    const url = new URL(endpoint);
    const timestamp = String(signedAt ?? Math.floor(Date.now() / 1000));
    const nonce = String(Math.floor(Math.random() * 1e9));
    url.searchParams.set('signature', wechatSignature(signToken, timestamp, nonce));
    url.searchParams.set('timestamp', timestamp);
    url.searchParams.set('nonce', nonce);
    for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
    return url;
  }

  function pushXml(o: PushOptions, msgId: string | undefined): string {
    const msgType = o.msgType ?? 'text';
    const fields: [string, string][] = [
      ['ToUserName', cdata(accountId)],
      ['FromUserName', cdata(o.from)],
      ['CreateTime', String(o.createTime ?? Math.floor(Date.now() / 1000))],
      ['MsgType', cdata(msgType)],
    ];
    if (o.content !== undefined) fields.push(['Content', cdata(o.content)]);
    if (o.event !== undefined) fields.push(['Event', cdata(o.event)]);
    for (const [k, v] of Object.entries(o.fields ?? {})) fields.push([k, cdata(v)]);
    if (msgId !== undefined) fields.push(['MsgId', msgId]);
    return `<xml>${fields.map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</xml>`;
  }

  /** One POST of a push; `null` status when it timed out. */
  async function postOnce(o: PushOptions, xml: string): Promise<{ status: number | null; body: string }> {
    const signToken = o.badSignature ? `${token}x` : token;
    let url: URL;
    let body: string;
    if (o.safe ?? safeByDefault) {
      const encrypted = encryptWechatMessage(encodingAesKey, appId, xml);
      url = signedUrl({ openid: o.from, encrypt_type: 'aes' }, signToken, o.signedAt);
      const ts = url.searchParams.get('timestamp') as string;
      const nonce = url.searchParams.get('nonce') as string;
      const msgSignToken = o.badSignature || o.badMsgSignature ? `${token}x` : token;
      url.searchParams.set('msg_signature', wechatSignature(msgSignToken, ts, nonce, encrypted));
      body = `<xml><ToUserName>${cdata(accountId)}</ToUserName><Encrypt>${cdata(encrypted)}</Encrypt></xml>`;
    } else {
      url = signedUrl({ openid: o.from }, signToken, o.signedAt);
      body = xml;
    }
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'text/xml' },
        body,
        signal: AbortSignal.timeout(o.answerTimeoutMs ?? answerTimeoutMs),
      });
      return { status: res.status, body: await res.text() };
    } catch {
      return { status: null, body: '' };
    }
  }

  const fake: FakeWechat = {
    apiUrl,
    appId,
    appSecret,
    token,
    encodingAesKey,
    accountId,
    setEndpoint(url) {
      endpoint = url;
    },
    async push(o) {
      const msgId = o.msgId ?? (o.msgType === 'event' ? undefined : newMsgId());
      const xml = pushXml(o, msgId);
      const attempts: PushAttempt[] = [];
      for (let i = 0; i <= maxRetries; i++) {
        const r = await postOnce(o, xml);
        const lost = i < (o.loseAnswers ?? 0);
        const unanswered = r.status === null || lost;
        attempts.push({ ...r, unanswered });
        if (!unanswered) break;
        if (lost && retryIntervalMs > 0) await new Promise((resolve) => setTimeout(resolve, retryIntervalMs));
      }
      return { msgId, attempts };
    },
    async verifyUrl(o) {
      const url = signedUrl({ echostr: o.echostr }, o.badSignature ? `${token}x` : token);
      url.searchParams.delete('openid');
      const res = await fetch(url);
      return { status: res.status, body: await res.text() };
    },
    sent,
    sentTo: (openId) => sent.filter((m) => m.touser === openId).map((m) => m.content),
    get tokenRequests() {
      return tokenRequests;
    },
    get plainTokenRequests() {
      return plainTokenRequests;
    },
    get forcedRefreshes() {
      return forcedRefreshes;
    },
    get stableTokensIssued() {
      return stableTokensIssued;
    },
    sendAttemptsTo: (openId, content) =>
      sendAttempts.filter((a) => a.touser === openId && (content === undefined || a.content === content))
        .length,
    get sendCalls() {
      return sendCalls;
    },
    failNext(route, ...f) {
      failures[route].push(...f);
    },
    expireTokens() {
      for (const t of tokens.values()) t.expired = true;
    },
    forceRefreshStable() {
      forcedRefreshes += 1;
      issueStable(true);
    },
    async waitFor(check, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = check();
        if (v !== undefined && v !== null && v !== false) return v;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

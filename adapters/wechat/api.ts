/**
 * The WeChat Official Account API as Kesoku uses it: the stable access token (POST /cgi-bin/stable_token) and
 * customer-service text messages (POST /cgi-bin/message/custom/send). Base URL configurable (WECHAT_API_URL) so
 * tests use a fake.
 *
 * Access token: the stable token endpoint
 * (developers.weixin.qq.com/doc/service/api/base/api_getstableaccesstoken), called in its normal mode
 * (`force_refresh: false`), answers every caller with the same token for as long as it is valid (`expires_in`
 * seconds, at most 7200) and issues a new one only in the token's last five minutes, keeping the old one valid
 * until it expires. So every process (the channel's endpoint, each worker's sink) fetches it on its own without
 * invalidating the others' — unlike GET /cgi-bin/token, where each fetch replaces the account's token (the previous
 * one dies five minutes later) and spends a small daily quota. The token is cached in this process and fetched
 * again {@link TOKEN_REFRESH_MARGIN_MS} before it expires; concurrent callers share one fetch. A call answered
 * with errcode 40001, 40014 or 42001 (invalid or expired token) fetches the token again once, in normal mode, and
 * repeats the call once. Kesoku never uses the forced refresh (it invalidates the token of every process; WeChat
 * keeps it for a leaked token, 20 a day).
 *
 * Errors (global return codes, developers.weixin.qq.com/doc/offiaccount/Getting_Started/Global_Return_Code.html)
 * become a {@link WechatApiError}, a SinkError: `permanent` when the same call cannot succeed later (see
 * {@link PERMANENT_ERRCODES}), `transient` otherwise (-1 system busy, rate limits, HTTP 5xx, network errors).
 */
import { SinkError } from '../../activities/sink.ts';
import type { Logger } from '../../infra/logger.ts';

/** WeChat's API base. */
export const DEFAULT_WECHAT_API = 'https://api.weixin.qq.com';

/** A cached token is replaced this long before WeChat says it expires, ms. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;

/** errcodes that say the access token is invalid or expired: fetch it again once and repeat the call. */
const TOKEN_ERRCODES: ReadonlySet<number> = new Set([40001, 40014, 42001]);

/**
 * errcodes after which the same call cannot succeed: 40003 invalid OpenID, 40008 invalid message type, 40013
 * invalid AppID, 40125 invalid AppSecret, 43004 the user does not follow the account, 43019 the user blocked the
 * account, 45002 content too long, 45015 reply window (48 h after the user's last message) exceeded, 45047 too
 * many replies to one user message, 48001 API not authorized for this account.
 */
export const PERMANENT_ERRCODES: ReadonlySet<number> = new Set([
  40003, 40008, 40013, 40125, 43004, 43019, 45002, 45015, 45047, 48001,
]);

/**
 * The permanent errcodes that say the user cannot be reached at all for now, whatever is sent (SinkError
 * `recipientUnreachable`: no fallback send, no crash notice): 40003 invalid OpenID, 43004 the user does not
 * follow the account, 43019 the user blocked it, 45015 the 48-hour reply window is over, 45047 the replies
 * allowed for the user's last message are used up. The window and the quota open again when the user writes.
 */
export const UNREACHABLE_ERRCODES: ReadonlySet<number> = new Set([40003, 43004, 43019, 45015, 45047]);

/**
 * A failed API call; `errcode` is WeChat's (null for HTTP and network failures). A permanent error with an
 * errcode of {@link UNREACHABLE_ERRCODES} says the recipient is unreachable.
 */
export class WechatApiError extends SinkError {
  readonly errcode: number | null;
  constructor(kind: SinkError['kind'], errcode: number | null, message: string, options?: ErrorOptions) {
    super(kind, message, {
      ...options,
      recipientUnreachable: errcode !== null && UNREACHABLE_ERRCODES.has(errcode),
    });
    this.name = 'WechatApiError';
    this.errcode = errcode;
  }
}

/** What {@link WechatApi} needs. */
export interface WechatApiOptions {
  appId: string;
  appSecret: string;
  /** Base URL. Default {@link DEFAULT_WECHAT_API}. */
  apiUrl?: string;
  logger: Logger;
  /** Bound on each HTTP call, ms. Default 15 000. */
  requestTimeoutMs?: number;
  /** Clock, ms since the epoch (tests). */
  now?: () => number;
}

interface CachedToken {
  token: string;
  /** When to fetch a new one, ms since the epoch. */
  refreshAt: number;
}

/** The WeChat API client of one process (see the module comment). */
export class WechatApi {
  private readonly base: string;
  private readonly now: () => number;
  private cached: CachedToken | null = null;
  private fetching: Promise<string> | null = null;
  /** Token fetches of this process that returned a token (health, tests). */
  tokensFetched = 0;

  private readonly o: WechatApiOptions;

  constructor(o: WechatApiOptions) {
    this.o = o;
    this.base = (o.apiUrl ?? DEFAULT_WECHAT_API).replace(/\/+$/, '');
    this.now = o.now ?? Date.now;
  }

  /** The current access token, fetched when none is cached or it is due. @throws WechatApiError */
  async accessToken(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return this.cached.token;
    return this.refresh(null);
  }

  /**
   * Fetches the current token unless another caller already replaced `stale` (then that one is returned).
   * Concurrent callers share one request.
   */
  private async refresh(stale: string | null): Promise<string> {
    if (this.cached && stale !== null && this.cached.token !== stale) return this.cached.token;
    this.fetching ??= this.fetchToken().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    const body = await this.request(
      new URL(`${this.base}/cgi-bin/stable_token`),
      {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({
          grant_type: 'client_credential',
          appid: this.o.appId,
          secret: this.o.appSecret,
          force_refresh: false,
        }),
      },
      'stable_token',
    );
    const token = body.access_token;
    const expiresIn = Number(body.expires_in);
    if (typeof token !== 'string' || token === '' || !Number.isFinite(expiresIn) || expiresIn <= 0)
      throw new WechatApiError('transient', null, 'the token endpoint answered without a token');
    const ttlMs = expiresIn * 1000;
    this.cached = { token, refreshAt: this.now() + Math.max(ttlMs - TOKEN_REFRESH_MARGIN_MS, ttlMs / 2) };
    this.tokensFetched += 1;
    this.o.logger.info({ expiresIn }, 'wechat access token fetched');
    return token;
  }

  /**
   * Sends a customer-service text message to `openId`. `content` must fit the API's limit (text.ts
   * WECHAT_MAX_TEXT_BYTES). The API has no idempotency key: a call that fails after WeChat applied it (a lost
   * answer) may be repeated by the caller and then shows twice.
   * @throws WechatApiError
   */
  async sendText(openId: string, content: string): Promise<void> {
    await this.withToken((token) => {
      const url = new URL(`${this.base}/cgi-bin/message/custom/send`);
      url.searchParams.set('access_token', token);
      return this.request(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ touser: openId, msgtype: 'text', text: { content } }),
        },
        'custom/send',
      );
    });
  }

  /** Runs `call` with the token; on a token errcode, once more with a new token. */
  private async withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
    const token = await this.accessToken();
    try {
      return await call(token);
    } catch (err) {
      if (!(err instanceof WechatApiError && err.errcode !== null && TOKEN_ERRCODES.has(err.errcode)))
        throw err;
      this.o.logger.info({ errcode: err.errcode }, 'wechat access token refused; fetching it again');
      if (this.cached?.token === token) this.cached = null;
      return call(await this.refresh(token));
    }
  }

  /** One HTTP call answering JSON with WeChat's `errcode` convention. @throws WechatApiError */
  private async request(url: URL, init: RequestInit, what: string): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(this.o.requestTimeoutMs ?? 15_000) });
    } catch (err) {
      throw new WechatApiError('transient', null, `wechat ${what}: ${String(err)}`, { cause: err });
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new WechatApiError('transient', null, `wechat ${what}: HTTP ${res.status}`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new WechatApiError('transient', null, `wechat ${what}: the answer is not JSON`);
    }
    const errcode = typeof body.errcode === 'number' ? body.errcode : 0;
    if (errcode !== 0) {
      const errmsg = typeof body.errmsg === 'string' ? body.errmsg.slice(0, 200) : '';
      throw new WechatApiError(
        PERMANENT_ERRCODES.has(errcode) ? 'permanent' : 'transient',
        errcode,
        `wechat ${what}: errcode ${errcode} ${errmsg}`.trim(),
      );
    }
    return body;
  }
}

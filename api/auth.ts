/**
 * Who may call the REST API, and from where.
 *
 * - **Principals.** Each bearer token names a principal (`KESOKU_API_TOKENS=alice:<token>,ops:<token>` or one
 *   `name:token` per line in `KESOKU_API_TOKENS_FILE`). A principal named `admin`, or named in
 *   `KESOKU_API_ADMINS`, is an admin: it reaches every session. Other principals reach only the sessions they
 *   created (see api/access.ts). Tokens are at least {@link MIN_TOKEN_LENGTH} characters.
 * - **No tokens configured.** The API then serves loopback only (a non-loopback bind is refused at start), the
 *   caller is the local operator ({@link LOCAL_PRINCIPAL}, an admin), and two guards stand in for the token:
 *   the `Host` header must name the loopback interface with the server's port (a DNS-rebinding page sends its
 *   own host name), and a state-changing request that carries an `Origin` must come from that same loopback
 *   origin (a cross-site form or `fetch` carries the page's origin).
 *
 * `/healthz` and `/openapi.json` need no token (they still pass the loopback guards).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ConfigError } from '../infra/config.ts';
import { loopbackRefusal } from '../infra/loopback.ts';
import { LOCAL_OPERATOR } from '../domain/tool-approval.ts';
import { HttpProblem } from './problems.ts';

/** Shortest accepted bearer token, in characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_TOKEN_LENGTH = 32;

/** A caller of the API. `admin` principals reach every session, chat-channel ones included. */
export interface Principal {
  name: string;
  admin: boolean;
}

/** A configured principal with its bearer token. */
export interface ApiToken extends Principal {
  token: string;
}

/** The caller when no tokens are configured: the operator on this machine, an admin. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ name: LOCAL_OPERATOR, admin: true });

const NAME = /^[A-Za-z0-9_.@-]{1,64}$/;
// Printable ASCII without space and comma (the list separator).
const TOKEN_CHARS = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * Parses principals from `name:token` entries (the token is everything after the first `:`).
 * @param entries from `KESOKU_API_TOKENS` (comma-separated) and `KESOKU_API_TOKENS_FILE` (one per line; blank
 *   lines and lines starting with `#` skipped)
 * @param admins names that are admins besides `admin`
 * @throws ConfigError naming the entry (never the token) when an entry has no name, a bad name (or `local`, the
 *   token-less operator's), a short token, or repeats a name or token
 */
export function parseApiTokens(
  entries: readonly { source: string; value: string }[],
  admins: readonly string[] = [],
): ApiToken[] {
  const out: ApiToken[] = [];
  const problems: string[] = [];
  entries.forEach(({ source, value }, i) => {
    const where = `${source} entry ${i + 1}`;
    const colon = value.indexOf(':');
    if (colon <= 0) {
      problems.push(
        `${where}: write name:token (e.g. alice:$(openssl rand -hex 32)); a bare token no longer names a principal`,
      );
      return;
    }
    const name = value.slice(0, colon).trim();
    const token = value.slice(colon + 1).trim();
    if (!NAME.test(name)) problems.push(`${where}: the name must be 1-64 characters of A-Z a-z 0-9 _ . @ -`);
    else if (name === LOCAL_OPERATOR)
      problems.push(`${where}: the name ${LOCAL_OPERATOR} is the token-less local operator's; pick another`);
    else if (token.length < MIN_TOKEN_LENGTH || !TOKEN_CHARS.test(token))
      problems.push(
        `${where} (${name}): the token must be at least ${MIN_TOKEN_LENGTH} printable characters without spaces or commas`,
      );
    else if (out.some((p) => p.name === name)) problems.push(`${where}: the name ${name} is used twice`);
    else if (out.some((p) => p.token === token))
      problems.push(`${where} (${name}): the same token is given to two names`);
    else out.push({ name, token, admin: name === 'admin' || admins.includes(name) });
  });
  for (const a of admins) {
    if (!out.some((p) => p.name === a)) problems.push(`KESOKU_API_ADMINS names ${a}, which has no token`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid API tokens:\n  ${problems.join('\n  ')}`);
  return out;
}

/**
 * The configured principals: `KESOKU_API_TOKENS` plus the lines of `KESOKU_API_TOKENS_FILE`.
 * @throws ConfigError when the file cannot be read or an entry is invalid (see {@link parseApiTokens})
 */
export function loadApiTokens(cfg: {
  KESOKU_API_TOKENS: string[];
  KESOKU_API_TOKENS_FILE?: string;
  KESOKU_API_ADMINS: string[];
}): ApiToken[] {
  const entries = cfg.KESOKU_API_TOKENS.map((value) => ({ source: 'KESOKU_API_TOKENS', value }));
  if (cfg.KESOKU_API_TOKENS_FILE) {
    let text: string;
    try {
      text = fs.readFileSync(cfg.KESOKU_API_TOKENS_FILE, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `KESOKU_API_TOKENS_FILE ${cfg.KESOKU_API_TOKENS_FILE} cannot be read: ${(err as Error).message}`,
      );
    }
    for (const line of text.split(/\r?\n/)) {
      const value = line.trim();
      if (value !== '' && !value.startsWith('#')) entries.push({ source: 'KESOKU_API_TOKENS_FILE', value });
    }
  }
  return parseApiTokens(entries, cfg.KESOKU_API_ADMINS);
}

/** True for a loopback interface address or name: 127.0.0.0/8, ::1, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/**
 * Refuses a bind that would serve the network without authentication.
 * @throws ConfigError when `tokens` is empty and `host` is not a loopback address
 */
export function checkBind(host: string, tokens: readonly unknown[]): void {
  if (tokens.length === 0 && !isLoopbackHost(host)) {
    throw new ConfigError(
      `refusing to serve the API on ${host} without tokens: anyone who reaches it could run commands on this host. ` +
        'Set KESOKU_API_TOKENS (name:token, see README "Security model") or leave KESOKU_API_HOST unset (loopback).',
    );
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * The entry whose token equals `presented`, or null. Compares SHA-256 digests with `timingSafeEqual` and always
 * checks every token, so timing reveals neither the token nor which one matched.
 */
export function tokenMatch<T>(presented: string, tokens: readonly { digest: Buffer; value: T }[]): T | null {
  const p = digest(presented);
  let found: T | null = null;
  for (const t of tokens) if (timingSafeEqual(p, t.digest) && found === null) found = t.value;
  return found;
}

/** Digests of `tokens` for {@link tokenMatch}. */
export function tokenDigests<T extends { token: string }>(
  tokens: readonly T[],
): { digest: Buffer; value: T }[] {
  return tokens.map((t) => ({ digest: digest(t.token), value: t }));
}

const PRINCIPAL = 'kesokuPrincipal';

/** The authenticated caller of this request (set by {@link authenticate}); null outside `/v1`. */
export function principalOf(res: Response): Principal | null {
  return (res.locals[PRINCIPAL] as Principal | undefined) ?? null;
}

/** The bearer token of `Authorization: Bearer <token>`, or null. */
export function bearerOf(req: Request): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/**
 * Middleware that identifies the caller. With tokens configured it requires `Authorization: Bearer <token>`
 * and records the token's principal; without, the caller is {@link LOCAL_PRINCIPAL}.
 * @throws HttpProblem unauthorized (401, with `WWW-Authenticate: Bearer`) via `next`
 */
export function authenticate(tokens: readonly ApiToken[]): RequestHandler {
  const digests = tokenDigests(tokens);
  return (req: Request, res: Response, next: NextFunction) => {
    if (digests.length === 0) {
      res.locals[PRINCIPAL] = LOCAL_PRINCIPAL;
      return next();
    }
    const presented = bearerOf(req);
    if (!presented) {
      return next(
        new HttpProblem('unauthorized', 'this API needs "Authorization: Bearer <token>"', {
          headers: { 'www-authenticate': 'Bearer realm="kesoku"' },
        }),
      );
    }
    const match = tokenMatch(presented, digests);
    if (!match) {
      return next(
        new HttpProblem('unauthorized', 'the bearer token is not valid', {
          headers: { 'www-authenticate': 'Bearer realm="kesoku", error="invalid_token"' },
        }),
      );
    }
    res.locals[PRINCIPAL] = { name: match.name, admin: match.admin } satisfies Principal;
    next();
  };
}

/**
 * Middleware for admin-only routes (mount after {@link authenticate}): passes admins, answers 403 problem+json
 * to everyone else. Without tokens the local operator is an admin.
 */
export const requireAdmin: RequestHandler = (_req: Request, res: Response, next: NextFunction) => {
  if (principalOf(res)?.admin) return next();
  next(
    new HttpProblem(
      'forbidden',
      'this route is for admin principals (name admin, or listed in KESOKU_API_ADMINS)',
    ),
  );
};

/**
 * The guards that stand in for a token on a token-less loopback API (mount before every route; the rule is
 * infra/loopback.ts): the `Host` header must be a loopback name with the port the request came in on
 * (`127.0.0.1:3000`, `localhost:3000`, `[::1]:3000`), which refuses DNS rebinding; and no request, read or
 * write, may come from another site (a foreign `Origin`, `Sec-Fetch-Site` other than `same-origin` or `none`),
 * since reads can write too (`GET …/events` claims a session id) and a page should not hold streams open.
 * Routes in `exempt` (path prefixes, e.g. the codec endpoint with its own CORS and token) skip the origin check.
 * A no-op when `enabled` is false (tokens configured).
 * @throws HttpProblem forbidden (403) via `next`
 */
export function loopbackGuard(enabled: boolean, exempt: readonly string[] = []): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!enabled) return next();
    const refusal = loopbackRefusal(
      {
        method: req.method,
        host: req.get('host'),
        origin: exempt.some((p) => req.path.startsWith(p)) ? undefined : req.get('origin'),
        secFetchSite: exempt.some((p) => req.path.startsWith(p)) ? undefined : req.get('sec-fetch-site'),
      },
      req.socket.localPort ?? 0,
      { checkReads: true },
    );
    if (refusal?.kind === 'host')
      return next(
        new HttpProblem(
          'forbidden',
          `without API tokens only requests to ${refusal.allowed.join(', ')} are served (the Host header names another host)`,
        ),
      );
    if (refusal)
      return next(new HttpProblem('forbidden', 'cross-site requests are refused without API tokens'));
    next();
  };
}

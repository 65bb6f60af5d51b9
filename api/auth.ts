/**
 * Bearer-token authentication for `/v1/*` (DESIGN.md "Configuration": `KESOKU_API_TOKENS`). With no tokens
 * configured every request passes (the caller then binds to loopback only); `/healthz` and `/openapi.json`
 * are never behind it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpProblem } from './problems.ts';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * True when `presented` equals one of `tokens`. Compares SHA-256 digests with `timingSafeEqual` and always
 * checks every token, so timing reveals neither the token nor which one matched.
 */
export function tokenMatches(presented: string, tokens: readonly Buffer[]): boolean {
  const p = digest(presented);
  let ok = false;
  for (const t of tokens) ok = timingSafeEqual(p, t) || ok;
  return ok;
}

/**
 * Middleware requiring `Authorization: Bearer <token>` when `tokens` is non-empty.
 * @throws HttpProblem unauthorized (401, with `WWW-Authenticate: Bearer`) via `next`
 */
export function bearerAuth(tokens: readonly string[]): RequestHandler {
  const digests = tokens.filter((t) => t.length > 0).map(digest);
  return (req: Request, _res: Response, next: NextFunction) => {
    if (digests.length === 0) return next();
    const header = req.get('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      return next(
        new HttpProblem('unauthorized', 'this API needs "Authorization: Bearer <token>"', {
          headers: { 'www-authenticate': 'Bearer realm="kesoku"' },
        }),
      );
    }
    if (!tokenMatches(match[1], digests)) {
      return next(
        new HttpProblem('unauthorized', 'the bearer token is not valid', {
          headers: { 'www-authenticate': 'Bearer realm="kesoku", error="invalid_token"' },
        }),
      );
    }
    next();
  };
}

/**
 * Per-request context: a request id (the client's `x-request-id` when it is a sane token, else a new UUID),
 * echoed in the `x-request-id` response header, and a pino child logger carrying it, so every log line of the
 * request can be found by the id a client reports.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../infra/logger.ts';

/** What a client may send as `x-request-id`: 1-128 characters of `A-Z a-z 0-9 _ . : @ / + = -`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_.:@/+=-]{1,128}$/;

export interface RequestContext {
  requestId: string;
  log: Logger;
}

const KEY = 'kesokuContext';

/** The context set by {@link requestContext}. @throws Error when the middleware did not run (a wiring bug) */
export function contextOf(res: Response): RequestContext {
  const ctx = (res.locals as Record<string, unknown>)[KEY] as RequestContext | undefined;
  if (!ctx) throw new Error('request context middleware is not installed');
  return ctx;
}

/**
 * `path` as it may be logged: the segment after any `codec` segment (the codec token of the path form a Web UI
 * that cannot send a header uses, `/codec/<token>/decode`) is replaced by `<token>`, whatever the rest of the
 * path — a mistyped or doubled-slash path (`/codec/<token>//decode` from an endpoint set with a trailing slash)
 * carries the real token as well. `encode` and `decode` right after `codec` (the header form) are kept.
 */
export function loggedPath(path: string | undefined): string | undefined {
  // Express gives no path for a request the server dropped while it was routed (a shutdown).
  if (typeof path !== 'string') return path;
  // Case-insensitive, as Express routes are (`/CODEC/<token>/DECODE` reaches the endpoint too).
  return path.replace(/(^|\/)codec\/+(?!(?:encode|decode)\/*$)[^/]+/gi, '$1codec/<token>');
}

/**
 * Middleware: assigns the request id, sets the response header, creates the child logger and logs one line
 * per finished request (`method`, `path` without secrets ({@link loggedPath}), `status`, `ms`; never headers or
 * bodies).
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    const requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    const log = logger.child({ requestId });
    (res.locals as Record<string, unknown>)[KEY] = { requestId, log } satisfies RequestContext;
    res.setHeader('x-request-id', requestId);
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        method: req.method,
        path: loggedPath(req.path),
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
      };
      if (!res.writableFinished && !res.headersSent) log.info(line, 'request aborted by the client');
      else log.info(line, 'request');
    });
    next();
  };
}

/**
 * The REST API v1 express application: request ids and per-request loggers, the loopback guards when no
 * tokens are configured, the codec endpoint for the Temporal Web UI, bearer auth naming a principal on `/v1`,
 * JSON bodies up to 256 KiB, one router per resource, and one error middleware that answers
 * every 4xx/5xx as `application/problem+json` (api/problems.ts).
 */
import express, { type Application, type NextFunction, type Request, type Response } from 'express';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';
import type { SessionClient } from '../infra/session-client.ts';
import { authenticate, loopbackGuard, type ApiToken } from './auth.ts';
import { codecRouter, CODEC_PATH, type CodecOptions } from './routes/codec.ts';
import { contextOf, requestContext } from './context.ts';
import type { EventHub } from './event-hub.ts';
import type { HealthStatus } from './health.ts';
import { EXPECTED_5XX_KINDS, HttpProblem, PROBLEM_CONTENT_TYPE, toProblem } from './problems.ts';
import { adminRouter } from './routes/admin.ts';
import { deliveriesRouter } from './routes/deliveries.ts';
import { eventsRouter } from './routes/events.ts';
import { messagesRouter } from './routes/messages.ts';
import { metaRouter } from './routes/meta.ts';
import { sessionsRouter } from './routes/sessions.ts';
import { approvalsRouter, type ApiApprovalSettings } from './routes/approvals.ts';
import { API_LIMITS } from './schemas.ts';

/** What the application needs. Durations carry their unit in the name. */
export interface AppDeps {
  pool: Pool;
  sessions: SessionClient;
  events: EventHub;
  logger: Logger;
  /**
   * Principals and their bearer tokens for `/v1/*` (api/auth.ts). Empty: no authentication; the server must
   * then bind to loopback, and the Host and Origin guards apply.
   */
  tokens: ApiToken[];
  /** The Temporal Web UI codec endpoint under `/codec`; absent: not served. */
  codec?: CodecOptions;
  /** Whether Temporal and Postgres answer (see api/health.ts createHealthCheck). */
  health: () => Promise<HealthStatus>;
  /** Largest `wait` accepted, in seconds (default and maximum 300). */
  waitTimeoutMaxS?: number;
  /** gRPC deadline for each Temporal call, in ms (default 10 000): past it the request answers 503. */
  temporalTimeoutMs?: number;
  /** Fallback poll interval while waiting for a turn, in ms (default 2000). */
  waitPollMs?: number;
  /** Time limit of `health()`, in ms (default 5000). */
  healthTimeoutMs?: number;
  /**
   * Kesoku's data directory: attachments posted with `data` are stored in the session workspaces under it.
   * Unset: such attachments are refused (400).
   */
  dataDir?: string;
  /**
   * The deployment's tool-approval settings (`KESOKU_TOOL_APPROVAL`, `KESOKU_TOOL_AUTO_APPROVE`), for the policy
   * in force and the configured patterns GET/PATCH session report; absent: not set (each channel's default, no
   * patterns).
   */
  approvals?: ApiApprovalSettings;
  /** Locale of a session a PATCH creates before its first message (KESOKU_LOCALE); default `en`. */
  defaultLocale?: string;
}

/** {@link AppDeps} with defaults applied, as the routers see them. */
export interface ResolvedDeps extends AppDeps {
  waitMaxS: number;
  temporalTimeoutMs: number;
  waitPollMs: number;
  healthTimeoutMs: number;
}

/** Builds the application. Nothing listens yet: see api/server.ts. */
export function createApp(deps: AppDeps): Application {
  const d: ResolvedDeps = {
    ...deps,
    waitMaxS: Math.min(deps.waitTimeoutMaxS ?? API_LIMITS.waitMaxS, API_LIMITS.waitMaxS),
    temporalTimeoutMs: deps.temporalTimeoutMs ?? 10_000,
    waitPollMs: deps.waitPollMs ?? 2000,
    healthTimeoutMs: deps.healthTimeoutMs ?? 5000,
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(requestContext(deps.logger));
  // Without tokens: loopback Host names only, and no cross-site state changes (the codec endpoint has its own
  // CORS allow-list and token).
  app.use(loopbackGuard(deps.tokens.length === 0, [CODEC_PATH]));
  if (deps.codec) app.use(codecRouter(deps.codec));
  app.use(metaRouter(d));
  app.use('/v1', authenticate(deps.tokens));
  app.use(
    express.json({
      limit: API_LIMITS.bodyBytes,
      type: ['application/json', 'application/*+json'],
      // Invalid UTF-8 would be decoded into U+FFFD and stored changed: refuse it instead (400).
      verify: (_req, _res, buf) => {
        new TextDecoder('utf-8', { fatal: true }).decode(buf);
      },
    }),
  );
  app.use(messagesRouter(d));
  app.use(sessionsRouter(d));
  app.use(deliveriesRouter(d));
  app.use(approvalsRouter(d));
  app.use(eventsRouter(d));
  app.use(adminRouter(d));
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const allowed = allowedMethods(app, req.path);
    if (allowed.length === 0)
      return next(new HttpProblem('not_found', 'there is no such route; see /openapi.json'));
    next(
      new HttpProblem(
        'method_not_allowed',
        `${req.method} is not allowed here; allowed: ${allowed.join(', ')}`,
        { headers: { allow: allowed.join(', ') } },
      ),
    );
  });
  app.use(problemResponder());
  return app;
}

/**
 * The error middleware: every error becomes a problem; 5xx causes are logged with their raw text at error level,
 * but for the expected outcomes of {@link EXPECTED_5XX_KINDS} and problems marked `expected` such as a shutdown's
 * 503 (info, no stack).
 */
function problemResponder() {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const problem = toProblem(err, API_LIMITS.bodyBytes, req.get('content-encoding'));
    const { requestId, log } = contextOf(res);
    if (problem.status >= 500 && !EXPECTED_5XX_KINDS.has(problem.kind) && !problem.expected)
      log.error({ err: problem.cause ?? err, problem: problem.kind }, 'request failed');
    else
      log.info(
        { problem: problem.kind, status: problem.status, detail: problem.detail },
        problem.status >= 500 ? 'request ended without a result' : 'request rejected',
      );
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    res
      .status(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problem.body(requestId)));
  };
}

/** A route as express registered it: method in upper case, path in express syntax (`/v1/sessions/:sessionId`). */
export interface RouteInfo {
  method: string;
  path: string;
}

interface LayerLike {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: LayerLike[] };
  match?: (path: string) => boolean;
}

function routeLayers(app: Application): LayerLike[] {
  const out: LayerLike[] = [];
  const walk = (stack: LayerLike[] | undefined) => {
    for (const layer of stack ?? []) {
      if (layer.route) out.push(layer);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: LayerLike[] } }).router.stack);
  return out;
}

const methodsOf = (layer: LayerLike): string[] =>
  Object.entries(layer.route?.methods ?? {})
    .filter(([m, on]) => on && m !== '_all')
    .map(([m]) => m.toUpperCase());

/** Every route the application serves, read from express's router (tests compare it with the OpenAPI document). */
export function listRoutes(app: Application): RouteInfo[] {
  return routeLayers(app).flatMap((layer) =>
    methodsOf(layer).map((method) => ({ method, path: layer.route?.path ?? '' })),
  );
}

/** The methods some route serves at `path` (HEAD with GET); empty when no route matches the path. */
function allowedMethods(app: Application, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of routeLayers(app)) {
    if (layer.match?.(path)) for (const m of methodsOf(layer)) methods.add(m);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

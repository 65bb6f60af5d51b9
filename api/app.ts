/**
 * The REST API v1 express application: request ids and per-request loggers, security headers, the loopback guards
 * when no tokens are configured, the codec endpoint for the Temporal Web UI, the web page at `/`
 * (api/routes/web.ts), bearer auth naming a principal on `/v1`,
 * JSON bodies up to 256 KiB, one router per resource, and one error middleware that answers
 * every 4xx/5xx as `application/problem+json` (api/problems.ts).
 */
import express, { type Application, type NextFunction, type Request, type Response } from 'express';
import { DEFAULT_SESSIONS_PER_PRINCIPAL } from './access.ts';
import { authenticate, loopbackGuard } from './auth.ts';
import { codecRouter, CODEC_PATH } from './routes/codec.ts';
import { contextOf, requestContext } from './context.ts';
import type { AppDeps, ResolvedDeps } from './deps.ts';
import { EXPECTED_5XX_KINDS, HttpProblem, PROBLEM_CONTENT_TYPE, toProblem } from './problems.ts';
import { adminRouter } from './routes/admin.ts';
import { mcpRouter } from './routes/mcp.ts';
import { peopleRouter } from './routes/people.ts';
import { deliveriesRouter } from './routes/deliveries.ts';
import { DEFAULT_STREAMS_PER_PRINCIPAL, eventsRouter } from './routes/events.ts';
import { jobsRouter } from './routes/jobs.ts';
import { messagesRouter } from './routes/messages.ts';
import { metaRouter } from './routes/meta.ts';
import { sessionsRouter } from './routes/sessions.ts';
import { schedulesRouter } from './routes/schedules.ts';
import { ScheduleService } from '../infra/schedules.ts';
import { approvalsRouter } from './routes/approvals.ts';
import { securityHeaders, webPage } from './routes/web.ts';
import { API_LIMITS } from './schemas.ts';

/** Builds the application. Nothing listens yet: see api/server.ts. */
export function createApp(deps: AppDeps): Application {
  const d: ResolvedDeps = {
    ...deps,
    waitMaxS: Math.min(deps.waitTimeoutMaxS ?? API_LIMITS.waitMaxS, API_LIMITS.waitMaxS),
    temporalTimeoutMs: deps.temporalTimeoutMs ?? 10_000,
    waitPollMs: deps.waitPollMs ?? 2000,
    healthTimeoutMs: deps.healthTimeoutMs ?? 5000,
    schedules:
      deps.schedules ??
      new ScheduleService({
        client: deps.sessions.client,
        pool: deps.pool,
        taskQueue: deps.sessions.taskQueue,
        logger: deps.logger,
        ...(deps.defaultZone ? { defaultZone: deps.defaultZone } : {}),
      }),
    limits: {
      sessionsPerPrincipal: deps.limits?.sessionsPerPrincipal ?? DEFAULT_SESSIONS_PER_PRINCIPAL,
      streamsPerPrincipal: deps.limits?.streamsPerPrincipal ?? DEFAULT_STREAMS_PER_PRINCIPAL,
    },
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(requestContext(deps.logger));
  app.use(securityHeaders);
  // Without tokens: loopback Host names only, and no cross-site state changes (the codec endpoint has its own
  // CORS allow-list and token).
  app.use(loopbackGuard(deps.tokens.length === 0, [CODEC_PATH]));
  if (deps.codec) app.use(codecRouter(deps.codec));
  app.use(metaRouter(d));
  // The web page at `/` (adapters/web/): static, no token needed to load it; its data comes from /v1.
  app.use(webPage({ auth: deps.tokens.length > 0 }));
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
  app.use(schedulesRouter(d));
  app.use(deliveriesRouter(d));
  app.use(approvalsRouter(d));
  app.use(jobsRouter(d));
  app.use(eventsRouter(d));
  app.use(adminRouter(d));
  app.use(mcpRouter(d));
  app.use(peopleRouter(d));
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

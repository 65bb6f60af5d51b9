/**
 * The open routes (no bearer token), outside `/v1`: `GET /livez` (the process is up), `GET /readyz` (Temporal and
 * Postgres answer: route traffic here), `GET /healthz` (readiness plus the process's own components, e.g. a chat
 * gateway) and `GET /openapi.json`. A liveness probe should use `/livez`: an outage of Temporal must not get the
 * API restarted.
 */
import { Router, type Request, type Response } from 'express';
import type { ResolvedDeps } from '../deps.ts';
import { isHealthy, within } from '../../infra/health.ts';
import { buildOpenApiDocument } from '../openapi.ts';
import { HttpProblem } from '../problems.ts';
import type { HealthBody, Liveness, Readiness } from '../schemas.ts';

/** `/livez`, `/readyz`, `/healthz` (200, or 503 naming the failed dependencies and components) and `/openapi.json` (built once per app). */
export function metaRouter(d: ResolvedDeps): Router {
  const router = Router();
  const document = buildOpenApiDocument({ waitMaxS: d.waitMaxS });

  router.get('/livez', (_req: Request, res: Response) => {
    res.status(200).json({ status: 'ok' } satisfies Liveness);
  });

  router.get('/readyz', async (_req: Request, res: Response) => {
    const h = await within(d.health(), d.healthTimeoutMs, { temporal: false, postgres: false });
    if (h.temporal && h.postgres) {
      res.status(200).json({ status: 'ok', temporal: true, postgres: true } satisfies Readiness);
      return;
    }
    const failed = [h.temporal ? null : 'Temporal', h.postgres ? null : 'Postgres']
      .filter(Boolean)
      .join(' and ');
    throw new HttpProblem('unavailable', `${failed} not answering`, {
      extensions: { temporal: h.temporal, postgres: h.postgres },
    });
  });

  router.get('/healthz', async (_req: Request, res: Response) => {
    const h = await within(d.health(), d.healthTimeoutMs, { temporal: false, postgres: false });
    const components = {
      ...(h.components ? { components: h.components } : {}),
      ...(h.mcp ? { mcp: h.mcp } : {}),
      ...(h.sandbox ? { sandbox: h.sandbox } : {}),
    };
    if (isHealthy(h)) {
      res
        .status(200)
        .json({ status: 'ok', temporal: true, postgres: true, ...components } satisfies HealthBody);
      return;
    }
    const down = Object.entries(h.components ?? {})
      .filter(([, c]) => !c.ok)
      .map(([name]) => name);
    const failed = [h.temporal ? null : 'Temporal', h.postgres ? null : 'Postgres', ...down]
      .filter(Boolean)
      .join(' and ');
    throw new HttpProblem('unavailable', `${failed} not answering`, {
      extensions: { temporal: h.temporal, postgres: h.postgres, ...components },
    });
  });

  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.status(200).json(document);
  });

  return router;
}

/**
 * Operator routes under `/v1/admin`, behind {@link requireAdmin}: chat pairing (list open codes and paired users,
 * approve a code). The same operations are in the CLI: `npm run kesoku -- pairing list|approve|revoke`.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { PairingError, approvePairing, listPairings } from '../../db/pairings.ts';
import type { ResolvedDeps } from '../app.ts';
import { bearerAuth } from '../auth.ts';
import { HttpProblem } from '../problems.ts';

/**
 * Admin access. The API has no principals yet: every caller that holds one of `KESOKU_API_TOKENS` is an
 * operator (with no tokens configured the API listens on loopback only, and every local caller is). This
 * middleware checks the bearer token itself, so the admin routes stay protected wherever they are mounted.
 * Replace it with the principal-based admin check once tokens name principals.
 */
export function requireAdmin(tokens: readonly string[]): RequestHandler {
  return bearerAuth(tokens);
}

/** Maps a refused pairing operation to a problem: unknown code 404, expired 409, malformed 400. */
function pairingProblem(err: unknown): unknown {
  if (!(err instanceof PairingError)) return err;
  switch (err.kind) {
    case 'unknown_code':
      return new HttpProblem('not_found', err.message, { extensions: { reason: 'unknown_code' } });
    case 'expired':
      return new HttpProblem('conflict', err.message, { extensions: { reason: 'expired' } });
    case 'invalid':
    case 'capacity':
      return new HttpProblem('validation', err.message, { extensions: { field: 'code' } });
  }
}

/** Routes: `GET /v1/admin/pairings`, `POST /v1/admin/pairings/{code}/approve`. */
export function adminRouter(d: ResolvedDeps): Router {
  const router = Router();
  router.use('/v1/admin', requireAdmin(d.tokens));

  router.get('/v1/admin/pairings', async (_req: Request, res: Response) => {
    res.status(200).json(await listPairings(d.pool));
  });

  router.post(
    '/v1/admin/pairings/:code/approve',
    async (req: Request<{ code: string }>, res: Response, next: NextFunction) => {
      try {
        const { user, already } = await approvePairing(d.pool, req.params.code, 'api');
        res.status(200).json({ approved: user, already_approved: already });
      } catch (err) {
        next(pairingProblem(err));
      }
    },
  );
  return router;
}

/**
 * Operator routes under `/v1/admin`, for admin principals only (api/auth.ts `requireAdmin`): chat pairing (list open codes and paired users,
 * approve a code). The same operations are in the CLI: `npm run kesoku -- pairing list|approve|revoke`.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { PairingError, approvePairing, listPairings } from '../../db/pairings.ts';
import type { ResolvedDeps } from '../deps.ts';
import { requireAdmin } from '../auth.ts';
import { HttpProblem } from '../problems.ts';
import type { PairingApproval, PairingListBody } from '../schemas.ts';

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
  router.use('/v1/admin', requireAdmin);

  router.get('/v1/admin/pairings', async (_req: Request, res: Response) => {
    res.status(200).json((await listPairings(d.pool)) satisfies PairingListBody);
  });

  router.post(
    '/v1/admin/pairings/:code/approve',
    async (req: Request<{ code: string }>, res: Response, next: NextFunction) => {
      try {
        const { user, already } = await approvePairing(d.pool, req.params.code, 'api');
        res.status(200).json({ approved: user, already_approved: already } satisfies PairingApproval);
      } catch (err) {
        next(pairingProblem(err));
      }
    },
  );
  return router;
}

/**
 * The background jobs of a session (docs/tools.md "Background jobs"): `GET /v1/sessions/{sessionId}/jobs` lists
 * them (newest first), `DELETE /v1/sessions/{sessionId}/jobs/{jobId}` kills a running one (its process group
 * gets SIGKILL; the job ends `killed` and its alert wakes the session). Unknown session or job: 404; a job that
 * has ended: 409 with its `state`.
 */
import { Router, type Request, type Response } from 'express';
import { BackgroundJobs, JobError, toJobView } from '../../infra/jobs.ts';
import { callerOf, requireSessionRowFor } from '../access.ts';
import type { ResolvedDeps } from '../deps.ts';
import { contextOf } from '../context.ts';
import { HttpProblem } from '../problems.ts';
import type { JobList, KilledJob } from '../schemas.ts';
import { checkSessionIdParam } from './common.ts';

/** Routes of the jobs resource. */
export function jobsRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  const jobs = new BackgroundJobs({
    client: d.sessions.client,
    pool: d.pool,
    taskQueue: d.sessions.taskQueue,
  });

  router.get('/v1/sessions/:sessionId/jobs', async (req: Request<{ sessionId: string }>, res: Response) => {
    const { sessionId } = req.params;
    await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    res.status(200).json({ jobs: (await jobs.list(sessionId)).map(toJobView) } satisfies JobList);
  });

  router.delete(
    '/v1/sessions/:sessionId/jobs/:jobId',
    async (req: Request<{ sessionId: string; jobId: string }>, res: Response) => {
      const { sessionId, jobId } = req.params;
      await requireSessionRowFor(d.pool, callerOf(res), sessionId);
      try {
        const job = await jobs.kill(sessionId, jobId);
        contextOf(res).log.info({ sessionId, jobId, state: job.state }, 'background job killed');
        res.status(200).json({ job: toJobView(job) } satisfies KilledJob);
      } catch (err) {
        throw jobProblem(err);
      }
    },
  );

  return router;
}

/** A {@link JobError} as its problem (404, 409 with `state`, 429); anything else unchanged. */
export function jobProblem(err: unknown): unknown {
  if (!(err instanceof JobError)) return err;
  if (err.kind === 'not_found') return new HttpProblem('not_found', err.message);
  if (err.kind === 'not_running')
    return new HttpProblem('conflict', err.message, { extensions: { state: err.state } });
  return new HttpProblem('too_many_jobs', err.message);
}

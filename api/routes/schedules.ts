/**
 * Scheduled prompts of a session (docs/schedules.md): create, list (with each schedule's next run and last runs),
 * change in place (pause, resume, prompt, timing, zone), delete, run now. Every route answers 404 for a session
 * the caller may not reach (api/access.ts); creating a schedule in a session without a message claims the id for
 * the caller, as a first message would.
 */
import { Router, type Request, type Response } from 'express';
import type { ResolvedDeps } from '../deps.ts';
import { authorizeSubmit, callerOf, requireSessionRowFor } from '../access.ts';
import { contextOf } from '../context.ts';
import {
  createScheduleSchema,
  parseBody,
  patchScheduleSchema,
  requireJson,
  type ScheduleBody,
  type ScheduleDeleted,
  type ScheduleList,
  type ScheduleTriggered,
} from '../schemas.ts';
import { checkSessionIdParam } from './common.ts';

type SessionRequest = Request<{ sessionId: string }>;
type ScheduleRequest = Request<{ sessionId: string; scheduleId: string }>;

/** Routes of the schedules resource under `/v1/sessions/{sessionId}/schedules`. */
export function schedulesRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  const base = '/v1/sessions/:sessionId/schedules';

  router.post(base, async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    requireJson(req);
    const body = parseBody(createScheduleSchema, req.body);
    const caller = callerOf(res);
    await authorizeSubmit(d.pool, caller, sessionId, { maxSessions: d.limits.sessionsPerPrincipal });
    const view = await d.schedules.create(sessionId, body, caller.name);
    contextOf(res).log.info({ sessionId, scheduleId: view.id }, 'schedule created');
    res
      .status(201)
      .location(`/v1/sessions/${encodeURIComponent(sessionId)}/schedules/${view.id}`)
      .json(view);
  });

  router.get(base, async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    res.status(200).json({ schedules: await d.schedules.list(sessionId) } satisfies ScheduleList);
  });

  router.get(`${base}/:scheduleId`, async (req: ScheduleRequest, res: Response) => {
    const { sessionId, scheduleId } = req.params;
    await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    res.status(200).json((await d.schedules.get(sessionId, scheduleId)) satisfies ScheduleBody);
  });

  router.patch(`${base}/:scheduleId`, async (req: ScheduleRequest, res: Response) => {
    const { sessionId, scheduleId } = req.params;
    requireJson(req);
    const body = parseBody(patchScheduleSchema, req.body);
    await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    res.status(200).json((await d.schedules.update(sessionId, scheduleId, body)) satisfies ScheduleBody);
  });

  router.delete(`${base}/:scheduleId`, async (req: ScheduleRequest, res: Response) => {
    const { sessionId, scheduleId } = req.params;
    await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    await d.schedules.delete(sessionId, scheduleId);
    res.status(200).json({ deleted: true, schedule_id: scheduleId } satisfies ScheduleDeleted);
  });

  router.post(`${base}/:scheduleId/trigger`, async (req: ScheduleRequest, res: Response) => {
    const { sessionId, scheduleId } = req.params;
    await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    await d.schedules.trigger(sessionId, scheduleId);
    res.status(202).json({ triggered: true, schedule_id: scheduleId } satisfies ScheduleTriggered);
  });

  return router;
}

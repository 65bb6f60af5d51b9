/**
 * Session resources: list, read, rename / change mode (through the session workflow's updates) / change the
 * locale (a row update), stop the running turn, queue a compaction. Every route but the list answers 404 for a
 * session the caller may not reach (api/access.ts); GET and compact also for a session without a row, while a
 * PATCH before the first message creates the session with its settings and `/stop` answers `stopped: false`. The
 * list shows only the sessions the caller may reach.
 */
import { Router, type Request, type Response } from 'express';
import { createSessionWithSettings, listSessions, setLocale, setTimezone } from '../../db/sessions.ts';
import { setApprovalPolicy } from '../../db/approvals.ts';
import { presentSessionWithApprovals } from './approvals.ts';
import type { ResolvedDeps } from '../deps.ts';
import { getPlan } from '../../db/plans.ts';
import { contextOf } from '../context.ts';
import {
  API_LIMITS,
  cursorQuery,
  intQuery,
  parseBody,
  patchSessionSchema,
  requireJson,
  type CompactResult,
  type SessionBody,
  type SessionList,
  type StopResult,
} from '../schemas.ts';
import {
  API_CHATBOT,
  authorizeSubmit,
  callerOf,
  requireSessionFor,
  requireSessionRowFor,
} from '../access.ts';
import { addressFor } from '../submit.ts';
import { checkSessionIdParam, presentSessionSummary, withTemporalDeadline } from './common.ts';

type SessionRequest = Request<{ sessionId: string }>;

/** Routes of the sessions resource (list, read, PATCH, stop, compact). */
export function sessionsRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  const temporal = <T>(fn: () => Promise<T>) => withTemporalDeadline(d.sessions, d.temporalTimeoutMs, fn);

  router.get('/v1/sessions', async (req: Request, res: Response) => {
    const limit =
      intQuery(req.query.limit, 'limit', 1, API_LIMITS.sessionsPageMax) ?? API_LIMITS.sessionsPageDefault;
    const cursor = cursorQuery(req.query.cursor);
    const caller = callerOf(res);
    // Admins see every session; other principals only the ones they created.
    const page = await listSessions(d.pool, {
      limit,
      cursor,
      ...(caller.admin ? {} : { owner: caller.name }),
    });
    res.status(200).json({
      sessions: page.sessions.map(presentSessionSummary),
      next_cursor: page.next_cursor,
    } satisfies SessionList);
  });

  router.get('/v1/sessions/:sessionId', async (req: SessionRequest, res: Response) => {
    const view = await requireSessionFor(d.pool, callerOf(res), req.params.sessionId);
    const [presented, plan] = await Promise.all([
      presentSessionWithApprovals(d.pool, view, d.approvals),
      getPlan(d.pool, view.id),
    ]);
    res.status(200).json({ ...presented, plan } satisfies SessionBody);
  });

  router.patch('/v1/sessions/:sessionId', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    requireJson(req);
    const body = parseBody(patchSessionSchema, req.body);
    const caller = callerOf(res);
    const log = contextOf(res).log;
    const changes = {
      sessionId,
      title: body.title !== undefined,
      mode: body.mode,
      locale: body.locale,
      approval: body.approval,
      timezone: body.timezone,
    };
    // Before the first message the id is claimed for the caller (as the first message would claim it) and the
    // session row is created with the settings, so they apply to the first turn; another principal's id, or a
    // chat channel's, stays a 404. No workflow is started: the first message's reads mode and title from the row.
    // (A PATCH racing the first message can lose: a workflow that read no row yet keeps the default mode.)
    const existing = await authorizeSubmit(d.pool, caller, sessionId, {
      maxSessions: d.limits.sessionsPerPrincipal,
    });
    if (!existing) {
      const created = await createSessionWithSettings(
        d.pool,
        {
          id: sessionId,
          chatbotId: body.channel ?? API_CHATBOT,
          channelId: sessionId,
          ...(d.defaultLocale ? { defaultLocale: d.defaultLocale } : {}),
        },
        body,
      );
      if (created) {
        log.info({ ...changes, chatbotId: body.channel ?? API_CHATBOT }, 'session created with settings');
        const view = await requireSessionFor(d.pool, caller, sessionId);
        res.status(200).json(await presentSessionWithApprovals(d.pool, view, d.approvals));
        return;
      }
      // A first message created it meanwhile: change it like any existing session.
    }
    const row = existing ?? (await requireSessionRowFor(d.pool, caller, sessionId));
    const address = addressFor(sessionId, row, body.channel);
    if (body.title !== undefined) await temporal(() => d.sessions.setTitle(address, body.title as string));
    if (body.mode !== undefined)
      await temporal(() => d.sessions.setMode(address, body.mode as 'interrupt' | 'queue'));
    // The locale is read from the session row whenever a notice is written: no workflow involved.
    if (body.locale !== undefined) await setLocale(d.pool, sessionId, body.locale);
    // Read by the approval activity at each step: no workflow involved either.
    if (body.approval !== undefined) await setApprovalPolicy(d.pool, sessionId, body.approval);
    // Read when a schedule is created without a zone: no workflow involved.
    if (body.timezone !== undefined) await setTimezone(d.pool, sessionId, body.timezone);
    log.info(changes, 'session updated');
    const view = await requireSessionFor(d.pool, caller, sessionId);
    res.status(200).json(await presentSessionWithApprovals(d.pool, view, d.approvals));
  });

  router.post('/v1/sessions/:sessionId/stop', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    // Before its first message a session the caller may create has nothing to stop (the id is claimed for the
    // caller, as its first message would claim it); another principal's id stays a 404.
    const row = await authorizeSubmit(d.pool, callerOf(res), sessionId, {
      maxSessions: d.limits.sessionsPerPrincipal,
    });
    if (!row) {
      res.status(200).json({ stopped: false } satisfies StopResult);
      return;
    }
    const address = addressOf(row);
    const { stopped } = await temporal(() => d.sessions.stop(address));
    contextOf(res).log.info({ sessionId, stopped }, 'stop requested');
    res.status(200).json({ stopped } satisfies StopResult);
  });

  router.post('/v1/sessions/:sessionId/compact', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    const address = addressOf(await requireSessionFor(d.pool, callerOf(res), sessionId));
    const r = await temporal(() => d.sessions.compact(address));
    contextOf(res).log.info({ sessionId, messageId: r.message_id }, 'compaction queued');
    res.status(202).json({ message_id: r.message_id, queued: r.queued } satisfies CompactResult);
  });

  return router;
}

/** A stored session's address: with it, the session client can start a workflow run for a session whose run ended. */
function addressOf(row: { id: string; chatbot_id: string; channel_id: string }) {
  return { sessionId: row.id, chatbotId: row.chatbot_id, channelId: row.channel_id };
}

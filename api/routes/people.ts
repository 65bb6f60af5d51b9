/**
 * What the agent knows about the caller (docs/memory.md): `GET /v1/me` (the principal, its time zone and its linked
 * chat users), `PATCH /v1/me` (`{"timezone": <IANA zone> | null}`, docs/schedules.md "Kinds and time zones"),
 * `POST /v1/me/links` (confirm a `/link` code from a chat), `GET /v1/memory` (the caller's remembered entries,
 * `q` to search, `session` to add that session's shared scope), `DELETE /v1/memory/{entryId}`, and for admins `GET /v1/admin/sessions/{sessionId}/prompt` (the
 * exact model input of the session's latest step).
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { forgetEntry, searchEntries } from '../../db/memory.ts';
import {
  LinkError,
  confirmLinkCode,
  linksOf,
  personKeysOfPrincipal,
  principalZone,
  sessionSharedScope,
  setPrincipalZone,
} from '../../db/people.ts';
import { canonicalZone } from '../../domain/schedules.ts';
import { principalPerson, type PersonKey } from '../../domain/people.ts';
import type { ResolvedDeps } from '../deps.ts';
import { callerOf, requireSessionRowFor } from '../access.ts';
import { requireAdmin } from '../auth.ts';
import { HttpProblem } from '../problems.ts';
import {
  intQuery,
  parseBody,
  requireJson,
  type ForgottenMemory,
  type MeBody,
  type MemoryListBody,
  type PersonLinkBody,
  type SessionPromptBody,
} from '../schemas.ts';

const linkBodySchema = z.object({ code: z.string().min(1).max(64) }).strict();
const meBodySchema = z.object({ timezone: z.string().max(64).nullable() }).strict();

/** Maps a refused link code: malformed 400, unknown 404, expired or already used 409. */
function linkProblem(err: unknown): unknown {
  if (!(err instanceof LinkError)) return err;
  switch (err.kind) {
    case 'invalid':
      return new HttpProblem('validation', err.message, { extensions: { field: 'code' } });
    case 'unknown_code':
      return new HttpProblem('not_found', err.message, { extensions: { reason: 'unknown_code' } });
    case 'expired':
    case 'used':
      return new HttpProblem('conflict', err.message, { extensions: { reason: err.kind } });
  }
}

/** The people and memory routes (see the module comment). */
export function peopleRouter(d: ResolvedDeps): Router {
  const router = Router();

  const me = async (res: Response) => {
    const caller = callerOf(res);
    const [links, timezone] = await Promise.all([
      linksOf(d.pool, caller.name),
      principalZone(d.pool, caller.name),
    ]);
    res.status(200).json({
      principal: caller.name,
      admin: caller.admin,
      person: principalPerson(caller.name),
      timezone,
      links: links.map(({ chatbot_id, user_id, linked_at }) => ({ chatbot_id, user_id, linked_at })),
    } satisfies MeBody);
  };

  router.get('/v1/me', async (_req: Request, res: Response) => me(res));

  // The caller's time zone: the zone of new schedules in its sessions that name none and whose session has none.
  router.patch('/v1/me', async (req: Request, res: Response) => {
    requireJson(req);
    const body = parseBody(meBodySchema, req.body);
    const zone = body.timezone === null ? null : canonicalZone(body.timezone);
    if (zone === null && body.timezone !== null)
      throw new HttpProblem('validation', `timezone: "${body.timezone}" is not a known IANA time zone`, {
        extensions: { field: 'timezone' },
      });
    await setPrincipalZone(d.pool, callerOf(res).name, zone);
    await me(res);
  });

  router.post('/v1/me/links', async (req: Request, res: Response) => {
    requireJson(req);
    const body = parseBody(linkBodySchema, req.body);
    const caller = callerOf(res);
    try {
      const link = await confirmLinkCode(d.pool, body.code, caller.name);
      res.status(200).json({
        chatbot_id: link.chatbot_id,
        user_id: link.user_id,
        linked_at: link.linked_at,
      } satisfies PersonLinkBody);
    } catch (err) {
      throw linkProblem(err);
    }
  });

  const sharedScopes = new Set(d.memorySharedScopes ?? []);

  /**
   * The person keys the caller reaches: its own (and its linked chat users'), plus the shared scope of the session
   * `?session=` names, when the caller may see that session and a scope covers it.
   * @throws HttpProblem validation for a malformed `session`, session_not_found for one the caller cannot see
   */
  const reachable = async (req: Request, res: Response): Promise<PersonKey[]> => {
    const caller = callerOf(res);
    const persons = await personKeysOfPrincipal(d.pool, caller.name);
    const session = req.query.session;
    if (session === undefined) return persons;
    if (typeof session !== 'string' || session === '' || session.length > 200)
      throw new HttpProblem('validation', 'session: must be one session id', {
        extensions: { field: 'session' },
      });
    await requireSessionRowFor(d.pool, caller, session);
    const shared = await sessionSharedScope(d.pool, sharedScopes, session);
    return shared ? [...persons, shared] : persons;
  };

  router.get('/v1/memory', async (req: Request, res: Response) => {
    const q = req.query.q;
    if (q !== undefined && (typeof q !== 'string' || q.length > 500))
      throw new HttpProblem('validation', 'q: must be one text of at most 500 characters', {
        extensions: { field: 'q' },
      });
    const limit = intQuery(req.query.limit, 'limit', 1, 200) ?? 50;
    const persons = await reachable(req, res);
    const entries = await searchEntries(d.pool, { persons, query: q ?? '', limit });
    res.status(200).json({ entries } satisfies MemoryListBody);
  });

  router.delete('/v1/memory/:entryId', async (req: Request<{ entryId: string }>, res: Response) => {
    const persons = await reachable(req, res);
    const forgotten = await forgetEntry(d.pool, {
      id: req.params.entryId,
      persons,
      by: callerOf(res).name,
    });
    if (!forgotten)
      throw new HttpProblem('not_found', `memory entry ${req.params.entryId} was not found for this token`);
    res.status(200).json({ forgotten } satisfies ForgottenMemory);
  });

  router.get(
    '/v1/admin/sessions/:sessionId/prompt',
    requireAdmin,
    async (req: Request<{ sessionId: string }>, res: Response) => {
      const r = await d.pool.query<{ turn_id: string; step: number; input: unknown; created_at: Date }>(
        'SELECT turn_id, step, input, created_at FROM session_prompts WHERE session_id = $1',
        [req.params.sessionId],
      );
      const row = r.rows[0];
      if (!row) throw new HttpProblem('not_found', `session ${req.params.sessionId} has no model step yet`);
      res.status(200).json({
        session_id: req.params.sessionId,
        turn_id: row.turn_id,
        step: row.step,
        created_at: row.created_at.toISOString(),
        input: row.input,
      } satisfies SessionPromptBody);
    },
  );

  return router;
}

/**
 * Helpers shared by the resource routers: the `sessionId` path parameter check (who may reach a session is
 * api/access.ts), the session's response shapes, and the deadline every Temporal call runs under.
 */
import type { Router } from 'express';
import type { SessionRow, SessionView } from '../../db/sessions.ts';
import type { SessionClient } from '../../infra/session-client.ts';
import { ID_PATTERN } from '../../domain/inbound.ts';
import { HttpProblem } from '../problems.ts';
import type { SessionBody, SessionSummary } from '../schemas.ts';

/** Rejects a `:sessionId` that does not match ID_PATTERN with 400 before any handler runs. */
export function checkSessionIdParam(router: Router): void {
  router.param('sessionId', (_req, _res, next, value: unknown) => {
    if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
      next(
        new HttpProblem('invalid_session_id', 'session ids are 1-128 characters of A-Z a-z 0-9 _ . : @ -', {
          extensions: { field: 'sessionId' },
        }),
      );
      return;
    }
    next();
  });
}

/**
 * A session with its live figures, without its approval fields (api/routes/approvals.ts adds them) and plan:
 * part of api/schemas.ts `sessionSchema`; `channel_context` stays internal.
 */
export type SessionResponse = Pick<
  SessionBody,
  keyof SessionSummary | 'status' | 'queue_length' | 'timezone'
>;

/** The `Session` response shape of a session with its live figures. */
export function presentSession(v: SessionView): SessionResponse {
  return {
    ...presentSessionSummary(v),
    status: v.status,
    queue_length: v.queue_length,
    timezone: v.timezone,
  };
}

/** A `SessionSummary` (the list's items): the session without the live figures. */
export function presentSessionSummary(r: SessionRow): SessionSummary {
  return {
    id: r.id,
    chatbot_id: r.chatbot_id,
    channel_id: r.channel_id,
    title: r.title,
    title_source: r.title_source,
    revision: r.revision,
    mode: r.mode,
    locale: r.locale,
    turn_count: r.turn_count,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * Runs a session-client call with a gRPC deadline of `timeoutMs`, so an unreachable Temporal answers 503
 * within that time instead of after the client's full retry budget (~20 s).
 * @throws SessionClientError as the call does (`unavailable` when the deadline passes)
 */
export function withTemporalDeadline<T>(
  sessions: SessionClient,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  return sessions.client.connection.withDeadline(Date.now() + timeoutMs, fn);
}

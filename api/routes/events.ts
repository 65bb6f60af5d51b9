/**
 * `GET /v1/sessions/{sessionId}/events`: the session's server-sent event stream (see api/event-hub.ts for
 * what is sent when). Frames:
 *
 *     event: turn.committed
 *     id: <revision>
 *     data: {"session_id","revision","previous_revision","messages":[Message…]}
 *
 *     event: turn.updated
 *     data: {"session_id","turn_id","step","status","text","tools":[…]}
 *
 *     : ping
 */
import { Router, type Request, type Response } from 'express';
import { authorizeSubmit, callerOf } from '../access.ts';
import type { ResolvedDeps } from '../app.ts';
import { contextOf } from '../context.ts';
import type { EventSink, HubEvent, Subscription } from '../event-hub.ts';
import { HttpProblem } from '../problems.ts';
import { intQuery } from '../schemas.ts';
import { checkSessionIdParam } from './common.ts';
import { trackSseClient } from '../../infra/metrics.ts';

/** One SSE frame. `data` is single-line JSON, so it needs no splitting. */
export function sseFrame(e: HubEvent): string {
  const id = e.event === 'turn.committed' ? `id: ${e.id}\n` : '';
  return `event: ${e.event}\n${id}data: ${JSON.stringify(e.data)}\n\n`;
}

/**
 * The SSE route. Validation and the 404 check happen before the stream opens (problems are still possible). A
 * session id without a session yet is claimed for the caller (api/access.ts authorizeSubmit) and watched from
 * revision 0; another principal's or a chat channel's id is a 404 as always. A `Last-Event-ID` (or
 * `after_revision`) above the session's revision restarts the stream from revision 0 (see the comment below).
 */
export function eventsRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);

  router.get('/v1/sessions/:sessionId/events', async (req: Request<{ sessionId: string }>, res: Response) => {
    const { sessionId } = req.params;
    const lastEventId = req.get('last-event-id');
    const afterRevision =
      lastEventId !== undefined && lastEventId.trim() !== ''
        ? intQuery(lastEventId.trim(), 'Last-Event-ID', 0, Number.MAX_SAFE_INTEGER)
        : intQuery(req.query.after_revision, 'after_revision', 0, Number.MAX_SAFE_INTEGER);
    // A session that has no message yet can be watched before its first message: the id is claimed for the
    // caller as its first message would claim it (404 when it is another principal's or a chat channel's), and
    // the stream starts at revision 0, so the first message's commit is its first event.
    const session = await authorizeSubmit(d.pool, callerOf(res), sessionId);
    if (d.events.closed)
      throw new HttpProblem('unavailable', 'the server is shutting down', { expected: true });
    const currentRevision = session?.revision ?? 0;
    // A revision the session never reached (its data was reset since the client saw it) would hold back every
    // commit up to it: the stream starts over from revision 0 instead, so the first turn.committed has
    // previous_revision 0 and carries the whole history, which the client takes in place of what it held.
    const resumeAfter = afterRevision !== undefined && afterRevision > currentRevision ? 0 : afterRevision;

    const log = contextOf(res).log.child({ sessionId });
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    res.write(': connected\n\n');
    trackSseClient(res);

    let subscription: Subscription | null = null;
    let gone = false;
    res.on('close', () => {
      gone = true;
      subscription?.close();
      log.debug('event stream closed');
    });
    const write = (chunk: string) => {
      if (!gone && !res.writableEnded) res.write(chunk);
    };
    const sink: EventSink = {
      send: (e) => write(sseFrame(e)),
      ping: () => write(': ping\n\n'),
      end: () => {
        if (!res.writableEnded) res.end();
      },
    };
    try {
      subscription = await d.events.subscribe(sessionId, sink, {
        afterRevision: resumeAfter,
        currentRevision,
      });
      if (gone) subscription.close();
      if (resumeAfter !== afterRevision)
        log.info(
          { afterRevision, currentRevision },
          'event stream resumed past the session revision; starting over',
        );
      log.debug({ afterRevision: resumeAfter }, 'event stream opened');
    } catch (err) {
      log.warn({ err: String(err) }, 'event stream could not subscribe');
      sink.end();
    }
  });

  return router;
}

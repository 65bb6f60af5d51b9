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
import type { ServerResponse } from 'node:http';
import { Router, type Request, type Response } from 'express';
import { authorizeSubmit, callerOf } from '../access.ts';
import type { ResolvedDeps } from '../deps.ts';
import { contextOf } from '../context.ts';
import type { EventSink, HubEvent, Subscription } from '../event-hub.ts';
import { HttpProblem } from '../problems.ts';
import {
  intQuery,
  type ApprovalRequestedEvent,
  type TurnCommittedEvent,
  type TurnUpdatedEvent,
} from '../schemas.ts';
import { checkSessionIdParam } from './common.ts';
import { trackSseClient } from '../../infra/metrics.ts';

/** Default of `KESOKU_MAX_STREAMS_PER_PRINCIPAL`: event streams one principal may hold open on a server. */
export const DEFAULT_STREAMS_PER_PRINCIPAL = 32;

/**
 * How much a stream may have waiting in this process for a client that does not read, bytes (1 MiB, after the
 * kernel's socket buffers are full): past it the stream is dropped. The client reconnects with `Last-Event-ID`
 * and is caught up from the database; nothing is lost, and a stalled client costs bounded memory.
 */
export const MAX_STREAM_BACKLOG_BYTES = 1024 * 1024;

/**
 * Writes to an event stream with backpressure: a chunk is written while the response's backlog (what Node
 * holds that the socket has not taken) is under `maxBacklogBytes`; once a write leaves more than that, the
 * stream is destroyed instead of buffering without bound, and `onDropped` is told.
 * @returns the write function (false once the stream is gone or dropped)
 */
export function backpressuredWriter(
  res: ServerResponse,
  opts: { maxBacklogBytes?: number; onDropped?: (backlogBytes: number) => void } = {},
): (chunk: string) => boolean {
  const max = opts.maxBacklogBytes ?? MAX_STREAM_BACKLOG_BYTES;
  let dropped = false;
  return (chunk) => {
    if (dropped || res.destroyed || res.writableEnded) return false;
    res.write(chunk);
    if (res.writableLength > max) {
      dropped = true;
      opts.onDropped?.(res.writableLength);
      res.destroy();
      return false;
    }
    return true;
  };
}

/** One SSE frame. `data` is single-line JSON, so it needs no splitting. */
export function sseFrame(e: HubEvent): string {
  const id = e.event === 'turn.committed' ? `id: ${e.id}\n` : '';
  return `event: ${e.event}\n${id}data: ${JSON.stringify(documentedData(e))}\n\n`;
}

/** An event's data, held by the type checker to the payload the OpenAPI document describes (api/responses.ts). */
function documentedData(e: HubEvent): TurnCommittedEvent | TurnUpdatedEvent | ApprovalRequestedEvent {
  switch (e.event) {
    case 'turn.committed':
      return e.data satisfies TurnCommittedEvent;
    case 'turn.updated':
      return e.data satisfies TurnUpdatedEvent;
    case 'approval_requested':
      return e.data satisfies ApprovalRequestedEvent;
  }
}

/**
 * The SSE route. Validation and the 404 check happen before the stream opens (problems are still possible). A
 * session id without a session yet is claimed for the caller (api/access.ts authorizeSubmit) and watched from
 * revision 0; another principal's or a chat channel's id is a 404 as always. A `Last-Event-ID` (or
 * `after_revision`) above the session's revision restarts the stream from revision 0 (see the comment below).
 * A principal holds at most `d.limits.streamsPerPrincipal` streams at once (429 too_many_streams past it); a
 * client that stops reading is dropped once {@link MAX_STREAM_BACKLOG_BYTES} wait for it
 * ({@link backpressuredWriter}).
 */
export function eventsRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  /** Open streams per principal name. */
  const open = new Map<string, number>();

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
    const caller = callerOf(res);
    const session = await authorizeSubmit(d.pool, caller, sessionId, {
      maxSessions: d.limits.sessionsPerPrincipal,
    });
    if (d.events.closed)
      throw new HttpProblem('unavailable', 'the server is shutting down', { expected: true });
    const held = open.get(caller.name) ?? 0;
    if (held >= d.limits.streamsPerPrincipal)
      throw new HttpProblem(
        'too_many_streams',
        `this principal already holds ${held} event streams, the most it may (KESOKU_MAX_STREAMS_PER_PRINCIPAL); close one first`,
        { extensions: { limit: d.limits.streamsPerPrincipal } },
      );
    open.set(caller.name, held + 1);
    res.once('close', () => {
      const n = (open.get(caller.name) ?? 1) - 1;
      if (n <= 0) open.delete(caller.name);
      else open.set(caller.name, n);
    });
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
    const writeChunk = backpressuredWriter(res, {
      onDropped: (backlogBytes) =>
        log.warn({ backlogBytes }, 'event stream dropped: the client does not read it'),
    });
    const write = (chunk: string) => {
      if (!gone) writeChunk(chunk);
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

/**
 * Following a session's event stream (`GET /v1/sessions/{id}/events`, api/routes/events.ts) for as long as the
 * client runs: reconnects with backoff when the API goes away, resumes with `Last-Event-ID: <revision>`, and
 * turns `turn.committed` events into a gap-free sequence of committed messages — when an event does not start
 * where the last one ended (`previous_revision` above the revision held), the missing delta is read with
 * `GET …/messages?after_revision=` first (docs/message-flow.md §11); one that starts from revision 0 while a
 * later revision is held is a stream the server reset, taken as a fresh start. A session that does not exist yet (404) is waited for.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { approvalRequestedSchema, type ApprovalRequested } from './approval-prompt.ts';
import type { Message } from '../../domain/message.ts';
import {
  ApiError,
  turnCommittedSchema,
  turnUpdatedSchema,
  type KesokuApi,
  type TurnCommitted,
  type TurnUpdated,
} from './api-client.ts';

/** How the stream stands, for the user. */
export type StreamState =
  | { state: 'connected'; revision: number }
  /** The session has no row yet (nothing was sent to it); the follower checks again every `waitMs`. */
  | { state: 'waiting' }
  /** The stream failed or ended; `attempt` counts failures since the last connection (1 = first). */
  | { state: 'lost'; error: ApiError; attempt: number; retryInMs: number };

export interface FollowHandlers {
  /** Committed messages, in phased order, with revisions in (previous revision, `revision`]; never a gap. */
  onCommitted(messages: Message[], revision: number): void;
  /** A running-turn snapshot. */
  onUpdated(update: TurnUpdated): void;
  onState(state: StreamState): void;
  /** A frame the client could not understand (skipped). */
  onProtocolError?(detail: string): void;
  /** A tool call of the session waits for approval (adapters/cli/approval-prompt.ts). */
  onApprovalRequested?(a: ApprovalRequested): void;
}

export interface FollowOptions {
  api: KesokuApi;
  sessionId: string;
  /** The revision already held (messages up to it were read or shown); 0 for a new session. */
  afterRevision: number;
  handlers: FollowHandlers;
  /** First retry delay after a failure, in ms (default 500); doubles per failure up to `maxBackoffMs`. */
  backoffMs?: number;
  /** Longest retry delay, in ms (default 10 000). */
  maxBackoffMs?: number;
  /** Re-check interval while the session does not exist, in ms (default 1 000). */
  waitMs?: number;
  /**
   * A stream silent this long (ms) is treated as dead and reopened (default 40 000; the server pings every
   * 15 s, so silence means a half-open connection).
   */
  staleMs?: number;
}

/** A running follower. */
export interface Follower {
  /** The revision held: every message committed up to it was handed to `onCommitted`. */
  readonly revision: number;
  /** Retries at once if the follower is waiting (a message was just sent to a new session, say). */
  wake(): void;
  /** Stops following and closes the connection. Idempotent. */
  close(): void;
}

/** Starts following; see the module comment. Never throws: failures are reported through `onState`. */
export function follow(opts: FollowOptions): Follower {
  const backoffMs = opts.backoffMs ?? 500;
  const maxBackoffMs = opts.maxBackoffMs ?? 10_000;
  const waitMs = opts.waitMs ?? 1_000;
  const staleMs = opts.staleMs ?? 40_000;
  const h = opts.handlers;
  let revision = opts.afterRevision;
  let closed = false;
  let current: AbortController | null = null;
  let wakeUp: (() => void) | null = null;
  /** Set when a connection opened; the backoff starts over after it. */
  let connected = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  /** Reads the committed delta after `revision` (all pages) and hands it on. */
  const catchUp = async () => {
    for (;;) {
      const delta = await opts.api.getMessages(opts.sessionId, { afterRevision: revision });
      if (delta.revision > revision) {
        const fresh = delta.messages.filter((m) => m.revision > revision);
        revision = delta.revision;
        h.onCommitted(fresh, revision);
      }
      if (!delta.has_more) return;
    }
  };

  const onCommittedEvent = async (e: TurnCommitted) => {
    // A stream the server reset (the revision held is newer than the session's, e.g. after a data reset)
    // starts again from revision 0 with the whole history: a fresh start.
    if (e.previous_revision === 0 && revision > 0) revision = 0;
    if (e.revision <= revision) return; // already held (an overlap after a resume)
    if (e.previous_revision > revision) await catchUp();
    if (e.revision <= revision) return;
    const fresh = e.messages.filter((m) => m.revision > revision);
    revision = e.revision;
    h.onCommitted(fresh, revision);
  };

  /** One connection, until it fails or ends. @throws ApiError */
  const stream = async () => {
    const abort = new AbortController();
    current = abort;
    const res = await opts.api.openEvents(opts.sessionId, revision, abort.signal);
    connected = true;
    h.onState({ state: 'connected', revision });
    const frames: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (m) => frames.push(m) });
    let stale: NodeJS.Timeout | null = null;
    const arm = () => {
      if (stale) clearTimeout(stale);
      stale = setTimeout(() => abort.abort(new Error('stale')), staleMs);
    };
    arm();
    try {
      const decoder = new TextDecoder();
      for await (const chunk of res.body ?? []) {
        arm();
        parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
        while (frames.length > 0) {
          if (closed) return;
          await handleFrame(frames.shift() as EventSourceMessage);
        }
      }
    } catch (err) {
      if (closed) return;
      throw err instanceof ApiError
        ? err
        : new ApiError('unreachable', `the event stream broke: ${String(err)}`, {
            baseUrl: opts.api.baseUrl,
            cause: err,
          });
    } finally {
      if (stale) clearTimeout(stale);
      abort.abort();
    }
    if (!closed) {
      throw new ApiError('unreachable', 'the server closed the event stream', { baseUrl: opts.api.baseUrl });
    }
  };

  const handleFrame = async (m: EventSourceMessage) => {
    let data: unknown;
    try {
      data = JSON.parse(m.data);
    } catch {
      h.onProtocolError?.(`${m.event ?? 'message'} frame is not JSON`);
      return;
    }
    if (m.event === 'turn.committed') {
      const parsed = turnCommittedSchema.safeParse(data);
      if (parsed.success) await onCommittedEvent(parsed.data);
      else h.onProtocolError?.(`turn.committed: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    } else if (m.event === 'turn.updated') {
      const parsed = turnUpdatedSchema.safeParse(data);
      if (parsed.success) h.onUpdated(parsed.data);
      else h.onProtocolError?.(`turn.updated: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    } else if (m.event === 'approval_requested') {
      const parsed = approvalRequestedSchema.safeParse(data);
      if (parsed.success) h.onApprovalRequested?.(parsed.data);
    }
  };

  void (async () => {
    let attempt = 0;
    let waiting = false;
    while (!closed) {
      connected = false;
      try {
        await stream();
      } catch (err) {
        if (closed) break;
        if (connected) attempt = 0;
        const error =
          err instanceof ApiError
            ? err
            : new ApiError('protocol', String(err), { baseUrl: opts.api.baseUrl, cause: err });
        if (error.status === 404) {
          if (!waiting) h.onState({ state: 'waiting' });
          waiting = true;
          await sleep(waitMs);
          continue;
        }
        waiting = false;
        attempt += 1;
        const base = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
        const retryInMs = Math.round(base * (0.8 + Math.random() * 0.4));
        h.onState({ state: 'lost', error, attempt, retryInMs });
        await sleep(retryInMs);
      }
    }
  })();

  return {
    get revision() {
      return revision;
    },
    wake: () => wakeUp?.(),
    close() {
      if (closed) return;
      closed = true;
      current?.abort();
      wakeUp?.();
    },
  };
}

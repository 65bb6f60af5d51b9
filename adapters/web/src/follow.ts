/**
 * Following one session's event stream (`GET /v1/sessions/{id}/events`, api/routes/events.ts) for as long as the
 * page shows the session, as the terminal client does (adapters/cli/events.ts): it resumes with
 * `Last-Event-ID: <revision>` after any drop, turns `turn.committed` events into a gap-free sequence (an event
 * that does not start where the last one ended makes it read the missing delta with `GET …/messages?after_revision=`
 * first, docs/message-flow.md §11; one from revision 0 while a later revision is held is a stream the server reset,
 * handed on as a reset), and reconnects with backoff when the API goes away (0.5 s doubling to 10 s, or at once on
 * {@link Follower.wake}). A stream silent for 40 s (pings come every 15 s) is treated as dead. A 401 stops it: the
 * token is not (or no longer) accepted.
 *
 * On every connect the server sends the calls waiting for approval and the running turn's whole snapshot
 * (api/event-hub.ts), so nothing here has to remember what was streamed before a drop.
 *
 * No DOM here (fetch and web streams only).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Message } from '../../../domain/message.ts';
import type { PlanView } from '../../../domain/plan-view.ts';
import { ApiError, type KesokuClient } from './api.ts';

/** One tool call of the running step (api/live-turns.ts ToolProgress). */
export interface ToolProgress {
  call_id: string;
  name: string;
  status: 'running' | 'ok' | 'error';
  summary?: string;
  started_at?: string;
  finished_at?: string;
  /** While the call runs: the last lines of its command's output. */
  output_tail?: string;
}

/** `event: turn.updated` data: a snapshot of the running turn (api/event-hub.ts TurnUpdatedData). */
export interface TurnUpdate {
  session_id: string;
  turn_id: string;
  step: number;
  status: 'started' | 'thinking' | 'running_tools' | 'finished';
  text: string;
  text_offset?: number;
  tools: ToolProgress[];
  /** The active plan as the turn last set it (adapters/web/src/plan.tsx). */
  plan?: PlanView;
  outcome?: 'processed' | 'interrupted' | 'error';
  notices?: string[];
}

/** `event: approval_requested` data: a tool call waits for a decision. */
export interface ApprovalRequest {
  session_id: string;
  turn_id: string;
  step: number;
  call_id: string;
  tool_name: string;
  subject: string;
  expires_at: string;
}

/** How the stream stands, for the person. */
export type StreamState =
  | { state: 'connecting' }
  | { state: 'connected'; revision: number }
  /** The stream failed or ended; `attempt` counts failures since the last connection (1 = first). */
  | { state: 'lost'; error: ApiError; attempt: number; retryInMs: number }
  /** 401: the token is not accepted; the follower stopped. */
  | { state: 'unauthorized'; error: ApiError }
  /** 404: the session is not this token's (another principal's or a chat channel's); the follower stopped. */
  | { state: 'not_found'; error: ApiError };

export interface FollowHandlers {
  /**
   * Committed messages with revisions in (previous revision, `revision`], never a gap. `reset`: the server started
   * over from revision 0 (its data was reset): these messages replace everything held.
   */
  onCommitted(messages: Message[], revision: number, reset: boolean): void;
  onUpdated(update: TurnUpdate): void;
  onApprovalRequested(request: ApprovalRequest): void;
  onState(state: StreamState): void;
}

export interface FollowOptions {
  client: KesokuClient;
  sessionId: string;
  /** The revision already held (the history read); 0 for a new session. */
  afterRevision: number;
  handlers: FollowHandlers;
  /** First retry delay, in ms (default 500); doubles per failure up to `maxBackoffMs` (default 10 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Silence after which the stream is reopened, in ms (default 40 000). */
  staleMs?: number;
}

export interface Follower {
  /** The revision held: every message committed up to it was handed to `onCommitted`. */
  readonly revision: number;
  /** Retries at once when waiting to reconnect (the browser came back online, the tab became visible). */
  wake(): void;
  /** Stops following and closes the connection. Idempotent. */
  close(): void;
}

/** Starts following; see the module comment. Never throws: failures are reported through `onState`. */
export function follow(opts: FollowOptions): Follower {
  const backoffMs = opts.backoffMs ?? 500;
  const maxBackoffMs = opts.maxBackoffMs ?? 10_000;
  const staleMs = opts.staleMs ?? 40_000;
  const h = opts.handlers;
  let revision = opts.afterRevision;
  let closed = false;
  let current: AbortController | null = null;
  let wakeUp: (() => void) | null = null;
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
      const delta = await opts.client.getMessages(opts.sessionId, { afterRevision: revision });
      if (delta.revision > revision) {
        const fresh = delta.messages.filter((m) => m.revision > revision);
        revision = delta.revision;
        h.onCommitted(fresh, revision, false);
      }
      if (!delta.has_more) return;
    }
  };

  const onCommittedEvent = async (e: {
    revision: number;
    previous_revision: number;
    messages: Message[];
  }) => {
    if (e.previous_revision === 0 && revision > 0) {
      revision = e.revision;
      h.onCommitted(e.messages, revision, true);
      return;
    }
    if (e.revision <= revision) return; // already held (an overlap after a resume)
    if (e.previous_revision > revision) await catchUp();
    if (e.revision <= revision) return;
    const fresh = e.messages.filter((m) => m.revision > revision);
    revision = e.revision;
    h.onCommitted(fresh, revision, false);
  };

  const handleFrame = async (m: EventSourceMessage) => {
    let data: unknown;
    try {
      data = JSON.parse(m.data);
    } catch {
      return; // not JSON: skipped
    }
    if (typeof data !== 'object' || data === null) return;
    const d = data as Record<string, unknown>;
    if (m.event === 'turn.committed' && typeof d.revision === 'number' && Array.isArray(d.messages))
      await onCommittedEvent(data as Parameters<typeof onCommittedEvent>[0]);
    else if (m.event === 'turn.updated' && typeof d.turn_id === 'string' && typeof d.text === 'string')
      h.onUpdated(data as TurnUpdate);
    else if (m.event === 'approval_requested' && typeof d.call_id === 'string')
      h.onApprovalRequested(data as ApprovalRequest);
  };

  /** One connection, until it fails or ends. @throws ApiError */
  const stream = async () => {
    const abort = new AbortController();
    current = abort;
    const res = await opts.client.openEvents(opts.sessionId, revision, abort.signal);
    connected = true;
    h.onState({ state: 'connected', revision });
    const frames: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (m) => frames.push(m) });
    let stale: ReturnType<typeof setTimeout> | null = null;
    const arm = () => {
      if (stale) clearTimeout(stale);
      stale = setTimeout(() => abort.abort(new Error('the event stream went silent')), staleMs);
    };
    arm();
    try {
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        arm();
        parser.feed(decoder.decode(value, { stream: true }));
        while (frames.length > 0) {
          if (closed) return;
          await handleFrame(frames.shift() as EventSourceMessage);
        }
      }
    } catch (err) {
      if (closed) return;
      throw err instanceof ApiError
        ? err
        : new ApiError('unreachable', `the event stream broke (${String(err)})`);
    } finally {
      if (stale) clearTimeout(stale);
      abort.abort();
    }
    if (!closed) throw new ApiError('unreachable', 'the server closed the event stream');
  };

  void (async () => {
    let attempt = 0;
    h.onState({ state: 'connecting' });
    while (!closed) {
      connected = false;
      try {
        await stream();
      } catch (err) {
        if (closed) break;
        if (connected) attempt = 0;
        const error = err instanceof ApiError ? err : new ApiError('protocol', String(err));
        if (error.status === 401) {
          h.onState({ state: 'unauthorized', error });
          return;
        }
        if (error.status === 404) {
          h.onState({ state: 'not_found', error });
          return;
        }
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

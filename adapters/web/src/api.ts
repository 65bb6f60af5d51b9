/**
 * The page's calls of REST API v1 (README "REST API v1", `GET /openapi.json`), on the page's own origin. The bearer
 * token is read at each call (it lives in session storage, adapters/web/src/storage.ts) and sent only in the
 * `Authorization` header, never in a URL. Every failure is an {@link ApiError} whose kind says what the person
 * should hear: the API is not reachable, it refused with a problem (application/problem+json), or it answered
 * something this page does not understand.
 *
 * No DOM here (fetch and web streams only), so unit tests can run it under Node.
 */
import type { Attachment, Message } from '../../../domain/message.ts';
import type { JobBody } from '../../../api/responses.ts';
import type { JobState } from '../../../domain/jobs.ts';
import type { PlanView } from '../../../domain/plan-view.ts';
import type { ScheduleRunView, ScheduleTimingInput, ScheduleView } from '../../../domain/schedules.ts';

/** `unreachable`: no HTTP answer; `problem`: an error answer; `protocol`: an answer the page cannot use. */
export type ApiErrorKind = 'unreachable' | 'problem' | 'protocol';

/** An RFC 9457 problem as the API sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [key: string]: unknown;
}

/** Every failure of a {@link KesokuClient} call. */
export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  /** HTTP status, when there was an answer. */
  readonly status: number | null;
  readonly problem: Problem | null;

  constructor(
    kind: ApiErrorKind,
    message: string,
    opts: { status?: number | null; problem?: Problem | null } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.problem = opts.problem ?? null;
  }

  /** What the person reads: the problem's detail, or why there was no answer. */
  get detail(): string {
    return this.problem?.detail ?? this.message;
  }
}

/** The approval policies of a session (README "Tool approval"). */
export type ApprovalPolicy = 'off' | 'writes' | 'all';

/** A session in the list (OpenAPI `SessionSummary`). */
export interface SessionSummary {
  id: string;
  chatbot_id: string;
  channel_id: string;
  title: string | null;
  title_source: 'default' | 'auto' | 'user';
  revision: number;
  mode: 'interrupt' | 'queue';
  locale: string;
  turn_count: number;
  created_at: string;
  updated_at: string;
}

/** A tool call waiting for a decision (OpenAPI `PendingApproval`). */
export interface PendingApproval {
  call_id: string;
  turn_id: string | null;
  tool_name: string;
  subject: string;
  requested_at: string;
  expires_at: string | null;
}

/** One session with its live figures and approval settings (OpenAPI `Session`). */
export interface SessionInfo extends SessionSummary {
  status: 'idle' | 'processing';
  queue_length: number;
  approval: ApprovalPolicy | null;
  approval_in_force: ApprovalPolicy;
  pending_approvals: PendingApproval[];
  /** The session's own IANA zone, the default of its new schedules; null: the server's default applies. */
  timezone?: string | null;
  /** The active plan (adapters/web/src/plan.tsx); null: none. */
  plan?: PlanView | null;
}

/** A history read (OpenAPI `History`). */
export interface History {
  revision: number;
  messages: Message[];
  has_more?: boolean;
}

/** An attachment sent inline: the file in base64 (`data`). */
export interface OutgoingAttachment {
  name: string;
  content_type?: string;
  size: number;
  data: string;
}

/** The 202 of `POST …/messages` (OpenAPI `MessageAccepted`). */
export interface Accepted {
  message: Message;
  queue_position: number;
  duplicate?: boolean;
}

/** `POST /v1/sessions/{id}/schedules`: a prompt and exactly one of `cron`, `every`, `at`, `in`. */
export interface NewSchedule extends ScheduleTimingInput {
  prompt: string;
  timezone?: string;
}

/** A background job of a session (OpenAPI `Job`, docs/tools.md "Background jobs"); times are ISO 8601. */
export type JobView = JobBody;

export type { Attachment, JobState, Message, ScheduleRunView, ScheduleView };

export interface ClientOptions {
  /** The bearer token to send, read at each call; null: none. */
  token: () => string | null;
  /** Base URL of the API; default '' (the page's own origin). */
  baseUrl?: string;
  /** Time-out of each non-streaming request, in ms (default 20 000). */
  timeoutMs?: number;
}

/** Typed calls of REST API v1. Every method throws {@link ApiError} and nothing else. */
export class KesokuClient {
  private readonly token: () => string | null;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(opts: ClientOptions) {
    this.token = opts.token;
    this.baseUrl = (opts.baseUrl ?? '').replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 20_000;
  }

  /** `GET /v1/sessions`: one page, newest first. */
  listSessions(opts: { cursor?: string | null; limit?: number } = {}): Promise<{
    sessions: SessionSummary[];
    next_cursor: string | null;
  }> {
    const q = new URLSearchParams();
    q.set('limit', String(opts.limit ?? 100));
    if (opts.cursor) q.set('cursor', opts.cursor);
    return this.call('GET', `/v1/sessions?${q}`);
  }

  /** `GET /v1/sessions/{id}`; null when the session has no row yet (404: nothing was sent to it). */
  async getSession(id: string): Promise<SessionInfo | null> {
    try {
      return await this.call<SessionInfo>('GET', this.path(id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }

  /** `GET /v1/sessions/{id}/messages`: the newest `limit`, older ones before `beforeSeq`, or the delta after `afterRevision`. */
  getMessages(
    id: string,
    opts: { afterRevision?: number; limit?: number; beforeSeq?: number } = {},
  ): Promise<History> {
    const q = new URLSearchParams();
    if (opts.afterRevision !== undefined) q.set('after_revision', String(opts.afterRevision));
    if (opts.beforeSeq !== undefined) q.set('before_seq', String(opts.beforeSeq));
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    return this.call('GET', `${this.path(id)}/messages${q.size > 0 ? `?${q}` : ''}`);
  }

  /**
   * `POST /v1/sessions/{id}/messages` without `wait`. `id` is the idempotency key: the same post repeated after a
   * lost answer (or from another tab) is acknowledged with `duplicate: true` and queued once.
   */
  postMessage(
    id: string,
    body: { id: string; content: string; sender?: string; attachments?: OutgoingAttachment[] },
  ): Promise<Accepted> {
    return this.call('POST', `${this.path(id)}/messages`, body);
  }

  /** `PATCH /v1/sessions/{id}`: before the first message it creates the session with these settings. */
  patchSession(
    id: string,
    body: {
      title?: string;
      mode?: 'interrupt' | 'queue';
      approval?: ApprovalPolicy | null;
      timezone?: string | null;
    },
  ): Promise<SessionInfo> {
    return this.call('PATCH', this.path(id), body);
  }

  /** `POST /v1/sessions/{id}/stop`. */
  stop(id: string): Promise<{ stopped: boolean }> {
    return this.call('POST', `${this.path(id)}/stop`);
  }

  /** `POST /v1/sessions/{id}/tool-calls/{callId}/approval`. */
  decideApproval(
    id: string,
    callId: string,
    decision: 'approve' | 'deny' | 'always',
  ): Promise<{ call_id: string; decision: string; by: string }> {
    return this.call('POST', `${this.path(id)}/tool-calls/${encodeURIComponent(callId)}/approval`, {
      decision,
    });
  }

  /** `GET /v1/sessions/{id}/schedules`, each with its last runs; empty when the session has no row yet. */
  async listSchedules(id: string): Promise<ScheduleView[]> {
    try {
      return (await this.call<{ schedules: ScheduleView[] }>('GET', `${this.path(id)}/schedules`)).schedules;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return [];
      throw err;
    }
  }

  /** `POST /v1/sessions/{id}/schedules` (it claims a session without a row, as a first message would). */
  createSchedule(id: string, body: NewSchedule): Promise<ScheduleView> {
    return this.call('POST', `${this.path(id)}/schedules`, body);
  }

  /** `PATCH /v1/sessions/{id}/schedules/{scheduleId}`: pause (`true`) or resume (`false`). */
  pauseSchedule(id: string, scheduleId: string, paused: boolean): Promise<ScheduleView> {
    return this.call('PATCH', this.schedulePath(id, scheduleId), { paused });
  }

  /** `POST /v1/sessions/{id}/schedules/{scheduleId}/trigger`: one run now, also when paused. */
  triggerSchedule(id: string, scheduleId: string): Promise<{ triggered: boolean }> {
    return this.call('POST', `${this.schedulePath(id, scheduleId)}/trigger`);
  }

  /** `DELETE /v1/sessions/{id}/schedules/{scheduleId}`. */
  deleteSchedule(id: string, scheduleId: string): Promise<{ deleted: boolean }> {
    return this.call('DELETE', this.schedulePath(id, scheduleId));
  }

  /** `GET /v1/sessions/{id}/jobs`: the session's background jobs, newest first; empty when it has no row yet. */
  async listJobs(id: string): Promise<JobView[]> {
    try {
      return (await this.call<{ jobs: JobView[] }>('GET', `${this.path(id)}/jobs`)).jobs;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return [];
      throw err;
    }
  }

  /**
   * `DELETE /v1/sessions/{id}/jobs/{jobId}`: kills a running job; answers once it has ended (`killed`).
   * @throws ApiError 409 when the job had ended already (the problem's `state` says how)
   */
  async killJob(id: string, jobId: string): Promise<JobView> {
    return (await this.call<{ job: JobView }>('DELETE', `${this.path(id)}/jobs/${encodeURIComponent(jobId)}`))
      .job;
  }

  /**
   * Opens `GET /v1/sessions/{id}/events` resuming after `afterRevision` (`Last-Event-ID`). The caller reads the body
   * and aborts `signal` to close it.
   */
  async openEvents(id: string, afterRevision: number, signal: AbortSignal): Promise<Response> {
    const headers = { ...this.auth(), accept: 'text/event-stream', 'last-event-id': String(afterRevision) };
    const res = await this.send(`${this.path(id)}/events`, { headers, signal, cache: 'no-store' });
    if (!res.ok) throw await failure(res);
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await res.body?.cancel();
      throw new ApiError('protocol', 'the event stream is not text/event-stream', { status: res.status });
    }
    return res;
  }

  private path(id: string): string {
    return `/v1/sessions/${encodeURIComponent(id)}`;
  }

  private schedulePath(id: string, scheduleId: string): string {
    return `${this.path(id)}/schedules/${encodeURIComponent(scheduleId)}`;
  }

  private auth(): Record<string, string> {
    const token = this.token();
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { ...this.auth(), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.send(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
      cache: 'no-store',
    });
    if (!res.ok) throw await failure(res);
    try {
      return (await res.json()) as T;
    } catch {
      throw new ApiError('protocol', `${method} ${path} answered ${res.status} without JSON`, {
        status: res.status,
      });
    }
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, init);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ApiError('unreachable', `the Kesoku API did not answer (${reason})`);
    }
  }
}

/** The ApiError of an error answer, with its problem body when it has one. */
async function failure(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let problem: Problem | null = null;
  try {
    const parsed = JSON.parse(text) as Partial<Problem>;
    if (typeof parsed?.detail === 'string' && typeof parsed.status === 'number') problem = parsed as Problem;
  } catch {
    // Not JSON (a proxy's error page): the status line is all there is.
  }
  const message = problem ? `${problem.title} (${problem.status}): ${problem.detail}` : `HTTP ${res.status}`;
  return new ApiError(problem || res.status >= 500 ? 'problem' : 'protocol', message, {
    status: res.status,
    problem,
  });
}

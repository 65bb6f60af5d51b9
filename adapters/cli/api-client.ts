/**
 * The terminal client's view of REST API v1 (docs/architecture.md "REST API v1", api/openapi.ts): typed calls, every answer
 * checked with zod (the API is a trust boundary), and one error type whose kind says what the user should hear —
 * the API is not reachable, it answered with a problem (application/problem+json), or it answered nonsense.
 */
import { z } from 'zod';
import * as api from '../../api/responses.ts';

// The answers are parsed with the API's own response schemas (api/schemas.ts, the ones the OpenAPI document is
// rendered from), so this client's types are the server's. Loosened where the client always was: extra keys
// pass (a newer server), and a session's fields after its core may be missing (an older server).

/** A stored message (OpenAPI `Message`, docs/message-model.md §3 field names). */
export const messageSchema = api.messageSchema.loose();

const memoryListSchema = api.memoryListSchema.loose();
/** The model input of `/prompt` as this client prints it (the document says only "an object"). */
const promptInputSchema = z.looseObject({
  system: z.string(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })),
});
const promptSchema = api.sessionPromptSchema.extend({ input: promptInputSchema }).loose();

/** OpenAPI `Session`: a session with its live figures. */
export const sessionSchema = api.sessionSchema
  .partial({
    chatbot_id: true,
    channel_id: true,
    locale: true,
    turn_count: true,
    created_at: true,
    updated_at: true,
    timezone: true,
    approval: true,
    approval_in_force: true,
    approve_patterns: true,
    pending_approvals: true,
  })
  .loose();
export type SessionInfo = z.output<typeof sessionSchema>;

/** OpenAPI `History`: messages in phased order and the revision the reader holds after applying them. */
export const historySchema = api.historySchema.extend({ messages: z.array(messageSchema) }).loose();
export type History = z.output<typeof historySchema>;

const acceptedSchema = api.messageAcceptedSchema.extend({ message: messageSchema }).loose();
/** OpenAPI `MessageAccepted` (202 of `POST …/messages`). */
export type Accepted = z.output<typeof acceptedSchema>;

const stopSchema = api.stopResultSchema.loose();
const schedulesSchema = api.scheduleListSchema.loose();
const jobSchema = api.jobSchema.loose();
const jobsSchema = api.jobListSchema.extend({ jobs: z.array(jobSchema) }).loose();
const killedJobSchema = api.killedJobSchema.extend({ job: jobSchema }).loose();
/** A background job as the terminal shows it (OpenAPI `Job`). */
export type JobSummary = z.output<typeof jobSchema>;
const deliveriesSchema = api.deliveriesResultSchema.loose();
/** OpenAPI `DeliveriesResult`: each acknowledged message's status after the call. */
export type Deliveries = z.output<typeof deliveriesSchema>;

/** The chatbots a REST client may create a session on (`channel` of the first message). */
export type RestChannel = 'api' | 'cli';
const approvalDecisionSchema = api.approvalDecisionResultSchema.loose();
const compactSchema = api.compactResultSchema.loose();

/** `event: turn.committed` data (OpenAPI `TurnCommittedEvent`). */
export const turnCommittedSchema = api.turnCommittedEventSchema
  .extend({ messages: z.array(messageSchema) })
  .loose();
export type TurnCommitted = z.output<typeof turnCommittedSchema>;

const toolProgressSchema = api.toolProgressSchema.loose();
/** One tool call of the running step, as `turn.updated` reports it. */
export type ToolProgress = z.output<typeof toolProgressSchema>;

/** `event: turn.updated` data (OpenAPI `TurnUpdatedEvent`): a snapshot of the running turn. */
export const turnUpdatedSchema = api.turnUpdatedEventSchema
  .extend({ tools: z.array(toolProgressSchema) })
  .loose();
export type TurnUpdated = z.output<typeof turnUpdatedSchema>;

/** An RFC 9457 problem as the API sends it (api/problems.ts). */
const problemSchema = api.problemSchema;
export type Problem = api.ProblemBody;

/**
 * - `unreachable`: no HTTP answer (connection refused, reset, DNS, or no answer within the time-out);
 * - `problem`: an HTTP error answer, with the problem body when it was application/problem+json;
 * - `protocol`: an answer this client does not understand (wrong shape, unexpected status).
 */
export type ApiErrorKind = 'unreachable' | 'problem' | 'protocol';

/** Every failure of a {@link KesokuApi} call. */
export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  /** HTTP status, when there was an answer. */
  readonly status: number | null;
  readonly problem: Problem | null;
  /** The API's base URL, for messages. */
  readonly baseUrl: string;

  constructor(
    kind: ApiErrorKind,
    message: string,
    opts: { baseUrl: string; status?: number | null; problem?: Problem | null; cause?: unknown },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.problem = opts.problem ?? null;
    this.baseUrl = opts.baseUrl;
  }
}

/**
 * True for the 404 the API gives a token that may not use a session (api/access.ts): the session is another
 * principal's or a chat channel's — or does not exist yet, which the API does not tell apart for that token.
 */
export function notFoundForToken(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    err.status === 404 &&
    /not found for this token/.test(err.problem?.detail ?? '')
  );
}

/** The one line a person reads when the API cannot be reached at `baseUrl`. */
export function unreachableLine(baseUrl: string): string {
  return `Kesoku API at ${baseUrl} is not reachable — is \`npm start\` running?`;
}

/**
 * One readable line for any error of a call: "queue full (429): the session queue is full; try again later",
 * the {@link unreachableLine}, or "unexpected answer from the Kesoku API: …". Never a stack trace.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  switch (err.kind) {
    case 'unreachable':
      return unreachableLine(err.baseUrl);
    case 'problem': {
      const p = err.problem;
      const line = p ? `${p.title.toLowerCase()} (${p.status}): ${p.detail}` : err.message;
      return err.status === 401 ? `${line} — set KESOKU_API_TOKEN` : line;
    }
    case 'protocol':
      return `unexpected answer from the Kesoku API: ${err.message}`;
  }
}

export interface KesokuApiOptions {
  /** e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  baseUrl: string;
  /** Bearer token, sent when set. */
  token?: string;
  /** Time-out of each non-streaming request, in ms (default 15 000). */
  timeoutMs?: number;
}

/** Typed calls of REST API v1 for one server. Every method throws {@link ApiError} and nothing else. */
export class KesokuApi {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  constructor(opts: KesokuApiOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
  }

  /** `GET /v1/sessions/{id}`; null when the session does not exist yet (404). */
  async getSession(sessionId: string): Promise<SessionInfo | null> {
    const found = await this.findSession(sessionId);
    return 'notFound' in found ? null : found.session;
  }

  /**
   * `GET /v1/sessions/{id}`, telling a 404 apart: `forToken` when the API said the session was not found for
   * this token ({@link notFoundForToken}), so it may be someone else's.
   */
  async findSession(
    sessionId: string,
  ): Promise<{ session: SessionInfo } | { notFound: { forToken: boolean } }> {
    try {
      return { session: await this.call('GET', this.sessionPath(sessionId), sessionSchema) };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        return { notFound: { forToken: notFoundForToken(err) } };
      throw err;
    }
  }

  /**
   * `GET /v1/sessions/{id}/messages`: the newest `limit` messages, or with `afterRevision` the delta after it
   * (read again after `revision` while `has_more`).
   */
  async getMessages(
    sessionId: string,
    opts: { afterRevision?: number; limit?: number } = {},
  ): Promise<History> {
    const query = new URLSearchParams();
    if (opts.afterRevision !== undefined) query.set('after_revision', String(opts.afterRevision));
    if (opts.limit !== undefined) query.set('limit', String(opts.limit));
    const q = query.size > 0 ? `?${query}` : '';
    return this.call('GET', `${this.sessionPath(sessionId)}/messages${q}`, historySchema);
  }

  /**
   * `POST /v1/sessions/{id}/messages` without `wait`: 202 once the message is queued. `id` is the idempotency
   * key, so the same call may be repeated after a lost answer without queueing the message twice.
   */
  postMessage(
    sessionId: string,
    body: { id: string; content: string; sender: string; channel?: RestChannel },
  ): Promise<Accepted> {
    return this.call('POST', `${this.sessionPath(sessionId)}/messages`, acceptedSchema, body);
  }

  /**
   * `POST /v1/sessions/{id}/deliveries`: these messages were printed (a `cli` session's messages become
   * `delivered` only this way). Idempotent, so it may be repeated after a lost answer.
   */
  acknowledge(sessionId: string, ids: string[]): Promise<Deliveries> {
    return this.call('POST', `${this.sessionPath(sessionId)}/deliveries`, deliveriesSchema, { ids });
  }

  /**
   * `PATCH /v1/sessions/{id}`: title, mode, locale and/or approval. Before the session's first message it creates
   * the session on `channel` with these settings.
   */
  patchSession(
    sessionId: string,
    body: {
      title?: string;
      mode?: 'interrupt' | 'queue';
      locale?: 'en' | 'zh';
      approval?: 'off' | 'writes' | 'all' | null;
      channel?: RestChannel;
    },
  ): Promise<SessionInfo> {
    return this.call('PATCH', this.sessionPath(sessionId), sessionSchema, body);
  }

  /** `POST /v1/sessions/{id}/tool-calls/{callId}/approval`: a decision on a tool call waiting for approval. */
  decideApproval(
    sessionId: string,
    callId: string,
    decision: 'approve' | 'deny' | 'always',
  ): Promise<{ call_id: string; decision: string }> {
    return this.call(
      'POST',
      `${this.sessionPath(sessionId)}/tool-calls/${encodeURIComponent(callId)}/approval`,
      approvalDecisionSchema,
      { decision },
    );
  }

  /** `POST /v1/sessions/{id}/stop`: whether a running turn was cancelled. */
  stop(sessionId: string): Promise<{ stopped: boolean }> {
    return this.call('POST', `${this.sessionPath(sessionId)}/stop`, stopSchema);
  }

  /** `GET /v1/sessions/{id}/schedules`: the session's scheduled prompts (shapes: api/openapi.ts `Schedule`). */
  schedules(sessionId: string): Promise<z.output<typeof schedulesSchema>> {
    return this.call('GET', `${this.sessionPath(sessionId)}/schedules`, schedulesSchema);
  }

  /** `GET /v1/sessions/{id}/jobs`: the session's background jobs, newest first. */
  jobs(sessionId: string): Promise<{ jobs: JobSummary[] }> {
    return this.call('GET', `${this.sessionPath(sessionId)}/jobs`, jobsSchema);
  }

  /**
   * `DELETE /v1/sessions/{id}/jobs/{jobId}`: kills a running job; answers once it ended `killed`.
   * @throws ApiError 404 (no such job in the session), 409 (it has ended already)
   */
  killJob(sessionId: string, jobId: string): Promise<{ job: JobSummary }> {
    return this.call(
      'DELETE',
      `${this.sessionPath(sessionId)}/jobs/${encodeURIComponent(jobId)}`,
      killedJobSchema,
    );
  }

  /** `POST /v1/sessions/{id}/compact`: the id of the queued compaction prompt. */
  compact(sessionId: string): Promise<{ message_id: string; queued?: boolean }> {
    return this.call('POST', `${this.sessionPath(sessionId)}/compact`, compactSchema);
  }

  /**
   * Opens `GET /v1/sessions/{id}/events` resuming after `afterRevision` (`Last-Event-ID`). The caller reads the
   * body and aborts `signal` to close it.
   * @returns the open response (status 200, text/event-stream)
   */
  async openEvents(sessionId: string, afterRevision: number, signal: AbortSignal): Promise<Response> {
    const headers = {
      ...this.headers(),
      accept: 'text/event-stream',
      'last-event-id': String(afterRevision),
    };
    const res = await this.send(`${this.sessionPath(sessionId)}/events`, { headers, signal });
    if (!res.ok) throw await this.failure(res);
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await res.body?.cancel();
      throw new ApiError('protocol', 'the event stream is not text/event-stream', {
        baseUrl: this.baseUrl,
        status: res.status,
      });
    }
    return res;
  }

  /**
   * `GET /v1/memory`: the caller's remembered entries (`q`: search words; `session`: also that session's shared
   * scope, a 404 ApiError when the caller cannot see the session or it has no messages yet).
   */
  listMemory(o: { q?: string; session?: string } = {}): Promise<z.output<typeof memoryListSchema>> {
    const params = new URLSearchParams({
      ...(o.session ? { session: o.session } : {}),
      ...(o.q ? { q: o.q } : {}),
    });
    const query = params.size > 0 ? `?${params}` : '';
    return this.call('GET', `/v1/memory${query}`, memoryListSchema);
  }

  /**
   * `DELETE /v1/memory/{entryId}`: forgets one of the caller's entries, or with `session` one of that session's
   * shared scope (404 ApiError when there is no such entry).
   */
  forgetMemory(entryId: string, session?: string): Promise<unknown> {
    const query = session ? `?${new URLSearchParams({ session })}` : '';
    return this.call('DELETE', `/v1/memory/${encodeURIComponent(entryId)}${query}`, z.looseObject({}));
  }

  /** `GET /v1/admin/sessions/{id}/prompt`: the exact model input of the session's latest step (admins). */
  getPrompt(sessionId: string): Promise<z.output<typeof promptSchema>> {
    return this.call('GET', `/v1/admin/sessions/${encodeURIComponent(sessionId)}/prompt`, promptSchema);
  }

  private sessionPath(sessionId: string): string {
    return `/v1/sessions/${encodeURIComponent(sessionId)}`;
  }

  private headers(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  private async call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    const headers: Record<string, string> = { ...this.headers(), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.send(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw await this.failure(res);
    let json: unknown;
    try {
      json = await res.json();
    } catch (err) {
      throw new ApiError('protocol', `${method} ${path} answered ${res.status} without JSON`, {
        baseUrl: this.baseUrl,
        status: res.status,
        cause: err,
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiError(
        'protocol',
        `${method} ${path}: ${issue ? `${issue.path.join('.') || '(body)'} ${issue.message}` : 'invalid body'}`,
        { baseUrl: this.baseUrl, status: res.status },
      );
    }
    return parsed.data;
  }

  /** fetch, with every failure to get an answer turned into an `unreachable` ApiError. */
  private async send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, init);
    } catch (err) {
      throw new ApiError('unreachable', `no answer from ${this.baseUrl}: ${reasonOf(err)}`, {
        baseUrl: this.baseUrl,
        cause: err,
      });
    }
  }

  /** The ApiError for an error answer: its problem body when it has one. */
  private async failure(res: Response): Promise<ApiError> {
    const text = await res.text().catch(() => '');
    let problem: Problem | null = null;
    try {
      const parsed = problemSchema.safeParse(JSON.parse(text));
      if (parsed.success) problem = parsed.data;
    } catch {
      // Not JSON (a proxy's HTML page, say): the status line is all there is.
    }
    const message = problem
      ? `${problem.title} (${problem.status}): ${problem.detail}`
      : `HTTP ${res.status} ${res.statusText}`.trim();
    return new ApiError(problem ? 'problem' : res.status >= 500 ? 'problem' : 'protocol', message, {
      baseUrl: this.baseUrl,
      status: res.status,
      problem,
    });
  }
}

/** The innermost reason of a fetch failure: "ECONNREFUSED", "The operation was aborted due to timeout", … */
function reasonOf(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && e.cause instanceof Error && depth < 4; depth++) e = e.cause;
  if (e instanceof Error)
    return (e as { code?: unknown }).code ? String((e as { code?: unknown }).code) : e.message;
  return String(e);
}

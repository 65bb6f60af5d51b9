/**
 * The API's error model: every 4xx/5xx answer is an RFC 9457 problem (`application/problem+json`,
 * `{type, title, status, detail, request_id}`). Routes throw {@link HttpProblem} (or let typed errors from
 * the session client, the body parser and Postgres escape); {@link toProblem} is the one place that maps
 * them to a status. Raw Temporal or Postgres text never reaches `detail`: it goes to the log only.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { SessionClientError } from '../infra/session-client.ts';
import { ScheduleError } from '../infra/schedules.ts';

/** The problem kinds this API answers with; `type` is `urn:kesoku:problem:<kind>`. */
export const PROBLEM_KINDS = {
  bad_request: { status: 400, title: 'Bad request' },
  validation: { status: 400, title: 'Invalid request' },
  invalid_session_id: { status: 400, title: 'Invalid session id' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  session_not_found: { status: 404, title: 'Unknown session' },
  schedule_not_found: { status: 404, title: 'Unknown schedule' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  queue_full: { status: 429, title: 'Queue full' },
  too_many_sessions: { status: 429, title: 'Too many sessions' },
  too_many_streams: { status: 429, title: 'Too many event streams' },
  too_many_schedules: { status: 429, title: 'Too many schedules' },
  too_many_jobs: { status: 429, title: 'Too many background jobs' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
  wait_timeout: { status: 504, title: 'Wait timed out' },
} as const;
export type ProblemKind = keyof typeof PROBLEM_KINDS;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The `type` URI of a problem kind. */
export function problemType(kind: ProblemKind): string {
  return `urn:kesoku:problem:${kind.replaceAll('_', '-')}`;
}

/** A problem body as sent. Extension members (e.g. `field`, `message_id`) are allowed. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id?: string;
  [extension: string]: unknown;
}

/** An error a route throws to answer with a problem. `detail` is shown to clients: write it for them. */
export class HttpProblem extends Error {
  readonly kind: ProblemKind;
  readonly status: number;
  readonly detail: string;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;
  /** An outcome the server chose, not a fault (e.g. a 503 because it is shutting down): logged at info. */
  readonly expected: boolean;

  constructor(
    kind: ProblemKind,
    detail: string,
    opts: {
      extensions?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
      expected?: boolean;
    } = {},
  ) {
    super(detail, { cause: opts.cause });
    this.name = 'HttpProblem';
    this.kind = kind;
    this.status = PROBLEM_KINDS[kind].status;
    this.detail = detail;
    this.extensions = opts.extensions ?? {};
    this.headers = opts.headers ?? {};
    this.expected = opts.expected ?? false;
  }

  body(requestId?: string): ProblemBody {
    return {
      type: problemType(this.kind),
      title: PROBLEM_KINDS[this.kind].title,
      status: this.status,
      detail: this.detail,
      ...this.extensions,
      ...(requestId ? { request_id: requestId } : {}),
    };
  }
}

/** A 400 naming the offending field (`field` is a dotted path, e.g. `attachments.0.name`). */
export function validationProblem(field: string, detail: string): HttpProblem {
  return new HttpProblem('validation', field ? `${field}: ${detail}` : detail, {
    extensions: field ? { field } : {},
  });
}

/**
 * The 409 detail of a client-chosen message id that is already stored. Message ids are unique across the
 * server, so the answer is the same whichever session or principal holds the id: it names neither.
 */
export const MESSAGE_ID_IN_USE =
  'this message id is already in use; message ids are unique across the server (all sessions and tokens): choose another one, e.g. a UUID, or leave id out';

/** Failure types of the session workflow whose messages are our own, curated text (safe for `detail`). */
const CURATED_FAILURE_TYPES = new Set(['invalid_message', 'queue_full', 'approval_not_pending']);

function curatedMessage(err: SessionClientError): string | null {
  const update = err.cause;
  if (update instanceof WorkflowUpdateFailedError && update.cause instanceof ApplicationFailure) {
    if (CURATED_FAILURE_TYPES.has(update.cause.type ?? '')) return update.cause.message;
  }
  return null;
}

/** Node/pg error codes and messages that mean "Postgres is not answering" rather than a bug in a query. */
const DB_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** True when `err` says the database could not be reached (connection refused, timed out, shut down). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (DB_DOWN_CODES.has(code) || code.startsWith('08'))) return true;
    if (e instanceof AggregateError && e.errors.some((x) => isDatabaseUnavailable(x))) return true;
    if (
      /timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error/i.test(
        e.message,
      )
    )
      return true;
  }
  return false;
}

/** True when `raw` (the body text the JSON parser kept on its error) is valid JSON after all. */
function isValidJson(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

/**
 * Expected outcomes answered with a 5xx: logged at info without a stack, since nothing failed (a `wait` that
 * ended before the turn did; the message stays accepted).
 */
export const EXPECTED_5XX_KINDS: ReadonlySet<ProblemKind> = new Set<ProblemKind>(['wait_timeout']);

/**
 * Maps any error a request can raise to a problem. Unknown errors become 500 with a generic detail.
 * - body parser: `entity.parse.failed` → 400, `entity.too.large` → 413, unsupported charset/encoding → 415
 * - {@link SessionClientError}: invalid → 400, queue_full → 429, not_found → 404, unavailable → 503,
 *   id_taken → 409, not_pending → 409, persistence → 503
 * - a body that does not decompress as its `Content-Encoding` says → 400 naming the encoding
 * - an undecodable URL → 400
 * - Postgres not answering → 503
 * @param contentEncoding the request's `Content-Encoding` header (absent or `identity`: not compressed)
 */
export function toProblem(err: unknown, limitBytes: number, contentEncoding?: string): HttpProblem {
  if (err instanceof HttpProblem) return err;
  if (err instanceof ScheduleError) return scheduleProblem(err);
  if (err instanceof SessionClientError) {
    switch (err.kind) {
      case 'invalid':
        return new HttpProblem('validation', curatedMessage(err) ?? 'the session rejected the request', {
          cause: err,
        });
      case 'queue_full':
        return new HttpProblem(
          'queue_full',
          curatedMessage(err) ?? 'the session queue is full; try again later',
          {
            cause: err,
            headers: { 'retry-after': '5' },
          },
        );
      case 'not_found':
        return new HttpProblem('session_not_found', 'the session does not exist', { cause: err });
      case 'unavailable':
        return new HttpProblem('unavailable', 'Temporal is not answering; nothing was accepted', {
          cause: err,
          extensions: { temporal: false },
        });
      case 'id_taken':
        return new HttpProblem('conflict', MESSAGE_ID_IN_USE, { cause: err });
      case 'not_pending':
        return new HttpProblem(
          'conflict',
          curatedMessage(err) ?? 'the tool call is not waiting for approval',
          {
            cause: err,
          },
        );
      case 'persistence':
        return new HttpProblem('unavailable', 'the message could not be stored; nothing was accepted', {
          cause: err,
          extensions: { postgres: false },
        });
    }
  }
  const bodyError = err as { type?: unknown; status?: unknown } | null;
  if (bodyError && typeof bodyError.type === 'string' && typeof bodyError.status === 'number') {
    switch (bodyError.type) {
      case 'entity.parse.failed':
        // The parser's strict mode refuses valid JSON that is not an object or array (`null`, `"x"`, `3`).
        return new HttpProblem(
          'bad_request',
          isValidJson((err as { body?: unknown }).body)
            ? 'the request body must be a JSON object'
            : 'the request body is not valid JSON',
          { cause: err },
        );
      case 'entity.verify.failed':
        return new HttpProblem('bad_request', 'the request body is not valid UTF-8', { cause: err });
      case 'entity.too.large':
        return new HttpProblem(
          'payload_too_large',
          `the request body is over the limit of ${limitBytes} bytes`,
          { cause: err },
        );
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new HttpProblem(
          'unsupported_media_type',
          'the request body encoding or charset is not supported',
          { cause: err },
        );
      default:
        if (bodyError.status >= 400 && bodyError.status < 500)
          return new HttpProblem('bad_request', 'the request body could not be read', { cause: err });
    }
  }
  // A path segment that is not valid percent-encoding (the router's decodeURIComponent failed).
  if (err instanceof URIError) {
    return new HttpProblem('bad_request', 'the request URL could not be decoded', { cause: err });
  }
  if (
    bodyError &&
    typeof bodyError.status === 'number' &&
    bodyError.status >= 400 &&
    bodyError.status < 500
  ) {
    // The body parser marks a failed decompression stream (zlib, brotli) with 400 and no `type`.
    const encoding = contentEncoding?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      return new HttpProblem(
        'bad_request',
        `the request body could not be decompressed (Content-Encoding: ${encoding})`,
        { cause: err },
      );
    }
    return new HttpProblem('bad_request', 'the request could not be read', { cause: err });
  }
  if (isDatabaseUnavailable(err)) {
    return new HttpProblem('unavailable', 'the database is not answering', {
      cause: err,
      extensions: { postgres: false },
    });
  }
  return new HttpProblem('internal', 'an internal error occurred; see the server log for this request id', {
    cause: err,
  });
}

/**
 * A refused schedule operation as a problem: invalid → 400 naming `field`, not_found → 404, too_many → 429,
 * conflict → 409, forbidden → 403, unavailable → 503. The messages are our own sentences (safe for `detail`).
 */
export function scheduleProblem(err: ScheduleError): HttpProblem {
  const opts = { cause: err, extensions: err.field ? { field: err.field } : {} };
  switch (err.kind) {
    case 'invalid':
      return new HttpProblem('validation', err.message, opts);
    case 'not_found':
      return new HttpProblem('schedule_not_found', err.message, opts);
    case 'too_many':
      return new HttpProblem('too_many_schedules', err.message, opts);
    case 'conflict':
      return new HttpProblem('conflict', err.message, opts);
    case 'forbidden':
      return new HttpProblem('forbidden', err.message, opts);
    case 'unavailable':
      return new HttpProblem('unavailable', err.message, { ...opts, extensions: { temporal: false } });
  }
}

/**
 * The typed provider error (docs/message-flow.md §13, "provider" failures): every failure of a model call leaves
 * `streamModelStep` as a {@link ModelCallError} whose `kind` the turn logic, the presenter and the Temporal
 * retry policy can act on. Raw provider text stays in `detail`, for logs only.
 */
import { APICallError, StreamProviderError } from 'ai';

/** What went wrong with a model call. */
export type ModelCallErrorKind =
  | 'rate_limited'
  | 'server'
  | 'timeout'
  | 'network'
  | 'auth'
  | 'bad_request'
  | 'context_overflow'
  | 'cancelled'
  | 'invalid_response';

const RETRYABLE: ReadonlySet<ModelCallErrorKind> = new Set([
  'rate_limited',
  'server',
  'timeout',
  'network',
  'invalid_response',
]);

/** Short, safe sentences for users and workflow history: never provider text, never secrets. */
const MESSAGES: Record<ModelCallErrorKind, string> = {
  rate_limited: 'The model provider is rate limiting requests.',
  server: 'The model provider returned a server error.',
  timeout: 'The model provider did not respond in time.',
  network: 'The model provider could not be reached.',
  auth: 'The model provider rejected the credentials.',
  bad_request: 'The model provider rejected the request.',
  context_overflow: "The conversation is too long for the model's context window.",
  cancelled: 'The model call was cancelled.',
  invalid_response: 'The model provider returned an invalid response.',
};

const DETAIL_MAX_CHARS = 2000;

/**
 * A failed model call.
 * - `kind`: the classification; `retryable` is derived from it (true for rate_limited, server, timeout,
 *   network, invalid_response).
 * - `status`: the HTTP status when the provider answered with one.
 * - `retryAfterMs`: from `retry-after-ms` / `Retry-After` (seconds or HTTP date), in ms, when present.
 * - `detail`: raw provider text (response body or error message, bearer tokens and `sk-…` keys redacted,
 *   at most 2000 chars) for logs only; `message` is a fixed sentence per kind.
 */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  readonly kind: ModelCallErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly detail?: string;

  constructor(init: {
    kind: ModelCallErrorKind;
    status?: number;
    retryAfterMs?: number;
    detail?: string;
    cause?: unknown;
  }) {
    super(MESSAGES[init.kind], init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.retryable = RETRYABLE.has(init.kind);
    if (init.status !== undefined) this.status = init.status;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.detail !== undefined) this.detail = redact(init.detail).slice(0, DETAIL_MAX_CHARS);
  }
}

/**
 * Wordings of "the input does not fit the context window" across providers: OpenAI (`context_length_exceeded`,
 * "maximum context length"), Anthropic ("prompt is too long"), Google ("input token count … exceeds the maximum
 * number of tokens"), vLLM / Ollama / llama.cpp ("maximum context length", "exceeds the available context size",
 * "input length exceeds the context length"), Mistral/Groq ("too many tokens", "context window").
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /context window/i,
  /too many tokens/i,
  /input is too long/i,
  /exceeds? (?:the )?(?:available |model'?s? )?context (?:size|length|window)/i,
  /exceeds the maximum number of tokens/i,
  /input token count.*exceeds/i,
  /reduce the length of the messages/i,
];

/** True when a provider's error text says the input overflowed the model's context window. */
export function isContextOverflowText(text: string): boolean {
  return OVERFLOW_PATTERNS.some((re) => re.test(text));
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

const INVALID_RESPONSE_ERRORS = new Set([
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_InvalidResponseDataError',
  'AI_EmptyResponseBodyError',
  'AI_NoContentGeneratedError',
  'AI_NoSuchToolError',
  'AI_InvalidToolInputError',
]);

/**
 * Maps anything a model call can throw (AI SDK errors, fetch/undici errors, abort reasons, in-stream provider
 * error objects) to a {@link ModelCallError}. Rules: 401/403 → auth; 408 → timeout; 429 → rate_limited;
 * 400/413 with `context_length_exceeded` or an overflow wording → context_overflow; other 4xx → bad_request;
 * 5xx → server; AbortError → cancelled; TimeoutError → timeout; connection failures → network; unparsable
 * output → invalid_response; anything else (e.g. an error event inside the stream) → server. Wrappers
 * (RetryError, NoOutputGeneratedError) are unwrapped.
 */
export function classifyModelError(err: unknown): ModelCallError {
  if (err instanceof ModelCallError) return err;
  const e = unwrap(err);
  if (e instanceof ModelCallError) return e;

  if (APICallError.isInstance(e)) {
    const body = e.responseBody ?? '';
    return fromStatus(e.statusCode, {
      detail: body !== '' ? body : e.message,
      text: `${body}\n${e.message}`,
      code: errorCode(e.data),
      headers: e.responseHeaders,
      transportCause: e.cause ?? e,
      cause: err,
    });
  }
  if (StreamProviderError.isInstance(e)) {
    // An error event inside an already started stream (e.g. Anthropic `overloaded_error`, an OpenAI-style
    // `{"error": …}` chunk); the status is only known when the provider adapter could infer it.
    const code = e.code !== undefined ? String(e.code) : errorCode(e.data);
    const label = `${e.type ?? ''} ${code ?? ''}`;
    const detail = `${e.type ?? 'error'}${code !== undefined ? ` (${code})` : ''}: ${e.message}`;
    if (e.statusCode !== undefined)
      return fromStatus(e.statusCode, {
        detail,
        text: e.message,
        code,
        headers: undefined,
        transportCause: e,
        cause: err,
      });
    const kind: ModelCallErrorKind =
      code === 'context_length_exceeded' || isContextOverflowText(e.message)
        ? 'context_overflow'
        : /rate_limit/i.test(label)
          ? 'rate_limited'
          : /authentication|permission|invalid_api_key/i.test(label)
            ? 'auth'
            : /invalid_request/i.test(label) && !e.isRetryable
              ? 'bad_request'
              : 'server';
    return new ModelCallError({ kind, detail, cause: err });
  }

  return new ModelCallError({ kind: classifyCauseless(e), detail: describe(e), cause: err });
}

/** The HTTP-status rules shared by failed responses and in-stream errors that carry a status. */
function fromStatus(
  status: number | undefined,
  r: {
    detail: string;
    text: string;
    code: string | undefined;
    headers: Record<string, string> | undefined;
    transportCause: unknown;
    cause: unknown;
  },
): ModelCallError {
  const base = { detail: r.detail, cause: r.cause, ...(status !== undefined ? { status } : {}) };
  const retryAfterMs = parseRetryAfter(r.headers);
  const withRetryAfter = retryAfterMs !== undefined ? { retryAfterMs } : {};
  // No status, or a 2xx whose body broke off: the SDK wraps connection failures (refused, reset, DNS) this way.
  if (status === undefined || status < 400) {
    const kind = classifyCauseless(r.transportCause);
    return new ModelCallError({ kind: kind === 'server' ? 'network' : kind, ...base });
  }
  if (status === 401 || status === 403) return new ModelCallError({ kind: 'auth', ...base });
  if (status === 408) return new ModelCallError({ kind: 'timeout', ...base });
  if (status === 429) return new ModelCallError({ kind: 'rate_limited', ...base, ...withRetryAfter });
  if (
    (status === 400 || status === 413) &&
    (r.code === 'context_length_exceeded' || isContextOverflowText(r.text))
  ) {
    return new ModelCallError({ kind: 'context_overflow', ...base });
  }
  if (status >= 500) return new ModelCallError({ kind: 'server', ...base, ...withRetryAfter });
  return new ModelCallError({ kind: 'bad_request', ...base });
}

/** Classifies an error that carries no HTTP status. */
function classifyCauseless(e: unknown): ModelCallErrorKind {
  const name = e instanceof Error ? e.name : '';
  if (name === 'AbortError') return 'cancelled';
  if (name === 'TimeoutError') return 'timeout';
  if (name === 'AI_LoadAPIKeyError') return 'auth';
  if (INVALID_RESPONSE_ERRORS.has(name)) return 'invalid_response';
  if (isNetworkError(e)) return 'network';
  const text = describe(e);
  if (errorCode(e) === 'context_length_exceeded' || isContextOverflowText(text)) return 'context_overflow';
  return 'server';
}

function isNetworkError(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur !== undefined && cur !== null && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (cur instanceof Error && /fetch failed|socket hang up|other side closed|terminated/i.test(cur.message))
      return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** Peels RetryError / NoOutputGeneratedError-style wrappers down to the error that says what happened. */
function unwrap(err: unknown): unknown {
  let cur = err;
  for (let depth = 0; depth < 5; depth++) {
    if (cur instanceof ModelCallError || APICallError.isInstance(cur)) return cur;
    if (cur instanceof Error && cur.name === 'AI_RetryError') {
      cur = (cur as Error & { lastError?: unknown }).lastError;
      continue;
    }
    if (cur instanceof Error && cur.name === 'AI_NoOutputGeneratedError' && cur.cause !== undefined) {
      cur = cur.cause;
      continue;
    }
    return cur;
  }
  return cur;
}

/** `error.code` of an OpenAI-style error body (`{error: {code}}`) or of an error object. */
function errorCode(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const inner = (data as { error?: unknown }).error;
  const holder = typeof inner === 'object' && inner !== null ? inner : data;
  const code = (holder as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Retry delay in ms from `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const get = (name: string) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = get('retry-after')?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

function redact(text: string): string {
  return text
    .replace(/Bearer\s+[^\s"',]+/gi, 'Bearer [redacted]')
    .replace(/\bsk-[A-Za-z0-9_*-]{8,}/g, 'sk-[redacted]');
}

// classifyModelError over the error shapes providers and the AI SDK produce.
import { describe, expect, it } from 'vitest';
import { APICallError, StreamProviderError } from 'ai';
import { ModelCallError, classifyModelError, parseRetryAfter } from './errors.ts';

function apiError(
  statusCode: number | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  cause?: unknown,
): APICallError {
  const responseBody = typeof body === 'string' ? body : JSON.stringify(body);
  const message =
    typeof body === 'object' && body !== null
      ? String((body as { error?: { message?: string } }).error?.message ?? 'error')
      : responseBody;
  return new APICallError({
    message,
    url: 'https://provider.example/v1/chat',
    requestBodyValues: {},
    ...(statusCode !== undefined ? { statusCode } : {}),
    responseHeaders: headers,
    responseBody,
    data: typeof body === 'object' ? body : undefined,
    cause,
  });
}

describe('classifyModelError', () => {
  it.each([
    [
      'OpenAI',
      400,
      {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    ],
    ['OpenAI (code only)', 400, { error: { message: 'Bad input', code: 'context_length_exceeded' } }],
    [
      'Anthropic',
      400,
      {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 215000 tokens > 200000 maximum',
        },
      },
    ],
    [
      'Google',
      400,
      {
        error: {
          code: 400,
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      },
    ],
    [
      'vLLM',
      400,
      {
        object: 'error',
        message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
        type: 'BadRequestError',
        code: 400,
      },
    ],
    ['Ollama', 400, { error: 'input is too long for the context window' }],
    [
      'llama.cpp',
      400,
      {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
        },
      },
    ],
    [
      'Mistral',
      400,
      {
        object: 'error',
        message: 'Prompt contains 40000 tokens, too many tokens for model with 32768 maximum context length',
        type: 'invalid_request_error',
      },
    ],
    ['a proxy answering 413', 413, 'Request too large: context window exceeded'],
  ])('maps a %s context overflow to context_overflow (not retryable)', (_who, status, body) => {
    const err = classifyModelError(apiError(status, body));
    expect(err).toMatchObject({ kind: 'context_overflow', retryable: false, status });
  });

  it('maps an overflow reported inside the stream (Anthropic-style error event) to context_overflow', () => {
    const err = classifyModelError(
      new StreamProviderError({
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
        type: 'invalid_request_error',
      }),
    );
    expect(err.kind).toBe('context_overflow');
  });

  it.each([
    [401, 'auth', false],
    [403, 'auth', false],
    [404, 'bad_request', false],
    [400, 'bad_request', false],
    [422, 'bad_request', false],
    [408, 'timeout', true],
    [429, 'rate_limited', true],
    [500, 'server', true],
    [502, 'server', true],
    [529, 'server', true],
  ] as const)('maps HTTP %i to %s (retryable %s)', (status, kind, retryable) => {
    const err = classifyModelError(apiError(status, { error: { message: 'provider says no' } }));
    expect(err).toMatchObject({ kind, retryable, status });
    expect(err.message).not.toContain('provider says no');
    expect(err.detail).toContain('provider says no');
  });

  it('reads Retry-After in seconds, as an HTTP date, and retry-after-ms', () => {
    expect(classifyModelError(apiError(429, {}, { 'retry-after': '3' })).retryAfterMs).toBe(3000);
    expect(
      classifyModelError(apiError(429, {}, { 'retry-after-ms': '1500', 'retry-after': '2' })).retryAfterMs,
    ).toBe(1500);
    expect(
      parseRetryAfter(
        { 'Retry-After': 'Wed, 21 Oct 2026 07:28:05 GMT' },
        Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'),
      ),
    ).toBe(5000);
    expect(classifyModelError(apiError(429, {})).retryAfterMs).toBeUndefined();
  });

  it('maps connection failures to network and aborts to cancelled', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(classifyModelError(apiError(undefined, '', {}, refused))).toMatchObject({
      kind: 'network',
      retryable: true,
    });
    expect(classifyModelError(new TypeError('fetch failed', { cause: refused })).kind).toBe('network');
    expect(classifyModelError(new DOMException('This operation was aborted', 'AbortError'))).toMatchObject({
      kind: 'cancelled',
      retryable: false,
    });
    expect(classifyModelError(new DOMException('timed out', 'TimeoutError'))).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
  });

  it('maps in-stream provider errors: overloaded → server, rate limit → rate_limited', () => {
    expect(
      classifyModelError(new StreamProviderError({ message: 'Overloaded', type: 'overloaded_error' })).kind,
    ).toBe('server');
    expect(
      classifyModelError(new StreamProviderError({ message: 'slow down', type: 'rate_limit_error' })).kind,
    ).toBe('rate_limited');
  });

  it('redacts keys and bearer tokens from detail', () => {
    const err = classifyModelError(
      apiError(401, {
        error: {
          message:
            'Incorrect API key provided: sk-proj-abcdefghijklmnop. Header was Bearer sk-proj-abcdefghijklmnop',
        },
      }),
    );
    expect(err.detail).not.toContain('abcdefghijklmnop');
    expect(err.message).toBe('The model provider rejected the credentials.');
  });

  it('passes a ModelCallError through unchanged', () => {
    const original = new ModelCallError({ kind: 'timeout' });
    expect(classifyModelError(original)).toBe(original);
  });
});

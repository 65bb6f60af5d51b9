// The provider layer against the fake model server, with the real AI SDK speaking HTTP over 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderInput, ProviderToolCall } from '../../domain/provider-messages.ts';
import { startFakeModelServer } from '../../test/fakes/model-server.ts';
import type { FakeModelServer } from '../../test/fakes/model-server.ts';
import { ModelCallError } from './errors.ts';
import { completeText, createLanguageModel, streamModelStep, toModelMessages } from './provider.ts';
import type { LlmConfig, ModelToolSpec } from './provider.ts';

const API_KEY = 'sk-test-fake-key-123456';
const runShell: ModelToolSpec = {
  name: 'run_shell_command',
  description: 'Run a shell command in the workspace.',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};

let server: FakeModelServer;
let cfg: LlmConfig;

beforeAll(async () => {
  server = await startFakeModelServer({ apiKey: API_KEY });
  cfg = {
    provider: 'openai-compatible',
    baseUrl: server.url,
    apiKey: API_KEY,
    model: 'fake-model',
    requestTimeoutMs: 10_000,
  };
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

function userSays(text: string, system = 'You are Kesoku.'): ProviderInput {
  return { system, messages: [{ role: 'user', content: text }] };
}

async function failureOf(promise: Promise<unknown>): Promise<ModelCallError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelCallError);
  return err as ModelCallError;
}

describe('streamModelStep', () => {
  it('streams text, reporting each delta in order, with usage and finish reason', async () => {
    server.enqueue({ kind: 'text', text: 'Hello brave new world', chunkDelayMs: 5 });
    const deltas: string[] = [];
    const result = await streamModelStep(cfg, userSays('hi'), [runShell], {
      onTextDelta: (d) => deltas.push(d),
    });

    expect(deltas).toEqual(['Hello ', 'brave ', 'new ', 'world']);
    expect(result.text).toBe('Hello brave new world');
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens + result.usage.outputTokens);
    const body = server.chatRequests()[0]?.body;
    expect(body?.stream).toBe(true);
    expect(body?.stream_options?.include_usage).toBe(true);
    expect(body?.messages?.[0]).toEqual({ role: 'system', content: 'You are Kesoku.' });
  });

  it('returns one tool call with parsed arguments and reports it through onToolCall', async () => {
    const seen: ProviderToolCall[] = [];
    const result = await streamModelStep(cfg, userSays('please run: ls -la /tmp'), [runShell], {
      onToolCall: (c) => seen.push(c),
    });

    expect(result.text).toBe('I will run `ls -la /tmp`.');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'run_shell_command', arguments: { command: 'ls -la /tmp' } },
    ]);
    expect(seen).toEqual(result.toolCalls);
    const wireTools = server.chatRequests()[0]?.body?.tools;
    expect(wireTools).toEqual([
      {
        type: 'function',
        function: {
          name: 'run_shell_command',
          description: runShell.description,
          parameters: runShell.parameters,
        },
      },
    ]);
  });

  it('returns two tool calls requested in one step, ids distinct, arguments parsed', async () => {
    server.enqueue({
      kind: 'tool_calls',
      calls: [
        {
          id: 'call_a',
          name: 'run_shell_command',
          arguments: { command: 'echo "a b"', nested: { n: 1, list: [1, 2] } },
        },
        { id: 'call_b', name: 'run_shell_command', arguments: { command: 'pwd' } },
      ],
    });
    const result = await streamModelStep(cfg, userSays('go'), [runShell]);

    expect(result.text).toBe('');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_a',
        name: 'run_shell_command',
        arguments: { command: 'echo "a b"', nested: { n: 1, list: [1, 2] } },
      },
      { id: 'call_b', name: 'run_shell_command', arguments: { command: 'pwd' } },
    ]);
  });

  it('sends a history with assistant tool calls and tool results in the Chat Completions shape', async () => {
    const input: ProviderInput = {
      system: 'sys',
      messages: [
        { role: 'user', content: 'run2: ls ;; pwd' },
        {
          role: 'assistant',
          content: 'I will run both.',
          tool_calls: [
            { id: 'call_1', name: 'run_shell_command', arguments: { command: 'ls' } },
            { id: 'call_2', name: 'run_shell_command', arguments: { command: 'pwd' } },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          name: 'run_shell_command',
          content: '=== STDOUT ===\na.txt\n=== STDERR ===\n',
        },
        { role: 'tool', tool_call_id: 'call_2', name: 'run_shell_command', content: '/work' },
        { role: 'assistant', content: 'Both ran.' },
        { role: 'user', content: 'thanks' },
      ],
    };
    const result = await streamModelStep(cfg, input, [runShell]);

    expect(result.text).toBe('echo: thanks');
    const messages = server.chatRequests()[0]?.body?.messages;
    expect(messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'run2: ls ;; pwd' },
      {
        role: 'assistant',
        content: 'I will run both.',
        // Chat Completions servers get reasoning_content on every tool-call message, empty without reasoning.
        reasoning_content: '',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'run_shell_command', arguments: '{"command":"ls"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'run_shell_command', arguments: '{"command":"pwd"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '=== STDOUT ===\na.txt\n=== STDERR ===\n' },
      { role: 'tool', tool_call_id: 'call_2', content: '/work' },
      { role: 'assistant', content: 'Both ran.' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('answers a trailing tool result with the default rule', async () => {
    const input: ProviderInput = {
      system: '',
      messages: [
        { role: 'user', content: 'run: echo hi' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', name: 'run_shell_command', arguments: { command: 'echo hi' } }],
        },
        {
          role: 'tool',
          tool_call_id: 'c1',
          name: 'run_shell_command',
          content: '=== STDOUT ===\nhi\n=== STDERR ===\n',
        },
      ],
    };
    const result = await streamModelStep(cfg, input, [runShell]);

    expect(result.text).toBe('Done: hi');
    // No system prompt given: none is sent.
    expect(server.chatRequests()[0]?.body?.messages?.[0]?.role).toBe('user');
  });

  it('returns empty text and no tool calls for an empty reply', async () => {
    server.enqueue({ kind: 'empty' });
    const deltas: string[] = [];
    const result = await streamModelStep(cfg, userSays('hi'), [runShell], {
      onTextDelta: (d) => deltas.push(d),
    });

    expect(result).toMatchObject({ text: '', toolCalls: [], finishReason: 'stop' });
    expect(deltas).toEqual([]);
  });

  it('classifies a 500 as a retryable server error, provider text only in detail', async () => {
    server.enqueue({
      kind: 'error',
      status: 500,
      body: { error: { message: 'upstream exploded secretly', type: 'server_error' } },
    });
    const err = await failureOf(streamModelStep(cfg, userSays('hi'), [runShell]));

    expect(err).toMatchObject({ kind: 'server', retryable: true, status: 500 });
    expect(err.message).not.toContain('exploded');
    expect(err.detail).toContain('upstream exploded secretly');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('classifies a 429 with Retry-After as rate_limited with retryAfterMs', async () => {
    server.enqueue({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
    });
    const err = await failureOf(streamModelStep(cfg, userSays('hi'), [runShell]));

    expect(err).toMatchObject({ kind: 'rate_limited', retryable: true, status: 429, retryAfterMs: 7000 });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('classifies a wrong API key as auth, not retryable, with exactly one request sent', async () => {
    const err = await failureOf(
      streamModelStep({ ...cfg, apiKey: 'sk-wrong-key-000000000' }, userSays('hi'), [runShell]),
    );

    expect(err).toMatchObject({ kind: 'auth', retryable: false, status: 401 });
    expect(err.message).not.toMatch(/sk-/);
    expect(err.detail).toContain('Incorrect API key provided');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-wrong-key-000000000');
  });

  it('classifies OpenAI context_length_exceeded as context_overflow', async () => {
    server.enqueue({ kind: 'context_overflow' });
    const err = await failureOf(streamModelStep(cfg, userSays('hi'), [runShell]));

    expect(err).toMatchObject({ kind: 'context_overflow', retryable: false, status: 400 });
  });

  it('aborts a hanging call within a second when the signal fires, closing the HTTP request', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const err = await failureOf(
      streamModelStep(cfg, userSays('hi'), [runShell], { signal: controller.signal }),
    );

    expect(err).toMatchObject({ kind: 'cancelled', retryable: false });
    expect(Date.now() - started).toBeLessThan(1000);
    await expect.poll(() => server.chatRequests()[0]?.clientAborted).toBe(true);
  });

  it('interrupts a reply that is still thinking (sleep: rule) once the request reached the provider', async () => {
    const controller = new AbortController();
    const call = streamModelStep(cfg, userSays('sleep: 30'), [runShell], { signal: controller.signal });
    await expect.poll(() => server.chatRequests().length).toBe(1);
    const started = Date.now();
    controller.abort();
    const err = await failureOf(call);

    expect(err.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(1000);
    await expect.poll(() => server.chatRequests()[0]?.clientAborted).toBe(true);
  });

  it('rejects at once, without a request, when the signal is already aborted', async () => {
    const err = await failureOf(
      streamModelStep(cfg, userSays('hi'), [runShell], { signal: AbortSignal.abort() }),
    );

    expect(err.kind).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
  });

  it('times out a hanging call after requestTimeoutMs of inactivity (headers sent or not)', async () => {
    for (const sendHeaders of [true, false]) {
      server.enqueue({ kind: 'hang', sendHeaders });
      const started = Date.now();
      const err = await failureOf(
        streamModelStep({ ...cfg, requestTimeoutMs: 500 }, userSays('hi'), [runShell]),
      );

      expect(err).toMatchObject({ kind: 'timeout', retryable: true });
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    await expect.poll(() => server.chatRequests().every((r) => r.clientAborted)).toBe(true);
  });

  it('does not time out a slow stream whose gaps stay under requestTimeoutMs', async () => {
    server.enqueue({ kind: 'slow_text', text: 'one two three four five six', chunkDelayMs: 150 });
    const result = await streamModelStep({ ...cfg, requestTimeoutMs: 500 }, userSays('hi'), []);

    expect(result.text).toBe('one two three four five six');
  });

  it('classifies a refused connection as network, retryable', async () => {
    const closed = await startFakeModelServer();
    await closed.close();
    const err = await failureOf(streamModelStep({ ...cfg, baseUrl: closed.url }, userSays('hi'), []));

    expect(err).toMatchObject({ kind: 'network', retryable: true });
  });

  it('works with provider openai pointed at the fake (Chat Completions API)', async () => {
    const result = await streamModelStep({ ...cfg, provider: 'openai' }, userSays('run: uname -a'), [
      runShell,
    ]);

    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'run_shell_command', arguments: { command: 'uname -a' } },
    ]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(server.chatRequests()[0]?.path).toBe('/v1/chat/completions');
  });
});

describe('completeText', () => {
  it('returns the text of a tool-less call (title generation)', async () => {
    const title = await completeText(
      cfg,
      userSays('fix my nginx config please', 'Write a short title for this conversation.'),
    );

    expect(title).toBe('Title: fix my nginx');
    expect(server.chatRequests()[0]?.body?.tools).toBeUndefined();
  });
});

describe('createLanguageModel and toModelMessages', () => {
  it('builds a model per provider, with the Chat Completions API for openai behind a base URL', () => {
    const base = { model: 'some-model', apiKey: 'k', requestTimeoutMs: 1000 };
    const describeModel = (c: LlmConfig) => {
      const m = createLanguageModel(c) as { provider: string; modelId: string };
      return `${m.provider}/${m.modelId}`;
    };
    expect(describeModel({ ...base, provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' })).toBe(
      'openai-compatible.chat/some-model',
    );
    expect(describeModel({ ...base, provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' })).toBe(
      'openai.chat/some-model',
    );
    expect(describeModel({ ...base, provider: 'openai' })).toBe('openai.responses/some-model');
    expect(describeModel({ ...base, provider: 'anthropic' })).toMatch(/^anthropic/);
    expect(describeModel({ ...base, provider: 'google' })).toMatch(/^google/);
    expect(() => createLanguageModel({ ...base, provider: 'openai-compatible' })).toThrow(ModelCallError);
  });

  it('groups consecutive tool results into one tool message with matching ids and names', () => {
    const messages = toModelMessages([
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'a', name: 'run_shell_command', arguments: { command: 'ls' } },
          { id: 'b', name: 'read_file', arguments: { path: 'x' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', name: 'run_shell_command', content: 'out a' },
      { role: 'tool', tool_call_id: 'b', name: 'read_file', content: 'out b' },
    ]);

    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'run_shell_command', input: { command: 'ls' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'read_file', input: { path: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'run_shell_command',
            output: { type: 'text', value: 'out a' },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'read_file',
            output: { type: 'text', value: 'out b' },
          },
        ],
      },
    ]);
  });
});

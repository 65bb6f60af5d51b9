// The fake model server's own wire behaviour, seen by a plain HTTP client.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultReply, requireReasoningContent, startFakeModelServer } from './model-server.ts';
import type { FakeModelServer } from './model-server.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The `data:` payloads of an SSE body, JSON-parsed except the final `[DONE]`. */
async function sseEvents(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length))
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as unknown)));
}

const user = (content: string) => ({ model: 'm', messages: [{ role: 'user', content }] });

describe('fake model server', () => {
  it('streams role first, content deltas, split tool-call arguments, finish, usage, then [DONE]', async () => {
    server = await startFakeModelServer();
    server.enqueue({
      kind: 'tool_calls',
      text: 'ok',
      calls: [{ id: 'call_x', name: 'run_shell_command', arguments: { command: 'echo hello world' } }],
    });
    const res = await post(server.url, {
      ...user('x'),
      stream: true,
      stream_options: { include_usage: true },
    });

    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await sseEvents(res);
    expect(events.at(-1)).toBe('[DONE]');
    type Chunk = {
      object: string;
      choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
      usage?: unknown;
    };
    const chunks = events.slice(0, -1) as Chunk[];
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: '' });
    expect(chunks[1]?.choices[0]?.delta).toEqual({ content: 'ok' });
    const toolDeltas = chunks.flatMap(
      (c) =>
        (c.choices[0]?.delta.tool_calls as
          Array<{ id?: string; function: { name?: string; arguments: string } }> | undefined) ?? [],
    );
    expect(toolDeltas[0]).toMatchObject({
      id: 'call_x',
      function: { name: 'run_shell_command', arguments: '' },
    });
    expect(toolDeltas.length).toBeGreaterThan(2);
    expect(toolDeltas.map((d) => d.function.arguments).join('')).toBe('{"command":"echo hello world"}');
    const finish = chunks.find(
      (c) => c.choices[0]?.finish_reason !== null && c.choices[0]?.finish_reason !== undefined,
    );
    expect(finish?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      },
    });
    expect(server.completedRequests).toBe(1);
  });

  it('sends no usage chunk unless stream_options.include_usage is set', async () => {
    server = await startFakeModelServer();
    const events = await sseEvents(await post(server.url, { ...user('hi'), stream: true }));

    expect(events.some((e) => typeof e === 'object' && e !== null && 'usage' in e)).toBe(false);
  });

  it('answers non-streaming requests with a chat.completion object', async () => {
    server = await startFakeModelServer();
    const res = await post(server.url, user('run: ls'));
    const body = (await res.json()) as {
      object: string;
      choices: Array<{
        message: { content: string; tool_calls: Array<{ function: { name: string; arguments: string } }> };
        finish_reason: string;
      }>;
    };

    expect(body.object).toBe('chat.completion');
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
    expect(body.choices[0]?.message.content).toBe('I will run `ls`.');
    expect(JSON.parse(body.choices[0]?.message.tool_calls[0]?.function.arguments ?? '')).toEqual({
      command: 'ls',
    });
  });

  it('lists a model on GET /v1/models and rejects a wrong bearer with OpenAI’s 401 body', async () => {
    server = await startFakeModelServer({ apiKey: 'right' });
    const models = await fetch(`${server.url}/models`, { headers: { authorization: 'Bearer right' } });
    expect(((await models.json()) as { data: unknown[] }).data).toHaveLength(1);

    const denied = await post(server.url, user('hi'), { authorization: 'Bearer wrong' });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({
      error: {
        message: 'Incorrect API key provided',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/models', '/v1/chat/completions']);
  });

  it('also serves /chat/completions without the /v1 prefix and uses respond() after the queue', async () => {
    server = await startFakeModelServer({ script: { respond: () => ({ kind: 'text', text: 'scripted' }) } });
    server.enqueue({ kind: 'text', text: 'queued' });
    const origin = server.url.replace(/\/v1$/, '');
    const first = (await (await post(origin, user('a'))).json()) as {
      choices: Array<{ message: { content: string } }>;
    };
    const second = (await (await post(server.url, user('b'))).json()) as {
      choices: Array<{ message: { content: string } }>;
    };

    expect([first.choices[0]?.message.content, second.choices[0]?.message.content]).toEqual([
      'queued',
      'scripted',
    ]);
  });

  it('records when a request arrived (arrivedAt) apart from when its body had been read (receivedAt)', async () => {
    server = await startFakeModelServer();
    const body = JSON.stringify(user('hello'));
    const { port } = server;
    // The body's second half follows 150 ms after the headers and the first half.
    await new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 150);
    });
    const [r] = server.chatRequests();
    expect(r?.arrivedAt).toBeTypeOf('number');
    expect(r!.receivedAt - r!.arrivedAt).toBeGreaterThanOrEqual(100);
    expect(r!.endedAt).toBeGreaterThanOrEqual(r!.receivedAt);
  });

  it('close() ends hanging connections', async () => {
    server = await startFakeModelServer();
    server.enqueue({ kind: 'hang' });
    const pending = post(server.url, { ...user('x'), stream: true }).then((r) => r.text());
    await expect.poll(() => server?.requests.length).toBe(1);
    const started = Date.now();
    await server.close();
    server = undefined;

    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('runs standalone with the default behaviour and stops on SIGTERM', async () => {
    const script = fileURLToPath(new URL('./model-server.ts', import.meta.url));
    const child = spawn(process.execPath, [script, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8');
      child.stdout.once('data', (line: string) => resolve(line.trim()));
      child.once('exit', (code) => reject(new Error(`fake exited early with ${code}`)));
    });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const body = (await (await post(url, user('hello there'))).json()) as {
        choices: Array<{ message: { content: string } }>;
      };
      expect(body.choices[0]?.message.content).toBe('echo: hello there');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});

describe('stream quirks of other servers', () => {
  type Chunk = { choices: Array<{ delta: Record<string, unknown>; finish_reason?: string | null }> };
  const streamed = async (reply: Parameters<FakeModelServer['enqueue']>[0]) => {
    server = await startFakeModelServer();
    server.enqueue(reply);
    const events = await sseEvents(await post(server.url, { ...user('x'), stream: true }));
    expect(events.at(-1)).toBe('[DONE]');
    return events.slice(0, -1) as Chunk[];
  };
  const finishReasons = (chunks: Chunk[]) => chunks.map((c) => c.choices[0]?.finish_reason);

  it("finishReason 'absent' sends no finish reason at all; null ends with an empty chunk whose finish_reason is null", async () => {
    const call = { name: 'run_shell_command', arguments: { command: 'ls' } };
    const absent = await streamed({ kind: 'tool_calls', calls: [call], finishReason: 'absent' });
    expect(finishReasons(absent).every((f) => f === null)).toBe(true);
    const nulled = await streamed({ kind: 'tool_calls', calls: [call], finishReason: null });
    expect(nulled.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: null });
  });

  it('streams reasoning first in reasoning_content (or reasoning), and content exactly as chunked', async () => {
    const chunks = await streamed({
      kind: 'text',
      text: '',
      reasoning: 'think first',
      chunks: ['<thi', 'nk>x</think>Hi'],
    });
    const deltas = chunks.map((c) => c.choices[0]?.delta ?? {});
    expect(
      deltas
        .map((d) => d.reasoning_content)
        .filter(Boolean)
        .join(''),
    ).toBe('think first');
    expect(deltas.map((d) => d.content).filter(Boolean)).toEqual(['<thi', 'nk>x</think>Hi']);
    const other = await streamed({ kind: 'text', text: 'ok', reasoning: 'r', reasoningField: 'reasoning' });
    expect(other.some((c) => c.choices[0]?.delta.reasoning === 'r')).toBe(true);
  });

  it('raw replies stream the given choices verbatim, with [DONE]', async () => {
    const chunks = await streamed({
      kind: 'raw',
      choices: [{ delta: { content: 'a' } }, { delta: {}, finish_reason: 'eos' }],
    });
    expect(chunks.map((c) => c.choices[0])).toEqual([
      { index: 0, logprobs: null, delta: { content: 'a' } },
      { index: 0, logprobs: null, delta: {}, finish_reason: 'eos' },
    ]);
  });

  it('requireReasoningContent answers 400 for a tool-call message without reasoning_content, in scope', async () => {
    server = await startFakeModelServer({ script: { guard: requireReasoningContent('current-turn') } });
    const toolCall = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const tool = { role: 'tool', tool_call_id: 'c', content: 'out' };
    const past = [{ role: 'user', content: 'a' }, toolCall, tool, { role: 'user', content: 'b' }];
    expect((await post(server.url, { model: 'm', messages: past })).status).toBe(200);
    const current = [{ role: 'user', content: 'a' }, toolCall, tool];
    const refused = await post(server.url, { model: 'm', messages: current });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'reasoning_content is missing',
    );
    const withReasoning = [{ role: 'user', content: 'a' }, { ...toolCall, reasoning_content: 'r' }, tool];
    expect((await post(server.url, { model: 'm', messages: withReasoning })).status).toBe(200);
    server.setGuard(requireReasoningContent('all'));
    expect((await post(server.url, { model: 'm', messages: past })).status).toBe(400);
  });
});

describe('defaultReply', () => {
  const req = (messages: Array<Record<string, unknown>>, tools?: unknown[]) => ({
    messages: messages as never,
    ...(tools ? { tools } : {}),
  });
  const tools = [{ type: 'function', function: { name: 'run_shell_command' } }];

  it('follows the documented rules', () => {
    expect(defaultReply(req([{ role: 'user', content: 'hello' }]))).toEqual({
      kind: 'text',
      text: 'echo: hello',
    });
    expect(defaultReply(req([{ role: 'user', content: [{ type: 'text', text: 'parts' }] }]))).toEqual({
      kind: 'text',
      text: 'echo: parts',
    });
    expect(defaultReply(req([{ role: 'user', content: 'please run: ls -la' }], tools))).toEqual({
      kind: 'tool_calls',
      text: 'I will run `ls -la`.',
      calls: [{ name: 'run_shell_command', arguments: { command: 'ls -la' } }],
    });
    expect(defaultReply(req([{ role: 'user', content: 'run2: ls ;; pwd' }], tools))).toMatchObject({
      kind: 'tool_calls',
      calls: [{ arguments: { command: 'ls' } }, { arguments: { command: 'pwd' } }],
    });
    expect(defaultReply(req([{ role: 'user', content: 'sleep: 2' }]))).toEqual({
      kind: 'text',
      text: 'slept 2s',
      delayMs: 2000,
    });
    expect(
      defaultReply(
        req([{ role: 'tool', tool_call_id: 'c', content: '=== STDOUT ===\n  first line  \nsecond' }]),
      ),
    ).toEqual({ kind: 'text', text: 'Done: first line' });
    expect(defaultReply(req([{ role: 'tool', tool_call_id: 'c', content: 'x'.repeat(300) }]))).toEqual({
      kind: 'text',
      text: `Done: ${'x'.repeat(200)}`,
    });
  });

  it('detects title requests by a tool-less "title" system prompt or a "title:" user prefix', () => {
    const conversation = { role: 'user', content: 'how do I resize a partition safely' };
    expect(defaultReply(req([{ role: 'system', content: 'Generate a short title.' }, conversation]))).toEqual(
      { kind: 'text', text: 'Title: how do I' },
    );
    expect(defaultReply(req([{ role: 'user', content: 'title: deploy the app now' }], tools))).toEqual({
      kind: 'text',
      text: 'Title: deploy the app',
    });
    // The agent's own system prompt may mention titles; with tools offered it is a normal turn.
    expect(
      defaultReply(req([{ role: 'system', content: 'Keep the title short.' }, conversation], tools)),
    ).toEqual({ kind: 'text', text: 'echo: how do I resize a partition safely' });
  });
});

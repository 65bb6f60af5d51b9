/**
 * A fake model provider speaking the OpenAI Chat Completions wire protocol over real HTTP, so the real AI SDK
 * (or any OpenAI-compatible client) can be tested against it over loopback.
 *
 * Endpoints: `POST /v1/chat/completions` (also `/chat/completions`), streaming (SSE) and non-streaming, and
 * `GET /v1/models`. What each chat request gets is decided, in order, by the queue (`server.enqueue`), the
 * `respond` function of the script, and otherwise by the default rules (see {@link defaultReply}), which let
 * other processes (chaos tests, a scripted terminal demo) drive it by what the user types.
 *
 * Standalone: `node test/fakes/model-server.ts --port 4010 [--host 127.0.0.1] [--api-key KEY]` prints its URL
 * and serves the default behaviour until SIGTERM/SIGINT.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readBody, sendJson } from './http.ts';

/**
 * How a streamed answer ends, to emulate servers that stream differently from the reference API:
 * - `finishReason`: the value of `finish_reason` on the last chunk. Default: `tool_calls` with calls, else
 *   `stop`. `null` sends a last chunk whose `finish_reason` is null (some vLLM and LM Studio builds);
 *   `'absent'` sends no finish chunk at all, so no choice ever carries a finish reason (the stream simply
 *   reaches `[DONE]`, as some Ollama and llama.cpp versions do).
 * - `reasoning`: text streamed first as reasoning deltas (DeepSeek, Qwen, Kimi thinking models), in
 *   word-sized chunks, in the field `reasoningField` (default `reasoning_content`; some servers use `reasoning`).
 * - `chunks`: the content deltas exactly as given (instead of word-sized chunks of `text`), e.g. to split a
 *   `<think>` tag across chunks.
 */
export interface StreamShape {
  finishReason?: string | null | 'absent';
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  chunks?: string[];
}

/** One raw streamed choice: `delta` and `finish_reason` as they go on the wire (see {@link FakeReply} `raw`). */
export interface RawChoice {
  delta: Record<string, unknown>;
  finish_reason?: string | null;
}

/** One tool call the fake should emit; `id` defaults to `call_<n>`. */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * What the fake answers to one chat request.
 * - `text`: the text streamed in word-sized chunks, `chunkDelayMs` (ms, default 0) between chunks; with `delayMs`
 *   the response headers (and the role chunk) go out at once and the first word follows after that many ms.
 * - `tool_calls`: optional text first, then the calls (streamed as name + several argument fragments each).
 * - `empty`: no content and no tool calls, finish_reason `stop`.
 * - `error`: an HTTP error with `status`, a JSON `body` (default: an OpenAI-style error object) and `headers`.
 * - `context_overflow`: 400 with OpenAI's `context_length_exceeded` error body.
 * - `hang`: never answers; with `sendHeaders` (default true) a streaming request gets 200 + SSE headers first.
 *   The connection stays open until the client aborts or the server closes.
 * - `slow_text`: like `text` but the delay is mandatory; for timeout and interrupt tests.
 * - `raw`: the given choices streamed one per chunk exactly as written (then usage and `[DONE]` unless
 *   `done: false`), for shapes the other kinds cannot express.
 * `text` and `tool_calls` take a {@link StreamShape} to emulate the stream quirks of other servers.
 */
export type FakeReply =
  | ({ kind: 'text'; text: string; chunkDelayMs?: number; delayMs?: number } & StreamShape)
  | ({ kind: 'tool_calls'; text?: string; calls: FakeToolCall[] } & StreamShape)
  | { kind: 'raw'; choices: RawChoice[]; done?: boolean; chunkDelayMs?: number }
  | { kind: 'empty' }
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'context_overflow' }
  | { kind: 'hang'; sendHeaders?: boolean }
  | { kind: 'slow_text'; text: string; chunkDelayMs: number };

/** One HTTP request the fake received. `body` is the parsed JSON body (undefined when absent or not JSON). */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody | undefined;
  /** Epoch ms when the request arrived (its headers were parsed), before its body was read. */
  arrivedAt: number;
  /** Epoch ms when the request's body had been read. */
  receivedAt: number;
  /** True once the client went away before the response was complete (abort, timeout). */
  clientAborted: boolean;
  /** Epoch ms when the response was completely written (benchmarks subtract the model's time with it). */
  endedAt?: number;
}

/** The subset of a Chat Completions request body the fake looks at; everything else is kept as received. */
export interface ChatRequestBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: WireMessage[];
  tools?: unknown[];
  [key: string]: unknown;
}

/** A Chat Completions message as it arrives on the wire. */
export interface WireMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string; image_url?: { url: string } }> | null;
  reasoning_content?: string;
  name?: string;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
}

/**
 * How the fake decides replies: `guard` first (a server's request validation: return a reply, usually an
 * error, to refuse the request), then `queue`, then `respond` (return undefined to fall through), then the
 * default rules.
 */
export interface FakeScript {
  queue?: FakeReply[];
  respond?: (request: FakeRequest) => FakeReply | undefined;
  guard?: (request: FakeRequest) => FakeReply | undefined;
}

/** Options of {@link startFakeModelServer}. `port` 0 (default) picks a free port. */
export interface FakeModelServerOptions {
  port?: number;
  host?: string;
  script?: FakeScript;
  /** When set, requests need `Authorization: Bearer <apiKey>`; others get OpenAI's 401 body. */
  apiKey?: string;
}

/** A running fake. `url` is the base URL including `/v1` (what `baseURL` of a client wants). */
export interface FakeModelServer {
  url: string;
  port: number;
  /** Every request received, in arrival order. */
  readonly requests: FakeRequest[];
  /** Chat requests whose response was sent completely (errors included; hangs and aborted streams excluded). */
  readonly completedRequests: number;
  /** Chat-completion requests only, in arrival order. */
  chatRequests(): FakeRequest[];
  enqueue(...replies: FakeReply[]): void;
  /** Replaces the `respond` function (undefined restores the default rules). */
  setRespond(respond: FakeScript['respond']): void;
  /** Replaces the request validation run before everything else (undefined: accept every request). */
  setGuard(guard: FakeScript['guard']): void;
  /** Stops listening and destroys every open connection, hanging ones included. */
  close(): Promise<void>;
}

const OVERFLOW_BODY = {
  error: {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
};

const AUTH_BODY = {
  error: {
    message: 'Incorrect API key provided',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
};

/** Starts the fake on `host` (default 127.0.0.1) and `port` (default: a free one). */
export async function startFakeModelServer(opts: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const host = opts.host ?? '127.0.0.1';
  const queue: FakeReply[] = [...(opts.script?.queue ?? [])];
  let respond = opts.script?.respond;
  let guard = opts.script?.guard;
  const requests: FakeRequest[] = [];
  let completed = 0;
  let seq = 0;
  const closing = new AbortController();

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed)
        sendJson(res, 500, { error: { message: String(err), type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    let body: ChatRequestBody | undefined;
    try {
      body = raw.length > 0 ? (JSON.parse(raw) as ChatRequestBody) : undefined;
    } catch {
      body = undefined;
    }
    const record: FakeRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      arrivedAt,
      receivedAt: Date.now(),
      clientAborted: false,
    };
    requests.push(record);
    // 'close' on the response fires both after a normal end and when the client goes away; only the latter counts.
    res.on('close', () => {
      if (!res.writableFinished) record.clientAborted = true;
    });
    res.on('finish', () => {
      record.endedAt = Date.now();
    });

    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      sendJson(res, 401, AUTH_BODY);
      return;
    }
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'kesoku-fake' }],
      });
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      sendJson(res, 404, {
        error: { message: `Unknown route ${req.method} ${path}`, type: 'invalid_request_error' },
      });
      return;
    }
    if (body === undefined || !Array.isArray(body.messages)) {
      sendJson(res, 400, { error: { message: 'messages is required', type: 'invalid_request_error' } });
      return;
    }

    const reply = guard?.(record) ?? queue.shift() ?? respond?.(record) ?? defaultReply(body);
    const gone = AbortSignal.any([closing.signal, closedSignal(res)]);
    const ctx: ReplyContext = {
      id: `chatcmpl-fake${++seq}`,
      model: body.model ?? 'fake-model',
      created: Math.floor(Date.now() / 1000),
      body,
      gone,
      nextCallId: () => `call_fake${seq}_${Math.random().toString(36).slice(2, 8)}`,
    };
    await sendReply(res, reply, ctx);
    // writableEnded flips synchronously in end(), so the count is up before the client can see the response end.
    if (res.writableEnded && !record.clientAborted) completed++;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    requests,
    get completedRequests() {
      return completed;
    },
    chatRequests: () => requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')),
    enqueue: (...replies) => void queue.push(...replies),
    setRespond: (fn) => void (respond = fn),
    setGuard: (fn) => void (guard = fn),
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface ReplyContext {
  id: string;
  model: string;
  created: number;
  body: ChatRequestBody;
  /** Aborts when the client disconnects or the server closes. */
  gone: AbortSignal;
  nextCallId: () => string;
}

async function sendReply(res: ServerResponse, reply: FakeReply, ctx: ReplyContext): Promise<void> {
  switch (reply.kind) {
    case 'error':
      sendJson(
        res,
        reply.status,
        reply.body ?? {
          error: {
            message: `Fake error ${reply.status}`,
            type: reply.status >= 500 ? 'server_error' : 'invalid_request_error',
          },
        },
        reply.headers,
      );
      return;
    case 'context_overflow':
      sendJson(res, 400, OVERFLOW_BODY);
      return;
    case 'hang':
      if (ctx.body.stream === true && reply.sendHeaders !== false) {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        });
        res.flushHeaders();
      }
      await sleep(Number.POSITIVE_INFINITY, ctx.gone);
      return;
    case 'text':
      await sendCompletion(res, ctx, reply.text, [], reply.chunkDelayMs ?? 0, reply.delayMs ?? 0, reply);
      return;
    case 'raw':
      await sendRaw(res, ctx, reply.choices, reply.done !== false, reply.chunkDelayMs ?? 0);
      return;
    case 'slow_text':
      await sendCompletion(res, ctx, reply.text, [], reply.chunkDelayMs);
      return;
    case 'tool_calls':
      await sendCompletion(
        res,
        ctx,
        reply.text ?? '',
        reply.calls.map((c) => ({
          id: c.id ?? ctx.nextCallId(),
          name: c.name,
          arguments: JSON.stringify(c.arguments),
        })),
        0,
        0,
        reply,
      );
      return;
    case 'empty':
      await sendCompletion(res, ctx, '', [], 0);
      return;
  }
}

interface OutCall {
  id: string;
  name: string;
  arguments: string;
}

/** Sends a successful completion, streamed (SSE, OpenAI chunk shapes) or as one `chat.completion` object. */
async function sendCompletion(
  res: ServerResponse,
  ctx: ReplyContext,
  text: string,
  calls: OutCall[],
  chunkDelayMs: number,
  firstDelayMs = 0,
  shape: StreamShape = {},
): Promise<void> {
  const finishReason =
    shape.finishReason === undefined ? (calls.length > 0 ? 'tool_calls' : 'stop') : shape.finishReason;
  const usage = estimateUsage(ctx.body, text, calls);
  if (ctx.body.stream !== true) {
    await sleep(firstDelayMs + chunkDelayMs * splitWords(text).length, ctx.gone);
    if (ctx.gone.aborted) return;
    const message = {
      role: 'assistant',
      content: text === '' && calls.length > 0 ? null : text,
      ...(shape.reasoning !== undefined
        ? { [shape.reasoningField ?? 'reasoning_content']: shape.reasoning }
        : {}),
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
      refusal: null,
    };
    sendJson(res, 200, {
      id: ctx.id,
      object: 'chat.completion',
      created: ctx.created,
      model: ctx.model,
      choices: [
        { index: 0, message, logprobs: null, finish_reason: finishReason === 'absent' ? null : finishReason },
      ],
      usage,
    });
    return;
  }

  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse(res, {
      id: ctx.id,
      object: 'chat.completion.chunk',
      created: ctx.created,
      model: ctx.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });

  chunk({ role: 'assistant', content: '', refusal: null });
  if (firstDelayMs > 0) await sleep(firstDelayMs, ctx.gone);
  for (const word of splitWords(shape.reasoning ?? '')) {
    if (chunkDelayMs > 0) await sleep(chunkDelayMs, ctx.gone);
    if (ctx.gone.aborted) return;
    chunk({ [shape.reasoningField ?? 'reasoning_content']: word });
  }
  for (const word of shape.chunks ?? splitWords(text)) {
    if (chunkDelayMs > 0) await sleep(chunkDelayMs, ctx.gone);
    if (ctx.gone.aborted) return;
    chunk({ content: word });
  }
  calls.forEach((call, index) => {
    // OpenAI sends the id, type and name first with empty arguments, then the arguments in small fragments.
    chunk({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    for (const fragment of splitFragments(call.arguments, 3))
      chunk({ tool_calls: [{ index, function: { arguments: fragment } }] });
  });
  if (finishReason !== 'absent') chunk({}, finishReason);
  if (ctx.body.stream_options?.include_usage === true) {
    sse(res, {
      id: ctx.id,
      object: 'chat.completion.chunk',
      created: ctx.created,
      model: ctx.model,
      choices: [],
      usage,
    });
  }
  res.end('data: [DONE]\n\n');
}

/** Streams `choices` one per chunk exactly as given; then usage (when asked) and, with `done`, `[DONE]`. */
async function sendRaw(
  res: ServerResponse,
  ctx: ReplyContext,
  choices: RawChoice[],
  done: boolean,
  chunkDelayMs: number,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const base = { id: ctx.id, object: 'chat.completion.chunk', created: ctx.created, model: ctx.model };
  for (const choice of choices) {
    if (chunkDelayMs > 0) await sleep(chunkDelayMs, ctx.gone);
    if (ctx.gone.aborted) return;
    sse(res, { ...base, choices: [{ index: 0, logprobs: null, ...choice }] });
  }
  if (ctx.body.stream_options?.include_usage === true) {
    sse(res, { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
  }
  res.end(done ? 'data: [DONE]\n\n' : undefined);
}

/**
 * A guard that answers 400 the way thinking servers do when an assistant message with tool calls comes back
 * without its `reasoning_content`. `scope` `current-turn` checks only the assistant messages after the last
 * user message (DeepSeek's thinking mode with tools); `all` checks every one (Kimi's thinking models).
 * With `allowEmpty` the field only has to be there, empty or not (DeepSeek and Moonshot when the model gave no
 * reasoning). The error body is the OpenAI-style `invalid_request_error`, naming the message index.
 */
export function requireReasoningContent(
  scope: 'current-turn' | 'all',
  opts: { allowEmpty?: boolean } = {},
): (request: FakeRequest) => FakeReply | undefined {
  return (request) => {
    const messages = request.body?.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    for (const [i, m] of messages.entries()) {
      if (scope === 'current-turn' && i < lastUser) continue;
      if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
      if (typeof m.reasoning_content === 'string' && (opts.allowEmpty === true || m.reasoning_content !== ''))
        continue;
      return {
        kind: 'error',
        status: 400,
        body: {
          error: {
            message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${i}`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    }
    return undefined;
  };
}

/**
 * The default rules, keyed on the request (seed of the chaos tests and the scripted demo):
 * 1. last message is a tool result → text `Done: <first line>` (first non-empty line that is not a
 *    `=== STDOUT ===`-style section marker, trimmed to 200 chars);
 * 2. title request → text `Title: <first 3 words of the last user text>`. A request is a title request when it
 *    carries no tools and its system prompt contains the word "title", or when the last user text starts
 *    with `title:` (that prefix is not counted among the words);
 * 3. last user text contains `run2: <a> ;; <b>` → text + two `run_shell_command` calls in one step;
 * 4. contains `run: <command>` → text "I will run `<command>`." + one `run_shell_command {command}` call;
 * 5. contains `sleep: <seconds>` → headers at once, then text `slept <seconds>s` after that delay;
 * 6. otherwise text `echo: <last user text>`.
 * The last user text is read without the runtime context appended to it (activities/knowledge/context.ts).
 * Commands run to the end of their line.
 */
export function defaultReply(body: ChatRequestBody): FakeReply {
  const messages = body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const lines = contentText(last.content)
      .split('\n')
      .map((l) => l.trim());
    const first = lines.find((l) => l !== '' && !/^=+ .* =+$/.test(l)) ?? lines[0] ?? '';
    return { kind: 'text', text: `Done: ${first.slice(0, 200)}` };
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  // Like a model, the rules read what the person wrote, not the runtime context Kesoku appends after it.
  const userText = lastUser ? contentText(lastUser.content).split('\n\n[Runtime Context]')[0]! : '';
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n');
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  const titlePrefix = /^\s*title:/i;
  if (titlePrefix.test(userText) || (!hasTools && /\btitle\b/i.test(system))) {
    const words = userText.replace(titlePrefix, '').trim().split(/\s+/).filter(Boolean).slice(0, 3);
    return { kind: 'text', text: `Title: ${words.join(' ')}` };
  }
  const run2 = /\brun2:[ \t]*(.+?)[ \t]*;;[ \t]*(.+?)[ \t]*$/m.exec(userText);
  if (run2?.[1] !== undefined && run2[2] !== undefined) {
    const [a, b] = [run2[1], run2[2]];
    return {
      kind: 'tool_calls',
      text: `I will run \`${a}\` and \`${b}\`.`,
      calls: [
        { name: 'run_shell_command', arguments: { command: a } },
        { name: 'run_shell_command', arguments: { command: b } },
      ],
    };
  }
  const run = /\brun:[ \t]*(.+?)[ \t]*$/m.exec(userText);
  if (run?.[1] !== undefined) {
    return {
      kind: 'tool_calls',
      text: `I will run \`${run[1]}\`.`,
      calls: [{ name: 'run_shell_command', arguments: { command: run[1] } }],
    };
  }
  const sleepMatch = /\bsleep:[ \t]*(\d+(?:\.\d+)?)/.exec(userText);
  if (sleepMatch?.[1] !== undefined) {
    return { kind: 'text', text: `slept ${sleepMatch[1]}s`, delayMs: Number(sleepMatch[1]) * 1000 };
  }
  return { kind: 'text', text: `echo: ${userText}` };
}

/** The text of a wire message's content (the text parts of a multi-part content). */
export function contentText(content: WireMessage['content']): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/** Word-sized chunks, each keeping its trailing whitespace, so joining them gives the text back. */
function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

function splitFragments(s: string, parts: number): string[] {
  if (s.length <= 1) return [s];
  const size = Math.ceil(s.length / parts);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** A rough token estimate (4 characters per token), enough to make usage non-zero and monotonic. */
function estimateUsage(body: ChatRequestBody, text: string, calls: OutCall[]) {
  const promptChars = JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length;
  const prompt_tokens = Math.ceil(promptChars / 4);
  const completion_tokens = Math.ceil(
    (text.length + calls.reduce((n, c) => n + c.name.length + c.arguments.length, 0)) / 4,
  );
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function sse(res: ServerResponse, data: unknown): void {
  if (!res.destroyed) res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function closedSignal(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => ac.abort());
  return ac.signal;
}

/** Resolves after `ms` or as soon as `signal` aborts (never rejects). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener('abort', done, { once: true });
  });
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (isMain()) {
  const port = Number(argValue('--port') ?? 4010);
  const server = await startFakeModelServer({
    port,
    host: argValue('--host'),
    apiKey: argValue('--api-key'),
  });
  console.log(server.url);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * Test support for the REST API: a real stack (test/support/stack.ts) with the API server on a free port, a
 * `call` helper that validates EVERY response against the OpenAPI document served by the app (ajv, JSON Schema
 * 2020-12), and an SSE reader built on eventsource-parser.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, expect } from 'vitest';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../api/server.ts';
import { buildOpenApiDocument } from '../../api/openapi.ts';
import { createLogger, type Logger } from '../../infra/logger.ts';
import type { FakeReply } from '../fakes/model-server.ts';
import { startStack, type Stack, type StackOptions } from '../support/stack.ts';

export type Json = Record<string, unknown>;

export const testLogger = (): Logger => createLogger('test-api', process.env.KESOKU_TEST_LOG ?? 'silent');

/** Starts an API server on 127.0.0.1:0 over the stack's pool, session client and database. */
export async function startApiFor(stack: Stack, opts: Partial<ApiServerOptions> = {}): Promise<ApiServer> {
  return startApiServer({
    pool: stack.pool,
    sessions: stack.sessions,
    databaseUrl: stack.databaseUrl,
    logger: testLogger(),
    host: '127.0.0.1',
    port: 0,
    tokens: [],
    ...opts,
  });
}

export interface Harness {
  stack: Stack;
  api: ApiServer;
  client: ApiClient;
  stop(): Promise<void>;
}

/** A stack plus an API server and a validating client. */
export async function startHarness(
  opts: { stack?: StackOptions; api?: Partial<ApiServerOptions> } = {},
): Promise<Harness> {
  const stack = await startStack(opts.stack);
  // The API reports the approval settings the stack's worker applies (its default: `off`), and creates
  // sessions in the worker's default locale.
  const approvals = opts.stack?.approvals ?? { policy: 'off' as const };
  const defaultLocale = opts.stack?.defaultLocale;
  const api = await startApiFor(stack, {
    ...opts.api,
    app: { approvals, ...(defaultLocale ? { defaultLocale } : {}), ...opts.api?.app },
  });
  return {
    stack,
    api,
    client: new ApiClient(api.url),
    async stop() {
      await api.close();
      await stack.stop();
    },
  };
}

/**
 * Registers beforeAll/afterAll hooks that start and stop one harness for the calling test file.
 * @returns the harness, whose members may be read once beforeAll ran
 */
export function useHarness(opts: Parameters<typeof startHarness>[0] = {}): Omit<Harness, 'stop'> {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(opts);
  });
  afterAll(async () => h?.stop());
  const get = (): Harness => {
    if (!h) throw new Error('the harness is not started yet');
    return h;
  };
  return {
    get stack() {
      return get().stack;
    },
    get api() {
      return get().api;
    },
    get client() {
      return get().client;
    },
  };
}

/**
 * Scripts the fake model's reply to requests whose last message contains `marker`, other requests (e.g. a
 * previous turn's background title request) keep the default rules. @returns a function restoring the defaults
 */
export function replyWhen(stack: Stack, marker: string, reply: FakeReply): () => void {
  stack.fake.setRespond((req) => {
    const last = req.body?.messages?.at(-1);
    return typeof last?.content === 'string' && last.content.includes(marker) ? reply : undefined;
  });
  return () => stack.fake.setRespond(undefined);
}

// ---------------------------------------------------------------------------------------------------------
// OpenAPI response validation

const DOC_ID = 'https://kesoku.test/openapi.json';
const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** Validates real responses against the OpenAPI document's response schemas. */
export class OpenApiValidator {
  readonly doc: Json;
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; regex: RegExp }[];

  constructor(doc: Json = buildOpenApiDocument()) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
    this.templates = Object.keys(doc.paths as Json).map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** The document path template of a concrete path, e.g. `/v1/sessions/{sessionId}`. */
  templateOf(path: string): string | null {
    return this.templates.find((t) => t.regex.test(path))?.template ?? null;
  }

  /** A validator for a schema at a JSON pointer into the document (`#/components/schemas/Message`). */
  validatorAt(pointer: string): ValidateFunction {
    let v = this.cache.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `${DOC_ID}${pointer}` });
      this.cache.set(pointer, v);
    }
    return v;
  }

  /**
   * Checks a response: the operation must document the status, the content type must be documented for it,
   * and the body must validate against its schema. @returns a list of problems (empty when valid)
   */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): string[] {
    const template = this.templateOf(path);
    if (!template) return [`no path in the document matches ${path}`];
    const op = ((this.doc.paths as Json)[template] as Json)[method.toLowerCase()] as Json | undefined;
    if (!op) return [`${method} ${template} is not in the document`];
    const responses = op.responses as Json;
    let pointer = `#/paths/${escapePointer(template)}/${method.toLowerCase()}/responses/${status}`;
    let response = responses[String(status)] as Json | undefined;
    if (!response) return [`${method} ${template} does not document status ${status}`];
    if (typeof response.$ref === 'string') {
      pointer = response.$ref;
      const name = pointer.split('/').at(-1) as string;
      response = ((this.doc.components as Json).responses as Json)[name] as Json;
    }
    const media = (contentType ?? '').split(';')[0]?.trim() ?? '';
    const content = (response.content ?? {}) as Json;
    if (!(media in content))
      return [
        `${method} ${template} ${status}: content type ${media} is not documented (${Object.keys(content).join(', ')})`,
      ];
    if (media === 'text/event-stream') return [];
    const validate = this.validatorAt(`${pointer}/content/${escapePointer(media)}/schema`);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }
}

let sharedValidator: OpenApiValidator | null = null;
export const validator = (): OpenApiValidator => (sharedValidator ??= new OpenApiValidator());

// ---------------------------------------------------------------------------------------------------------
// HTTP client

export interface ApiResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Global-fetch client; every JSON answer is validated against the OpenAPI document (test fails if not). */
export class ApiClient {
  readonly baseUrl: string;
  private readonly defaults: Record<string, string>;

  constructor(baseUrl: string, defaults: Record<string, string> = {}) {
    this.baseUrl = baseUrl;
    this.defaults = defaults;
  }

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, { ...this.defaults, ...headers });
  }

  async request<T = Json>(
    method: string,
    path: string,
    opts: { json?: unknown; body?: string; headers?: Record<string, string>; validate?: boolean } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.defaults, ...opts.headers };
    let body: string | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    const contentType = res.headers.get('content-type');
    let parsed: unknown = text;
    if (contentType?.includes('json') && text.length > 0) parsed = JSON.parse(text);
    if (opts.validate !== false) {
      const pathname = new URL(path, 'http://x').pathname;
      const problems = validator().check(method, pathname, res.status, contentType, parsed);
      expect(
        problems,
        `${method} ${path} → ${res.status} should match the OpenAPI document: ${text.slice(0, 500)}`,
      ).toEqual([]);
      if (res.status >= 400) {
        expect(contentType).toMatch(/^application\/problem\+json/);
        expect((parsed as Json).status).toBe(res.status);
        expect((parsed as Json).request_id).toBe(res.headers.get('x-request-id'));
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = Json>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }
  post<T = Json>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { json, headers });
  }
  patch<T = Json>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, { json, headers });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Server-sent events

export interface SseEvent {
  event: string;
  id?: string;
  data: Json;
  /** Epoch ms when the client parsed it. */
  receivedAt: number;
}

/** An open event stream; events and comments are collected as they arrive. */
export interface EventStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first collected event (from the start) matching `pred`. */
  waitFor(pred: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves once `pred` holds for the collected events. */
  until(pred: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens `GET {path}` as an event stream; every event's data is validated against the document's schemas. */
export async function openEvents(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<EventStream> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  const schemaFor: Record<string, string> = {
    'turn.committed': '#/components/schemas/TurnCommittedEvent',
    'turn.updated': '#/components/schemas/TurnUpdatedEvent',
    approval_requested: '#/components/schemas/ApprovalRequestedEvent',
  };
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      const data = JSON.parse(m.data) as Json;
      const pointer = schemaFor[m.event ?? ''];
      if (!pointer) throw new Error(`unexpected SSE event ${m.event}`);
      const validate = validator().validatorAt(pointer);
      if (!validate(data))
        throw new Error(`SSE ${m.event} does not match ${pointer}: ${JSON.stringify(validate.errors)}`);
      events.push({ event: m.event ?? 'message', id: m.id, data, receivedAt: Date.now() });
      notify();
    },
    onComment: (c) => {
      comments.push(c.trim());
      notify();
    },
  });
  let streamError: unknown = null;
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch (err) {
      if (!abort.signal.aborted) streamError = err;
    } finally {
      notify();
    }
  })();

  const until = (pred: (events: SseEvent[]) => boolean, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (streamError) return finish(() => reject(streamError as Error));
        if (pred(events)) finish(resolve);
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new Error(
                `SSE condition not met within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.event))}`,
              ),
            ),
          ),
        timeoutMs,
      );
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        fn();
      };
      listeners.add(check);
      check();
    });

  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    ended,
    until,
    async waitFor(pred, timeoutMs) {
      await until((evs) => evs.some(pred), timeoutMs);
      return events.find(pred) as SseEvent;
    },
    close: () => abort.abort(),
  };
}

/** The committed events' data, in arrival order. */
export const committed = (s: EventStream) =>
  s.events.filter((e) => e.event === 'turn.committed').map((e) => e.data);
/** The turn.updated snapshots, in arrival order. */
export const updates = (s: EventStream) =>
  s.events.filter((e) => e.event === 'turn.updated').map((e) => e.data);

/** Polls `fn` until it returns a truthy value. */
export async function eventually<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Asserts a problem answer: status, problem+json, the Problem schema, and the request id echoed. */
export function expectProblem(res: ApiResponse, status: number, type?: string): Json {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const validate = validator().validatorAt('#/components/schemas/Problem');
  expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
  expect(res.body.status).toBe(status);
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  if (type) expect(res.body.type).toBe(`urn:kesoku:problem:${type}`);
  return res.body;
}

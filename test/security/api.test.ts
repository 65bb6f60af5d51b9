/**
 * REST API attacks on the real stack (Temporal dev server, Postgres, worker, fake model): DNS rebinding and
 * cross-site requests against a token-less loopback API, a non-loopback bind without tokens, and principals
 * reading each other's or a chat channel's sessions.
 */
import http from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, parseApiTokens, requireAdmin, type ApiToken } from '../../api/auth.ts';
import { toProblem } from '../../api/problems.ts';
import { API_LIMITS } from '../../api/schemas.ts';
import type { ApiServer } from '../../api/server.ts';
import { ConfigError } from '../../infra/config.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { ApiClient, expectProblem, openEvents, startApiFor } from '../api/support.ts';

const tok = (c: string) => c.repeat(40);
const TOKENS: ApiToken[] = [
  { name: 'alice', token: tok('a'), admin: false },
  { name: 'bob', token: tok('b'), admin: false },
  { name: 'admin', token: tok('z'), admin: true },
];

/** A raw HTTP request, so the Host header can be anything (fetch sets it from the URL). */
function rawRequest(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

describe('a token-less API (loopback operator)', () => {
  let api: ApiServer;
  beforeAll(async () => {
    api = await startApiFor(stack);
  });
  afterAll(async () => api?.close());

  it('refuses a DNS-rebinding request: a foreign Host header gets 403 problem+json on every route', async () => {
    const port = new URL(api.url).port;
    for (const path of ['/v1/sessions', '/healthz', '/openapi.json']) {
      const res = await rawRequest(api.url, { path, headers: { host: `rebind.attacker.example:${port}` } });
      expect(res.status, path).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(res.body).type).toBe('urn:kesoku:problem:forbidden');
    }
    // The same request with a loopback name passes, so the refusal is about the Host alone.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await rawRequest(api.url, { path: '/v1/sessions', headers: { host } })).status).toBe(200);
    }
    // A loopback name on another port is a different origin too.
    expect(
      (await rawRequest(api.url, { path: '/v1/sessions', headers: { host: '127.0.0.1:1' } })).status,
    ).toBe(403);
    const session = uniqueId('rebind');
    const post = await rawRequest(api.url, {
      method: 'POST',
      path: `/v1/sessions/${session}/messages`,
      headers: { host: `rebind.attacker.example:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'run: id' }),
    });
    expect(post.status).toBe(403);
    expect(await stack.messages(session)).toEqual([]);
  });

  it('refuses a cross-origin POST (CSRF), also a body-less one, and accepts the same-origin one', async () => {
    const client = new ApiClient(api.url);
    const session = uniqueId('csrf');
    expectProblem(
      await client.post(
        `/v1/sessions/${session}/messages`,
        { content: 'run: id' },
        { origin: 'https://evil.example' },
      ),
      403,
      'forbidden',
    );
    expectProblem(
      await client.request('POST', `/v1/sessions/${session}/stop`, {
        body: 'x=1',
        headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      }),
      403,
      'forbidden',
    );
    expectProblem(
      await client.post(`/v1/sessions/${session}/messages`, { content: 'x' }, { origin: 'null' }),
      403,
      'forbidden',
    );
    expectProblem(
      await client.post(
        `/v1/sessions/${session}/messages`,
        { content: 'x' },
        { 'sec-fetch-site': 'cross-site' },
      ),
      403,
      'forbidden',
    );
    expect(await stack.messages(session)).toEqual([]);
    // Reads from another site are refused too (a GET can write: the event stream claims its session id).
    expectProblem(await client.get('/v1/sessions', { origin: 'https://evil.example' }), 403, 'forbidden');
    // A typed URL (Sec-Fetch-Site: none) and same-origin requests pass.
    expect((await client.get('/v1/sessions', { 'sec-fetch-site': 'none' })).status).toBe(200);
    const same = await client.post(
      `/v1/sessions/${session}/messages`,
      { content: 'hello' },
      { origin: api.url },
    );
    expect(same.status).toBe(202);
  });

  it('refuses a cross-site GET of an event stream: no stream, and the session id is not claimed', async () => {
    const session = uniqueId('xsite-events');
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://127.0.0.1:8233' },
      { origin: 'https://evil.example' },
    ]) {
      const res = await fetch(`${api.url}/v1/sessions/${session}/events`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const owners = await stack.pool.query('SELECT 1 FROM session_owners WHERE session_id = $1', [session]);
    expect(owners.rowCount).toBe(0);
  });

  it('refuses a message id a chat channel owns (wechat-…, discord-…, googlechat-…), so none is taken ahead of it', async () => {
    const client = new ApiClient(api.url);
    const session = uniqueId('ids');
    for (const id of ['wechat-24000000000000001', 'discord-1234567890', 'googlechat-spaces-x', 'WeChat-1']) {
      const problem = expectProblem(
        await client.post(`/v1/sessions/${session}/messages`, { id, content: 'taken?' }),
        400,
        'validation',
      );
      expect(problem.detail, id).toContain('message id prefix');
    }
    expect(await stack.messages(session)).toEqual([]);
    expect(
      (await client.post(`/v1/sessions/${session}/messages`, { id: 'my-1', content: 'ok' })).status,
    ).toBe(202);
  });

  it('the terminal client’s sessions of the local operator default to approval off', async () => {
    const session = uniqueId('local-cli');
    const client = new ApiClient(api.url);
    expect(
      (await client.post(`/v1/sessions/${session}/messages`, { content: 'hi', channel: 'cli' })).status,
    ).toBe(202);
    expect((await client.get(`/v1/sessions/${session}`)).body).toMatchObject({ approval_in_force: 'off' });
  });

  it('refuses to start on 0.0.0.0 (or any non-loopback address) without tokens', async () => {
    for (const host of ['0.0.0.0', '::']) {
      const err = await startApiFor(stack, { host }).then(
        async (s) => {
          await s.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(err, host).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).kind).toBe('config');
    }
    const withTokens = await startApiFor(stack, { host: '0.0.0.0', tokens: TOKENS });
    await withTokens.close();
  });
});

describe('principals', () => {
  let api: ApiServer;
  let alice: ApiClient;
  let bob: ApiClient;
  let admin: ApiClient;
  beforeAll(async () => {
    api = await startApiFor(stack, { tokens: TOKENS });
    const as = (t: ApiToken) => new ApiClient(api.url, { authorization: `Bearer ${t.token}` });
    [alice, bob, admin] = TOKENS.map(as) as [ApiClient, ApiClient, ApiClient];
  });
  afterAll(async () => api?.close());

  it('a principal’s terminal-client (cli) session asks before writes by default, unlike the local operator’s', async () => {
    const session = uniqueId('remote-cli');
    expect(
      (await alice.post(`/v1/sessions/${session}/messages`, { content: 'hi', channel: 'cli' })).status,
    ).toBe(202);
    expect((await alice.get(`/v1/sessions/${session}`)).body).toMatchObject({
      chatbot_id: 'cli',
      approval: null,
      approval_in_force: 'writes',
    });
  });

  it('no token may be named local, the token-less operator', () => {
    expect(() => parseApiTokens([{ source: 'KESOKU_API_TOKENS', value: `local:${tok('l')}` }])).toThrow(
      /token-less local operator/,
    );
  });

  it('the event stream of a session with no message yet is open to the principal that claims it first, 404 to others', async () => {
    const session = uniqueId('early');
    const stream = await openEvents(api.url, `/v1/sessions/${session}/events`, {
      authorization: `Bearer ${tok('a')}`,
    });
    try {
      // Alice's stream claimed the id: Bob can neither watch it nor create it.
      const bobEvents = await fetch(`${api.url}/v1/sessions/${session}/events`, {
        headers: { authorization: `Bearer ${tok('b')}` },
      });
      expect(bobEvents.status).toBe(404);
      await bobEvents.body?.cancel();
      expectProblem(
        await bob.post(`/v1/sessions/${session}/messages`, { content: 'mine' }),
        404,
        'session-not-found',
      );
      expectProblem(await bob.post(`/v1/sessions/${session}/stop`), 404, 'session-not-found');
      expectProblem(
        await bob.patch(`/v1/sessions/${session}`, { approval: 'off' }),
        404,
        'session-not-found',
      );
      expect((await alice.post(`/v1/sessions/${session}/stop`)).body).toEqual({ stopped: false });
      // Alice may set the session up before her first message; Bob still cannot reach it.
      expect((await alice.patch(`/v1/sessions/${session}`, { approval: 'all' })).body).toMatchObject({
        id: session,
        approval: 'all',
      });
      expectProblem(await bob.get(`/v1/sessions/${session}`), 404, 'session-not-found');
      expectProblem(
        await bob.patch(`/v1/sessions/${session}`, { approval: 'off' }),
        404,
        'session-not-found',
      );
      const first = await alice.post<{ message: { id: string } }>(`/v1/sessions/${session}/messages`, {
        content: 'first words',
      });
      expect(first.status).toBe(202);
      const event = await stream.waitFor(
        (e) =>
          e.event === 'turn.committed' &&
          (e.data as { messages: { id: string }[] }).messages.some((m) => m.id === first.body.message.id),
        20_000,
      );
      expect((event.data as { previous_revision: number }).previous_revision).toBe(0);
    } finally {
      stream.close();
    }
    // A chat channel's id stays unreachable, even before it exists.
    const channelEvents = await fetch(`${api.url}/v1/sessions/discord:${uniqueId('x')}/events`, {
      headers: { authorization: `Bearer ${tok('z')}` },
    });
    expect(channelEvents.status).toBe(404);
    await channelEvents.body?.cancel();
  });

  it("principal A cannot read or act on principal B's session (404); the owner and admin can", async () => {
    const session = uniqueId('alice');
    expect(
      (await alice.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 })).status,
    ).toBe(200);

    expectProblem(await bob.get(`/v1/sessions/${session}`), 404, 'session-not-found');
    expectProblem(await bob.get(`/v1/sessions/${session}/messages`), 404, 'session-not-found');
    expectProblem(
      await bob.post(`/v1/sessions/${session}/messages`, { content: 'me too' }),
      404,
      'session-not-found',
    );
    expectProblem(await bob.patch(`/v1/sessions/${session}`, { title: 'mine' }), 404, 'session-not-found');
    expectProblem(await bob.post(`/v1/sessions/${session}/stop`), 404, 'session-not-found');
    expectProblem(await bob.post(`/v1/sessions/${session}/compact`), 404, 'session-not-found');
    const events = await fetch(`${api.url}/v1/sessions/${session}/events`, {
      headers: { authorization: `Bearer ${tok('b')}` },
    });
    expect(events.status).toBe(404);
    await events.body?.cancel();
    // Bob's message never reached the session.
    expect((await stack.messages(session)).map((m) => m.content)).not.toContain('me too');

    expect((await alice.get(`/v1/sessions/${session}`)).status).toBe(200);
    expect((await admin.get(`/v1/sessions/${session}`)).status).toBe(200);
    expect((await admin.get(`/v1/sessions/${session}/messages`)).status).toBe(200);

    const ids = async (c: ApiClient) =>
      (
        (await c.get<{ sessions: { id: string }[] }>(`/v1/sessions?limit=${API_LIMITS.sessionsPageMax}`)).body
          .sessions ?? []
      ).map((s) => s.id);
    expect(await ids(alice)).toContain(session);
    expect(await ids(bob)).not.toContain(session);
    expect(await ids(admin)).toContain(session);
  });

  it('two principals racing for a new session id: exactly one owns it', async () => {
    const session = uniqueId('race');
    const [a, b] = await Promise.all([
      alice.post(`/v1/sessions/${session}/messages`, { content: 'a' }),
      bob.post(`/v1/sessions/${session}/messages`, { content: 'b' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([202, 404]);
  });

  it('a non-admin principal cannot reach a discord:* session; admin can; nobody creates one over REST', async () => {
    const channel = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const session = `discord:${channel}`;
    const m = await stack.sessions.submit(
      { sessionId: session, chatbotId: 'discord', channelId: channel },
      { id: uniqueId('m'), content: 'owner only', sender: 'Owner', receivedAt: new Date().toISOString() },
    );
    await stack.waitForStatus(m.message.id, ['processed', 'error']);

    for (const c of [alice, bob]) {
      expectProblem(await c.get(`/v1/sessions/${session}`), 404, 'session-not-found');
      expectProblem(await c.get(`/v1/sessions/${session}/messages`), 404, 'session-not-found');
      expectProblem(
        await c.post(`/v1/sessions/${session}/messages`, { content: 'hijack' }),
        404,
        'session-not-found',
      );
    }
    expect((await admin.get(`/v1/sessions/${session}`)).body.chatbot_id).toBe('discord');
    expect((await admin.get(`/v1/sessions/${session}/messages`)).status).toBe(200);

    // Squatting a channel's future session is refused for everyone, admin included.
    const future = `discord:${channel}9`;
    for (const c of [alice, admin]) {
      expectProblem(
        await c.post(`/v1/sessions/${future}/messages`, { content: 'squat' }),
        404,
        'session-not-found',
      );
    }
  });
});

describe('token configuration and requireAdmin', () => {
  it('tokens name principals, are at least 32 characters, and a bare token is refused', () => {
    const ok = parseApiTokens(
      [
        { source: 'env', value: `alice:${tok('a')}` },
        { source: 'env', value: `ops:${tok('o')}` },
        { source: 'env', value: `admin:${tok('z')}` },
      ],
      ['ops'],
    );
    expect(ok.map((p) => [p.name, p.admin])).toEqual([
      ['alice', false],
      ['ops', true],
      ['admin', true],
    ]);
    for (const bad of [tok('a'), 'alice:short', `:${tok('a')}`, 'al ice:' + tok('a')]) {
      expect(() => parseApiTokens([{ source: 'env', value: bad }]), bad).toThrow(ConfigError);
    }
    expect(() =>
      parseApiTokens([
        { source: 'env', value: `a:${tok('a')}` },
        { source: 'env', value: `b:${tok('a')}` },
      ]),
    ).toThrow(/same token/);
    // The error names the entry, never the token.
    try {
      parseApiTokens([{ source: 'env', value: 'alice:secret-but-short' }]);
    } catch (err) {
      expect(String(err)).not.toContain('secret-but-short');
    }
  });

  it('requireAdmin answers 403 problem+json to non-admins and passes admins and the token-less operator', async () => {
    const build = (tokens: ApiToken[]) => {
      const app = express();
      app.use(authenticate(tokens), requireAdmin);
      app.get('/x', (_req, res) => void res.json({ ok: true }));
      app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        const p = toProblem(err, 1024);
        res.status(p.status).type('application/problem+json').send(JSON.stringify(p.body()));
      });
      return app;
    };
    const serve = (app: express.Application) =>
      new Promise<{ url: string; close: () => void }>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => {
          const port = (s.address() as { port: number }).port;
          resolve({ url: `http://127.0.0.1:${port}`, close: () => s.close() });
        });
      });
    const withTokens = await serve(build(TOKENS));
    const none = await serve(build([]));
    try {
      const get = (url: string, token?: string) =>
        fetch(`${url}/x`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      const refused = await get(withTokens.url, tok('a'));
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await get(withTokens.url, tok('z'))).status).toBe(200);
      expect((await get(withTokens.url)).status).toBe(401);
      expect((await get(none.url)).status).toBe(200);
    } finally {
      withTokens.close();
      none.close();
    }
  });
});

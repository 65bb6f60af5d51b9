// REST API v1: problem answers for every failure class, request ids, health, auth, and dependency outages.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { lazyTemporal } from '../../infra/temporal-connection.ts';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { EventHub } from '../../api/event-hub.ts';
import { createHealthCheck } from '../../infra/health.ts';
import { createPool } from '../../db/pool.ts';
import { SessionClient } from '../../infra/session-client.ts';
import { uniqueId } from '../support/stack.ts';
import { ApiClient, expectProblem, startApiFor, useHarness, testLogger, type Json } from './support.ts';

const h = useHarness();

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const RAW_TEXT = /ECONNREFUSED|127\.0\.0\.1|grpc|UNAVAILABLE|DEADLINE|postgres:\/\/|Error:/i;

describe('request handling', () => {
  it('answers malformed JSON with a 400 problem', async () => {
    const res = await h.client.request('POST', `/v1/sessions/${uniqueId('s')}/messages`, {
      body: '{"content": "unterminated',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'bad-request');
  });

  it('answers valid JSON that is not an object (null, a string) with "must be a JSON object"', async () => {
    const session = uniqueId('s');
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    for (const body of ['null', '"title"', '3']) {
      const res = await h.client.request('PATCH', `/v1/sessions/${session}`, {
        body,
        headers: { 'content-type': 'application/json' },
      });
      const problem = expectProblem(res, 400, 'bad-request');
      expect(problem.detail, body).toBe('the request body must be a JSON object');
    }
  });

  it('logs a wait timeout (504) at info without a stack, not as an error', async () => {
    const lines: Json[] = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Json) });
    const server = await startApiFor(h.stack, { logger });
    try {
      const client = new ApiClient(server.url);
      const res = await client.post(`/v1/sessions/${uniqueId('s')}/messages`, {
        content: 'sleep: 3',
        wait: 1,
      });
      expectProblem(res, 504, 'wait-timeout');
      const line = lines.find((l) => l.problem === 'wait_timeout');
      expect(line).toMatchObject({ level: 30 });
      expect(line?.err).toBeUndefined();
      expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('logs a wait cut short by a shutdown (503) at info without a stack, not as an error', async () => {
    const lines: Json[] = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Json) });
    const server = await startApiFor(h.stack, { logger });
    const client = new ApiClient(server.url);
    const waiting = client
      .post(`/v1/sessions/${uniqueId('s')}/messages`, { content: 'sleep: 5', wait: 30 })
      .catch(() => null);
    await expect.poll(() => lines.some((l) => l.msg === 'message accepted'), { timeout: 20_000 }).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    await server.close();
    await waiting;
    const line = lines.find((l) => l.problem === 'unavailable');
    expect(line, JSON.stringify(lines)).toMatchObject({ level: 30, status: 503 });
    expect(line?.err).toBeUndefined();
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it('answers a body over 256 KiB with a 413 problem', async () => {
    const session = uniqueId('s');
    const res = await h.client.post(`/v1/sessions/${session}/messages`, { content: 'x'.repeat(257 * 1024) });
    const problem = expectProblem(res, 413, 'payload-too-large');
    expect(problem.detail).toContain(String(256 * 1024));
    expectProblem(await h.client.get(`/v1/sessions/${session}`), 404);
  });

  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    for (const path of ['/nope', '/v1/nope', '/v1/sessions/abc/nope', '/v2/sessions']) {
      expectProblem(await h.client.request('GET', path, { validate: false }), 404, 'not-found');
    }
    const del = await h.client.request('DELETE', '/v1/sessions/abc', { validate: false });
    expectProblem(del, 405, 'method-not-allowed');
    expect(del.headers.get('allow')).toBe('GET, HEAD, PATCH');
    const put = await h.client.request('PUT', '/v1/sessions/abc/messages', {
      validate: false,
      json: { content: 'x' },
    });
    expectProblem(put, 405, 'method-not-allowed');
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await h.client.request('POST', '/healthz', { validate: false })).headers.get('allow')).toBe(
      'GET, HEAD',
    );
    expectProblem(await h.client.get('/v1/sessions/abc%ZZ'), 400, 'bad-request');
  });

  it('echoes a valid x-request-id, generates one otherwise, and logs it on every line of the request', async () => {
    const lines: Json[] = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Json) });
    const server = await startApiFor(h.stack, { logger });
    try {
      const client = new ApiClient(server.url);
      const session = uniqueId('s');
      const res = await client.post(
        `/v1/sessions/${session}/messages`,
        { content: 'trace me' },
        { 'x-request-id': 'req-abc.123' },
      );
      expect(res.status).toBe(202);
      expect(res.headers.get('x-request-id')).toBe('req-abc.123');
      const mine = lines.filter((l) => l.requestId === 'req-abc.123');
      expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['message accepted', 'request']));
      expect(mine.find((l) => l.msg === 'message accepted')).toMatchObject({ sessionId: session });
      expect(
        lines
          .filter((l) => l.sessionId === session && l.msg === 'message accepted')
          .every((l) => l.requestId === 'req-abc.123'),
      ).toBe(true);

      const generated = await client.get('/v1/sessions', { 'x-request-id': 'not valid!' });
      const id = generated.headers.get('x-request-id') ?? '';
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const bad = await client.get('/v1/sessions?limit=0', { 'x-request-id': 'req-bad-1' });
      expect(bad.body.request_id).toBe('req-bad-1');
      expect(lines.find((l) => l.requestId === 'req-bad-1' && l.msg === 'request rejected')).toBeTruthy();
    } finally {
      await server.close();
    }
  });
});

describe('GET /healthz, /readyz and /livez', () => {
  it('answer 200 when Temporal and Postgres answer', async () => {
    const res = await h.client.get('/healthz');
    expect(res.status).toBe(200);
    // The test stack's worker runs in this process: its sandbox is shown too.
    expect(res.body).toEqual({
      status: 'ok',
      temporal: true,
      postgres: true,
      sandbox: expect.objectContaining({ state: 'bwrap', seccomp: true }),
    });
    expect((await h.client.get('/readyz')).body).toEqual({ status: 'ok', temporal: true, postgres: true });
    expect((await h.client.get('/livez')).body).toEqual({ status: 'ok' });
  });
});

describe('Temporal not answering', () => {
  it('answers 503 within the deadline and stores nothing', async () => {
    const connection = lazyTemporal({ address: `127.0.0.1:${await closedPort()}` });
    const sessions = new SessionClient({
      client: new Client({ connection, namespace: 'default' }),
      taskQueue: h.stack.taskQueue,
    });
    const server = await startApiFor(h.stack, {
      sessions,
      app: { temporalTimeoutMs: 1000 },
      health: createHealthCheck({ pool: h.stack.pool, sessions, timeoutMs: 1000 }),
    });
    try {
      const client = new ApiClient(server.url);
      const session = uniqueId('s');
      const id = uniqueId('m');
      const started = Date.now();
      const res = await client.post(`/v1/sessions/${session}/messages`, { id, content: 'anyone there?' });
      const problem = expectProblem(res, 503, 'unavailable');
      expect(Date.now() - started).toBeLessThan(5000);
      expect(problem.temporal).toBe(false);
      expect(problem.detail).not.toMatch(RAW_TEXT);
      const rows = await h.stack.pool.query(
        'SELECT (SELECT count(*) FROM sessions WHERE id = $1)::int AS s, (SELECT count(*) FROM messages WHERE id = $2)::int AS m',
        [session, id],
      );
      expect(rows.rows[0]).toEqual({ s: 0, m: 0 });

      // An existing session: workflow updates answer 503 too; reads from Postgres still work.
      const existing = uniqueId('s');
      expect(
        (await h.client.post(`/v1/sessions/${existing}/messages`, { content: 'hi', wait: 30 })).status,
      ).toBe(200);
      expectProblem(await client.patch(`/v1/sessions/${existing}`, { title: 'new' }), 503, 'unavailable');
      expectProblem(await client.post(`/v1/sessions/${existing}/stop`), 503, 'unavailable');
      expect((await client.get(`/v1/sessions/${existing}`)).body.title_source).not.toBe('user');

      const health = await client.get('/healthz');
      expect(expectProblem(health, 503, 'unavailable')).toMatchObject({ temporal: false, postgres: true });
      // Not ready, but alive: a liveness probe does not restart the API during a Temporal outage.
      const ready = expectProblem(await client.get('/readyz'), 503, 'unavailable');
      expect(ready).toMatchObject({ temporal: false, postgres: true });
      expect(ready.detail).toBe('Temporal not answering');
      expect((await client.get('/livez')).status).toBe(200);
    } finally {
      await server.close();
      await connection.close();
    }
  });
});

describe('Postgres not answering', () => {
  it('answers 503 without leaking the driver error, and /healthz names Postgres', async () => {
    const badPool = createPool(`postgres://kesoku:secret@127.0.0.1:${await closedPort()}/kesoku`);
    const logger = testLogger();
    const events = new EventHub({ databaseUrl: h.stack.databaseUrl, pool: badPool, logger });
    await events.start();
    const app = createApp({
      pool: badPool,
      sessions: h.stack.sessions,
      events,
      logger,
      tokens: [],
      health: createHealthCheck({ pool: badPool, sessions: h.stack.sessions, timeoutMs: 2000 }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const client = new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const session = uniqueId('s');
      for (const path of [`/v1/sessions/${session}`, `/v1/sessions/${session}/messages`, '/v1/sessions']) {
        const problem = expectProblem(await client.get(path), 503, 'unavailable');
        expect(problem.postgres).toBe(false);
        expect(problem.detail).not.toMatch(RAW_TEXT);
        expect(JSON.stringify(problem)).not.toContain('secret');
      }
      const health = expectProblem(await client.get('/healthz'), 503, 'unavailable');
      expect(health).toMatchObject({ temporal: true, postgres: false });
      expect(health.detail).toContain('Postgres');
      expect(expectProblem(await client.get('/readyz'), 503, 'unavailable').detail).toBe(
        'Postgres not answering',
      );
      expect((await client.get('/livez')).status).toBe(200);
    } finally {
      await events.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await badPool.end();
    }
  });
});

describe('authentication', () => {
  it('with tokens, requires a valid bearer token on /v1 and leaves /healthz and /openapi.json open', async () => {
    const server = await startApiFor(h.stack, {
      tokens: [
        { name: 'one', token: 'tok-one', admin: false },
        { name: 'two', token: 'tok-two', admin: true },
      ],
    });
    try {
      const anon = new ApiClient(server.url);
      const none = await anon.get('/v1/sessions');
      expectProblem(none, 401, 'unauthorized');
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expectProblem(
        await anon.get('/v1/sessions', { authorization: 'Bearer tok-three' }),
        401,
        'unauthorized',
      );
      expectProblem(
        await anon.get('/v1/sessions', { authorization: 'Basic dG9rLW9uZQ==' }),
        401,
        'unauthorized',
      );
      expectProblem(
        await anon.post(`/v1/sessions/${uniqueId('s')}/messages`, { content: 'sneaky' }),
        401,
        'unauthorized',
      );
      expectProblem(await anon.request('GET', '/v1/whatever', { validate: false }), 401, 'unauthorized');
      expect((await anon.get('/v1/sessions', { authorization: 'Bearer tok-two' })).status).toBe(200);
      expect((await anon.get('/v1/sessions', { authorization: 'bearer tok-one' })).status).toBe(200);
      expect((await anon.get('/healthz')).status).toBe(200);
      expect((await anon.get('/openapi.json')).status).toBe(200);
      const authed = anon.withHeaders({ authorization: 'Bearer tok-one' });
      const session = uniqueId('s');
      expect(
        (await authed.post(`/v1/sessions/${session}/messages`, { content: 'hi', wait: 30 })).status,
      ).toBe(200);
      const events = await fetch(`${server.url}/v1/sessions/${session}/events`);
      expect(events.status).toBe(401);
      await events.body?.cancel();
    } finally {
      await server.close();
    }
  });

  it('without tokens, serves /v1 without an Authorization header', async () => {
    expect((await h.client.get('/v1/sessions')).status).toBe(200);
    expect((await h.client.get('/v1/sessions', { authorization: 'Bearer anything' })).status).toBe(200);
  });
});

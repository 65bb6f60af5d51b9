// REST API v1: GET /v1/mcp (admin) lists the workers' MCP servers — state, tools, last error — merged from their
// reports (db/mcp-status.ts), and /healthz shows each server's state without failing for one that is down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../api/server.ts';
import { removeMcpStatus, writeMcpStatus } from '../../db/mcp-status.ts';
import { uniqueId } from '../support/stack.ts';
import { ApiClient, expectProblem, startApiFor, useHarness } from './support.ts';

const h = useHarness();
let secured: ApiServer;
let alice: ApiClient;
let admin: ApiClient;
const w1 = uniqueId('worker');
const w2 = uniqueId('worker');
// Server names of their own: other test files' workers report to the same database.
const WEB = uniqueId('web');
const FILES = uniqueId('files');
const greet = { name: 'mcp__web__greet', tool: 'greet', description: 'Greets someone by name.' };

beforeAll(async () => {
  secured = await startApiFor(h.stack, {
    tokens: [
      { name: 'alice', token: 'tok-alice', admin: false },
      { name: 'root', token: 'tok-root', admin: true },
    ],
  });
  alice = new ApiClient(secured.url, { authorization: 'Bearer tok-alice' });
  admin = new ApiClient(secured.url, { authorization: 'Bearer tok-root' });
  await writeMcpStatus(h.stack.pool, w1, [
    { name: WEB, transport: 'http', state: 'ready', tools: [greet], last_error: null, last_error_at: null },
    {
      name: FILES,
      transport: 'stdio',
      state: 'failed',
      tools: [],
      last_error: 'could not connect: spawn ENOENT',
      last_error_at: '2026-12-01T10:00:00.000Z',
    },
  ]);
  await writeMcpStatus(h.stack.pool, w2, [
    {
      name: WEB,
      transport: 'http',
      state: 'idle',
      tools: [],
      last_error: 'the connection closed',
      last_error_at: '2026-12-01T11:00:00.000Z',
    },
  ]);
});
afterAll(async () => {
  await removeMcpStatus(h.stack.pool, w1);
  await removeMcpStatus(h.stack.pool, w2);
  await secured?.close();
});

describe('GET /v1/mcp', () => {
  it('lists each server with its state, tools and last error, merged over the workers', async () => {
    const res = await admin.get<{ servers: Record<string, unknown>[] }>('/v1/mcp');
    expect(res.status).toBe(200);
    const byName = new Map(res.body.servers.map((s) => [s.name, s]));
    expect(byName.get(WEB)).toMatchObject({
      transport: 'http',
      state: 'ready',
      tools: [greet],
      last_error: 'the connection closed',
      last_error_at: '2026-12-01T11:00:00.000Z',
    });
    expect((byName.get(WEB)?.workers as { worker_id: string }[]).map((w) => w.worker_id).sort()).toEqual(
      [w1, w2].sort(),
    );
    expect(byName.get(FILES)).toMatchObject({
      transport: 'stdio',
      state: 'failed',
      tools: [],
      last_error: 'could not connect: spawn ENOENT',
    });
  });

  it('is for admin principals only', async () => {
    expectProblem(await alice.get('/v1/mcp'), 403, 'forbidden');
  });

  it('is no longer shown for a worker that removed its reports', async () => {
    const gone = uniqueId('worker');
    await writeMcpStatus(h.stack.pool, gone, [
      {
        name: 'ephemeral',
        transport: 'http',
        state: 'ready',
        tools: [],
        last_error: null,
        last_error_at: null,
      },
    ]);
    const names = async () =>
      (await admin.get<{ servers: { name: string }[] }>('/v1/mcp')).body.servers.map((s) => s.name);
    expect(await names()).toContain('ephemeral');
    await removeMcpStatus(h.stack.pool, gone);
    expect(await names()).not.toContain('ephemeral');
  });
});

describe('/healthz', () => {
  it("shows each MCP server's state and last error, and stays healthy with one failed", async () => {
    const res = await h.client.get<{ status: string; mcp?: Record<string, unknown> }>('/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.mcp?.[WEB]).toEqual({ state: 'ready', last_error: 'the connection closed' });
    expect(res.body.mcp?.[FILES]).toEqual({ state: 'failed', last_error: 'could not connect: spawn ENOENT' });
  });
});

/**
 * Tools from MCP servers on the real stack (Temporal dev server, Postgres, the fake model, an in-process worker)
 * with the fake MCP servers of test/fakes/mcp, built with the official SDK: a stdio server (run by the worker in
 * the tool sandbox) and Streamable HTTP servers on 127.0.0.1. Each call runs through the tool activity like a
 * built-in tool: its result goes to the model, `isError` is a failed result, a hanging tool ends at its timeout
 * or at /stop (the server is sent the cancellation), a crashing server is a tool error, an expired HTTP session
 * is initialised again, odd server and tool names are offered under provider-safe names that reach the right
 * tool, calls wait for approval as writes do, and beyond KESOKU_MCP_MAX_TOOLS a search tool finds the tools.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '../../activities/mcp/names.ts';
import { SEARCH_TOOL_NAME } from '../../activities/mcp/tools.ts';
import { APP_ROOT, DEFAULT_SANDBOX_UIDS } from '../../activities/tools/sandbox.ts';
import { statusEntryFor } from '../../adapters/kit/live-status.ts';
import { listPendingApprovals } from '../../db/approvals.ts';
import { readMcpServers } from '../../db/mcp-status.ts';
import type { Message } from '../../domain/message.ts';
import { TOOL_MARK, toolResultState } from '../../domain/presentation.ts';
import { startFakeHttpMcpServer, type FakeHttpMcpServer } from '../fakes/mcp/http-server.ts';
import { PIXEL_PNG_BASE64 } from '../fakes/mcp/tools.ts';
import { mcpConfig, stdioFake } from '../support/mcp.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const LONG_TOOL = `summarise_${'quarterly_report_'.repeat(3)}in.detail`; // 70 characters
let stack: Stack;
let web: FakeHttpMcpServer;
let oddHttp: FakeHttpMcpServer;

beforeAll(async () => {
  expect(LONG_TOOL).toHaveLength(70);
  web = await startFakeHttpMcpServer();
  oddHttp = await startFakeHttpMcpServer({ extraTools: ['files.read'] });
  const config = mcpConfig({
    fake: stdioFake({ toolTimeout: 3, env: { FAKE_MCP_EXTRA_TOOLS: '[]' } }),
    web: { url: web.url, toolTimeout: 120 },
    '1st.odd': stdioFake({
      env: { FAKE_MCP_EXTRA_TOOLS: JSON.stringify(['files.read', 'files_read', LONG_TOOL]) },
    }),
    'odd.srv': { url: oddHttp.url },
    odd_srv: { type: 'http', url: web.url },
  });
  stack = await startStack({ mcp: { config, maxListed: 1000 } });
});
afterAll(async () => {
  await stack?.stop();
  await web?.close();
  await oddHttp?.close();
});

/** Runs one turn in which the model calls `name` with `args`, then answers; @returns the turn's messages. */
async function callTool(
  session: string,
  name: string,
  args: Record<string, unknown> = {},
  timeoutMs = 60_000,
): Promise<{ msgs: Message[]; result: Message; trigger: Message; tookMs: number }> {
  stack.script(
    session,
    { kind: 'tool_calls', calls: [{ name, arguments: args }] },
    { kind: 'text', text: 'done' },
  );
  const started = Date.now();
  const r = await stack.submit(session, `please call ${name}`);
  const trigger = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], timeoutMs);
  const tookMs = Date.now() - started;
  const msgs = await stack.messages(session);
  const result = msgs.filter((m) => m.type === 'tool_result' && m.turn_id === r.message.id).at(-1);
  if (!result) throw new Error(`no tool result in ${JSON.stringify(msgs.map((m) => [m.type, m.content]))}`);
  return { msgs, result, trigger, tookMs };
}

/** The tools offered in the session's first model request, by name. */
function offeredTools(session: string): Map<string, { description: string; parameters: unknown }> {
  const tools = (stack.requestsOf(session)[0]?.body?.tools ?? []) as {
    function: { name: string; description: string; parameters: unknown };
  }[];
  return new Map(tools.map((t) => [t.function.name, t.function]));
}

/** The tool result message the model got in the session's last request. */
function toolMessageSent(session: string): string | undefined {
  const last = stack.requestsOf(session).at(-1);
  const m = last?.body?.messages?.filter((x) => x.role === 'tool').at(-1);
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content);
}

describe('MCP tools', () => {
  it('the model calls a stdio tool in the sandbox and gets its result; descriptions and schemas are passed through', async () => {
    const session = uniqueId('s');
    const { result, trigger } = await callTool(session, 'mcp__fake__greet', { name: 'Ada' });
    expect(trigger.status).toBe('processed');
    expect(result.content).toBe('Hello, Ada!');
    expect(result.metadata?.tool_ok).toBe(true);
    expect(toolMessageSent(session)).toBe('Hello, Ada!');
    const greet = offeredTools(session).get('mcp__fake__greet');
    expect(greet?.description).toBe('Greets someone by name.');
    expect(greet?.parameters).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string', description: 'Who to greet' } },
      required: ['name'],
    });
    // Channels name the server and the tool.
    const call = (await stack.messages(session)).find((m) => m.type === 'tool_call')!;
    expect(statusEntryFor(call)).toMatchObject({ kind: 'tool', name: 'fake › greet' });
    expect(toolResultState(result)).toBe('ok');
    // The Web UI's event history names the server and the tool on the call's activity (its summary).
    const history = await stack.sessions.handle(session).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runToolCall',
    );
    expect(scheduled).toHaveLength(1);
    const [summary] = await stack.payloadCodec.decode([scheduled[0]!.userMetadata!.summary!]);
    expect(JSON.parse(Buffer.from(summary!.data!).toString('utf8'))).toBe('fake › greet');
  });

  it('an image a tool returns is shown to the model after the turn’s results, and only in that turn', async () => {
    const session = uniqueId('s');
    const { result, trigger } = await callTool(session, 'mcp__fake__picture');
    expect(trigger.status).toBe('processed');
    expect(result.content).toMatch(
      /^a tiny picture\n\[image: image\/png, 70 bytes; kept at \S+\.png; attached/,
    );
    const [image] = result.metadata?.attachments as { path: string; content_type: string }[];
    expect(image?.content_type).toBe('image/png');
    const afterResult = stack.requestsOf(session).at(-1)?.body?.messages ?? [];
    const toolAt = afterResult.findIndex((m) => m.role === 'tool');
    const shown = afterResult[toolAt + 1] as {
      role: string;
      content: { type: string; text?: string; image_url?: { url: string } }[];
    };
    expect(shown.role).toBe('user');
    expect(shown.content[0]?.text).toMatch(/^\[The image that tool mcp__fake__picture returned \(call /);
    expect(shown.content[1]?.image_url?.url).toBe(`data:image/png;base64,${PIXEL_PNG_BASE64}`);
    // A later turn's requests do not show it again.
    stack.script(session, { kind: 'text', text: 'next' });
    const next = await stack.submit(session, 'and now?');
    await stack.waitForStatus(next.message.id, ['processed']);
    const later = JSON.stringify(stack.requestsOf(session).at(-1)?.body?.messages ?? []);
    expect(later).not.toContain('image_url');
  });

  it('the stdio server runs as the sandbox user with an allowlisted environment and sees no hidden files', async () => {
    const session = uniqueId('s');
    const secretFile = path.join(APP_ROOT, 'package.json');
    const { result } = await callTool(session, 'mcp__fake__whoami', {
      paths: [secretFile, path.join(stack.dataDir, 'payload-keys'), path.join(os.homedir(), '.bashrc')],
    });
    const seen = JSON.parse(result.content) as { uid: number; env: string[]; seen: Record<string, boolean> };
    if (process.getuid?.() === 0) {
      expect(seen.uid).toBeGreaterThanOrEqual(DEFAULT_SANDBOX_UIDS.first);
      expect(seen.uid).toBeLessThanOrEqual(DEFAULT_SANDBOX_UIDS.last);
    }
    for (const name of seen.env)
      expect(['FAKE_MCP_EXTRA_TOOLS', 'HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', 'TERM', '_']).toContain(name);
    expect(seen.env).not.toContain('DATABASE_URL');
    expect(Object.values(seen.seen)).toEqual([false, false, false]);
  });

  it('isError ends as a failed tool result (❌) at once, not at the timeout, and the model reads the error', async () => {
    const session = uniqueId('s');
    const { result, trigger, tookMs } = await callTool(session, 'mcp__web__fail');
    expect(trigger.status).toBe('processed');
    expect(result.metadata?.tool_ok).toBe(false);
    expect(toolResultState(result)).toBe('failed');
    expect(TOOL_MARK[toolResultState(result)]).toBe('❌');
    expect(result.content).toBe('Error: the greeting service is down');
    expect(result.metadata?.tool_result).toBe('error: the greeting service is down');
    expect(toolMessageSent(session)).toBe('Error: the greeting service is down');
    // The server's toolTimeout is 120 s: the failure came back with the answer.
    expect(tookMs).toBeLessThan(30_000);
  });

  it('a hanging tool ends at its timeout, the server is sent the cancellation, and the session answers next', async () => {
    const session = uniqueId('s');
    const { result, trigger, tookMs } = await callTool(session, 'mcp__fake__hang');
    expect(trigger.status).toBe('processed');
    expect(result.metadata?.tool_ok).toBe(false);
    expect(result.metadata?.tool_result).toBe('timed out after 3 s');
    expect(result.content).toMatch(/fake › hang did not answer within 3 s; the call was cancelled/);
    expect(tookMs).toBeGreaterThanOrEqual(3000);
    const events = path.join(stack.dataDir, 'mcp', 'fake', 'events.log');
    await expect.poll(() => fs.readFileSync(events, 'utf8')).toContain('cancelled hang');
    const next = await stack.submit(session, 'still there?');
    expect((await stack.waitForStatus(next.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
  });

  it('/stop ends a hanging tool at once, the server is sent the cancellation, and the session answers next', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'tool_calls', calls: [{ name: 'mcp__web__hang', arguments: {} }] });
    const hangsBefore = web.events.filter((e) => e === 'call hang').length;
    const r = await stack.submit(session, 'hang please');
    await expect
      .poll(() => web.events.filter((e) => e === 'call hang').length, { timeout: 30_000, interval: 50 })
      .toBe(hangsBefore + 1);
    const stoppedAt = Date.now();
    expect(await stack.sessions.stop(session)).toEqual({ stopped: true });
    expect((await stack.waitForStatus(r.message.id, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    // The toolTimeout is 120 s: the stop ended it.
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    await expect
      .poll(() => web.events.filter((e) => e === 'cancelled hang').length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const next = await stack.submit(session, 'still there?');
    expect((await stack.waitForStatus(next.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    expect((await stack.messages(session)).at(-1)?.content).toBe('echo: still there?');
  });

  it('a crashing stdio server is a tool error, not a crashed worker; the next call starts it again', async () => {
    const session = uniqueId('s');
    const { result, trigger } = await callTool(session, 'mcp__fake__crash');
    expect(trigger.status).toBe('processed');
    expect(result.metadata?.tool_ok).toBe(false);
    expect(result.content).toMatch(/closed the connection during the call \(it may have crashed\)/);
    const again = await callTool(session, 'mcp__fake__greet', { name: 'again' });
    expect(again.result.content).toBe('Hello, again!');
    const fake = (await readMcpServers(stack.pool)).find((s) => s.name === 'fake');
    expect(fake?.state).toBe('ready');
    expect(fake?.last_error).toMatch(/the server process exited \(stderr: .*crashing on purpose/);
  });

  it('an expired HTTP session is initialised again, once, and the call succeeds', async () => {
    const session = uniqueId('s');
    expect((await callTool(session, 'mcp__web__greet', { name: 'first' })).result.content).toBe(
      'Hello, first!',
    );
    await web.expireSessions();
    const inits = web.initializations();
    const greets = web.events.filter((e) => e === 'call greet').length;
    const { result } = await callTool(session, 'mcp__web__greet', { name: 'second' });
    expect(result.content).toBe('Hello, second!');
    expect(result.metadata?.tool_ok).toBe(true);
    // Both servers on this fake (`web`, `odd_srv`) had their sessions ended; the call's server made one more.
    expect(web.initializations() - inits).toBeGreaterThanOrEqual(1);
    expect(web.initializations() - inits).toBeLessThanOrEqual(2);
    expect(web.notFound()).toBeGreaterThan(0);
    expect(web.events.filter((e) => e === 'call greet').length).toBe(greets + 1);
    expect(web.strayRequests()).toEqual([]);
  });

  it('odd server and tool names are offered under provider-safe unique names that reach the right tool', async () => {
    const session = uniqueId('s');
    await callTool(session, 'mcp__1st_odd__greet', { name: 'digit' });
    const offered = offeredTools(session);
    const names = [...offered.keys()];
    for (const n of names) expect(n).toMatch(TOOL_NAME_PATTERN);
    expect(new Set(names).size).toBe(names.length);
    // Server keys `odd_srv` and `odd.srv` collide: the key that is its own name keeps it.
    expect(names).toContain('mcp__odd_srv__greet');
    const oddDot = names.find((n) => /^mcp__odd_srv_[0-9a-f]{6}__files_read$/.test(n));
    expect(oddDot).toBeDefined();
    // Tools `files_read` and `files.read` of one server collide: `files_read` keeps it.
    expect(names).toContain('mcp__1st_odd__files_read');
    const dotted = names.find((n) => /^mcp__1st_odd__files_read_[0-9a-f]{6}$/.test(n))!;
    expect(offered.get(dotted)?.description).toBe('The tool named files.read.');
    const long = names.find((n) => offered.get(n)?.description === `The tool named ${LONG_TOOL}.`)!;
    expect(long.length).toBeLessThanOrEqual(64);

    expect((await callTool(session, dotted)).result.content).toBe('called files.read');
    expect((await callTool(session, 'mcp__1st_odd__files_read')).result.content).toBe('called files_read');
    expect((await callTool(session, long)).result.content).toBe(`called ${LONG_TOOL}`);
    expect((await callTool(session, oddDot!)).result.content).toBe('called files.read');
    expect(oddHttp.events).toContain('call files.read');
    const greetsOnWeb = web.events.filter((e) => e === 'call greet').length;
    expect((await callTool(session, 'mcp__odd_srv__greet', { name: 'x' })).result.content).toBe('Hello, x!');
    expect(web.events.filter((e) => e === 'call greet').length).toBe(greetsOnWeb + 1);
  });

  it('a tool the server adds is offered after its tools/list_changed', async () => {
    const session = uniqueId('s');
    await callTool(session, 'mcp__web__greet', { name: 'before' });
    web.addTool('shout');
    await expect
      .poll(async () =>
        (await readMcpServers(stack.pool)).find((s) => s.name === 'web')?.tools.map((t) => t.name),
      )
      .toContain('mcp__web__shout');
    expect((await callTool(session, 'mcp__web__shout')).result.content).toBe('called shout');
  });

  it('the status reports list each server with its state and tools', async () => {
    const servers = await readMcpServers(stack.pool);
    // Other test files' workers report to the same database.
    expect(servers.map((s) => s.name)).toEqual(
      expect.arrayContaining(['1st.odd', 'fake', 'odd.srv', 'odd_srv', 'web']),
    );
    const web = servers.find((s) => s.name === 'web')!;
    expect(web).toMatchObject({ transport: 'http', state: 'ready' });
    expect(web.tools).toContainEqual({
      name: 'mcp__web__greet',
      tool: 'greet',
      description: 'Greets someone by name.',
    });
  });
});

describe('MCP tools with approval and search', () => {
  let asking: Stack;
  let server: FakeHttpMcpServer;
  beforeAll(async () => {
    server = await startFakeHttpMcpServer();
    asking = await startStack({
      approvals: { policy: 'writes', timeoutS: 600 },
      mcp: {
        config: mcpConfig({
          asks: { url: server.url },
          trusted: { url: server.url, approval: 'auto' },
        }),
        maxListed: 3,
      },
    });
  });
  afterAll(async () => {
    await asking?.stop();
    await server?.close();
  });

  it('beyond KESOKU_MCP_MAX_TOOLS the model gets the search tool; what it finds is offered and callable', async () => {
    const session = uniqueId('s');
    asking.script(
      session,
      { kind: 'tool_calls', calls: [{ name: SEARCH_TOOL_NAME, arguments: { query: 'greet someone' } }] },
      { kind: 'tool_calls', calls: [{ name: 'mcp__trusted__greet', arguments: { name: 'found' } }] },
      { kind: 'text', text: 'done' },
    );
    const r = await asking.submit(session, 'find a greeting tool');
    expect((await asking.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    const requests = asking.requestsOf(session);
    const names = (i: number) =>
      ((requests[i]?.body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names(0)).toContain(SEARCH_TOOL_NAME);
    expect(names(0).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(names(1)).toEqual(
      expect.arrayContaining([SEARCH_TOOL_NAME, 'mcp__asks__greet', 'mcp__trusted__greet']),
    );
    const results = (await asking.messages(session)).filter((m) => m.type === 'tool_result');
    expect(results[0]?.content).toMatch(/mcp__trusted__greet \(trusted › greet\): Greets someone by name\./);
    expect(results[1]?.content).toBe('Hello, found!');
  });

  it('an MCP tool call waits for approval under `writes` (default ask); `approval: auto` runs at once', async () => {
    const session = uniqueId('s');
    asking.script(
      session,
      { kind: 'tool_calls', calls: [{ name: SEARCH_TOOL_NAME, arguments: { query: 'greet' } }] },
      { kind: 'tool_calls', calls: [{ name: 'mcp__trusted__greet', arguments: { name: 'auto' } }] },
      { kind: 'tool_calls', calls: [{ name: 'mcp__asks__greet', arguments: { name: 'asked' } }] },
      { kind: 'text', text: 'done' },
    );
    const greets = () => server.events.filter((e) => e === 'call greet').length;
    const before = greets();
    const r = await asking.submit(session, 'greet twice');
    let pending: Awaited<ReturnType<typeof listPendingApprovals>> = [];
    await expect
      .poll(async () => (pending = await listPendingApprovals(asking.pool, session)).length, {
        timeout: 30_000,
      })
      .toBe(1);
    expect(greets()).toBe(before + 1);
    expect(pending[0]).toMatchObject({
      tool_name: 'mcp__asks__greet',
      subject: 'mcp__asks__greet {"name":"asked"}',
    });
    await asking.sessions.decideApproval(session, {
      callId: pending[0]!.call_id,
      decision: 'approve',
      by: 'api:alice',
    });
    expect((await asking.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    expect(greets()).toBe(before + 2);
  });
});

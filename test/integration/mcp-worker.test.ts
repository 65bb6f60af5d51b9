/**
 * MCP servers of the real `npm run worker` entry point in child processes (KESOKU_MCP_CONFIG naming a Streamable
 * HTTP fake in this process):
 * - a worker SIGKILLed while an MCP tool call runs: the restarted worker does not call the tool again, the model
 *   gets a result saying the call was interrupted and not re-run, and the turn completes once;
 * - a bad configuration file: the worker does not start, with one line naming the server and the field.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHttpMcpServer, type FakeHttpMcpServer } from '../fakes/mcp/http-server.ts';
import { mcpConfig } from '../support/mcp.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let server: FakeHttpMcpServer;
let configFile: string;
const workers: ChildPart[] = [];
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  server = await startFakeHttpMcpServer();
  configFile = mcpConfig({ slowpoke: { url: server.url, toolTimeout: 600 } }).file;
});
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill('SIGKILL');
});
afterAll(async () => {
  await stack?.stop();
  await server?.close();
});

const startWorker = async (): Promise<ChildPart> => {
  const w = startPart('bin/worker.ts', stackEnv(stack, { KESOKU_MCP_CONFIG: configFile }));
  workers.push(w);
  await w.waitFor('kesoku worker running');
  return w;
};

describe('worker killed during an MCP tool call', () => {
  it('SIGKILL: the restarted worker does not call the tool again, and the turn completes once', async () => {
    let worker = await startWorker();
    const session = uniqueId('s');
    const tag = uniqueId('slow');
    stack.script(
      session,
      { kind: 'tool_calls', calls: [{ name: 'mcp__slowpoke__slow', arguments: { ms: 120_000, tag } }] },
      { kind: 'text', text: 'done' },
    );
    const r = await stack.submit(session, 'take your time');
    await expect
      .poll(() => server.events.filter((e) => e === `call slow ${tag}`).length, {
        timeout: 30_000,
        interval: 50,
      })
      .toBe(1);

    await worker.kill('SIGKILL');
    worker = await startWorker();

    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 90_000);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.map((m) => `${m.role}/${m.type}/${m.status}`)).toEqual([
      'user/text/processed',
      'tool/tool_call/responded',
      'tool/tool_result/responded',
      'assistant/text/delivered',
    ]);
    const result = msgs.find((m) => m.type === 'tool_result')!;
    expect(result.content).toMatch(
      /mcp__slowpoke__slow call was interrupted by a worker stop and was not run again/,
    );
    expect(result.metadata?.tool_ok).toBe(false);
    expect(server.events.filter((e) => e === `call slow ${tag}`)).toHaveLength(1);
    // The killed worker's call is found lost at the tool heartbeat timeout (60 s), then answered.
  }, 180_000);

  it('a bad configuration stops the worker at start with one line naming the server and the field', async () => {
    const bad = path.join(path.dirname(configFile), 'bad.json');
    fs.writeFileSync(
      bad,
      JSON.stringify({ mcpServers: { github: { url: 'https://x/mcp', toolTimeout: 'soon' } } }),
    );
    const w = startPart('bin/worker.ts', stackEnv(stack, { KESOKU_MCP_CONFIG: bad }));
    workers.push(w);
    const code = await new Promise<number | null>((resolve) => w.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(w.output().trim().split('\n').at(-1)).toBe(
      `kesoku: worker could not start: KESOKU_MCP_CONFIG (${bad}): server "github": toolTimeout: must be a number of seconds`,
    );
  });
});

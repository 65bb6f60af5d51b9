/**
 * The terminal client (`npm run chat`, the real `adapters/cli/main.ts` in a child process) over the real REST
 * API, worker, Temporal dev server and Postgres: the plan the model sets is shown live with the turn, `/plan` shows it, `/prompt` the exact model
 * input of the latest step (system prompt once, first; the last user message with its runtime context once),
 * `/memory` what was remembered.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../api/server.ts';
import { createLogger } from '../../infra/logger.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { runCli } from '../../adapters/cli/test/support.ts';

let stack: Stack;
let api: ApiServer;
beforeAll(async () => {
  stack = await startStack();
  api = await startApiServer({
    pool: stack.pool,
    sessions: stack.sessions,
    databaseUrl: stack.databaseUrl,
    logger: createLogger('test-cli', process.env.KESOKU_TEST_LOG ?? 'silent'),
    host: '127.0.0.1',
    port: 0,
    tokens: [],
  });
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

describe('terminal /plan, /prompt, /memory', () => {
  it('shows the plan, the exact prompt and the memory of the session', async () => {
    const session = uniqueId('cli-mem');
    stack.script(
      session,
      {
        kind: 'tool_calls',
        calls: [
          {
            name: 'update_plan',
            arguments: {
              steps: [
                { title: 'Look around', status: 'done' },
                { title: 'Report back', status: 'in_progress' },
              ],
            },
          },
          { name: 'remember', arguments: { text: 'The operator prefers tabs over spaces.' } },
        ],
      },
      { kind: 'text', text: 'All set.' },
    );
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '30', '--live'], {
      stdin: 'set things up\n/plan\n/prompt\n/memory\n/quit\n',
    });
    const code = await cli.exit();
    const out = stripVTControlCharacters(cli.output());
    expect(code, out).toBe(0);
    expect(out).toContain('1. [done] Look around\n  2. [in_progress] Report back');
    // Live with the turn (turn.updated carries the plan), before /plan read it once the turn was over.
    const livePlan = out.indexOf('📋 Plan 1/2 done\n   ✅ Look around\n   ▶️ Report back');
    expect(livePlan, out).toBeGreaterThanOrEqual(0);
    expect(livePlan).toBeLessThan(out.indexOf('  1. [done] Look around'));
    const prompt = out.slice(out.indexOf('── system (turn'));
    expect(prompt.match(/── system/g)).toHaveLength(1);
    expect(prompt).toMatch(/── user ──\nset things up\n\n\[Runtime Context\]\n- Time: /);
    expect(prompt).toContain('- Active plan (update it with update_plan):\n  1. [done] Look around');
    expect(prompt.indexOf('── system')).toBeLessThan(prompt.indexOf('── user ──'));
    expect(prompt.indexOf('── user ──')).toBeLessThan(prompt.indexOf('── assistant ──'));
    expect(out).toMatch(/ {2}m[0-9a-f]{12} {2}The operator prefers tabs over spaces\./);

    // In a session without messages yet (the API's `?session=` is a 404 there), /memory still lists the caller's.
    const fresh = runCli(['--session', uniqueId('cli-mem-new'), '--url', api.url, '--timeout', '30'], {
      stdin: '/memory\n/quit\n',
    });
    const freshCode = await fresh.exit();
    const freshOut = stripVTControlCharacters(fresh.output());
    expect(freshCode, freshOut).toBe(0);
    expect(freshOut).toMatch(/ {2}m[0-9a-f]{12} {2}The operator prefers tabs over spaces\./);
  });
});

/**
 * A worker SIGKILLed while a tool call waits for approval (the real `npm run worker` entry point in child
 * processes): the wait lives in the workflow, so a new worker takes it over; once approved the command runs
 * exactly once (the tool_runs ledger and the command's own log agree).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../activities/tools/activities.ts';
import { listPendingApprovals } from '../../db/approvals.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
const workers: ChildPart[] = [];
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
});
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill('SIGKILL');
});
afterAll(async () => {
  await stack?.stop();
});

const startWorker = async (): Promise<ChildPart> => {
  const w = startPart('bin/worker.ts', stackEnv(stack, { KESOKU_TOOL_APPROVAL: 'writes' }));
  workers.push(w);
  await w.waitFor('kesoku worker running');
  return w;
};

describe('a worker killed while a tool call waits for approval', () => {
  it('SIGKILL, new worker, approval: the command runs exactly once and the turn completes', async () => {
    const worker = await startWorker();
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo ran >> runs.txt; echo finished');
    let pending = await listPendingApprovals(stack.pool, session);
    await expect
      .poll(
        async () => {
          pending = await listPendingApprovals(stack.pool, session);
          return pending.length;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(1);

    await worker.kill('SIGKILL');
    await startWorker();
    // The decision reaches the workflow with no worker holding it in memory: the new worker replays the wait.
    await stack.sessions.decideApproval(session, {
      callId: pending[0]!.call_id,
      decision: 'approve',
      by: 'api:ops',
    });

    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 90_000);
    expect(done.status).toBe('processed');
    const runs = await stack.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM tool_runs WHERE session_id = $1',
      [session],
    );
    expect(runs.rows[0]?.n).toBe(1);
    const file = path.join(workspaceDirFor(stack.dataDir, session), 'runs.txt');
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toEqual(['ran']);
    const msgs = await stack.messages(session);
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toContain('finished');
    expect(msgs.find((m) => m.type === 'tool_call')?.metadata).toMatchObject({
      approval: { state: 'approved', by: 'api:ops', decision: 'approve' },
    });
    expect(new Set(msgs.map((m) => m.id)).size).toBe(msgs.length);
  }, 150_000);
});

/**
 * A background job survives a SIGKILL of its worker, with the real `npm run worker` entry point in child
 * processes, the real dev server and Postgres: the command runs on (it is detached from the worker), the retried
 * activity on a new worker of the same host adopts it instead of running it again, and the job ends with its real
 * outcome; its alert wakes the session once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getJob } from '../../db/jobs.ts';
import { jobAlertMessageId } from '../../domain/jobs.ts';
import { sessionWorkspaceDir } from '../../infra/workspace.ts';
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
  // Info logs: the adoption is visible in the new worker's output.
  const w = startPart('bin/worker.ts', stackEnv(stack, { KESOKU_LOG_LEVEL: 'info' }));
  workers.push(w);
  await w.waitFor('kesoku worker running');
  return w;
};

describe('a background job whose worker is SIGKILLed', () => {
  it('is adopted by the next worker, runs once, ends `succeeded` with `done`, and its alert arrives once', async () => {
    const first = await startWorker();
    const session = uniqueId('s');
    const workspace = sessionWorkspaceDir(stack.dataDir, session);
    const runs = () => {
      const file = path.join(workspace, 'runs.txt');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    };
    // The command waits for a file the test writes only once the new worker has adopted it, so the adoption
    // happens while it runs, however slow the machine.
    stack.script(
      session,
      {
        kind: 'tool_calls',
        calls: [
          {
            name: 'run_shell_command',
            arguments: {
              command: 'echo run >> runs.txt; while [ ! -e go ]; do sleep 0.2; done; sleep 8 && echo done',
              background: true,
            },
          },
        ],
      },
      { kind: 'text', text: 'started it' },
    );
    const r = await stack.submit(session, 'start the job');
    expect((await stack.waitForStatus(r.message.id, ['processed', 'error'], 30_000)).status).toBe(
      'processed',
    );
    const result = (await stack.messages(session)).find(
      (m) => m.type === 'tool_result' && m.turn_id === r.message.id,
    );
    const jobId = /Background job (job_[0-9a-f]{16}) started/.exec(result?.content ?? '')?.[1];
    expect(jobId, result?.content).toBeDefined();
    await expect.poll(runs, { timeout: 20_000, interval: 50 }).toEqual(['run']);

    await first.kill('SIGKILL');
    expect((await getJob(stack.pool, jobId!))?.state).toBe('running');
    const second = await startWorker();
    // The retry comes after the heartbeat timeout (60 s).
    await second.waitFor('background job adopted from a lost attempt', 120_000);
    expect((await getJob(stack.pool, jobId!))?.state).toBe('running');
    fs.writeFileSync(path.join(workspace, 'go'), '');

    const alertId = jobAlertMessageId(jobId!);
    const alert = await stack.waitForStatus(alertId, ['processed'], 60_000);
    const job = await getJob(stack.pool, jobId!);
    expect(job).toMatchObject({ state: 'succeeded', exitCode: 0 });
    expect(job?.outputTail).toContain('done');
    expect(alert.content.startsWith(`[System Alert] Background Job ${jobId} finished.\n`)).toBe(true);
    expect(alert.content).toContain('State: succeeded (exit 0)');
    // Ran once: one line in runs.txt.
    expect(runs()).toEqual(['run']);
    // One alert, one turn answering it.
    const msgs = await stack.messages(session);
    expect(msgs.filter((m) => m.role === 'system' && m.sender === 'System')).toHaveLength(1);
    expect(
      msgs.filter((m) => m.turn_id === alertId && m.role === 'assistant' && m.type === 'text'),
    ).toHaveLength(1);
  }, 200_000);
});

/**
 * Worker stops in the middle of a tool run, with the real `npm run worker` entry point in child processes:
 * - a worker SIGKILLed mid-command: the restarted worker does not run the command again (at most once); its
 *   leftover processes are gone, the model gets a result saying the command was interrupted and not re-run, and
 *   the turn completes once, with no duplicate messages;
 * - a rolling restart (SIGTERM) while a 60-second command runs: the stopping worker drains — the command is not
 *   killed, runs once, and the turn completes (its next steps run on the new worker).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../activities/tools/activities.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
const workers: ChildPart[] = [];
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
});
// Each test has its own workers: a worker left from an earlier test would take the next test's activities.
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill('SIGKILL');
});
afterAll(async () => {
  await stack?.stop();
});

const running = (needle: string) => {
  try {
    return execFileSync('pgrep', ['-f', needle], { encoding: 'utf8' }).trim().length > 0;
  } catch {
    return false;
  }
};

const startWorker = async (): Promise<ChildPart> => {
  const w = startPart('bin/worker.ts', stackEnv(stack));
  workers.push(w);
  await w.waitFor('kesoku worker running');
  return w;
};

/** The lines the command appended to runs.txt in the session's workspace (one per start and per end). */
const runsOf = (session: string): string[] => {
  const file = path.join(workspaceDirFor(stack.dataDir, session), 'runs.txt');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

describe('worker stops in the middle of a tool run', () => {
  it('SIGKILL: the restarted worker does not run the command again, and the turn completes once', async () => {
    let worker = await startWorker();
    const session = uniqueId('s');
    // Longer than a worker restart plus the heartbeat timeout, so the retry finds the leftover still running.
    const marker = `120.${Math.floor(Math.random() * 1e6)}`;
    const r = await stack.submit(
      session,
      `run: echo start >> runs.txt; sleep ${marker}; echo end >> runs.txt; echo finished`,
    );
    await expect.poll(() => running(`sleep ${marker}`), { timeout: 20_000, interval: 50 }).toBe(true);
    // The shell's own command line holds `sleep …` too: wait until the command really got past its first line.
    await expect.poll(() => runsOf(session), { timeout: 20_000, interval: 50 }).toEqual(['start']);

    await worker.kill('SIGKILL');
    expect((await stack.messages(session)).find((m) => m.id === r.message.id)?.status).toBe('processing');
    worker = await startWorker();

    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 90_000);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.map((m) => `${m.role}/${m.type}/${m.status}`)).toEqual([
      'user/text/processed',
      'assistant/thought/responded',
      'tool/tool_call/responded',
      'tool/tool_result/responded',
      'assistant/text/delivered',
    ]);
    const result = msgs.find((m) => m.type === 'tool_result')!;
    expect(result.content).toMatch(/interrupted by a worker stop and was not run again/);
    expect(result.metadata).toMatchObject({
      tool_ok: false,
      tool_result: 'interrupted by a worker stop; not re-run',
    });
    expect(new Set(msgs.map((m) => m.id)).size).toBe(msgs.length);
    // Ran once, and what the dead worker left running was stopped (never finished, never restarted).
    expect(runsOf(session)).toEqual(['start']);
    expect(running(`sleep ${marker}`)).toBe(false);
  }, 150_000);

  it('SIGTERM (rolling restart) while a 60-second command runs: the command is not killed, runs once, and the turn completes', async () => {
    const old = await startWorker();
    const session = uniqueId('s');
    const marker = `60.${Math.floor(Math.random() * 1e6)}`;
    const r = await stack.submit(
      session,
      `run: echo start >> runs.txt; sleep ${marker}; echo end >> runs.txt; echo finished`,
    );
    await expect.poll(() => running(`sleep ${marker}`), { timeout: 20_000, interval: 50 }).toBe(true);
    const startedAt = Date.now();

    // The rollout: the old worker is told to stop and drains; its replacement comes up meanwhile.
    old.child.kill('SIGTERM');
    const oldExit = new Promise<number | null>((resolve) => old.child.once('exit', (code) => resolve(code)));
    const replacement = startWorker();

    // Well past the heartbeat timeout (10 s) and the old 5 s grace: the command still runs, the old worker too.
    await new Promise((res) => setTimeout(res, 15_000));
    expect(running(`sleep ${marker}`)).toBe(true);
    expect(old.child.exitCode).toBeNull();
    await replacement;

    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 120_000);
    expect(done.status).toBe('processed');
    expect(Date.now() - startedAt).toBeGreaterThan(50_000);
    const msgs = await stack.messages(session);
    const result = msgs.find((m) => m.type === 'tool_result')!;
    expect(result.content).toContain('finished');
    expect(result.metadata).toMatchObject({ tool_ok: true });
    expect(runsOf(session)).toEqual(['start', 'end']);
    expect(msgs.at(-1)).toMatchObject({ role: 'assistant', type: 'text', status: 'delivered' });
    // The drained worker exits by itself once its command is done.
    expect(await oldExit).toBe(0);
  }, 200_000);
});

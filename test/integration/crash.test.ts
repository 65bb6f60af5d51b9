/**
 * Crash recovery is Temporal's (DESIGN.md; seed 1 §4.4's orphan sweep is replaced): a worker process
 * SIGKILLed in the middle of a tool run is restarted, and the turn completes once, with no duplicate messages.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let worker: ChildPart | null = null;
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
});
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await stack?.stop();
});

const running = (needle: string) => {
  try {
    return execFileSync('pgrep', ['-f', needle], { encoding: 'utf8' }).trim().length > 0;
  } catch {
    return false;
  }
};

describe('worker crash in the middle of a tool run', () => {
  it('the restarted worker finishes the turn exactly once', async () => {
    worker = startPart('workers/worker.ts', stackEnv(stack));
    await worker.waitFor('kesoku worker running');
    const session = uniqueId('s');
    const marker = `2.${Math.floor(Math.random() * 1e6)}`;
    const r = await stack.submit(session, `run: sleep ${marker}; echo finished after the crash`);
    await expect.poll(() => running(`sleep ${marker}`), { timeout: 20_000, interval: 50 }).toBe(true);

    await worker.kill('SIGKILL');
    expect((await stack.messages(session)).find((m) => m.id === r.message.id)?.status).toBe('processing');
    worker = startPart('workers/worker.ts', stackEnv(stack));
    await worker.waitFor('kesoku worker running');

    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 60_000);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.map((m) => `${m.role}/${m.type}/${m.status}`)).toEqual([
      'user/text/processed',
      'assistant/thought/responded',
      'tool/tool_call/responded',
      'tool/tool_result/responded',
      'assistant/text/delivered',
    ]);
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toContain('finished after the crash');
    expect(new Set(msgs.map((m) => m.id)).size).toBe(msgs.length);
  }, 120_000);
});

/**
 * No head-of-line blocking between sessions (seed 004 §6.4, §15 row 2): while session A is busy with slow work — a
 * long shell command, then a compaction queued behind it — session B's input is taken and answered at its normal
 * pace, and B's `/stop` takes effect at once. One workflow per session gives this; the test keeps it so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  // Warm the worker up, so that B's timings are not a cold start's.
  const warm = await stack.submit(uniqueId('warm'), 'hello');
  await stack.waitForStatus(warm.message.id, ['processed'], 45_000);
});
afterAll(async () => stack?.stop());

const ENDED = ['processed', 'error', 'interrupted'] as const;

describe('head-of-line', () => {
  it("a slow session A never delays session B's input or B's /stop", async () => {
    const a = uniqueId('a');
    const b = uniqueId('b');
    const slow = await stack.submit(a, 'run: sleep 8');
    await stack.waitForStatus(slow.message.id, ['processing']);
    await stack.sessions.compact(a);

    // B's plain turn: accepted and answered while A still works.
    const t0 = Date.now();
    const quick = await stack.submit(b, 'quick question');
    const accepted = Date.now() - t0;
    const answered = await stack.waitForStatus(quick.message.id, [...ENDED], 15_000);
    const answeredMs = Date.now() - t0;
    expect(answered.status).toBe('processed');
    expect((await stack.messages(a)).find((m) => m.id === slow.message.id)?.status).toBe('processing');

    // B's /stop on a slow turn of its own: answered and effective at once, A still working.
    const long = await stack.submit(b, 'sleep: 20');
    await stack.waitForStatus(long.message.id, ['processing']);
    const t1 = Date.now();
    expect(await stack.sessions.stop(b)).toEqual({ stopped: true });
    const stopAnswered = Date.now() - t1;
    const stopped = await stack.waitForStatus(long.message.id, [...ENDED], 10_000);
    const stoppedMs = Date.now() - t1;
    expect(stopped.status).toBe('interrupted');
    expect((await stack.messages(a)).find((m) => m.id === slow.message.id)?.status).toBe('processing');

    console.log(
      `head-of-line: B accepted in ${accepted} ms, answered in ${answeredMs} ms; /stop answered in ${stopAnswered} ms, turn ended in ${stoppedMs} ms`,
    );
    expect(accepted).toBeLessThan(3000);
    expect(answeredMs).toBeLessThan(6000);
    expect(stopAnswered).toBeLessThan(3000);
    expect(stoppedMs).toBeLessThan(6000);

    // A finishes on its own, its compaction after it.
    expect((await stack.waitForStatus(slow.message.id, [...ENDED], 30_000)).status).toBe('processed');
  }, 60_000);
});

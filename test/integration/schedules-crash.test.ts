/**
 * Scheduled prompts across worker crashes, with the real `npm run worker` entry point in child processes:
 * - a schedule every 10 s, two workers, one SIGKILLed just before a tick and restarted after it: every tick puts
 *   exactly one cron prompt into the session and gets exactly one turn and one reply;
 * - every worker down across a tick: the tick fires once, late, when a worker is back (the documented catch-up).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { ScheduleService } from '../../infra/schedules.ts';
import type { Message } from '../../domain/message.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let schedules: ScheduleService;
const workers: ChildPart[] = [];
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  schedules = new ScheduleService({
    client: stack.client,
    pool: stack.pool,
    taskQueue: stack.taskQueue,
    logger: createLogger('test', process.env.KESOKU_TEST_LOG ?? 'silent'),
  });
});
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill('SIGKILL');
});
afterAll(async () => {
  await stack?.stop();
});

const startWorker = async (): Promise<ChildPart> => {
  const w = startPart('bin/worker.ts', stackEnv(stack));
  workers.push(w);
  await w.waitFor('kesoku worker running', 60_000);
  return w;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** ms until the next multiple of `everyMs` after `anchorMs` (the schedule's interval is aligned to its creation). */
const untilNextTick = (anchorMs: number, everyMs: number) => {
  const offset = anchorMs % everyMs;
  const now = Date.now();
  const next = Math.floor((now - offset) / everyMs) * everyMs + offset + everyMs;
  return next - now;
};

/** The scheduled time in a tick's message id (`cron.<id>.<yyyymmddThhmmssZ>`), ms since the epoch. */
const scheduledAtOf = (m: Message): number =>
  Date.parse(
    (m.id.split('.').at(-1) ?? '').replace(
      /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/,
      '$1-$2-$3T$4:$5:$6Z',
    ),
  );

const cronPrompts = async (session: string): Promise<Message[]> =>
  (await stack.messages(session)).filter((m) => m.sender === 'Cronjob');

describe('a schedule every 10 s across a worker SIGKILL', () => {
  it('fires exactly once per tick with two workers while one is killed and restarted around a firing', async () => {
    const session = uniqueId('s');
    const first = await startWorker();
    await startWorker();
    const createdAt = Math.floor(Date.now() / 1000) * 1000;
    const s = await schedules.create(session, { prompt: 'tick report', every: '10s' }, 'test');
    const startedAt = Date.now();

    // Kill one worker 300 ms before the third tick, restart it 3 s after.
    await sleep(untilNextTick(createdAt, 10_000) + 20_000 - 300);
    await first.kill('SIGKILL');
    await sleep(3300);
    await startWorker();

    // About a minute in all; stop the clock, then let the last tick's turn finish.
    await sleep(Math.max(0, 62_000 - (Date.now() - startedAt)));
    await schedules.update(session, s.id, { paused: true });
    const stoppedAt = Date.now();
    await expect
      .poll(async () => (await cronPrompts(session)).every((m) => m.status === 'processed'), {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(true);

    const prompts = await cronPrompts(session);
    const ticks = prompts.map((m) => m.id);
    if (process.env.KESOKU_TEST_DEBUG) {
      const d = await stack.client.schedule.getHandle(`kesoku-schedule:${session}:${s.id}`).describe();
      console.log({
        startedAt: new Date(startedAt).toISOString(),
        stoppedAt: new Date(stoppedAt).toISOString(),
        ticks: prompts.map((m) => [new Date(scheduledAtOf(m)).toISOString(), m.received_at]),
        actions: d.info.recentActions.map((a) => [a.scheduledAt.toISOString(), a.takenAt.toISOString()]),
        info: { ...d.info, recentActions: undefined, nextActionTimes: undefined },
      });
    }
    // Ticks every 10 s from creation: 6 in 62 s (a seventh only if pausing raced it).
    expect(prompts.length).toBeGreaterThanOrEqual(6);
    expect(prompts.length).toBeLessThanOrEqual(Math.ceil((stoppedAt - startedAt) / 10_000));
    expect(new Set(ticks).size).toBe(ticks.length);
    // One scheduled time per prompt, 10 s apart, none missing.
    const times = prompts.map(scheduledAtOf).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(10_000);
    // One turn and one reply per tick.
    const msgs = await stack.messages(session);
    for (const p of prompts) {
      const replies = msgs.filter((m) => m.turn_id === p.id && m.role === 'assistant' && m.type === 'text');
      expect(
        replies.map((r) => r.status),
        p.id,
      ).toEqual(['delivered']);
    }
    const view = await schedules.get(session, s.id);
    expect(view.runs.every((r) => r.outcome === 'processed' && r.delivered)).toBe(true);
    expect(
      stack
        .requestsOf(session)
        .filter((r) => JSON.stringify(r.body?.messages?.at(-1)).includes('tick report')).length,
    ).toBe(prompts.length);
  }, 180_000);

  it('every worker down across a tick: the tick fires once, late, when a worker is back', async () => {
    const session = uniqueId('s');
    const createdAt = Math.floor(Date.now() / 1000) * 1000;
    const s = await schedules.create(session, { prompt: 'while down', every: '10s' }, 'test');
    // No worker for 25 s: two ticks pass (the second is skipped while the first one's firing waits).
    await sleep(untilNextTick(createdAt, 10_000) + 15_000);
    expect(await cronPrompts(session)).toHaveLength(0);
    const backAt = Date.now();
    await startWorker();
    await expect
      .poll(async () => (await cronPrompts(session)).length, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);
    // The tick buffered behind the caught-up one runs next and is recorded missed (pausing first would drop it).
    const missedWhileDown = async () =>
      (await schedules.get(session, s.id)).runs.filter(
        (r) => r.outcome === 'missed' && Date.parse(r.scheduled_at) < backAt,
      ).length;
    await expect.poll(missedWhileDown, { timeout: 20_000 }).toBe(1);
    await schedules.update(session, s.id, { paused: true });
    await sleep(1500);
    const prompts = await cronPrompts(session);
    // Of the ticks due while no worker ran, exactly one fired (late); later ones are on time.
    const dueWhileDown = prompts.filter((m) => scheduledAtOf(m) < backAt);
    expect(dueWhileDown).toHaveLength(1);
    expect(Date.parse(dueWhileDown[0]!.received_at ?? '') - scheduledAtOf(dueWhileDown[0]!)).toBeGreaterThan(
      5_000,
    );
    expect(await missedWhileDown()).toBe(1);
  }, 120_000);
});

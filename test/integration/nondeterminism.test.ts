/**
 * A session stuck on a nondeterminism error, and its recovery (docs/operations.md "A session stuck on a
 * nondeterminism error"). Unversioned workers: a session ran on "build B" (test/fixtures/builds/patched-build.ts,
 * a change behind a patch); B is replaced by a real `npm run worker` process with this checkout's code, which cannot
 * replay the history. The worker says so (error log line, `kesoku_workflow_task_nondeterminism_total`, `/healthz`
 * 503); a message sent by update is not accepted while stuck; the recovery terminates the run and restores it
 * from Postgres, the waiting update lands on the new run, and every message is answered once.
 */
import net from 'node:net';
import path from 'node:path';
import { NativeConnection, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { recoverSession, stuckSessions } from '../../infra/session-recovery.ts';
import { createKesokuWorker, type KesokuWorker } from '../../workers/build-worker.ts';
import { startEntry, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let native: NativeConnection;
let workerA: ChildPart | null = null;

beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  native = await NativeConnection.connect({ address: stack.temporalAddress });
});

afterAll(async () => {
  await workerA?.kill('SIGKILL');
  await native?.close();
  await stack?.stop();
});

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

async function runBuildB(): Promise<{ worker: KesokuWorker; done: Promise<void> }> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: path.join(import.meta.dirname, '..', 'fixtures', 'builds', 'patched-build.ts'),
    logger: undefined,
  });
  const worker = await createKesokuWorker({
    connection: native,
    namespace: 'default',
    taskQueue: stack.taskQueue,
    pool: stack.pool,
    logger: createLogger('test', process.env.KESOKU_TEST_LOG ?? 'silent'),
    llm: stack.llm,
    dataDir: stack.dataDir,
    maxSteps: 8,
    compactTokens: 64_000,
    shellTimeoutMs: 30_000,
    workflowBundle: { code: bundle.code },
    dataConverter: { payloadCodecs: [stack.payloadCodec] },
    drainS: 1,
  });
  return { worker, done: worker.run() };
}

describe('a session stuck on a nondeterminism error', () => {
  it('is reported by the worker and recovered by terminate + restore without losing a message', async () => {
    const session = uniqueId('nde');
    const address = { sessionId: session, chatbotId: 'api', channelId: session };
    const b = await runBuildB();
    const first = await stack.submit(session, 'first, on build B');
    await stack.waitForStatus(first.message.id, ['processed'], 60_000);
    // Queue mode: the messages that wait during the recovery each get their own turn.
    await stack.sessions.setMode(address, 'queue');
    b.worker.shutdown();
    await b.done;

    const port = await freePort();
    workerA = startEntry(
      'worker',
      stackEnv(stack, { KESOKU_METRICS_PORT: String(port), KESOKU_LOG_LEVEL: 'warn' }),
    );
    await workerA.waitFor('kesoku worker running', 120_000);

    // A message by update is not accepted while stuck: no answer (an API caller gets 503 at its deadline). The
    // client keeps trying; after the recovery the new run accepts it.
    let waiting: 'waiting' | 'accepted' | 'failed' = 'waiting';
    const late = stack.sessions.submit(address, {
      id: uniqueId('m'),
      content: 'by update while stuck',
      sender: 'tester',
      receivedAt: new Date().toISOString(),
    });
    late.then(
      () => (waiting = 'accepted'),
      () => (waiting = 'failed'),
    );
    // Its workflow task fails on replay; the worker says so.
    await workerA.waitFor('nondeterminism error', 60_000);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as {
      workflows: { ok: boolean; nondeterminism: number; last?: { error: string } };
    };
    expect(body.workflows).toMatchObject({ ok: false });
    expect(body.workflows.nondeterminism).toBeGreaterThanOrEqual(1);
    expect(body.workflows.last?.error).toMatch(/TMPRL1100/);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^kesoku_workflow_task_nondeterminism_total [1-9]/m);
    await new Promise((r) => setTimeout(r, 3000));
    expect(waiting).not.toBe('accepted');

    // `npm run recover -- --stuck` finds it by its failing workflow task.
    await expect
      .poll(() => stuckSessions(stack.client, 2), { timeout: 60_000, interval: 1000 })
      .toContain(session);
    // Recovery: terminate, restore from Postgres, re-submit what came by signal.
    const report = await recoverSession(stack.sessions, session);
    expect(report.terminatedRunId).not.toBeNull();
    // This code refuses the userMessage signal, so the stuck run had accepted nothing by it.
    expect(report.resubmitted).toEqual([]);
    // The update still waiting is accepted by the new run (were it failed, its caller would send it again).
    const lateResult = await late.catch(() => null);
    if (lateResult) await stack.waitForStatus(lateResult.message.id, ['processed'], 60_000);
    const third = await stack.submit(session, 'third, after the recovery');
    await stack.waitForStatus(third.message.id, ['processed'], 60_000);

    const rows = await stack.messages(session);
    const users = rows.filter((m) => m.role === 'user');
    const status = Object.fromEntries(users.map((m) => [m.content, m.status]));
    expect(status).toMatchObject({
      'first, on build B': 'processed',
      'third, after the recovery': 'processed',
    });
    expect(Object.keys(status)).toHaveLength(lateResult ? 3 : 2);
    if (lateResult) expect(status['by update while stuck']).toBe('processed');
    // Every processed message was answered once; none is still open.
    const replies = rows.filter((m) => m.role === 'assistant' && m.type === 'text');
    expect(replies.map((m) => m.content)).toEqual(
      users.filter((m) => m.status === 'processed').map((m) => `echo: ${m.content}`),
    );
  }, 240_000);
});

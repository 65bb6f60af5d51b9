/**
 * The rollback drill of docs/operations.md ("Rolling back"), on the real dev server: build A is current, build B
 * (A plus a change behind a patch, test/fixtures/builds/patched-build.ts) is ramped, sessions are touched on both,
 * the ramp is dropped (rolled back to A) and the `upgrade` signal is sent to every session. Session runs are
 * PINNED, so no history recorded on B is ever replayed on A (which would fail: shown at the end); each idle run
 * ends, B is stopped, every session answers its next message on A (a new run, restored from Postgres), and no
 * accepted message is lost.
 */
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { WorkflowNotFoundError } from '@temporalio/client';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { sessionWorkflowId, upgradeSignal } from '../../workflows/definitions.ts';
import { createKesokuWorker, type KesokuWorker } from '../../workers/build-worker.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const { VersioningBehavior } = temporal.api.enums.v1;

let stack: Stack;
let native: NativeConnection;
let bundleB: WorkflowBundle;
const builds = new Map<string, { worker: KesokuWorker; done: Promise<void> }>();
const deployment = uniqueId('kesoku-drill');

beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  native = await NativeConnection.connect({ address: stack.temporalAddress });
  bundleB = await bundleWorkflowCode({
    workflowsPath: path.join(import.meta.dirname, '..', 'fixtures', 'builds', 'patched-build.ts'),
    logger: undefined,
  });
}, 120_000);

afterAll(async () => {
  for (const r of builds.values()) {
    if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
    await r.done.catch(() => undefined);
  }
  await native?.close();
  await stack?.stop();
});

async function startBuild(buildId: string, workflowBundle: { code: string } | { codePath: string }) {
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
    workflowBundle,
    dataConverter: { payloadCodecs: [stack.payloadCodec] },
    deployment: { name: deployment, buildId },
    drainS: 1,
  });
  builds.set(buildId, { worker, done: worker.run() });
}

/** Retries a deployment call until the server has seen the version poll. */
async function deploymentCall(fn: () => Promise<unknown>): Promise<void> {
  await expect
    .poll(
      () =>
        fn()
          .then(() => true)
          .catch(() => false),
      { timeout: 60_000, interval: 500 },
    )
    .toBe(true);
}

const setCurrent = (buildId: string) =>
  deploymentCall(() =>
    stack.client.workflowService.setWorkerDeploymentCurrentVersion({
      namespace: 'default',
      deploymentName: deployment,
      buildId,
      identity: 'rollback drill',
    }),
  );
/** Ramps `buildId` to `percentage`; an empty build id drops the ramp. */
const setRamping = (buildId: string, percentage: number) =>
  deploymentCall(() =>
    stack.client.workflowService.setWorkerDeploymentRampingVersion({
      namespace: 'default',
      deploymentName: deployment,
      buildId,
      percentage,
      identity: 'rollback drill',
    }),
  );

async function versioningOf(sessionId: string) {
  const d = await stack.client.workflow.getHandle(sessionWorkflowId(sessionId)).describe();
  const info = d.raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId, runId: d.runId };
}

async function say(sessionId: string, text: string) {
  const r = await stack.submit(sessionId, text);
  expect((await stack.waitForStatus(r.message.id, ['processed'], 60_000)).status).toBe('processed');
  return r.message.id;
}

describe('rollback drill (Worker Deployment, PINNED sessions, upgrade by continue-as-new)', () => {
  it('rolls a ramped build B back to A: idle runs on B end, the next message of each session runs on A, nothing is lost', async () => {
    await startBuild('build-a', { codePath: inject('workflowBundlePath') });
    await setCurrent('build-a');
    const onA = [uniqueId('drill-a'), uniqueId('drill-a')];
    const accepted: string[] = [];
    for (const s of onA) accepted.push(await say(s, `first on A ${s}`));
    for (const s of onA)
      expect(await versioningOf(s)).toMatchObject({
        behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
        buildId: 'build-a',
      });

    // Build B ramps at 100 %: new sessions start on it; the sessions pinned to A stay there.
    await startBuild('build-b', { code: bundleB.code });
    await setRamping('build-b', 100);
    const onB = [uniqueId('drill-b'), uniqueId('drill-b')];
    for (const s of onB) accepted.push(await say(s, `first on B ${s}`));
    accepted.push(await say(onA[0]!, 'second on A, during the ramp'));
    for (const s of onB)
      expect(await versioningOf(s)).toMatchObject({
        behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
        buildId: 'build-b',
      });
    expect((await versioningOf(onA[0]!)).buildId).toBe('build-a');
    const bRuns = new Map<string, string>();
    for (const s of onB) bRuns.set(s, (await versioningOf(s)).runId);

    // Roll back: drop the ramp. Runs pinned to B keep answering on B until they move.
    await setRamping('', 0);
    accepted.push(await say(onB[0]!, 'on B after the rollback, before the upgrade'));

    // The upgrade batch: every session continues-as-new onto the current build (A).
    for (const s of [...onA, ...onB])
      await stack.client.workflow.getHandle(sessionWorkflowId(s)).signal(upgradeSignal);
    // The upgrade batch: every idle session's run ends (its state is in Postgres). The dev server (1.29.1) has no
    // upgrade-on-continue-as-new: a run continued-as-new from B would stay pinned to B, so idle runs close instead.
    // A run that saw the target build change has ended already (the server sets the flag at its next task): what
    // `temporal workflow signal --query "… ExecutionStatus='Running'"` does, only running ones are signalled.
    for (const s of [...onA, ...onB])
      await stack.client.workflow
        .getHandle(sessionWorkflowId(s))
        .signal(upgradeSignal)
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
    for (const s of [...onA, ...onB])
      await expect
        .poll(
          async () => (await stack.client.workflow.getHandle(sessionWorkflowId(s)).describe()).status.name,
          {
            timeout: 60_000,
            interval: 300,
          },
        )
        .toBe('COMPLETED');

    // B has drained: stop it. Every session answers its next message on A.
    const b = builds.get('build-b')!;
    b.worker.shutdown();
    await b.done;
    for (const s of [...onA, ...onB]) accepted.push(await say(s, `next after the rollback ${s}`));
    for (const s of [...onA, ...onB]) {
      expect(await versioningOf(s)).toMatchObject({
        behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
        buildId: 'build-a',
      });
      if (bRuns.has(s)) expect((await versioningOf(s)).runId).not.toBe(bRuns.get(s));
    }

    // Nothing lost: every accepted message was processed once and answered once.
    for (const s of [...onA, ...onB]) {
      const rows = await stack.messages(s);
      const users = rows.filter((m) => m.role === 'user');
      const replies = rows.filter((m) => m.role === 'assistant' && m.type === 'text');
      expect(users.every((m) => m.status === 'processed')).toBe(true);
      expect(replies.map((m) => m.content)).toEqual(users.map((m) => `echo: ${m.content}`));
    }
    const processed = await Promise.all(accepted.map((id) => stack.waitForStatus(id, ['processed'])));
    expect(processed).toHaveLength(accepted.length);

    // What AUTO_UPGRADE would have done: a history recorded on B does not replay on A.
    const history = await stack.client.workflow
      .getHandle(sessionWorkflowId(onB[1]!), bRuns.get(onB[1]!))
      .fetchHistory();
    const replay = await Worker.runReplayHistories(
      {
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter: { payloadCodecs: [stack.payloadCodec] },
      },
      [{ workflowId: sessionWorkflowId(onB[1]!), history }],
    );
    const errors: string[] = [];
    for await (const r of replay) if (r.error) errors.push(String(r.error));
    expect(errors.join('\n')).toMatch(/[Nn]ondeterminism/);
  }, 300_000);
});

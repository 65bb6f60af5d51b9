/**
 * Worker Versioning as docs/operations.md ("Rolling out new code") describes it: two worker builds under one
 * Worker Deployment; the current version is set through the deployment API (SetWorkerDeploymentCurrentVersion,
 * what `temporal worker deployment set-current-version` calls). A session run is PINNED: after the current version
 * changes, its next turn still runs on its build; the `upgrade` signal ends the idle run, and the session's
 * following message starts a run on the new build. The title workflow is PINNED too and ran on
 * the build that was current when it started.
 */
import { NativeConnection } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { sessionWorkflowId, titleWorkflowId, upgradeSignal } from '../../workflows/definitions.ts';
import { createKesokuWorker, type KesokuWorker } from '../../workers/build-worker.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const { VersioningBehavior } = temporal.api.enums.v1;

let stack: Stack;
let native: NativeConnection;
const running: { worker: KesokuWorker; done: Promise<void> }[] = [];
const deployment = uniqueId('kesoku-vt');

beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  native = await NativeConnection.connect({ address: stack.temporalAddress });
});

afterAll(async () => {
  for (const r of running) {
    if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
    await r.done.catch(() => undefined);
  }
  await native?.close();
  await stack?.stop();
});

/** Starts an in-process worker polling as version `<deployment>.<buildId>`. */
async function startBuild(buildId: string): Promise<void> {
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
    workflowBundle: { codePath: inject('workflowBundlePath') },
    dataConverter: { payloadCodecs: [stack.payloadCodec] },
    deployment: { name: deployment, buildId },
  });
  running.push({ worker, done: worker.run() });
}

/** Makes `buildId` the deployment's current version (retried until the server has seen the version poll). */
async function setCurrent(buildId: string): Promise<void> {
  await expect
    .poll(
      () =>
        stack.client.workflowService
          .setWorkerDeploymentCurrentVersion({
            namespace: 'default',
            deploymentName: deployment,
            buildId,
            identity: 'worker-versioning test',
          })
          .then(() => true)
          .catch(() => false),
      { timeout: 60_000, interval: 500 },
    )
    .toBe(true);
}

/** The versioning behaviour and version of a workflow's current run. */
async function versioningOf(workflowId: string) {
  const d = await stack.client.workflow.getHandle(workflowId).describe();
  const info = d.raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId };
}

/** Build ids of the workers that completed workflow tasks of `workflowId` after event id `afterEventId`. */
async function workflowTaskBuilds(workflowId: string, afterEventId = 0): Promise<Set<string>> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  const out = new Set<string>();
  for (const e of history.events ?? []) {
    const buildId = e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId;
    if (buildId && Number(e.eventId) > afterEventId) out.add(buildId);
  }
  return out;
}

describe('Worker Versioning (one deployment, two builds)', () => {
  it('keeps a session run on its build, then starts its next run on the new current build; the title workflow ran on its start build', async () => {
    await startBuild('build-1');
    await setCurrent('build-1');
    const session = uniqueId('vt');
    const first = await stack.submit(session, 'hello from build 1');
    expect((await stack.waitForStatus(first.message.id, ['processed'], 60_000)).status).toBe('processed');
    expect(await versioningOf(sessionWorkflowId(session))).toEqual({
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      buildId: 'build-1',
    });
    // The title workflow started during the first turn, on build-1, and completed there.
    await expect
      .poll(
        async () => (await stack.client.workflow.getHandle(titleWorkflowId(session)).describe()).status.name,
        {
          timeout: 60_000,
          interval: 500,
        },
      )
      .toBe('COMPLETED');
    expect(await versioningOf(titleWorkflowId(session))).toEqual({
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      buildId: 'build-1',
    });

    // The first turn's history ends here (the title child's completion included).
    await new Promise((r) => setTimeout(r, 2000));
    const firstTurnEnd = (await stack.client.workflow.getHandle(sessionWorkflowId(session)).fetchHistory())
      .events!.length;

    // A second build polls and is made current: the open run stays pinned to build-1 for its next turn, then ends.
    const firstRun = (await stack.client.workflow.getHandle(sessionWorkflowId(session)).describe()).runId;
    await startBuild('build-2');
    await setCurrent('build-2');
    const second = await stack.submit(session, 'hello again on build 1');
    expect((await stack.waitForStatus(second.message.id, ['processed'], 60_000)).status).toBe('processed');
    expect(await workflowTaskBuilds(sessionWorkflowId(session), firstTurnEnd)).toEqual(new Set(['build-1']));
    // The upgrade batch after a deploy (docs/operations.md): the idle run ends. (The dev server, 1.29.1, does not
    // tell a run that its target build changed, so it is the signal that ends it here.)
    await stack.client.workflow.getHandle(sessionWorkflowId(session)).signal(upgradeSignal);
    await expect
      .poll(
        async () =>
          (await stack.client.workflow.getHandle(sessionWorkflowId(session), firstRun).describe()).status
            .name,
        { timeout: 60_000, interval: 300 },
      )
      .toBe('COMPLETED');
    // The session's next message starts a run on build-2, which restores the session from Postgres.
    const third = await stack.submit(session, 'hello from build 2');
    expect((await stack.waitForStatus(third.message.id, ['processed'], 60_000)).status).toBe('processed');
    expect(await versioningOf(sessionWorkflowId(session))).toEqual({
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      buildId: 'build-2',
    });
    expect(await workflowTaskBuilds(sessionWorkflowId(session), 0)).toEqual(new Set(['build-2']));
    const reply = (await stack.messages(session)).filter((m) => m.role === 'assistant' && m.type === 'text');
    expect(reply.map((m) => m.content)).toEqual([
      'echo: hello from build 1',
      'echo: hello again on build 1',
      'echo: hello from build 2',
    ]);
  }, 240_000);
});

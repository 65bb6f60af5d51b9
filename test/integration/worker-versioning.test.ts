/**
 * Worker Versioning as docs/operations.md ("Rolling out new code") describes it: two worker builds under one
 * Worker Deployment; the current version is set through the deployment API (SetWorkerDeploymentCurrentVersion,
 * what `temporal worker deployment set-current-version` calls). A session workflow is AUTO_UPGRADE: its next turn
 * after the current version changes runs on the new build. The title workflow is AUTO_UPGRADE too and ran on the
 * build that was current when it started.
 */
import { NativeConnection, type Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { sessionWorkflowId, titleWorkflowId } from '../../workflows/definitions.ts';
import { createKesokuWorker } from '../../workers/build-worker.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const { VersioningBehavior } = temporal.api.enums.v1;

let stack: Stack;
let native: NativeConnection;
const running: { worker: Worker; done: Promise<void> }[] = [];
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
  it('moves a session to the new current build at its next turn; the title workflow ran on its start build', async () => {
    await startBuild('build-1');
    await setCurrent('build-1');
    const session = uniqueId('vt');
    const first = await stack.submit(session, 'hello from build 1');
    expect((await stack.waitForStatus(first.message.id, ['processed'], 60_000)).status).toBe('processed');
    expect(await versioningOf(sessionWorkflowId(session))).toEqual({
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
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
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
      buildId: 'build-1',
    });

    // The first turn's history ends here (the title child's completion included).
    await new Promise((r) => setTimeout(r, 2000));
    const firstTurnEnd = (await stack.client.workflow.getHandle(sessionWorkflowId(session)).fetchHistory())
      .events!.length;

    // A second build polls; only once it is made current does the open session move to it.
    await startBuild('build-2');
    await setCurrent('build-2');
    const second = await stack.submit(session, 'hello from build 2');
    expect((await stack.waitForStatus(second.message.id, ['processed'], 60_000)).status).toBe('processed');
    expect(await versioningOf(sessionWorkflowId(session))).toEqual({
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
      buildId: 'build-2',
    });
    expect(await workflowTaskBuilds(sessionWorkflowId(session), 0)).toEqual(new Set(['build-1', 'build-2']));
    expect(await workflowTaskBuilds(sessionWorkflowId(session), firstTurnEnd)).toEqual(new Set(['build-2']));
    const reply = (await stack.messages(session)).filter((m) => m.role === 'assistant' && m.type === 'text');
    expect(reply.map((m) => m.content)).toEqual(['echo: hello from build 1', 'echo: hello from build 2']);
  }, 240_000);
});

/**
 * Backward replay: histories recorded by this checkout's workflow code (on the dev server) replayed against the
 * previous release's code (test/fixtures/releases/previous). A history fails there only because it passed a patch
 * the previous release does not know (workflows/patches.ts PATCHES_SINCE_PREVIOUS_RELEASE); any other failure is a
 * change that breaks a rollback and is not declared. The same histories replay forward, on this code.
 * test/unit/replay.test.ts is the other direction: fixtures recorded by earlier code replayed on this code.
 */
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SessionClient } from '../../infra/session-client.ts';
import { capabilitiesOf } from '../../adapters/registry.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { PATCHES_SINCE_PREVIOUS_RELEASE } from '../../workflows/patches.ts';
import { recordHistory } from '../support/histories.ts';
import { bundlePreviousRelease } from '../support/previous-release.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let previous: WorkflowBundle;
const recorded: { name: string; history: TemporalProto.api.history.v1.IHistory }[] = [];

beforeAll(async () => {
  stack = await startStack();
  previous = await bundlePreviousRelease();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const client = (opts: { continueAsNewAfterTurns?: number; idleEndS?: number } = {}) =>
  new SessionClient({
    client: stack.client,
    taskQueue: stack.taskQueue,
    capabilities: capabilitiesOf,
    ...opts,
  });

async function say(sessions: SessionClient, session: string, content: string): Promise<void> {
  const r = await sessions.submit(
    { sessionId: session, chatbotId: 'api', channelId: session },
    { id: uniqueId('m'), content, sender: 'tester', receivedAt: new Date().toISOString() },
  );
  await stack.waitForStatus(r.message.id, ['processed'], 60_000);
}

/** Every run of the session's workflow, oldest first, once the last one is idle (or closed). */
async function runsOf(session: string): Promise<TemporalProto.api.history.v1.IHistory[]> {
  const wid = sessionWorkflowId(session);
  await expect
    .poll(async () => (await stack.sessions.state(session).catch(() => ({ status: 'idle' }))).status, {
      timeout: 30_000,
    })
    .toBe('idle');
  await new Promise((r) => setTimeout(r, 1000));
  const out: TemporalProto.api.history.v1.IHistory[] = [];
  const first = (await stack.client.workflow.getHandle(wid).describe()).raw.workflowExecutionInfo?.firstRunId;
  for (let runId: string | undefined = first ?? undefined; runId;) {
    const h = await stack.client.workflow.getHandle(wid, runId).fetchHistory();
    out.push(h);
    runId = h.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

async function replay(
  bundle: WorkflowBundle,
  h: TemporalProto.api.history.v1.IHistory,
): Promise<string | null> {
  for await (const r of Worker.runReplayHistories(
    { workflowBundle: bundle, dataConverter: { payloadCodecs: [stack.payloadCodec] } },
    [{ workflowId: 'recorded', history: h }],
  ))
    return r.error ? String(r.error) : null;
  return 'no result';
}

describe('histories recorded by this code', () => {
  it('records a plain turn, a tool turn, a continue-as-new chain and a run ended idle', async () => {
    const plain = uniqueId('bw-plain');
    await say(client(), plain, 'hello');
    for (const h of await runsOf(plain)) recorded.push({ name: 'plain', history: h });

    const tool = uniqueId('bw-tool');
    await say(client(), tool, 'run: echo hi >> out.txt');
    for (const h of await runsOf(tool)) recorded.push({ name: 'tool', history: h });

    const chain = uniqueId('bw-can');
    const oneTurn = client({ continueAsNewAfterTurns: 1 });
    await say(oneTurn, chain, 'one');
    await say(oneTurn, chain, 'two');
    (await runsOf(chain)).forEach((h, i) =>
      recorded.push({ name: `continue-as-new run ${i + 1}`, history: h }),
    );

    const idle = uniqueId('bw-idle');
    await say(client({ idleEndS: 5 }), idle, 'then idle');
    const handle = stack.client.workflow.getHandle(sessionWorkflowId(idle));
    await expect
      .poll(async () => (await handle.describe()).status.name, { timeout: 30_000 })
      .toBe('COMPLETED');
    recorded.push({ name: 'idle end', history: await handle.fetchHistory() });
    await recordHistory('idle-ended', stack.client, sessionWorkflowId(idle));
    expect(recorded.length).toBeGreaterThanOrEqual(5);
  }, 180_000);

  it('replay forward, on this code', async () => {
    const bundle = { codePath: inject('workflowBundlePath') };
    for (const r of recorded)
      expect(await replay(bundle as unknown as WorkflowBundle, r.history), r.name).toBeNull();
  }, 120_000);

  it('replay backward, on the previous release, failing only at the patches it does not know', async () => {
    const declared = new RegExp(
      `patch marker encountered for change (${PATCHES_SINCE_PREVIOUS_RELEASE.join('|')})\\b`,
    );
    const outcomes: Record<string, string> = {};
    for (const r of recorded) {
      const error = await replay(previous, r.history);
      outcomes[r.name] = error === null ? 'ok' : declared.test(error) ? 'declared patch' : error;
    }
    // Every run waits idle at least once, so today every history meets `session-idle-end` (a rollback to the
    // previous release is safe only for pinned runs); the replay stops at the first mismatch.
    for (const [name, outcome] of Object.entries(outcomes))
      expect(['ok', 'declared patch'], `${name}: ${outcome}`).toContain(outcome);
  }, 120_000);
});

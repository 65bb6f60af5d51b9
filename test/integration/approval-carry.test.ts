/**
 * An approval given while the waiting turn is being carried into the next run (after the turn was suspended, before
 * the run continued-as-new) is honoured: the next run applies it, the command runs once, and the call is not left
 * to time out as a denial. The window is held open by a live channel whose typing-off call (awaited at the end of
 * every turn, before continue-as-new) waits until the decision has been taken.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../activities/tools/activities.ts';
import type { ChannelSink } from '../../activities/sink.ts';
import { listPendingApprovals } from '../../db/approvals.ts';
import type { Message } from '../../domain/message.ts';
import type { ToolApproval } from '../../domain/tool-approval.ts';
import { capabilitiesOf } from '../../adapters/registry.ts';
import { SessionClient } from '../../infra/session-client.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const CHATBOT = 'discord';
let stack: Stack;
let releaseTypingOff: () => void = () => undefined;
let typingOffWaiting: Promise<void> = Promise.resolve();
let arm: () => void = () => undefined;

const sink = {
  async send() {},
  async presentProgress() {
    return [];
  },
  async setActivity(_session: unknown, active: boolean) {
    if (active) return;
    arm();
    await new Promise<void>((resolve) => (releaseTypingOff = resolve));
  },
  async askApproval(_call: Message, _a: ToolApproval) {},
  async showApprovalOutcome() {},
} as unknown as ChannelSink;

beforeAll(async () => {
  // Approvals time out after 20 s: a lost decision would end the call `timed_out` (a denial) well within the test.
  stack = await startStack({ approvals: { policy: 'writes', timeoutS: 20 }, sinks: { [CHATBOT]: sink } });
});

afterAll(async () => {
  releaseTypingOff();
  await stack?.stop();
});

describe('approval decided during the continue-as-new carry', () => {
  it('is honoured by the next run: the command runs once and the call is approved, not timed out', async () => {
    expect(capabilitiesOf(CHATBOT).liveProgress).toBe(true);
    const sessions = new SessionClient({
      client: stack.client,
      taskQueue: stack.taskQueue,
      continueAsNewAfterTurns: 1,
      capabilities: capabilitiesOf,
    });
    const session = uniqueId('carry');
    typingOffWaiting = new Promise<void>((resolve) => (arm = resolve));
    const r = await sessions.submit(
      { sessionId: session, chatbotId: CHATBOT, channelId: session },
      {
        id: uniqueId('m'),
        content: 'run: echo ran >> runs.txt',
        sender: 'tester',
        receivedAt: new Date().toISOString(),
      },
    );
    // The turn waits for approval and, being the run's last by the turn bound, is suspended: the run now awaits
    // the typing-off call before it continues as new.
    await typingOffWaiting;
    const [pending] = await listPendingApprovals(stack.pool, session);
    expect(pending).toBeDefined();
    const handle = stack.client.workflow.getHandle(sessionWorkflowId(session));
    const firstRun = (await handle.describe()).runId;
    const decided = await sessions.decideApproval(session, {
      callId: pending!.call_id,
      decision: 'approve',
      by: 'api:carry',
    });
    expect(decided).toMatchObject({ callId: pending!.call_id, decision: 'approve' });
    expect((await handle.describe()).runId).toBe(firstRun);
    // Let the run end; the later typing-off calls go through at once.
    arm = () => queueMicrotask(() => releaseTypingOff());
    releaseTypingOff();

    expect(
      (await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 60_000)).status,
    ).toBe('processed');
    expect((await handle.describe()).runId).not.toBe(firstRun);
    const call = (await stack.messages(session)).find((m) => m.id === pending!.call_id);
    expect((call?.metadata as { approval?: ToolApproval } | null)?.approval).toMatchObject({
      state: 'approved',
      by: 'api:carry',
    });
    const file = path.join(workspaceDirFor(stack.dataDir, session), 'runs.txt');
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toEqual(['ran']);
  }, 90_000);
});

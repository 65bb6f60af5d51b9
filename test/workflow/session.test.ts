/**
 * Workflow-level tests of the session workflow with STUB activities (in-memory, scripted per test) on a worker
 * against the run's real Temporal dev server (test/global-setup.ts; the offline machine has no time-skipping
 * server, and the workflows use no timers). Each scenario is a race or failure path of the workflow itself:
 * handler errors, parallel tool failure, /stop during admission, bounded cleanup, stale model steps.
 *
 * KESOKU_TEST_WORKFLOWS=<path to a workflows/index.ts> runs the same scenarios against other workflow code
 * (how these tests were checked to fail on the code before the change).
 */
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import type {
  ApprovalActivities,
  DeliveryActivities,
  ModelActivities,
  PersistenceActivities,
  StepOutcome,
  ToolActivities,
} from '../../workflows/activity-contracts.ts';
import {
  compactUpdate,
  sessionWorkflowId,
  stateQuery,
  stopUpdate,
  submitMessageUpdate,
  toolTaskQueueOf,
  type InboundMessage,
  type SeenCommand,
} from '../../workflows/definitions.ts';

type StubState = {
  calls: string[];
  statuses: Map<string, string>;
  acceptDelayMs: Map<string, number>;
  rejectFails: boolean;
  finishFails: Set<string>;
  model: Map<string, (step: number) => Promise<StepOutcome>>;
  tools: Map<string, () => Promise<{ resultId: string; ok: boolean; summary: string }>>;
  toolCancelled: string[];
  titles: (() => Promise<{ title: string | null; committed: boolean }>)[];
  /** What keepSeenCommands wrote, read back by restoreSession (the sessions row's seen_commands). */
  keptCommands: SeenCommand[];
};

/** Thrown like db/ throws it: a plain error class, which Temporal reports with its class name as the type. */
class IllegalTransitionError extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stub: StubState;
let seq = 0;

function resetStub(): void {
  stub = {
    calls: [],
    statuses: new Map(),
    acceptDelayMs: new Map(),
    rejectFails: false,
    finishFails: new Set(),
    model: new Map(),
    tools: new Map(),
    toolCancelled: [],
    titles: [],
    keptCommands: [],
  };
}

const row = (id: string, status: string) => ({ id, status }) as unknown as Message;

const persistence: PersistenceActivities = {
  async acceptInbound({ message }) {
    stub.calls.push(`accept ${message.id}`);
    await sleep(stub.acceptDelayMs.get(message.id) ?? 0);
    const created = !stub.statuses.has(message.id);
    if (created) stub.statuses.set(message.id, 'pending_agent');
    return { message: row(message.id, stub.statuses.get(message.id) ?? 'pending_agent'), created };
  },
  async rejectInbound({ message }) {
    stub.calls.push(`reject ${message.id}`);
    if (stub.rejectFails) throw ApplicationFailure.nonRetryable('taken by another session', 'id_taken');
    return { noticeId: `${message.id}:rejected` };
  },
  async createCompactionPrompt({ id }) {
    stub.calls.push(`compaction prompt ${id}`);
    return { message: row(id, 'pending_agent') };
  },
  async claimTurn({ messageId }) {
    stub.statuses.set(messageId, 'processing');
    return { claimed: true, kind: 'user' };
  },
  async editQueuedInput({ messageId }) {
    stub.calls.push(`edit ${messageId}`);
    return { edited: stub.statuses.get(messageId) === 'pending_agent' };
  },
  async withdrawQueuedInput({ messageId }) {
    stub.calls.push(`withdraw ${messageId}`);
    stub.statuses.set(messageId, 'interrupted');
    return { withdrawn: true };
  },
  async supersede({ messageIds }) {
    stub.calls.push(`supersede ${messageIds.join(',')}`);
    for (const id of messageIds) stub.statuses.set(id, 'interrupted');
  },
  async finishTurn({ turnId, result }) {
    stub.calls.push(`finish ${turnId} ${result.outcome}`);
    if (stub.finishFails.has(turnId))
      throw new IllegalTransitionError(`illegal status transition for message ${turnId}`);
    stub.statuses.set(turnId, result.outcome);
    return {
      noticeId: result.outcome === 'processed' ? null : `${turnId}:notice`,
      partialIds: [],
      turnCount: 1,
    };
  },
  async restoreSession() {
    return {
      found: false,
      mode: 'interrupt',
      title: null,
      titleSource: 'default',
      turnCount: 0,
      queue: [],
      noticeIds: [],
      ...(stub.keptCommands.length > 0 ? { seenCommands: stub.keptCommands } : {}),
    };
  },
  async keepSeenCommands({ commands }) {
    stub.calls.push(`keep ${commands.map((c) => c.updateId).join(',')}`);
    stub.keptCommands = commands;
  },
  async updateSession() {},
  async requestStop({ turnId }) {
    stub.calls.push(`requestStop ${turnId}`);
    return { marked: true };
  },
};

const model: ModelActivities = {
  async runModelStep({ turnId, step }) {
    stub.calls.push(`model ${turnId} ${step}`);
    const script = stub.model.get(turnId);
    if (script) return script(step);
    return { kind: 'final', replyId: `${turnId}:reply` };
  },
  async compactSession({ turnId }) {
    stub.calls.push(`compact ${turnId}`);
    return { replyId: `${turnId}:reply` };
  },
  async generateTitle() {
    stub.calls.push('title');
    const next = stub.titles.shift();
    return next ? next() : { title: null, committed: false };
  },
};

const tools: ToolActivities = {
  async runToolCall({ toolCallMessageId }) {
    stub.calls.push(`tool ${toolCallMessageId}`);
    const script = stub.tools.get(toolCallMessageId);
    if (!script) return { resultId: `${toolCallMessageId}:result`, ok: true, summary: 'ok' };
    return script();
  },
};

/** Approvals as with the policy `off`: no call asks (workflows/approvals.ts passes every call through). */
const approvals: ApprovalActivities = {
  async requestApprovals({ turnId, step, callIds }) {
    stub.calls.push(`approvals ${turnId} ${step}`);
    return {
      calls: callIds.map((callId) => ({
        callId,
        name: 'run_shell_command',
        subject: '',
        state: 'not_required',
      })),
      timeoutS: 600,
    };
  },
  async recordApproval() {
    return { changed: false };
  },
  async refuseToolCall({ callId }) {
    return { resultId: `${callId}:result`, ok: false, summary: 'refused' };
  },
};

const delivery: DeliveryActivities = {
  async deliverMessage({ messageId }) {
    stub.calls.push(`deliver ${messageId}`);
    return { delivered: true };
  },
  async presentProgress() {},
  async signalActivity() {},
};

/** A tool that runs until cancelled (heartbeating like the real one) and records its cancellation. */
async function runsUntilCancelled(id: string): Promise<never> {
  const ctx = Context.current();
  for (;;) {
    ctx.heartbeat();
    try {
      await ctx.sleep(100);
    } catch (err) {
      stub.toolCancelled.push(id);
      throw err;
    }
  }
}

let client: Client;
let connection: Connection;
let native: NativeConnection;
let worker: Worker;
let toolWorker: Worker;
let running: Promise<void>;
let taskQueue: string;

beforeAll(async () => {
  resetStub();
  const address = inject('temporalAddress');
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  native = await NativeConnection.connect({ address });
  taskQueue = `wf-stub-${process.pid}-${Date.now()}`;
  const other = process.env.KESOKU_TEST_WORKFLOWS;
  const workflowBundle: WorkflowBundle | { codePath: string } = other
    ? await bundleWorkflowCode({ workflowsPath: other })
    : { codePath: inject('workflowBundlePath') };
  worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle,
    activities: { ...persistence, ...model, ...tools, ...delivery, ...approvals },
    maxHeartbeatThrottleInterval: '200 milliseconds',
  });
  // Tool runs go to the tool task queue beside the session's (the main worker keeps them too, for older code).
  toolWorker = await Worker.create({
    connection: native,
    taskQueue: toolTaskQueueOf(taskQueue),
    activities: tools,
    maxHeartbeatThrottleInterval: '200 milliseconds',
  });
  running = Promise.all([worker.run(), toolWorker.run()]).then(() => undefined);
}, 120_000);

afterAll(async () => {
  worker.shutdown();
  toolWorker.shutdown();
  await running;
  await native.close();
  await connection.close();
});

function newSession(mode: 'interrupt' | 'queue' = 'interrupt') {
  resetStub();
  const sessionId = `wf-${process.pid}-${Date.now().toString(36)}-${++seq}`;
  const workflowId = sessionWorkflowId(sessionId);
  const input = {
    sessionId,
    chatbotId: 'api',
    channelId: sessionId,
    mode,
    queue: [],
    inlineDelivery: false,
    liveProgress: false,
  };
  const start = () => client.workflow.start('sessionWorkflow', { workflowId, taskQueue, args: [input] });
  const handle = client.workflow.getHandle(workflowId);
  const message = (id: string): InboundMessage => ({
    id,
    content: `hello ${id}`,
    sender: 'tester',
    receivedAt: new Date().toISOString(),
  });
  const submit = (id: string) => handle.executeUpdate(submitMessageUpdate, { args: [message(id)] });
  return { sessionId, handle, start, message, submit };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; calls: ${stub.calls.join(' | ')}`);
    await sleep(50);
  }
}

describe('session workflow with stub activities', () => {
  it('when one parallel tool fails for good, its sibling is cancelled and awaited before the turn ends', async () => {
    const s = newSession();
    await s.start();
    stub.model.set('t', async (step) =>
      step === 0
        ? {
            kind: 'tool_calls',
            calls: [
              { messageId: 't:call-a', toolCallId: 'a', name: 'run_shell_command' },
              { messageId: 't:call-b', toolCallId: 'b', name: 'run_shell_command' },
            ],
          }
        : { kind: 'final', replyId: 't:reply' },
    );
    stub.tools.set('t:call-a', async () => {
      await sleep(300);
      throw ApplicationFailure.nonRetryable('unknown tool call', 'tool');
    });
    stub.tools.set('t:call-b', () => runsUntilCancelled('t:call-b'));
    await s.submit('t');
    await until(() => stub.calls.includes('finish t error'), 'the failed turn to end', 20_000);
    const finishAt = stub.calls.indexOf('finish t error');
    expect(stub.toolCancelled).toContain('t:call-b');
    expect(stub.calls.indexOf('tool t:call-b')).toBeLessThan(finishAt);
    await s.handle.terminate();
  });

  it('a tool step whose calls the model step judged (none waiting) runs them without the approval activity; an unjudged one still asks it', async () => {
    const s = newSession();
    await s.start();
    const call = (id: string) => ({ messageId: `${id}:call`, toolCallId: id, name: 'run_shell_command' });
    stub.model.set('judged', async (step) =>
      step === 0
        ? {
            kind: 'tool_calls',
            calls: [call('judged')],
            approvals: {
              calls: [
                { callId: 'judged:call', name: 'run_shell_command', subject: 'ls', state: 'not_required' },
              ],
              timeoutS: 600,
            },
          }
        : { kind: 'final', replyId: 'judged:reply' },
    );
    stub.model.set('unjudged', async (step) =>
      step === 0
        ? { kind: 'tool_calls', calls: [call('unjudged')] }
        : { kind: 'final', replyId: 'unjudged:reply' },
    );
    await s.submit('judged');
    await until(() => stub.calls.includes('deliver judged:reply'), 'the judged turn to end');
    await s.submit('unjudged');
    await until(() => stub.calls.includes('deliver unjudged:reply'), 'the unjudged turn to end');
    expect(stub.calls).toContain('tool judged:call');
    expect(stub.calls).not.toContain('approvals judged 0');
    expect(stub.calls).toContain('approvals unjudged 0');
    expect(stub.calls.indexOf('approvals unjudged 0')).toBeLessThan(stub.calls.indexOf('tool unjudged:call'));
    await s.handle.terminate();
  });

  it('a /stop while the previous message is still being admitted stops that message: its turn never runs', async () => {
    const s = newSession();
    await s.start();
    stub.acceptDelayMs.set('slow', 1500);
    const submitted = s.submit('slow');
    await until(() => stub.calls.includes('accept slow'), 'the admission to start');
    const { stopped } = await s.handle.executeUpdate(stopUpdate);
    await submitted;
    await sleep(1000);
    expect(stopped).toBe(true);
    expect(stub.calls).not.toContain('model slow 0');
    expect(stub.statuses.get('slow')).toBe('interrupted');
    // The next message runs.
    await s.submit('next');
    await until(() => stub.calls.includes('deliver next:reply'), 'the next reply');
    await s.handle.terminate();
  });

  it('a turn-end write that fails for good is recorded and the queue moves on', async () => {
    const s = newSession();
    await s.start();
    stub.model.set('bad', async () => {
      throw ApplicationFailure.nonRetryable('model down', 'provider:auth');
    });
    stub.finishFails.add('bad');
    await s.submit('bad');
    await until(() => stub.calls.includes('finish bad error'), 'the failed turn');
    await s.submit('good');
    await until(() => stub.calls.includes('deliver good:reply'), 'the next turn', 30_000);
    const state = await s.handle.query(stateQuery);
    expect(state.recentProblems.map((p) => [p.what, p.messageId])).toContainEqual(['finish_turn', 'bad']);
    await s.handle.terminate();
  });

  it('a model step that ends after /stop is stale: its answer is not delivered and the turn ends interrupted', async () => {
    const s = newSession();
    await s.start();
    stub.model.set('late', async () => {
      await sleep(1500); // no heartbeat: the cancellation never reaches this step
      return { kind: 'final', replyId: 'late:reply' };
    });
    await s.submit('late');
    await until(() => stub.calls.includes('model late 0'), 'the model step');
    await s.handle.executeUpdate(stopUpdate);
    await until(() => stub.calls.some((c) => c.startsWith('finish late')), 'the turn to end');
    await sleep(300);
    expect(stub.calls).toContain('finish late interrupted');
    expect(stub.calls).not.toContain('deliver late:reply');
    await s.handle.terminate();
  });

  it('a failed title is tried again after a later turn, and the title then reaches the session', async () => {
    const s = newSession();
    await s.start();
    stub.titles.push(
      async () => {
        throw ApplicationFailure.nonRetryable('model down', 'provider:auth');
      },
      async () => ({ title: 'A good title', committed: true }),
    );
    await s.submit('one');
    await until(() => stub.calls.includes('title'), 'the first title attempt');
    await sleep(500);
    await s.submit('two');
    await until(() => stub.calls.filter((c) => c === 'title').length >= 2, 'the second title attempt');
    const deadline = Date.now() + 10_000;
    let state = await s.handle.query(stateQuery);
    while (state.title !== 'A good title' && Date.now() < deadline) {
      await sleep(100);
      state = await s.handle.query(stateQuery);
    }
    expect(state).toMatchObject({ title: 'A good title', titleSource: 'auto' });
    await s.handle.terminate();
  });

  it('a model step whose commit was refused as stale after /stop ends the turn interrupted, not as a crash', async () => {
    const s = newSession();
    await s.start();
    stub.model.set('refused', async () => {
      await sleep(1500); // no heartbeat: the cancellation never reaches this step; its guarded commit is refused
      throw ApplicationFailure.nonRetryable('turn refused is stale: a stop was requested', 'StaleTurnError');
    });
    await s.submit('refused');
    await until(() => stub.calls.includes('model refused 0'), 'the model step');
    await s.handle.executeUpdate(stopUpdate);
    await until(() => stub.calls.some((c) => c.startsWith('finish refused')), 'the turn to end');
    expect(stub.calls).toContain('finish refused interrupted');
    expect(stub.calls.filter((c) => c === 'model refused 0')).toHaveLength(1);
    await s.handle.terminate();
  });

  it('a command update delivered again to the run after one that ended idle gets the first answer, not a second run', async () => {
    const s = newSession();
    // Started the way the session client starts a session: no carried queue, so each run restores from Postgres.
    const input = {
      sessionId: s.sessionId,
      chatbotId: 'api',
      channelId: s.sessionId,
      mode: 'interrupt',
      inlineDelivery: false,
      liveProgress: false,
      idleEndS: 1,
    };
    const startWorkflowOperation = () =>
      new WithStartWorkflowOperation('sessionWorkflow', {
        workflowId: sessionWorkflowId(s.sessionId),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    const compact = () =>
      client.workflow.executeUpdateWithStart(compactUpdate, {
        updateId: 'compact-update-1',
        startWorkflowOperation: startWorkflowOperation(),
      });
    const first = await compact();
    await until(() => stub.calls.includes(`compact ${first.message_id}`), 'the compaction turn');
    // Idle for a second, the run ends (not continue-as-new): the answered update id is all that is left of it.
    await s.handle.result();
    expect(stub.calls).toContain('keep compact-update-1');
    // The next message starts the next run; the same command delivered again reaches that run.
    await client.workflow.executeUpdateWithStart(submitMessageUpdate, {
      args: [s.message('later')],
      startWorkflowOperation: startWorkflowOperation(),
    });
    const again = await s.handle.executeUpdate(compactUpdate, { updateId: 'compact-update-1' });
    expect(again).toEqual(first);
    expect(stub.calls.filter((c) => c.startsWith('compaction prompt '))).toHaveLength(1);
    await client.workflow
      .getHandle(sessionWorkflowId(s.sessionId))
      .terminate()
      .catch(() => undefined);
  });
});

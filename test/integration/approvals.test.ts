/**
 * Human approval of tool calls on the real stack (Temporal dev server, Postgres, the fake model, real shell
 * commands): a call that needs approval waits in the workflow until someone approves, denies or always-approves
 * it, or the timeout denies it; `/stop` ends a waiting turn; continue-as-new carries the wait; two calls of one
 * step are decided separately.
 */
import fs from 'node:fs';
import path from 'node:path';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../activities/tools/activities.ts';
import { createApprovalActivities } from '../../activities/approvals.ts';
import type { ChannelSink } from '../../activities/sink.ts';
import { listPendingApprovals, type PendingApprovalRow } from '../../db/approvals.ts';
import { createLogger } from '../../infra/logger.ts';
import type { Message } from '../../domain/message.ts';
import type { ToolApproval } from '../../domain/tool-approval.ts';
import { SessionClient, SessionClientError } from '../../infra/session-client.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { recordHistory } from '../support/histories.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ approvals: { policy: 'writes', timeoutS: 600 } });
});
afterAll(async () => {
  await stack?.stop();
});

/** Polls until the session has `n` tool calls waiting for approval. */
async function waitPending(s: Stack, session: string, n = 1): Promise<PendingApprovalRow[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pending = await listPendingApprovals(s.pool, session);
    if (pending.length >= n) return pending;
    if (Date.now() > deadline) throw new Error(`no ${n} pending approvals in ${session}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const approvalOf = (m: Message | undefined) => (m?.metadata as { approval?: ToolApproval } | null)?.approval;

/** Lines the commands appended to `file` in the session's workspace. */
const linesOf = (s: Stack, session: string, file = 'runs.txt'): string[] => {
  const p = path.join(workspaceDirFor(s.dataDir, session), file);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n').filter(Boolean) : [];
};

const toolRunCount = async (s: Stack, session: string) =>
  (
    await s.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tool_runs WHERE session_id = $1', [
      session,
    ])
  ).rows[0]?.n ?? 0;

/** How many activities of type `name` the session's current run scheduled. */
async function scheduledActivities(s: Stack, session: string, name: string): Promise<number> {
  const history = await s.client.workflow.getHandle(sessionWorkflowId(session)).fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name,
  ).length;
}

describe('tool-call approval', () => {
  it('approve: the command waits, runs once approved, and the record says who approved it', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo ran >> runs.txt; echo approved-run');
    const [pending] = await waitPending(stack, session);
    expect(pending).toMatchObject({
      tool_name: 'run_shell_command',
      subject: 'echo ran >> runs.txt; echo approved-run',
    });
    // Nothing ran while it waited, and the Web UI's current details say what it waits for.
    expect(linesOf(stack, session)).toEqual([]);
    // The record is stored by the approval check before the workflow hears its answer: the workflow's state shows
    // the wait one workflow task later (a decision sent in between is taken: the desk expects the call).
    await expect
      .poll(async () => (await stack.sessions.state(session)).pendingApprovals.map((p) => p.callId), {
        timeout: 10_000,
        interval: 50,
      })
      .toEqual([pending!.call_id]);
    const state = await stack.sessions.state(session);
    expect(state.currentTurn?.activity).toMatch(/^waiting for approval: run_shell_command: echo ran/);
    const { currentDetails } = await stack.sessions.handle(session).query(workflowMetadataQuery);
    expect(currentDetails).toContain('waiting for approval: run_shell_command: echo ran');

    await stack.sessions.decideApproval(session, {
      callId: pending!.call_id,
      decision: 'approve',
      by: 'api:alice',
    });
    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted']);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    const call = msgs.find((m) => m.type === 'tool_call');
    expect(approvalOf(call)).toMatchObject({ state: 'approved', by: 'api:alice', decision: 'approve' });
    expect(approvalOf(call)?.at).toBeTruthy();
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toContain('approved-run');
    expect(linesOf(stack, session)).toEqual(['ran']);
    expect(await listPendingApprovals(stack.pool, session)).toEqual([]);
    await recordHistory('approval-approved', stack.client, sessionWorkflowId(session));
  }, 60_000);

  it('deny: the command does not run, the model is told so and answers', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo ran >> runs.txt');
    const [pending] = await waitPending(stack, session);
    await stack.sessions.decideApproval(session, {
      callId: pending!.call_id,
      decision: 'deny',
      by: 'api:bob',
    });
    const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted']);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'denied',
      by: 'api:bob',
      decision: 'deny',
    });
    const result = msgs.find((m) => m.type === 'tool_result');
    expect(result?.content).toMatch(/the user denied this command; it was not run/);
    expect(result?.metadata).toMatchObject({ tool_ok: false, tool_result: 'denied by the user; not run' });
    expect(msgs.at(-1)).toMatchObject({ role: 'assistant', type: 'text', status: 'delivered' });
    expect(msgs.at(-1)?.content).toMatch(/^Done: Error: the user denied/);
    expect(linesOf(stack, session)).toEqual([]);
    expect(await toolRunCount(stack, session)).toBe(0);
    await recordHistory('approval-denied', stack.client, sessionWorkflowId(session));
  }, 60_000);

  it('a decision for a call that is not waiting is refused (unknown id, or decided already)', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo once');
    const [pending] = await waitPending(stack, session);
    await expect(
      stack.sessions.decideApproval(session, { callId: 'nope', decision: 'approve', by: 'x' }),
    ).rejects.toMatchObject({ kind: 'not_pending' });
    await stack.sessions.decideApproval(session, { callId: pending!.call_id, decision: 'approve', by: 'x' });
    const second = await stack.sessions
      .decideApproval(session, { callId: pending!.call_id, decision: 'deny', by: 'y' })
      .catch((e: unknown) => e);
    expect(second).toBeInstanceOf(SessionClientError);
    expect((second as SessionClientError).kind).toBe('not_pending');
    expect((await stack.waitForStatus(r.message.id, ['processed', 'error'])).status).toBe('processed');
  }, 60_000);

  it('always: approves the call and the next matching call runs without asking', async () => {
    const session = uniqueId('s');
    // (A redirect would make the pattern the exact command: `*` never matches `>`.)
    const first = await stack.submit(session, 'run: echo one');
    const [pending] = await waitPending(stack, session);
    await stack.sessions.decideApproval(session, {
      callId: pending!.call_id,
      decision: 'always',
      by: 'api:carol',
    });
    await stack.waitForStatus(first.message.id, ['processed']);
    const second = await stack.submit(session, 'run: echo two');
    expect((await stack.waitForStatus(second.message.id, ['processed', 'error'])).status).toBe('processed');
    const calls = (await stack.messages(session)).filter((m) => m.type === 'tool_call');
    expect(approvalOf(calls[0])).toMatchObject({ state: 'approved', decision: 'always', pattern: 'echo *' });
    expect(approvalOf(calls[1])).toMatchObject({ state: 'approved', by: 'pattern', pattern: 'echo *' });
    const results = (await stack.messages(session)).filter((m) => m.type === 'tool_result');
    expect(results.map((m) => m.content.includes('one') || m.content.includes('two'))).toEqual([true, true]);
    expect(await toolRunCount(stack, session)).toBe(2);
    // A command the pattern does not cover still asks.
    const third = await stack.submit(session, 'run: touch other.txt');
    await waitPending(stack, session);
    await stack.sessions.stop(session);
    await stack.waitForStatus(third.message.id, ['interrupted']);
    // The pattern-approved step was judged by its model step: only the two steps that asked ran the approval
    // activity (patch approval-check-in-step).
    expect(await scheduledActivities(stack, session, 'requestApprovals')).toBe(2);
    await recordHistory('approval-always', stack.client, sessionWorkflowId(session));
  }, 60_000);

  it('/stop while waiting ends the turn as stopped; the approval is recorded cancelled and nothing runs', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo ran >> runs.txt');
    const [pending] = await waitPending(stack, session);
    expect(await stack.sessions.stop(session)).toEqual({ stopped: true });
    expect((await stack.waitForStatus(r.message.id, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    await expect
      .poll(
        async () => approvalOf((await stack.messages(session)).find((m) => m.id === pending!.call_id))?.state,
        { timeout: 15_000 },
      )
      .toBe('cancelled');
    expect(linesOf(stack, session)).toEqual([]);
    expect(await listPendingApprovals(stack.pool, session)).toEqual([]);
    // The session goes on: the next message is answered.
    const next = await stack.submit(session, 'hello');
    expect((await stack.waitForStatus(next.message.id, ['processed'])).status).toBe('processed');
    await recordHistory('approval-stopped', stack.client, sessionWorkflowId(session));
  }, 60_000);

  it('recordApproval: a slow channel edit does not hold it up, and a retry shows the recorded outcome again', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo ran >> runs.txt');
    const [pending] = await waitPending(stack, session);
    const shown: string[] = [];
    let hang = true;
    const sink = {
      async showApprovalOutcome(call: Message, approval: ToolApproval) {
        if (hang) await new Promise((resolve) => setTimeout(resolve, 10_000));
        shown.push(`${call.id} ${approval.state}`);
      },
    } as unknown as ChannelSink;
    const activities = createApprovalActivities({
      pool: stack.pool,
      logger: createLogger('test', 'silent'),
      sinks: { api: sink },
      outcomeWaitMs: 300,
    });
    const input = { sessionId: session, callId: pending!.call_id, state: 'denied' as const, by: 'api:bob' };
    const started = Date.now();
    expect(await activities.recordApproval(input)).toEqual({ changed: true });
    expect(Date.now() - started).toBeLessThan(3000);
    // The attempt "timed out" after its write: the retry finds the record and shows it anyway.
    hang = false;
    expect(await activities.recordApproval(input)).toEqual({ changed: false });
    expect(shown).toEqual([`${pending!.call_id} denied`]);
    await stack.sessions.stop(session);
    await stack.waitForStatus(r.message.id, ['interrupted', 'processed', 'error']);
  }, 60_000);

  it('two calls in one step are decided separately: one approved, one denied', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run2: echo a >> runs.txt ;; echo b >> runs.txt');
    const pending = await waitPending(stack, session, 2);
    expect(pending.map((p) => p.subject)).toEqual(['echo a >> runs.txt', 'echo b >> runs.txt']);
    await stack.sessions.decideApproval(session, {
      callId: pending[1]!.call_id,
      decision: 'deny',
      by: 'api:d',
    });
    // One decided, the other still waits: nothing has run yet.
    await expect.poll(async () => (await listPendingApprovals(stack.pool, session)).length).toBe(1);
    expect(linesOf(stack, session)).toEqual([]);
    await stack.sessions.decideApproval(session, {
      callId: pending[0]!.call_id,
      decision: 'approve',
      by: 'api:d',
    });
    expect((await stack.waitForStatus(r.message.id, ['processed', 'error'])).status).toBe('processed');
    const msgs = await stack.messages(session);
    const okOf = (callId: string) => msgs.find((m) => m.parent_id === callId)?.metadata?.tool_ok;
    expect([okOf(pending[0]!.call_id), okOf(pending[1]!.call_id)]).toEqual([true, false]);
    expect(linesOf(stack, session)).toEqual(['a']);
    await recordHistory('approval-two-calls', stack.client, sessionWorkflowId(session));
  }, 60_000);

  it('continue-as-new while waiting: the new run resumes the turn and the command runs once when approved', async () => {
    // One turn per run: the waiting turn is this run's last, so the run continues as new while it waits.
    const sessions = new SessionClient({
      client: stack.client,
      taskQueue: stack.taskQueue,
      continueAsNewAfterTurns: 1,
    });
    const session = uniqueId('s');
    const r = await sessions.submit(
      { sessionId: session, chatbotId: 'api', channelId: session },
      {
        id: uniqueId('m'),
        content: 'run: echo ran >> runs.txt',
        sender: 'tester',
        receivedAt: new Date().toISOString(),
      },
    );
    const [pending] = await waitPending(stack, session);
    // The first run ended by continue-as-new while the call waited; the new run holds the wait.
    const handle = stack.client.workflow.getHandle(sessionWorkflowId(session));
    await expect
      .poll(
        async () => {
          const d = await handle.describe();
          return d.runId !== d.raw.workflowExecutionInfo?.firstRunId;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await expect
      .poll(async () => (await sessions.state(session)).pendingApprovals.length, { timeout: 20_000 })
      .toBe(1);
    await sessions.decideApproval(session, { callId: pending!.call_id, decision: 'approve', by: 'api:e' });
    expect((await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    expect(linesOf(stack, session)).toEqual(['ran']);
    expect(await toolRunCount(stack, session)).toBe(1);
    const msgs = await stack.messages(session);
    expect(msgs.map((m) => `${m.role}/${m.type}/${m.status}`)).toEqual([
      'user/text/processed',
      'assistant/thought/responded',
      'tool/tool_call/responded',
      'tool/tool_result/responded',
      'assistant/text/delivered',
    ]);
    // The run that suspended the waiting turn by continue-as-new, and the run that resumed and finished it.
    const firstRunId = (await handle.describe()).raw.workflowExecutionInfo?.firstRunId ?? '';
    const first = await stack.client.workflow
      .getHandle(sessionWorkflowId(session), firstRunId)
      .fetchHistory();
    const nextRunId =
      first.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? '';
    expect(nextRunId).not.toBe('');
    await recordHistory('approval-suspended', stack.client, sessionWorkflowId(session), firstRunId);
    await recordHistory('approval-resumed', stack.client, sessionWorkflowId(session), nextRunId);
  }, 90_000);
});

describe('tool-call approval timeout', () => {
  let quick: Stack;
  beforeAll(async () => {
    quick = await startStack({ approvals: { policy: 'writes', timeoutS: 2 } });
  });
  afterAll(async () => {
    await quick?.stop();
  });

  it('no decision within the timeout counts as deny: the command does not run and the model is told', async () => {
    const session = uniqueId('s');
    const r = await quick.submit(session, 'run: echo ran >> runs.txt');
    await waitPending(quick, session);
    const done = await quick.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 30_000);
    expect(done.status).toBe('processed');
    const msgs = await quick.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'timed_out',
      by: 'timeout',
    });
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toMatch(
      /nobody approved this command within 2 seconds; it was not run/,
    );
    expect(linesOf(quick, session)).toEqual([]);
    await recordHistory('approval-timed-out', quick.client, sessionWorkflowId(session));
  }, 60_000);

  it('KESOKU_TOOL_AUTO_APPROVE: a matching command runs without asking; a compound command still asks', async () => {
    await quick.stopWorker();
    const session = uniqueId('s');
    // A worker with KESOKU_TOOL_AUTO_APPROVE=`echo *`.
    const patterned = await startStack({
      approvals: { policy: 'writes', autoApprove: ['echo *'], timeoutS: 2 },
    });
    try {
      const r = await patterned.submit(session, 'run: echo auto-ok');
      expect((await patterned.waitForStatus(r.message.id, ['processed', 'error'])).status).toBe('processed');
      const call = (await patterned.messages(session)).find((m) => m.type === 'tool_call');
      expect(approvalOf(call)).toMatchObject({ state: 'approved', by: 'pattern', pattern: 'echo *' });
      expect((await patterned.messages(session)).find((m) => m.type === 'tool_result')?.content).toContain(
        'auto-ok',
      );
      // `echo *` never covers a compound command.
      const r2 = await patterned.submit(session, 'run: echo x; touch y');
      await waitPending(patterned, session);
      await patterned.waitForStatus(r2.message.id, ['processed']);
    } finally {
      await patterned.stop();
      await quick.startWorker();
    }
  }, 90_000);
});

/**
 * A session whose workflow run ended other than by continue-as-new (here: terminated with the Temporal CLI)
 * comes back from Postgres on its next start: mode, title and title source, turn count; its `pending_agent`
 * inputs are run, and an input left `processing` ends `interrupted` with a notice. Re-queued inputs keep their
 * sender id, so in a shared channel one person's message still does not interrupt another person's turn.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listPendingApprovals, setApprovalPolicy } from '../../db/approvals.ts';
import { getSession } from '../../db/sessions.ts';
import type { ToolApproval } from '../../domain/tool-approval.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

/** `temporal workflow terminate` with the CLI binary the test run uses. */
function terminate(sessionId: string): void {
  execFileSync(inject('temporalBinary'), [
    'workflow',
    'terminate',
    '--address',
    inject('temporalAddress'),
    '--workflow-id',
    sessionWorkflowId(sessionId),
    '--reason',
    'test: an operator terminated the session',
  ]);
}

const addressOf = (sessionId: string) => ({ sessionId, chatbotId: 'api', channelId: sessionId });

describe('a terminated session workflow', () => {
  it('receives a message and answers, with its mode, title and turn count intact', async () => {
    const session = uniqueId('s');
    const first = await stack.submit(session, 'hello');
    await stack.waitForStatus(first.message.id, ['processed']);
    await stack.sessions.setMode(session, 'queue');
    await stack.sessions.setTitle(session, 'Kept title');
    terminate(session);
    await expect
      .poll(
        async () =>
          (await stack.client.workflow.getHandle(sessionWorkflowId(session)).describe()).status.name,
      )
      .toBe('TERMINATED');

    const next = await stack.submit(session, 'are you back?');
    expect((await stack.waitForStatus(next.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    // The reply's row is processed inside the model step; the workflow counts the turn once the step's result
    // reaches it, a moment later.
    await expect.poll(async () => (await stack.sessions.state(session)).turnCount).toBe(2);
    const state = await stack.sessions.state(session);
    expect(state).toMatchObject({ mode: 'queue', title: 'Kept title', titleSource: 'user', turnCount: 2 });
    expect((await getSession(stack.pool, session))?.mode).toBe('queue');
    expect((await stack.messages(session)).at(-1)?.content).toBe('echo: are you back?');
  });

  it('/stop, PATCH and /compact work on a terminated session (update-with-start from its address)', async () => {
    const session = uniqueId('s');
    const first = await stack.submit(session, 'hello');
    await stack.waitForStatus(first.message.id, ['processed']);
    terminate(session);
    await expect
      .poll(
        async () =>
          (await stack.client.workflow.getHandle(sessionWorkflowId(session)).describe()).status.name,
      )
      .toBe('TERMINATED');
    expect(await stack.sessions.stop(addressOf(session))).toEqual({ stopped: false });
    expect(await stack.sessions.setMode(addressOf(session), 'queue')).toEqual({ mode: 'queue' });
    const compact = await stack.sessions.compact(addressOf(session));
    expect(
      (await stack.waitForStatus(compact.message_id, ['processed', 'error', 'interrupted'])).status,
    ).toBe('processed');
    expect((await stack.sessions.state(session)).turnCount).toBe(2);
  });

  it('re-queues its waiting messages and ends the one it was processing `interrupted` with a notice', async () => {
    const session = uniqueId('s');
    const head = await stack.submit(session, 'first');
    await stack.waitForStatus(head.message.id, ['processed']);
    await stack.sessions.setMode(session, 'queue');
    stack.script(session, { kind: 'hang' });
    const cut = await stack.submit(session, 'a question that hangs');
    await stack.waitForStatus(cut.message.id, ['processing']);
    const waiting = await stack.submit(session, 'waiting one');
    terminate(session);
    await expect
      .poll(
        async () =>
          (await stack.client.workflow.getHandle(sessionWorkflowId(session)).describe()).status.name,
      )
      .toBe('TERMINATED');

    const next = await stack.submit(session, 'after the restart');
    expect((await stack.waitForStatus(cut.message.id, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    expect(
      (await stack.waitForStatus(waiting.message.id, ['processed', 'error', 'interrupted'], 30_000)).status,
    ).toBe('processed');
    expect(
      (await stack.waitForStatus(next.message.id, ['processed', 'error', 'interrupted'], 30_000)).status,
    ).toBe('processed');
    const notice = (await stack.messages(session)).find((m) => m.id === `${cut.message.id}:notice`);
    expect(notice).toMatchObject({ sender: 'Notification', status: 'delivered' });
    expect(notice?.content).toContain('restarted');
  }, 90_000);
  it('records the approvals its interrupted turn was waiting for as cancelled (by the restart)', async () => {
    const session = uniqueId('s');
    const first = await stack.submit(session, 'hello');
    await stack.waitForStatus(first.message.id, ['processed']);
    await setApprovalPolicy(stack.pool, session, 'writes');
    const asked = await stack.submit(session, 'run: echo ran >> runs.txt');
    const deadline = Date.now() + 30_000;
    let pending = await listPendingApprovals(stack.pool, session);
    while (pending.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      pending = await listPendingApprovals(stack.pool, session);
    }
    const callId = pending[0]?.call_id as string;
    expect(callId).toBeTruthy();
    terminate(session);
    await expect
      .poll(
        async () =>
          (await stack.client.workflow.getHandle(sessionWorkflowId(session)).describe()).status.name,
      )
      .toBe('TERMINATED');

    const next = await stack.submit(session, 'after the restart');
    expect((await stack.waitForStatus(asked.message.id, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    await stack.waitForStatus(next.message.id, ['processed', 'error', 'interrupted'], 30_000);
    const call = (await stack.messages(session)).find((m) => m.id === callId);
    expect((call?.metadata as { approval?: ToolApproval } | null)?.approval).toMatchObject({
      state: 'cancelled',
      by: 'restart',
    });
  }, 90_000);

  it("keeps the sender of a re-queued message: another sender's message does not interrupt its turn", async () => {
    const session = uniqueId('s');
    const head = await stack.submit(session, 'first', { senderId: 'alice' });
    await stack.waitForStatus(head.message.id, ['processed']);
    // Alice's turn hangs; Bob's message waits behind it (interrupt mode, another sender).
    stack.script(session, { kind: 'hang' }, { kind: 'hang' });
    const cut = await stack.submit(session, 'alice asks and waits', { senderId: 'alice' });
    await stack.waitForStatus(cut.message.id, ['processing']);
    const bob = await stack.submit(session, 'bob asks', { senderId: 'bob' });
    expect((await stack.messages(session)).find((m) => m.id === bob.message.id)?.status).toBe(
      'pending_agent',
    );
    terminate(session);
    await expect
      .poll(
        async () =>
          (await stack.client.workflow.getHandle(sessionWorkflowId(session)).describe()).status.name,
      )
      .toBe('TERMINATED');

    // A settings update starts the next run, which restores Bob's message from Postgres and runs it (the
    // second hang); then Alice writes.
    await stack.sessions.setMode(addressOf(session), 'interrupt');
    await stack.waitForStatus(bob.message.id, ['processing'], 30_000);
    const alice = await stack.submit(session, 'alice again', { senderId: 'alice' });
    await new Promise((r) => setTimeout(r, 1000));
    const byId = new Map((await stack.messages(session)).map((m) => [m.id, m.status]));
    expect(byId.get(cut.message.id)).toBe('interrupted');
    expect(byId.get(bob.message.id)).toBe('processing');
    expect(byId.get(alice.message.id)).toBe('pending_agent');
    expect(await stack.sessions.stop(session)).toEqual({ stopped: true });
  }, 90_000);
});

/**
 * Interrupts, /stop, queue mode, the bounded queue (update and signal) and continue-as-new.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionClientError } from '../../infra/session-client.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { recordHistory } from '../support/histories.ts';
import { pids } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ continueAsNewAfterTurns: 3 });
});
afterAll(async () => stack?.stop());

describe('interrupt mode (default)', () => {
  it('a new message interrupts the running turn; the next turn sees both', async () => {
    const session = uniqueId('s');
    stack.fake.enqueue({ kind: 'hang' });
    const first = await stack.submit(session, 'tell me a very long story');
    await expect
      .poll(
        () => stack.fake.chatRequests().some((r) => JSON.stringify(r.body).includes(first.message.content)),
        { timeout: 10_000 },
      )
      .toBe(true);
    const second = await stack.submit(session, 'and what about this?');
    expect((await stack.waitForStatus(first.message.id, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    expect((await stack.waitForStatus(second.message.id, ['processed', 'interrupted', 'error'])).status).toBe(
      'processed',
    );
    const prompt = stack.fake
      .chatRequests()
      .map((r) => JSON.stringify(r.body))
      .filter((b) => b.includes('and what about this?'))
      .at(-1);
    expect(prompt).toContain('tell me a very long story');
    const msgs = await stack.messages(session);
    const notices = msgs.filter((m) => m.sender === 'Notification');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.status).toBe('delivered');
    // The fake model echoes the last user turn: both questions, merged into one user turn (docs/message-model.md §5.4).
    expect(msgs.filter((m) => m.sender === 'Kesoku' && m.type === 'text').map((m) => m.content)).toEqual([
      'echo: tell me a very long story\n\nand what about this?',
    ]);
    await recordHistory('interrupt', stack.client, sessionWorkflowId(session));
  });
});

describe('/stop', () => {
  it('kills a running `sleep 300` within 2 s, marks the turn interrupted and leaves the session usable', async () => {
    const session = uniqueId('s');
    const marker = `300.${Math.floor(Math.random() * 1e6)}`;
    const r = await stack.submit(session, `run: sleep ${marker}`);
    await expect
      .poll(() => pids(`sleep ${marker}`).length, { timeout: 10_000, interval: 50 })
      .toBeGreaterThan(0);
    const stoppedAt = Date.now();
    expect(await stack.sessions.stop(session)).toEqual({ stopped: true });
    await expect.poll(() => pids(`sleep ${marker}`).length, { timeout: 2_000, interval: 50 }).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    expect((await stack.waitForStatus(r.message.id, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    let msgs = await stack.messages(session);
    // The unanswered tool_call ends `interrupted`; its interrupted result is built in memory, never stored.
    expect(msgs.find((m) => m.type === 'tool_call')?.status).toBe('interrupted');
    expect(msgs.filter((m) => m.type === 'tool_result')).toEqual([]);
    expect(msgs.find((m) => m.id === r.message.id)?.status).toBe('interrupted');
    await expect
      .poll(async () => (await stack.messages(session)).find((m) => m.sender === 'Notification')?.status)
      .toBe('delivered');
    expect((await stack.messages(session)).find((m) => m.sender === 'Notification')?.content).toBe(
      '⏹️ Stopped.',
    );

    const again = await stack.submit(session, 'still there?');
    expect((await stack.waitForStatus(again.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    msgs = await stack.messages(session);
    expect(msgs.at(-1)?.content).toBe('echo: still there?');
    // The next prompt says the stopped request was stopped, so the model does not carry it out now.
    expect(msgs.find((m) => m.id === r.message.id)?.metadata?.interrupt_reason).toBe('stop');
    const prompt = stack.fake
      .chatRequests()
      .map((req) => JSON.stringify(req.body))
      .filter((b) => b.includes('still there?'))
      .at(-1);
    expect(prompt).toContain('The user stopped the request above (/stop) before it was finished.');
    // Once the session is idle (the turn's last writes come a moment after its reply), nothing is left to stop.
    await expect
      .poll(async () => (await stack.sessions.state(session)).status, { timeout: 15_000 })
      .toBe('idle');
    expect(await stack.sessions.stop(session)).toEqual({ stopped: false });
    await recordHistory('stop', stack.client, sessionWorkflowId(session));
  });
});

describe('queue mode and the bounded queue', () => {
  it('runs strictly in order, rejects the 33rd waiting message, and loses nothing it accepted', async () => {
    const session = uniqueId('s');
    const head = await stack.submit(session, 'first');
    await stack.waitForStatus(head.message.id, ['processed']);
    await stack.sessions.setMode(session, 'queue');
    const blocker = await stack.submit(session, 'sleep: 8');
    await stack.waitForStatus(blocker.message.id, ['processing']);
    const accepted = [];
    for (let i = 0; i < 32; i++) accepted.push(await stack.submit(session, `queued ${i}`));
    expect(accepted.map((a) => a.queue_position)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    const rejectedId = uniqueId('rejected');
    const err = await stack.submit(session, 'one too many', { id: rejectedId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SessionClientError);
    expect((err as SessionClientError).kind).toBe('queue_full');
    expect((err as SessionClientError).message).toContain('queue full');

    for (const a of accepted)
      expect(
        (await stack.waitForStatus(a.message.id, ['processed', 'error', 'interrupted'], 60_000)).status,
      ).toBe('processed');
    expect((await stack.waitForStatus(blocker.message.id, ['processed'])).status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.some((m) => m.id === rejectedId)).toBe(false);
    const replies = msgs.filter((m) => m.sender === 'Kesoku' && m.type === 'text').map((m) => m.content);
    expect(replies).toEqual([
      'echo: first',
      'slept 8s',
      ...Array.from({ length: 32 }, (_, i) => `echo: queued ${i}`),
    ]);
  }, 120_000);
});

describe('continue-as-new', () => {
  it('forced by a low bound, keeps queued messages and de-duplication across runs', async () => {
    const session = uniqueId('s');
    const first = await stack.submit(session, 'sleep: 2');
    await stack.waitForStatus(first.message.id, ['processing']);
    await stack.sessions.setMode(session, 'queue');
    const queued = [];
    for (let i = 0; i < 5; i++) queued.push(await stack.submit(session, `q${i}`));
    for (const q of queued) await stack.waitForStatus(q.message.id, ['processed'], 30_000);
    const firstRun = await stack.client.workflow
      .getHandle(sessionWorkflowId(session), undefined, { firstExecutionRunId: undefined })
      .describe();
    // 6 turns with a bound of 3 turns per run: at least two continue-as-new.
    const countRuns = async () => {
      let n = 0;
      for await (const _ of stack.client.workflow.list({
        query: `WorkflowId = '${sessionWorkflowId(session)}'`,
      }))
        n++;
      return n;
    };
    // Visibility is eventually consistent: the run started by the last continue-as-new may show up a bit later.
    await expect.poll(countRuns, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(firstRun.status.name).toBe('RUNNING');
    // An id accepted in an earlier run is still a duplicate.
    const again = await stack.submit(session, 'q0', { id: queued[0]?.message.id });
    expect(again.duplicate).toBe(true);
    expect(again.message.status).toBe('processed');
    const state = await stack.sessions.state(session);
    expect(state.mode).toBe('queue');
    expect(state.turnCount).toBe(6);
    const msgs = await stack.messages(session);
    expect(msgs.filter((m) => m.role === 'user')).toHaveLength(6);
    expect(msgs.filter((m) => m.sender === 'Kesoku' && m.type === 'text')).toHaveLength(6);
    await recordHistory('continued-as-new', stack.client, sessionWorkflowId(session));
  }, 90_000);
});

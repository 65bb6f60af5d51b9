/**
 * The history bound of a session run (KESOKU_CONTINUE_AS_NEW_EVENTS): a run continues-as-new at the first turn
 * boundary past the bound, so a worker that does not cache the session replays at most about that many events;
 * the turns before and after go on as one conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { recordHistory } from '../support/histories.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const BOUND = 60;
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ continueAsNewAfterEvents: BOUND });
});
afterAll(async () => stack?.stop());

describe('continue-as-new by history length', () => {
  it('ends a run at the first turn boundary past the bound; no run grows much past it; nothing is lost', async () => {
    const session = uniqueId('s');
    const turns = 8;
    for (let i = 0; i < turns; i++) {
      const r = await stack.submit(session, `turn ${i}`);
      expect((await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
        'processed',
      );
    }
    const runs = async () => {
      const out: { status: string; historyLength: number; runId: string; startTime: Date }[] = [];
      for await (const w of stack.client.workflow.list({
        query: `WorkflowId = '${sessionWorkflowId(session)}'`,
      }))
        out.push({
          status: w.status.name,
          historyLength: w.historyLength,
          runId: w.runId,
          startTime: w.startTime,
        });
      return out;
    };
    // Visibility is eventually consistent: wait until the closed runs are listed with their lengths.
    await expect
      .poll(async () => (await runs()).filter((r) => r.status === 'CONTINUED_AS_NEW').length, {
        timeout: 15_000,
      })
      .toBeGreaterThanOrEqual(2);
    const closed = (await runs()).filter((r) => r.status === 'CONTINUED_AS_NEW');
    // A plain turn adds about 20 events: a run ends within one turn (and its continue-as-new) of the bound.
    for (const r of closed) {
      expect(r.historyLength).toBeGreaterThanOrEqual(BOUND);
      expect(r.historyLength).toBeLessThan(BOUND + 30);
    }
    const state = await stack.sessions.state(session);
    expect(state.turnCount).toBe(turns);
    const msgs = await stack.messages(session);
    expect(msgs.filter((m) => m.role === 'user')).toHaveLength(turns);
    expect(msgs.filter((m) => m.sender === 'Kesoku' && m.type === 'text')).toHaveLength(turns);
    // The last turn's prompt still holds the first turn: one conversation across the runs.
    const prompt = JSON.stringify(stack.fake.chatRequests().at(-1)?.body ?? {});
    expect(prompt).toContain('turn 0');
    expect(prompt).toContain(`turn ${turns - 1}`);
    // The first run, which ended by the bound, as a replay fixture.
    const first = [...closed].sort((a, b) => a.startTime.getTime() - b.startTime.getTime())[0];
    await recordHistory('continued-as-new-by-events', stack.client, sessionWorkflowId(session), first?.runId);
  }, 120_000);
});

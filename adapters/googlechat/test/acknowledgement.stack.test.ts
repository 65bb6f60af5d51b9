/**
 * When the Google Chat endpoint answers an event 200: only once it was handled — a message once the session
 * stored it — so a message Chat was told was received is never lost. A submission that fails for a reason that
 * may pass is answered 503 (and told in the thread); one that hangs is acknowledged when the budget runs out,
 * not before, and stored once it goes through.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getMessage } from '../../../db/messages.ts';
import { SessionClientError } from '../../../infra/session-client.ts';
import { presentSessionError } from '../../kit/command-dispatch.ts';
import { messageEvent, type FakeChatMessage } from './fake-server.ts';
import { startGoogleChatBench, type GoogleChatBench } from './harness.ts';

/** Below Chat's 30 s; above a cold first submission on a busy test machine. */
const ACK_BUDGET_MS = 6000;

let bench: GoogleChatBench;
beforeAll(async () => {
  bench = await startGoogleChatBench({}, {}, { ackBudgetMs: ACK_BUDGET_MS });
  // A first turn on a cold worker can take longer than the budget on a busy machine: warm it up.
  const space = newSpace();
  await bench.fake.postEvent(bench.endpoint, messageEvent({ space, messageId: 'W0', text: 'warm up' }));
  await bench.stack.waitForStatus(idOf(space, 'W0'), ['processed']);
});
afterAll(async () => bench?.stop());
afterEach(() => bench.fake.clearFailures());

function newSpace(): string {
  return `spaces/S${randomBytes(6).toString('hex')}`;
}
const inThread = (space: string, thread: string): FakeChatMessage[] =>
  bench.fake.messagesIn(space).filter((m) => m.thread.name === thread);
const idOf = (space: string, messageId: string) => `googlechat-${space.slice(7)}-${messageId}`;

describe('Google Chat acknowledgement', () => {
  it('answers 200 only after the message is stored', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T1`;
    const res = await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'A1', text: 'keep this' }),
    );
    expect(res).toEqual({ status: 200, body: '{}' });
    // Right when Chat has its answer, the message is in Postgres.
    const stored = await getMessage(bench.stack.pool, idOf(space, 'A1'));
    expect(stored?.content).toContain('keep this');
    await bench.stack.waitForStatus(idOf(space, 'A1'), ['processed']);
  });

  it('answers 503, not 200, when the submission failed (told in the thread); the message sent again is taken once', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T2`;
    const event = messageEvent({ space, thread, messageId: 'A2', text: 'do not lose me' });
    bench.submits.failNext(new SessionClientError('unavailable', 'Temporal is unreachable'));
    const first = await bench.fake.postEvent(bench.endpoint, event);
    expect(first.status).toBe(503);
    expect(await getMessage(bench.stack.pool, idOf(space, 'A2'))).toBeNull();
    const notice = await bench.fake.waitFor(() => inThread(space, thread)[0]);
    expect(notice.text).toBe(presentSessionError(new SessionClientError('unavailable', 'x')));

    const again = await bench.fake.postEvent(bench.endpoint, event);
    expect(again).toEqual({ status: 200, body: '{}' });
    const stored = await bench.stack.waitForStatus(idOf(space, 'A2'), ['processed']);
    const users = (await bench.stack.messages(stored.session_id)).filter((m) => m.role === 'user');
    expect(users.map((m) => m.id)).toEqual([idOf(space, 'A2')]);
  });

  it('acknowledges an event whose submission hangs only when the budget runs out, and stores it once it goes through', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T3`;
    const held = bench.submits.holdNext();
    const callsBefore = bench.submits.calls;
    const started = Date.now();
    const posted = bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'A3', text: 'slow one' }),
    );
    await held.reached;
    const res = await posted;
    expect(res).toEqual({ status: 200, body: '{}' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(ACK_BUDGET_MS - 50);
    expect(await getMessage(bench.stack.pool, idOf(space, 'A3'))).toBeNull();
    held.release();
    await bench.stack.waitForStatus(idOf(space, 'A3'), ['processed']);
    expect(bench.submits.calls - callsBefore).toBe(1);
  });

  it('still answers commands and other events', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T4`;
    const cmd = await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'A4', text: '/help' }),
    );
    expect(cmd).toEqual({ status: 200, body: '{}' });
    const help = await bench.fake.waitFor(() => inThread(space, thread)[0]);
    expect(help.text).toContain('/stop');
    const removed = await bench.fake.postEvent(bench.endpoint, {
      type: 'REMOVED_FROM_SPACE',
      space: { name: space, type: 'ROOM' },
      user: { name: 'users/1001', displayName: 'Alice', type: 'HUMAN' },
    });
    expect(removed).toEqual({ status: 200, body: '{}' });
  });
});

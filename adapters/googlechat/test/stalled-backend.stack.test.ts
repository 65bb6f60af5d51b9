/**
 * Google Chat with Temporal stalled (a paused TCP proxy between the channel and the dev server): the event is
 * answered 200 within Chat's 30 s wait — at the channel's acknowledgement budget, since the submission hangs —
 * and the message is still handed to the session once the backend answers again: stored once, answered once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_CHAT_ACK_BUDGET_MS } from '../channel.ts';
import { getMessage } from '../../../db/messages.ts';
import { CHAT_ANSWER_WAIT_MS, messageEvent } from './fake-server.ts';
import { stallableSessions, type StallableSessions } from '../../../test/support/tcp-proxy.ts';
import { startGoogleChatBench, type GoogleChatBench } from './harness.ts';

let bench: GoogleChatBench;
let stall: StallableSessions;

beforeAll(async () => {
  bench = await startGoogleChatBench({}, {}, undefined, async (stack) => {
    stall = await stallableSessions(stack);
    return stall.sessions;
  });
  // A first turn on a cold worker can be slow on a busy machine: warm it up.
  const space = `spaces/S${randomBytes(6).toString('hex')}`;
  await bench.fake.postEvent(bench.endpoint, messageEvent({ space, messageId: 'W0', text: 'warm up' }));
  await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-W0`, ['processed'], 45_000);
});
afterAll(async () => {
  await stall?.close();
  await bench?.stop();
});

describe('Google Chat with a stalled backend', () => {
  it('answers the event within Chat’s 30 s while Temporal stalls, and handles the message once afterwards', async () => {
    const space = `spaces/S${randomBytes(6).toString('hex')}`;
    const thread = `${space}/threads/T1`;
    const messageId = `googlechat-${space.slice(7)}-M1`;
    const sessionId = `googlechat:${space.slice(7)}:T1`;
    bench.stack.script(sessionId, { kind: 'text', text: 'Back again.' });
    stall.proxy.pause();
    const started = Date.now();
    let res: { status: number; body: string };
    try {
      res = await bench.fake.postEvent(
        bench.endpoint,
        messageEvent({ space, thread, messageId: 'M1', text: 'are you there?' }),
      );
    } finally {
      // The stall outlasts the acknowledgement budget; then Temporal answers again.
      setTimeout(() => stall.proxy.resume(), Math.max(0, 12_000 - (Date.now() - started)));
    }
    const waited = Date.now() - started;
    expect(res).toEqual({ status: 200, body: '{}' });
    expect(waited).toBeGreaterThanOrEqual(GOOGLE_CHAT_ACK_BUDGET_MS - 50);
    expect(waited).toBeLessThan(CHAT_ANSWER_WAIT_MS - 10_000);
    // Acknowledged before the session took it: the submission is still waiting for Temporal.
    expect(await getMessage(bench.stack.pool, messageId)).toBeNull();

    await bench.stack.waitForStatus(messageId, ['processed'], 45_000);
    const replies = () =>
      bench.fake.messagesIn(space).filter((m) => m.thread.name === thread && m.text?.includes('Back again.'));
    await bench.fake.waitFor(() => replies()[0], 30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(replies()).toHaveLength(1);
    const inbound = (await bench.stack.messages(sessionId)).filter((m) => m.role === 'user');
    expect(inbound.map((m) => m.id)).toEqual([messageId]);
    expect(bench.stack.requestsOf(sessionId)).toHaveLength(1);
  });
});

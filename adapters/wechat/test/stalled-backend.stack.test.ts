/**
 * WeChat with Temporal stalled (a paused TCP proxy between the channel and the dev server): every push is
 * answered `success` within WeChat's 5 s, so WeChat never tells the user the account cannot answer, and the
 * message is still handed to the session once the backend answers again — stored once, answered once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMessage } from '../../../db/messages.ts';
import { listHeldPushes } from '../../../db/held-pushes.ts';
import { stallableSessions, type StallableSessions } from '../../../test/support/tcp-proxy.ts';
import { startWechatBench, type WechatBench } from './harness.ts';

let bench: WechatBench;
let stall: StallableSessions;

beforeAll(async () => {
  bench = await startWechatBench({}, { answerTimeoutMs: 5000, retryIntervalMs: 0 }, {}, {}, async (stack) => {
    stall = await stallableSessions(stack);
    return stall.sessions;
  });
  // A first turn on a cold worker can take longer than WeChat's 5 s on a busy machine: warm it up.
  const user = await bench.pairedUser();
  const { msgId } = await bench.fake.push({ from: user, content: 'warm up' });
  await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
});
afterAll(async () => {
  await stall?.close();
  await bench?.stop();
});

const sessionOf = (openId: string) => `wechat:${openId}`;

describe('WeChat with a stalled backend', () => {
  it('answers every push within 5 s while Temporal stalls, and handles the message once afterwards', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Back again.' });
    stall.proxy.pause();
    const started = Date.now();
    let pushed: Awaited<ReturnType<typeof bench.fake.push>>;
    try {
      pushed = await bench.fake.push({ from: user, content: 'are you there?' });
    } finally {
      // The stall outlasts WeChat's wait; then Temporal answers again.
      setTimeout(() => stall.proxy.resume(), Math.max(0, 6000 - (Date.now() - started)));
    }
    const { msgId, attempts } = pushed;
    // One push, answered in time: WeChat neither pushed it again nor showed "该公众号暂时无法提供服务".
    expect(attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    expect(Date.now() - started).toBeLessThan(5000);
    // Acknowledged before it was taken: held in Postgres until it is.
    expect(await getMessage(bench.stack.pool, `wechat-${msgId}`)).toBeNull();
    expect((await listHeldPushes(bench.stack.pool, 'wechat')).length).toBeGreaterThanOrEqual(1);

    await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    await new Promise((r) => setTimeout(r, 500));
    expect(bench.fake.sentTo(user)).toEqual(['Back again.']);
    const inbound = (await bench.stack.messages(sessionOf(user))).filter((m) => m.role === 'user');
    expect(inbound.map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    expect(bench.stack.requestsOf(sessionOf(user))).toHaveLength(1);
    const deadline = Date.now() + 10_000;
    while ((await listHeldPushes(bench.stack.pool, 'wechat')).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await listHeldPushes(bench.stack.pool, 'wechat')).toEqual([]);
  });
});

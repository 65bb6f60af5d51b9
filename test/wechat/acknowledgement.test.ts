/**
 * When the WeChat endpoint acknowledges a push (`success`): only once the push was taken — a message once the
 * session stored it — so a message is never acknowledged and then lost. A submission that fails or hangs gets no
 * answer and WeChat's re-push (the fake re-pushes an unanswered push like WeChat) is taken once; only WeChat's last
 * push is acknowledged early, when the budget runs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMessage } from '../../db/messages.ts';
import { SessionClientError } from '../../infra/session-client.ts';
import { presentSessionError } from '../../adapters/kit/command-dispatch.ts';
import { toPlainText } from '../../adapters/wechat/text.ts';
import { startWechatBench, type WechatBench } from './harness.ts';

/**
 * The fake hangs up on an unanswered push after 5 s, as WeChat; the tests of WeChat's last push make it 1.2 s
 * (their submissions are held, so nothing else has to fit), with the channel's last-push budget below that.
 */
const SHORT_TIMEOUT_MS = 1200;
const ACK_BUDGET_MS = 800;

let bench: WechatBench;
beforeAll(async () => {
  bench = await startWechatBench(
    {},
    { answerTimeoutMs: 5000, retryIntervalMs: 0 },
    {},
    { ackBudgetMs: ACK_BUDGET_MS },
  );
  // A first turn on a cold worker can take longer than WeChat's 5 s on a busy machine: warm it up.
  const user = await bench.pairedUser();
  const { msgId } = await bench.fake.push({ from: user, content: 'warm up' });
  await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
});
afterAll(async () => {
  await bench?.stop();
});

const sessionOf = (openId: string) => `wechat:${openId}`;

async function inbound(openId: string) {
  return (await bench.stack.messages(sessionOf(openId))).filter((m) => m.role === 'user');
}

describe('WeChat acknowledgement', () => {
  it('answers success only after the message is stored', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Stored first.' });
    const { msgId, attempts } = await bench.fake.push({ from: user, content: 'keep this' });
    // (A first submission slower than 5 s on a busy machine is pushed again and answered then.)
    expect(attempts.at(-1)).toEqual({ status: 200, body: 'success', unanswered: false });
    // Right when WeChat has its answer, the message is in Postgres.
    const stored = await getMessage(bench.stack.pool, `wechat-${msgId}`);
    expect(stored?.content).toContain('keep this');
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual(['Stored first.']);
  });

  it('gives a push whose submission failed no answer; WeChat pushes it again and the re-push is taken once', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Got it the second time.' });
    const callsBefore = bench.submits.calls;
    bench.submits.failNext(new SessionClientError('unavailable', 'Temporal is unreachable'));
    const { msgId, attempts } = await bench.fake.push({ from: user, content: 'do not lose me' });
    expect(attempts[0]).toEqual({ status: null, body: '', unanswered: true });
    expect(attempts.at(-1)).toEqual({ status: 200, body: 'success', unanswered: false });
    expect(bench.submits.calls - callsBefore).toBe(2);
    await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
    expect((await inbound(user)).map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    await new Promise((r) => setTimeout(r, 300));
    // No error text: WeChat's re-push was the remedy.
    expect(bench.fake.sentTo(user)).toEqual(['Got it the second time.']);
    expect(bench.stack.requestsOf(sessionOf(user))).toHaveLength(1);
  });

  it('gives a push whose submission hangs no answer; the re-push waits for that submission, no second one', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Slow but sure.' });
    const callsBefore = bench.submits.calls;
    const held = bench.submits.holdNext();
    const pushed = bench.fake.push({ from: user, content: 'slow one' });
    await held.reached;
    // WeChat hangs up on the first push and pushes again; the submission goes through during the second.
    setTimeout(() => held.release(), 5300);
    const { msgId, attempts } = await pushed;
    expect(attempts[0]).toEqual({ status: null, body: '', unanswered: true });
    expect(attempts.at(-1)).toEqual({ status: 200, body: 'success', unanswered: false });
    expect(bench.submits.calls - callsBefore).toBe(1);
    expect(await getMessage(bench.stack.pool, `wechat-${msgId}`)).not.toBeNull();
    await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
    expect((await inbound(user)).map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual(['Slow but sure.']);
  });

  it("acknowledges WeChat's last push when the budget runs out; a submission failing after that is told to the user", async () => {
    const user = await bench.pairedUser();
    const held = bench.submits.holdNext();
    const started = Date.now();
    const { msgId, attempts } = await bench.fake.push({
      from: user,
      content: 'the fourth push is the last',
      answerTimeoutMs: SHORT_TIMEOUT_MS,
    });
    expect(attempts.map((a) => a.unanswered)).toEqual([true, true, true, false]);
    expect(attempts[3]).toEqual({ status: 200, body: 'success', unanswered: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * SHORT_TIMEOUT_MS + ACK_BUDGET_MS - 100);
    expect(await getMessage(bench.stack.pool, `wechat-${msgId}`)).toBeNull();
    // Nothing more will come from WeChat: the failure is told.
    held.fail(new SessionClientError('unavailable', 'Temporal is unreachable'));
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 10_000, 'the failure notice');
    expect(bench.fake.sentTo(user)).toEqual([
      toPlainText(presentSessionError(new SessionClientError('unavailable', 'x'))),
    ]);
    expect(await inbound(user)).toEqual([]);
  });

  it("acknowledges WeChat's last push when the budget runs out and stores it once the submission goes through", async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Late, not lost.' });
    const callsBefore = bench.submits.calls;
    const held = bench.submits.holdNext();
    const { msgId, attempts } = await bench.fake.push({
      from: user,
      content: 'late one',
      answerTimeoutMs: SHORT_TIMEOUT_MS,
    });
    expect(attempts.map((a) => a.body)).toEqual(['', '', '', 'success']);
    held.release();
    await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
    expect((await inbound(user)).map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    expect(bench.submits.calls - callsBefore).toBe(1);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual(['Late, not lost.']);
  });

  it('still answers commands, events and other message types, and acknowledges them', async () => {
    const user = await bench.pairedUser();
    const sub = await bench.fake.push({ from: user, msgType: 'event', event: 'subscribe' });
    expect(sub.attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    const click = await bench.fake.push({
      from: user,
      msgType: 'event',
      event: 'CLICK',
      fields: { EventKey: 'm' },
    });
    expect(click.attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    const image = await bench.fake.push({
      from: user,
      msgType: 'image',
      fields: { PicUrl: 'http://x/y.jpg', MediaId: 'm1' },
    });
    expect(image.attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    const help = await bench.fake.push({ from: user, content: '/help' });
    expect(help.attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length >= 3, 10_000, 'three answers');
    expect(bench.fake.sentTo(user)[2]).toContain('/stop');
  });
});

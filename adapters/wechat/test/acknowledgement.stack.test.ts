/**
 * When the WeChat endpoint acknowledges a push (`success`): once the push was taken — a message once the session
 * stored it — or, at the latest, after the budget (4 s; WeChat waits 5 s), once the push is held in Postgres. A
 * submission that fails for a reason that may pass is tried again in process; one that never goes through is told
 * to the user. A held push is never lost: it is stored once the submission goes through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMessage } from '../../../db/messages.ts';
import { listHeldPushes } from '../../../db/held-pushes.ts';
import { SessionClientError } from '../../../infra/session-client.ts';
import { presentSessionError } from '../../kit/command-dispatch.ts';
import { toPlainText } from '../text.ts';
import { startWechatBench, type WechatBench } from './harness.ts';

/** The channel's budget before it holds and acknowledges a push not taken yet, and how long it retries one. */
const ACK_BUDGET_MS = 800;
const RETRY_FOR_MS = 3000;

let bench: WechatBench;
beforeAll(async () => {
  bench = await startWechatBench(
    {},
    { answerTimeoutMs: 5000, retryIntervalMs: 0 },
    {},
    { ackBudgetMs: ACK_BUDGET_MS, retryForMs: RETRY_FOR_MS },
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
    // Right when WeChat has its answer, the message is in Postgres: stored, or (a submission slower than 4 s on
    // a busy machine) held until it is taken.
    // (The held row goes once the message is stored, so it is read first.)
    const held = await bench.stack.pool.query<{ push: unknown }>(
      `SELECT push FROM chat_held_pushes WHERE chatbot_id = 'wechat' AND push::text LIKE '%' || $1 || '%'`,
      [msgId],
    );
    const stored = await getMessage(bench.stack.pool, `wechat-${msgId}`);
    if (held.rows.length > 0) expect(JSON.stringify(held.rows[0]!.push)).toContain('keep this');
    else expect(stored?.content).toContain('keep this');
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual(['Stored first.']);
  });

  it('tries a push whose submission failed again in process and answers it in time; it is taken once', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Got it the second time.' });
    const callsBefore = bench.submits.calls;
    bench.submits.failNext(new SessionClientError('unavailable', 'Temporal is unreachable'));
    const { msgId, attempts } = await bench.fake.push({ from: user, content: 'do not lose me' });
    // Answered within WeChat's wait: WeChat neither pushes it again nor tells the user the account is down.
    expect(attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
    expect(bench.submits.calls - callsBefore).toBe(2);
    expect((await inbound(user)).map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    await new Promise((r) => setTimeout(r, 300));
    // No error text: the retry was the remedy.
    expect(bench.fake.sentTo(user)).toEqual(['Got it the second time.']);
    expect(bench.stack.requestsOf(sessionOf(user))).toHaveLength(1);
  });

  it('holds a push whose submission hangs and acknowledges it within the budget; it is stored once the submission goes through', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Late, not lost.' });
    const callsBefore = bench.submits.calls;
    const held = bench.submits.holdNext();
    const started = Date.now();
    const { msgId, attempts } = await bench.fake.push({ from: user, content: 'late one' });
    expect(attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(ACK_BUDGET_MS - 50);
    expect(Date.now() - started).toBeLessThan(5000);
    // Acknowledged before it was taken: held in Postgres, not stored yet.
    expect(await getMessage(bench.stack.pool, `wechat-${msgId}`)).toBeNull();
    expect(
      (await listHeldPushes(bench.stack.pool, 'wechat')).map((p) => (p as { MsgId?: string }).MsgId),
    ).toContain(msgId);
    held.release();
    await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed'], 45_000);
    expect((await inbound(user)).map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    expect(bench.submits.calls - callsBefore).toBe(1);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 30_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual(['Late, not lost.']);
  });

  it('tells the user when an acknowledged push still cannot be taken after the retries', async () => {
    const user = await bench.pairedUser();
    const callsBefore = bench.submits.calls;
    const unavailable = () => new SessionClientError('unavailable', 'Temporal is unreachable');
    bench.submits.failNext(unavailable(), unavailable(), unavailable());
    const { msgId, attempts } = await bench.fake.push({ from: user, content: 'never taken' });
    expect(attempts).toEqual([{ status: 200, body: 'success', unanswered: false }]);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 15_000, 'the failure notice');
    expect(bench.submits.calls - callsBefore).toBe(3);
    expect(bench.fake.sentTo(user)).toEqual([
      toPlainText(presentSessionError(new SessionClientError('unavailable', 'x'))),
    ]);
    expect(await getMessage(bench.stack.pool, `wechat-${msgId}`)).toBeNull();
    expect(await inbound(user)).toEqual([]);
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

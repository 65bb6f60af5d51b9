/**
 * Delivery to Discord when Discord misbehaves (docs/message-flow.md §5: observable delivery, a fallback at most once), on the
 * real stack: rate limits, a response lost after Discord created the message, a status message that can no
 * longer be edited, a reply Discord refuses.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createDeliveryActivities } from '../../../activities/delivery.ts';
import { claimFallback, getDeliveryRecord } from '../../../db/deliveries.ts';
import { getMessage } from '../../../db/messages.ts';
import { getSession } from '../../../db/sessions.ts';
import type { Message } from '../../../domain/message.ts';
import { createLogger } from '../../../infra/logger.ts';
import { nonceFor } from '../rest.ts';
import { snowflake } from './fake-server.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';
import { sessionWorkflowId } from '../../../workflows/definitions.ts';

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench({}, 14);
});
afterAll(async () => bench?.stop());
afterEach(() => bench.fake.clearFailures());

const CREATE = 'POST /channels/:id/messages';

/** Polls an async condition every 50 ms until it returns a value (not null/undefined). */
async function poll<T>(
  fn: () => Promise<T | null | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const EDIT = 'PATCH /channels/:id/messages/:id';

describe('Discord delivery', () => {
  it('absorbs a 429 with Retry-After: one reply in the end', async () => {
    const channel = bench.channels[1] as string;
    bench.fake.failNext(CREATE, { kind: 'rate_limit', retryAfterS: 1 });
    const { id } = await bench.say({ channelId: channel, content: 'rate limited?', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    expect(reply.content).toContain('rate limited?');
    const posts = bench.fake.calls.filter(
      (c) => c.route === CREATE && c.path === `/channels/${channel}/messages`,
    );
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect(posts[0]?.body?.nonce).toBe(posts[1]?.body?.nonce);
    // The retry waited out Retry-After / X-RateLimit-Reset-After (1 s), it did not hammer the route.
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(bench.fake.botMessages(channel)).toHaveLength(1);
  });

  it('honours a global 429 (X-RateLimit-Global): no request at all until it ends, then one reply', async () => {
    const channel = bench.channels[11] as string;
    bench.fake.failNext(CREATE, { kind: 'rate_limit', retryAfterS: 2, global: true });
    const { id } = await bench.say({ channelId: channel, content: 'globally limited?', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    expect(reply.content).toContain('globally limited?');
    const limited = bench.fake.calls.find(
      (c) => c.status === 429 && c.path === `/channels/${channel}/messages`,
    );
    expect(limited).toBeDefined();
    const at = limited?.at ?? 0;
    // Discord's global limit covers every route of the bot: nothing was sent inside the window.
    const inWindow = bench.fake.calls.filter((c) => c.at > at && c.at < at + 1800 && c.status !== 0);
    expect(inWindow.map((c) => `${c.method} ${c.route}`)).toEqual([]);
    expect(bench.fake.botMessages(channel)).toHaveLength(1);
  });

  it('posts once when Discord created the reply but the response was lost (the retried delivery finds it by nonce)', async () => {
    const channel = bench.channels[2] as string;
    bench.fake.failNext(CREATE, { kind: 'drop' });
    const { id } = await bench.say({ channelId: channel, content: 'lost response', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = (await bench.stack.messages(`discord:${channel}`)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    expect(reply?.status).toBe('delivered');
    const posts = bench.fake.calls.filter(
      (c) => c.route === CREATE && c.path === `/channels/${channel}/messages`,
    );
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts[0]?.status).toBe(-1);
    expect(new Set(posts.map((c) => c.body?.nonce)).size).toBe(1);
    expect(bench.fake.botMessages(channel)).toHaveLength(1);
  });

  it('sends a message once even when the sink is asked twice', async () => {
    const channel = bench.channels[3] as string;
    const { id } = await bench.say({ channelId: channel, content: 'twice', mentionBot: true });
    await bench.waitInbound(id);
    await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    const reply = (await bench.stack.messages(`discord:${channel}`)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    const session = await getSession(bench.stack.pool, `discord:${channel}`);
    if (!reply || !session) throw new Error('reply or session missing');
    await bench.adapter.sink.send(reply, session);
    await bench.adapter.sink.send(reply, session);
    expect(bench.fake.botMessages(channel)).toHaveLength(1);
    // The posted chunk is recorded in Postgres: the repeats find it there and do not even ask Discord.
    expect(
      bench.fake.calls.filter((c) => c.route === CREATE && c.path === `/channels/${channel}/messages`),
    ).toHaveLength(1);
  });

  it("a final reply's delivery ends its turn in the same transaction and its typing: no finishTurn or typing-off after it, counted once, a repeat answers the same count", async () => {
    const channel = bench.channels[0] as string;
    const sessionId = `discord:${channel}`;
    const { id } = await bench.say({ channelId: channel, content: 'one transaction', mentionBot: true });
    const trigger = await bench.waitInbound(id);
    expect(trigger.status).toBe('processed');
    await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    const reply = (await bench.stack.messages(sessionId)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    expect(reply?.status).toBe('delivered');
    expect((await getSession(bench.stack.pool, sessionId))?.turn_count).toBe(1);
    // The turn's history: the reply's delivery, and no finishTurn local activity after it.
    const events =
      (await bench.stack.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory()).events ?? [];
    const localActivities = events
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .map((e) =>
        Buffer.from(e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data ?? []).toString(
          'utf8',
        ),
      );
    expect(localActivities.filter((d) => d.includes('finishTurn'))).toEqual([]);
    const scheduled = (name: string) =>
      events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name).length;
    expect(scheduled('deliverMessage')).toBe(1);
    // Typing on beside the model step; off inside the delivery, not by an activity of its own afterwards.
    expect(scheduled('signalActivity')).toBe(1);

    // A retried delivery (its first attempt committed, then the worker died) posts nothing and counts nothing.
    const activities = createDeliveryActivities({
      pool: bench.stack.pool,
      logger: createLogger('delivery-ends-turn-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      sinks: { discord: bench.adapter.sink },
    });
    const again = await activities.deliverMessage({ sessionId, messageId: reply!.id, endsTurn: trigger.id });
    expect(again).toEqual({ delivered: false, turnCount: 1 });
    expect((await getSession(bench.stack.pool, sessionId))?.turn_count).toBe(1);
    expect(bench.fake.botMessages(channel)).toHaveLength(1);
  });

  it("a tool turn's reply goes out and is marked delivered before the live status's last edit, which still comes", async () => {
    const channel = bench.channels[13] as string;
    const sessionId = `discord:${channel}`;
    const { id } = await bench.say({ channelId: channel, content: 'run: echo settled', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    const status = await bench.fake.waitFor(() =>
      bench.fake
        .botMessages(channel)
        .find((m) => m.message_reference === undefined && m.content.includes('✅')),
    );
    expect(status.content).toContain('`echo settled` ✅');
    const posted = bench.fake.calls.find(
      (c) =>
        c.route === CREATE && c.path === `/channels/${channel}/messages` && c.body?.nonce === reply.nonce,
    );
    const edits = bench.fake.calls.filter(
      (c) => c.route === EDIT && c.path === `/channels/${channel}/messages/${status.id}`,
    );
    expect(posted).toBeDefined();
    // The status's final state is written after the reply (it waited for the edit throttle), not before it.
    expect(edits.at(-1)?.at).toBeGreaterThan(posted?.at ?? Infinity);
    const stored = (await bench.stack.messages(sessionId)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    expect(stored?.status).toBe('delivered');
    expect(Date.parse(stored?.updated_at ?? '')).toBeLessThanOrEqual(edits.at(-1)?.at ?? 0);
  });

  it('still sends the final reply exactly once when the live status can no longer be edited', async () => {
    const channel = bench.channels[4] as string;
    bench.fake.failNext(
      EDIT,
      { kind: 'error', status: 404, code: 10008, message: 'Unknown Message' },
      Number.POSITIVE_INFINITY,
    );
    const { id } = await bench.say({ channelId: channel, content: 'run: echo broken', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const replies = await bench.fake.waitFor(() => {
      const r = bench.repliesTo(channel, id);
      return r.length > 0 ? r : null;
    });
    expect(replies).toHaveLength(1);
    expect(replies[0]?.content).toContain('Done: broken');
    // The status's last write (refused) follows the reply: wait for the turn to end.
    await poll(async () => {
      const state = await bench.stack.sessions.state(`discord:${channel}`);
      return state.status === 'idle' && state.turnCount === 1 ? true : null;
    }, 'the turn ended');
    const status = bench.fake.botMessages(channel).find((m) => m.message_reference === undefined);
    expect(status?.history).toHaveLength(1);
    expect(status?.content).toContain('⏳');
    // Rendering gave up after the first refused edit: no further edits, no second status message.
    expect(
      bench.fake.calls.filter((c) => c.route === EDIT && c.path.startsWith(`/channels/${channel}/`)),
    ).toHaveLength(1);
    expect(bench.fake.botMessages(channel)).toHaveLength(2);
  });

  it('sends a reply Discord refuses as a reply once more as a plain message, exactly once', async () => {
    const channel = bench.channels[5] as string;
    bench.fake.failNext(CREATE, {
      kind: 'error',
      status: 400,
      code: 160002,
      message: 'Cannot reply without permission to read message history',
    });
    const { id } = await bench.say({
      channelId: channel,
      content: 'no history permission',
      mentionBot: true,
    });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const sent = await bench.fake.waitFor(() => {
      const all = bench.fake.botMessages(channel);
      return all.length > 0 ? all : null;
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.message_reference).toBeUndefined();
    expect(sent[0]?.content).toMatch(/^-# ⏱/);
    expect(sent[0]?.content).toContain('no history permission');
  });

  it('a reply refused whose fallback gets through: the turn ends processed, one fallback, no crash notice', async () => {
    const channel = bench.channels[12] as string;
    // The reply (a reply to the user's message) is refused for good; the fallback (a plain message) goes through.
    bench.fake.failNext(
      CREATE,
      { kind: 'error', status: 403, code: 50013, message: 'Missing Permissions' },
      1,
    );
    const { id } = await bench.say({ channelId: channel, content: 'fallback works', mentionBot: true });
    expect((await bench.waitInbound(id, ['processed', 'error', 'interrupted'])).status).toBe('processed');
    const sessionId = `discord:${channel}`;
    const all = await bench.stack.messages(sessionId);
    const texts = all.filter((m) => m.role === 'assistant' && m.type === 'text');
    // Only the reply: no crash notice was written.
    expect(texts).toHaveLength(1);
    expect(all.filter((m) => m.metadata?.failure_kind !== undefined)).toEqual([]);
    const reply = texts[0] as Message;
    expect(reply.status).toBe('delivered');
    expect(reply.metadata?.delivery_failure).toMatchObject({ reason: 'refused', fallback: 'sent' });
    const fallbacks = bench.fake.calls.filter(
      (c) => c.route === CREATE && c.body?.nonce === nonceFor(`fallback:${reply.id}`, 0),
    );
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]?.body?.content).toBe(reply.content);
    const sent = bench.fake.botMessages(channel);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.content).toBe(reply.content);
  });

  it('a reply Discord refuses for good (403/50013 on every create): one fallback in the turn, the failure recorded, never delivered', async () => {
    const channel = bench.channels[6] as string;
    bench.fake.failNext(
      CREATE,
      { kind: 'error', status: 403, code: 50013, message: 'Missing Permissions' },
      Number.POSITIVE_INFINITY,
    );
    const { id } = await bench.say({ channelId: channel, content: 'refused for good', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('error');
    const sessionId = `discord:${channel}`;
    const textOf = async () =>
      (await bench.stack.messages(sessionId)).filter((m) => m.role === 'assistant' && m.type === 'text');
    // The reply, then the crash notice: both end with a recorded failure.
    const [reply, notice] = (await poll(async () => {
      const all = await textOf();
      return all.length === 2 && all.every((m) => m.metadata?.delivery_failure) ? all : null;
    }, 'both delivery failures recorded')) as [Message, Message];
    expect(reply.status).toBe('pending');
    expect(reply.metadata?.delivery_failure).toMatchObject({ reason: 'refused', fallback: 'failed' });
    expect((await getDeliveryRecord(bench.stack.pool, reply.id))?.fallbackOutcome).toBe('failed');
    const fallbackOf = (m: Message) =>
      bench.fake.calls.filter((c) => c.route === CREATE && c.body?.nonce === nonceFor(`fallback:${m.id}`, 0));
    expect(fallbackOf(reply)).toHaveLength(1);
    expect(fallbackOf(reply)[0]?.body?.message_reference).toBeUndefined();
    expect(fallbackOf(reply)[0]?.body?.content).toBe(reply.content);
    // The crash notice is tried once as a normal message, with no fallback of its own: one fallback per turn.
    expect(notice.status).toBe('pending');
    expect(notice.metadata?.failure_kind).toMatch(/^delivery/);
    expect(notice.metadata?.delivery_failure).toMatchObject({ reason: 'refused', fallback: null });
    expect(fallbackOf(notice)).toHaveLength(0);
    // No retry storm afterwards, and nothing reached the channel.
    const creates = () =>
      bench.fake.calls.filter((c) => c.route === CREATE && c.path === `/channels/${channel}/messages`).length;
    const settled = creates();
    await new Promise((r) => setTimeout(r, 2500));
    expect(creates()).toBe(settled);
    expect(bench.fake.botMessages(channel)).toHaveLength(0);
  });

  it('a transient failure then success: the reply is delivered once, with zero fallbacks', async () => {
    const channel = bench.channels[7] as string;
    bench.fake.failNext(CREATE, { kind: 'server_error', status: 503 }, 6);
    const { id } = await bench.say({ channelId: channel, content: 'flaky channel', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = (await bench.stack.messages(`discord:${channel}`)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    if (!reply) throw new Error('no reply');
    const delivered = await bench.stack.waitForStatus(reply.id, ['delivered']);
    expect(delivered.metadata?.delivery_failure).toBeUndefined();
    expect(await getDeliveryRecord(bench.stack.pool, reply.id)).toBeNull();
    expect(
      bench.fake.calls.filter((c) => c.body?.nonce === nonceFor(`fallback:${reply.id}`, 0)),
    ).toHaveLength(0);
    expect(bench.fake.calls.filter((c) => c.route === CREATE && c.status === 503).length).toBe(6);
    expect(bench.fake.botMessages(channel)).toHaveLength(1);
  });

  it('a delivery retried after the nonce window posts nothing new', async () => {
    const channel = bench.channels[8] as string;
    const sessionId = `discord:${channel}`;
    bench.fake.setNonceWindowMs(0);
    try {
      const text = `${'alpha '.repeat(300)}\n\n${'omega '.repeat(300)}`;
      bench.stack.script(sessionId, { kind: 'text', text });
      // Chunk 0 goes out; chunk 1 keeps failing through @discordjs/rest's retries and the activity's first attempts.
      bench.fake.failNext(CREATE, { kind: 'server_error', status: 502 }, 8, 1);
      const { id } = await bench.say({ channelId: channel, content: 'long answer please', mentionBot: true });
      expect((await bench.waitInbound(id, ['processed', 'error', 'interrupted'])).status).toBe('processed');
      const reply = (await bench.stack.messages(sessionId)).find(
        (m) => m.role === 'assistant' && m.type === 'text',
      );
      if (!reply) throw new Error('no reply');
      expect(reply.status).toBe('delivered');
      const sent = bench.fake.botMessages(channel);
      expect(sent).toHaveLength(2);
      expect(sent.map((m) => m.content).join('\n')).toContain('omega');
      expect(bench.fake.calls.filter((c) => c.body?.nonce === nonceFor(reply.id, 0))).toHaveLength(1);
      expect(bench.fake.calls.filter((c) => c.body?.nonce === nonceFor(reply.id, 1)).length).toBeGreaterThan(
        4,
      );
    } finally {
      bench.fake.setNonceWindowMs(5 * 60_000);
    }
  });

  it('a worker without a Discord sink records a delivery failure instead of marking the reply delivered', async () => {
    const channel = snowflake();
    const sessionId = `discord:${channel}`;
    const messageId = `reply-${channel}`;
    const pool = bench.stack.pool;
    await pool.query(`INSERT INTO sessions (id, chatbot_id, channel_id) VALUES ($1, 'discord', $2)`, [
      sessionId,
      channel,
    ]);
    await pool.query(
      `INSERT INTO messages (id, session_id, chatbot_id, channel_id, sender, role, type, status, content, revision)
       VALUES ($1, $2, 'discord', $3, 'Kesoku', 'assistant', 'text', 'pending', 'an answer', 1)`,
      [messageId, sessionId, channel],
    );
    const activities = createDeliveryActivities({
      pool,
      logger: createLogger('no-sink-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      sinks: {},
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const err = await activities.deliverMessage({ sessionId, messageId }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect((err as ApplicationFailure).type).toBe('delivery:no_sink');
      expect((err as ApplicationFailure).nonRetryable).toBe(true);
    }
    const stored = await getMessage(pool, messageId);
    expect(stored?.status).toBe('pending');
    expect(stored?.metadata?.delivery_failure).toMatchObject({ reason: 'no_sink', fallback: null });
  });

  it('never sends a second fallback: a retry after an attempt that claimed it (then died) only records the failure', async () => {
    const channel = bench.channels[9] as string;
    const sessionId = `discord:${channel}`;
    const pool = bench.stack.pool;
    const activities = createDeliveryActivities({
      pool,
      logger: createLogger('fallback-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      sinks: { discord: bench.adapter.sink },
    });
    await pool.query(`INSERT INTO sessions (id, chatbot_id, channel_id) VALUES ($1, 'discord', $2)`, [
      sessionId,
      channel,
    ]);
    const insert = (id: string) =>
      pool.query(
        `INSERT INTO messages (id, session_id, chatbot_id, channel_id, sender, role, type, status, content, revision)
         VALUES ($1, $2, 'discord', $3, 'Kesoku', 'assistant', 'text', 'pending', 'the body', 1)`,
        [id, sessionId, channel],
      );
    const creates = () =>
      bench.fake.calls.filter((c) => c.route === CREATE && c.path === `/channels/${channel}/messages`);
    bench.fake.failNext(
      CREATE,
      { kind: 'error', status: 403, code: 50001, message: 'Missing Access' },
      Number.POSITIVE_INFINITY,
    );

    // An attempt claimed the fallback and died before recording anything: the retry sends nothing at all.
    const crashed = `crashed-${channel}`;
    await insert(crashed);
    expect(await claimFallback(pool, crashed)).toBe(true);
    const err = await activities.deliverMessage({ sessionId, messageId: crashed }).catch((e: unknown) => e);
    expect((err as ApplicationFailure).type).toBe('delivery:refused');
    expect(creates()).toHaveLength(0);
    expect((await getMessage(pool, crashed))?.metadata?.delivery_failure).toMatchObject({
      reason: 'refused',
    });

    // A normal refusal: one send, one fallback; the retried activity sends neither again.
    const refused = `refused-${channel}`;
    await insert(refused);
    for (let attempt = 0; attempt < 2; attempt++) {
      const e = await activities.deliverMessage({ sessionId, messageId: refused }).catch((x: unknown) => x);
      expect((e as ApplicationFailure).nonRetryable).toBe(true);
    }
    expect(creates().map((c) => c.body?.nonce)).toEqual([
      nonceFor(refused, 0),
      nonceFor(`fallback:${refused}`, 0),
    ]);
    expect((await getMessage(pool, refused))?.status).toBe('pending');
  });

  it('a channel still failing on the activity’s last attempt gets the fallback and a recorded failure; earlier attempts only retry', async () => {
    const channel = bench.channels[10] as string;
    const sessionId = `discord:${channel}`;
    const pool = bench.stack.pool;
    const messageId = `unavailable-${channel}`;
    await pool.query(`INSERT INTO sessions (id, chatbot_id, channel_id) VALUES ($1, 'discord', $2)`, [
      sessionId,
      channel,
    ]);
    await pool.query(
      `INSERT INTO messages (id, session_id, chatbot_id, channel_id, sender, role, type, status, content, revision)
       VALUES ($1, $2, 'discord', $3, 'Kesoku', 'assistant', 'text', 'pending', 'the body', 1)`,
      [messageId, sessionId, channel],
    );
    const { deliverMessage } = createDeliveryActivities({
      pool,
      logger: createLogger('last-attempt-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      sinks: { discord: bench.adapter.sink },
    });
    bench.fake.failNext(CREATE, { kind: 'server_error', status: 503 }, Number.POSITIVE_INFINITY);
    const fallbacks = () =>
      bench.fake.calls.filter((c) => c.body?.nonce === nonceFor(`fallback:${messageId}`, 0));
    const attempt = async (n: number): Promise<ApplicationFailure> => {
      const env = new MockActivityEnvironment({ attempt: n, retryPolicy: { maximumAttempts: 25 } });
      const err = await env.run(deliverMessage, { sessionId, messageId }).then(
        () => null,
        (e: unknown) => e,
      );
      if (!(err instanceof ApplicationFailure))
        throw new Error(`expected an ApplicationFailure, got ${String(err)}`);
      return err;
    };

    const early = await attempt(3);
    expect(early.nonRetryable).toBe(false);
    expect(fallbacks()).toHaveLength(0);
    expect(await getDeliveryRecord(pool, messageId)).toBeNull();

    const last = await attempt(25);
    expect(last.nonRetryable).toBe(true);
    expect(last.type).toBe('delivery:retries_exhausted');
    expect(fallbacks().length).toBeGreaterThanOrEqual(1); // one fallback send (@discordjs/rest retries the 503 itself)
    expect(new Set(fallbacks().map((c) => c.body?.content))).toEqual(new Set(['the body']));
    const stored = await getMessage(pool, messageId);
    expect(stored?.status).toBe('pending');
    expect(stored?.metadata?.delivery_failure).toMatchObject({
      reason: 'retries_exhausted',
      fallback: 'failed',
    });
  });
});

/**
 * Delivery to Discord when Discord misbehaves (seed 2 §5: observable delivery, a fallback at most once), on the
 * real stack: rate limits, a response lost after Discord created the message, a status message that can no
 * longer be edited, a reply Discord refuses.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getSession } from '../../db/sessions.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench();
});
afterAll(async () => bench?.stop());
afterEach(() => bench.fake.clearFailures());

const CREATE = 'POST /channels/:id/messages';
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
    expect(
      bench.fake.calls.filter((c) => c.route === CREATE && c.path === `/channels/${channel}/messages`),
    ).toHaveLength(3);
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
});

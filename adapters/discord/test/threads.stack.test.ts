/**
 * DISCORD_THREADS=true end to end: a mention in a guild channel starts a thread from the message, the
 * conversation's session lives in the thread (`discord:<thread id>`), replies go there, and in the thread every
 * message is for Kesoku (no mention needed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordBench, type DiscordBench } from './harness.ts';

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench({ DISCORD_THREADS: 'true' }, 3);
});
afterAll(async () => bench?.stop());

describe('Discord threads', () => {
  it('starts a thread per conversation and keeps the session and the replies there', async () => {
    const channel = bench.channels[1] as string;
    const { id, outcome } = await bench.say({
      channelId: channel,
      content: 'plan the release\nwith details',
      mentionBot: true,
    });
    expect(outcome).toBe('submitted');
    const starts = bench.fake.callsTo('POST /channels/:id/messages/:id/threads');
    expect(starts).toHaveLength(1);
    expect(starts[0]?.path).toBe(`/channels/${channel}/messages/${id}/threads`);
    expect(starts[0]?.body).toMatchObject({ name: 'plan the release' });
    // A thread started from a message has the message's id.
    const thread = id;
    expect(bench.fake.channel(thread)).toMatchObject({ type: 11, parent_id: channel });

    const q = await bench.waitInbound(id);
    expect(q.status).toBe('processed');
    expect(q.session_id).toBe(`discord:${thread}`);
    expect(q.metadata?.channel_context).toMatchObject({
      channel_id: channel,
      thread_id: thread,
      message_channel_id: channel,
      started_thread: true,
    });
    const answer = await bench.fake.waitFor(() => bench.fake.botMessages(thread)[0]);
    expect(answer.content).toContain('plan the release');
    expect(answer.message_reference).toBeUndefined();
    expect(bench.fake.botMessages(channel)).toEqual([]);
    // The receipt is on the user's message, in the channel it was posted in.
    expect(bench.fake.reactionsOf(id)).toContain('👀');

    // In the thread no mention is needed, and the conversation goes on in the same session.
    const next = await bench.say({ channelId: thread, content: 'and the changelog?' });
    expect(next.outcome).toBe('submitted');
    const q2 = await bench.waitInbound(next.id);
    expect(q2.session_id).toBe(`discord:${thread}`);
    const reply = await bench.fake.waitFor(() => bench.repliesTo(thread, next.id)[0]);
    expect(reply.content).toContain('and the changelog?');
    expect(bench.fake.callsTo('POST /channels/:id/messages/:id/threads')).toHaveLength(1);
  });
});

/**
 * People across channels on the real stack (real discord.js against the fake Discord, Temporal dev server,
 * Postgres, worker, fake model recording what it receives, REST API with principals): a Discord user's `/link`
 * code confirmed by a principal makes the principal's memory theirs; another Discord user in the same channel
 * never sees it, neither in their prompt nor in `/memory`; a reused code is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiToken } from '../../api/auth.ts';
import type { ApiServer } from '../../api/server.ts';
import { snowflake, type InjectOptions } from '../../adapters/discord/test/fake-server.ts';
import { startDiscordBench, type DiscordBench } from '../../adapters/discord/test/harness.ts';
import { uniqueId } from '../support/stack.ts';
import { ApiClient, expectProblem, startApiFor, type Json } from '../api/support.ts';

// A principal of this file only: the database is shared with the other test files, whose `alice` has memory too.
const ALICE = uniqueId('alice');
const TOKENS: ApiToken[] = [{ name: ALICE, token: 'a'.repeat(40), admin: false }];
const asAlice = { authorization: `Bearer ${'a'.repeat(40)}` };
const bob: InjectOptions['author'] = { id: snowflake(), username: 'bob', global_name: 'Bob' };

let bench: DiscordBench;
let api: ApiServer;
let client: ApiClient;
beforeAll(async () => {
  bench = await startDiscordBench({ DISCORD_MESSAGE_CONTENT: 'true' });
  await bench.stack.pool.query(
    `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('discord', $1, 'Bob', 'cli')`,
    [bob.id],
  );
  api = await startApiFor(bench.stack, { tokens: TOKENS });
  client = new ApiClient(api.url);
});
afterAll(async () => {
  await api?.close();
  await bench?.stop();
});

/** The text of the bot's reply to Discord message `id` in `channel`. */
async function replyTo(channel: string, id: string): Promise<string> {
  return bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]?.content ?? null, 20_000, `reply to ${id}`);
}

describe('/link', () => {
  it("a linked Discord user gets the principal's memory; another user in the channel does not", async () => {
    // alice remembers a fact over REST.
    const rest = uniqueId('s-link-rest');
    bench.stack.script(
      rest,
      {
        kind: 'tool_calls',
        calls: [{ name: 'remember', arguments: { text: "Alice's cat is called Miso." } }],
      },
      { kind: 'text', text: 'Noted.' },
    );
    const posted = await client.post(
      `/v1/sessions/${rest}/messages`,
      { content: 'my cat is Miso', wait: 60 },
      asAlice,
    );
    expect(posted.status, posted.text).toBe(200);

    // Discord alice asks for a code; the principal confirms it; a second use is refused.
    const channel = bench.channels[2] as string;
    const link = await bench.say({ channelId: channel, content: '/link', mentionBot: true });
    expect(link.outcome).toBe('command');
    const answer = await replyTo(channel, link.id);
    const code = /`([A-Z2-9]{8})`/.exec(answer)?.[1] as string;
    expect(code).toBeDefined();
    const confirmed = await client.post('/v1/me/links', { code }, asAlice);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ chatbot_id: 'discord', user_id: bench.alice.id });
    expectProblem(await client.post('/v1/me/links', { code }, asAlice), 409, 'conflict');
    expectProblem(await client.post('/v1/me/links', { code: 'nonsense' }, asAlice), 400, 'validation');
    const me = await client.get('/v1/me', asAlice);
    expect(me.body).toMatchObject({
      principal: ALICE,
      links: [{ chatbot_id: 'discord', user_id: bench.alice.id }],
    });

    // In Discord, alice's question gets the fact; bob's, in the same channel, does not.
    const session = `discord:${channel}`;
    const asked = await bench.say({
      channelId: channel,
      content: 'what is my cat called?',
      mentionBot: true,
    });
    await bench.waitInbound(asked.id);
    const bobAsked = await bench.say({
      channelId: channel,
      author: bob,
      content: 'what is my cat called, bob asks',
      mentionBot: true,
    });
    await bench.waitInbound(bobAsked.id);
    const lastUser = (needle: string) =>
      bench.stack
        .requestsOf(session)
        .map((r) => String([...(r.body?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content))
        .find((c) => c.includes(needle) && c.includes('[Runtime Context]'));
    expect(lastUser('what is my cat called?')).toContain("Alice's cat is called Miso.");
    const bobs = lastUser('bob asks');
    expect(bobs).toContain('- Speaking: Bob');
    expect(bobs).not.toContain('Miso');

    // `/memory` in the chat: alice's lists it, bob's is empty.
    const mine = await bench.say({ channelId: channel, content: '/memory', mentionBot: true });
    expect(await replyTo(channel, mine.id)).toContain("Alice's cat is called Miso.");
    const his = await bench.say({ channelId: channel, author: bob, content: '/memory', mentionBot: true });
    expect(await replyTo(channel, his.id)).toBe('🧠 I remember nothing about you yet.');
    const entries = (await client.get('/v1/memory', asAlice)).body.entries as Json[];
    const id = entries[0]?.id as string;
    const forget = await bench.say({
      channelId: channel,
      author: bob,
      content: `/memory forget ${id}`,
      mentionBot: true,
    });
    expect(await replyTo(channel, forget.id)).toMatch(/^⚠️ I have no entry/);
    expect(((await client.get('/v1/memory', asAlice)).body.entries as Json[]).length).toBe(1);
  });
});

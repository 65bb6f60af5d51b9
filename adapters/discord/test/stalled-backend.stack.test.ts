/**
 * Discord with Temporal stalled (a paused TCP proxy between the adapter and the dev server): a slash command is
 * deferred within Discord's 3 s and its answer edited in once the backend answers again, run once; a message
 * sent meanwhile is handed to the session once the backend is back — stored once, answered once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stallableSessions, type StallableSessions } from '../../../test/support/tcp-proxy.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

let bench: DiscordBench;
let stall: StallableSessions;

beforeAll(async () => {
  bench = await startDiscordBench(
    ({ aliceId, guildId }) => ({ DISCORD_ALLOWED_USERS: aliceId, DISCORD_ALLOWED_GUILDS: guildId }),
    3,
    {
      sessionsOf: async (stack) => {
        stall = await stallableSessions(stack);
        return stall.sessions;
      },
    },
  );
});
afterAll(async () => {
  await stall?.close();
  await bench?.stop();
});

/** Pauses the proxy for `ms`, then lets Temporal answer again. */
function stallFor(ms: number): void {
  stall.proxy.pause();
  setTimeout(() => stall.proxy.resume(), ms);
}

describe('Discord with a stalled backend', () => {
  it('defers a slash command within 3 s while Temporal stalls, then edits in the answer of its one run', async () => {
    const channel = bench.channels[0] as string;
    const first = await bench.say({ channelId: channel, content: 'hello', mentionBot: true });
    await bench.waitInbound(first.id);

    stallFor(6000);
    const title = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.alice,
      name: 'title',
      options: { text: 'Groceries' },
    });
    const it1 = await bench.fake.waitFor(() => {
      const x = bench.fake.gateway.interaction(title.id);
      return x && x.callbacks.length > 0 ? x : undefined;
    });
    expect(it1.callbacks[0]?.type).toBe(5);
    expect(it1.callbacks[0]?.afterMs).toBeLessThan(3000);
    const done = await bench.fake.waitFor(
      () => (it1.response?.content ? it1.response : undefined),
      30_000,
      'the edited answer',
    );
    expect(done.content).toBe('📝 Title set: Groceries');
    expect(it1.callbacks).toHaveLength(1);
    expect(await bench.stack.sessions.state(`discord:${channel}`)).toMatchObject({ title: 'Groceries' });
  });

  it('hands a message sent during the stall to the session once the backend is back: one reply', async () => {
    const channel = bench.channels[1] as string;
    const sessionId = `discord:${channel}`;
    const warm = await bench.say({ channelId: channel, content: 'hello', mentionBot: true });
    await bench.waitInbound(warm.id);
    bench.stack.script(sessionId, { kind: 'text', text: 'Back again.' });

    stallFor(6000);
    const started = Date.now();
    const { id, outcome } = await bench.say({
      channelId: channel,
      content: 'are you there?',
      mentionBot: true,
    });
    expect(outcome).toBe('submitted');
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000); // taken only once Temporal answered
    expect((await bench.waitInbound(id)).status).toBe('processed');
    await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0], 30_000, 'the reply');
    await new Promise((r) => setTimeout(r, 500));
    expect(bench.repliesTo(channel, id).map((m) => m.content)).toEqual([
      expect.stringContaining('Back again.'),
    ]);
    expect(bench.outcomesOf(id)).toEqual(['submitted']);
    const inbound = (await bench.stack.messages(sessionId)).filter((m) => m.role === 'user');
    expect(inbound.map((m) => m.id)).toEqual([`discord-${warm.id}`, `discord-${id}`]);
    expect(bench.stack.requestsOf(sessionId)).toHaveLength(2);
  });
});

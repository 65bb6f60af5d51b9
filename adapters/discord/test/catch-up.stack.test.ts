/**
 * Typed chat commands and the catch-up, end to end (the real discord.js client against the fake Discord, a real
 * Kesoku stack): a command is never stored as a message, so one answered just before a restart is newer than the
 * catch-up's cursor and is fetched again by the next adapter process. It must not be run or answered a second
 * time (nothing sent or run twice), also when its answer is not among the fetched messages and when two adapter
 * processes get the same command; a command posted while no adapter ran is still answered.
 *
 * Discord's own `enforce_nonce` window (a few minutes) would hide a second answer posted soon after the first, so
 * the fake forgets nonces at once here: a restart that takes longer than the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDiscordConfig } from '../config.ts';
import { createConversations } from '../conversations.ts';
import type { IngressOutcome } from '../ingress.ts';
import { startDiscordAdapter, type DiscordAdapter } from '../run.ts';
import { createLogger } from '../../../infra/logger.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench(({ aliceId }) => ({ DISCORD_ALLOWED_USERS: aliceId }), 5);
  bench.fake.setNonceWindowMs(0);
});
afterAll(async () => bench?.stop());

/** A second adapter process (as after a restart or with two processes): it catches up at start. */
async function startAnotherAdapter(): Promise<{
  adapter: DiscordAdapter;
  outcomesOf(id: string): IngressOutcome[];
}> {
  const handled = new Map<string, IngressOutcome[]>();
  const adapter = await startDiscordAdapter({
    config: {
      ...loadDiscordConfig({
        DISCORD_TOKEN: bench.fake.token,
        DISCORD_API_URL: bench.fake.apiUrl,
        DISCORD_ALLOWED_USERS: bench.alice.id as string,
      }),
      KESOKU_DATA_DIR: bench.stack.dataDir,
    },
    sessions: bench.stack.sessions,
    pool: bench.stack.pool,
    logger: createLogger('discord-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
    onHandled: (id, outcome) => handled.set(id, [...(handled.get(id) ?? []), outcome]),
  });
  return { adapter, outcomesOf: (id) => handled.get(id) ?? [] };
}

/** Makes `channel` active for the catch-up: a processed message stored in its session. */
async function activate(channel: string): Promise<void> {
  const first = await bench.say({ channelId: channel, content: 'hello there', mentionBot: true });
  expect((await bench.waitInbound(first.id)).status).toBe('processed');
  await bench.fake.waitFor(() => bench.repliesTo(channel, first.id)[0]);
}

/** A typed command handled by the bench's adapter, once its answer is posted. */
async function command(channel: string, content: string): Promise<string> {
  const sent = await bench.say({ channelId: channel, content, mentionBot: true });
  expect(sent.outcome).toBe('command');
  await bench.fake.waitFor(() => bench.repliesTo(channel, sent.id)[0], 15_000, `the answer to ${content}`);
  return sent.id;
}

/** Posts a message while no adapter listens (found only by a history fetch). */
const offline = (channel: string, content: string) =>
  bench.fake.injectMessage({
    channelId: channel,
    author: bench.alice,
    content,
    mentionBot: true,
    offline: true,
  }).id as string;

const settle = () => new Promise((r) => setTimeout(r, 1500));

describe('Discord chat commands across a restart (catch-up)', () => {
  it('does not answer /status again after a restart, and answers a command posted while no adapter ran', async () => {
    const channel = bench.channels[0] as string;
    await activate(channel);
    const status = await command(channel, '/status');
    const help = offline(channel, '/help');

    const restarted = await startAnotherAdapter();
    try {
      // The command nobody answered yet is answered by the catch-up, once.
      const helpReply = await bench.fake.waitFor(() => bench.repliesTo(channel, help)[0], 20_000, '/help');
      expect(helpReply.content).toContain('`/status`');
      expect(restarted.outcomesOf(help)).toEqual(['command']);
      await settle();
      expect(restarted.outcomesOf(status)).not.toContain('command');
      expect(bench.repliesTo(channel, status)).toHaveLength(1);
      expect(bench.repliesTo(channel, help)).toHaveLength(1);
    } finally {
      await restarted.adapter.stop();
    }
  });

  it('opens no second conversation and answers no /new again after a restart', async () => {
    const channel = bench.channels[1] as string;
    await activate(channel);
    const conversations = createConversations(bench.stack.pool);
    const firstNew = await command(channel, '/new');
    const secondNew = await command(channel, '/new');
    expect((await conversations.current(channel)).sessionId).toBe(`discord:${channel}:2`);

    const during = offline(channel, 'posted during the restart');

    const restarted = await startAnotherAdapter();
    try {
      // The message after the two commands is handled after them (the channel's order): in their conversation.
      expect((await bench.waitInbound(during)).session_id).toBe(`discord:${channel}:2`);
      await settle();
      expect((await conversations.current(channel)).sessionId).toBe(`discord:${channel}:2`);
      expect(bench.repliesTo(channel, firstNew)).toHaveLength(1);
      expect(bench.repliesTo(channel, secondNew)).toHaveLength(1);
      expect(restarted.outcomesOf(firstNew)).not.toContain('command');
      expect(restarted.outcomesOf(secondNew)).not.toContain('command');
      expect(restarted.outcomesOf(during)).toEqual(['submitted']);
    } finally {
      await restarted.adapter.stop();
    }
  });

  it('does not run a command again whose answer is not among the fetched messages (the claim in Postgres)', async () => {
    const channel = bench.channels[2] as string;
    await activate(channel);
    const status = await command(channel, '/status');
    // The answer is gone from the channel (deleted, or beyond the pages a catch-up fetches).
    bench.fake.deleteUserMessage((bench.repliesTo(channel, status)[0] as { id: string }).id);

    const restarted = await startAnotherAdapter();
    try {
      const outcomes = await bench.fake.waitFor(
        () => (restarted.outcomesOf(status).length > 0 ? restarted.outcomesOf(status) : undefined),
        20_000,
        'the /status fetched again',
      );
      expect(outcomes).toEqual(['duplicate']);
      await settle();
      expect(bench.repliesTo(channel, status)).toHaveLength(0);
    } finally {
      await restarted.adapter.stop();
    }
  });

  it('skips a command the bot already replied to, also without its claim (answered before claims existed)', async () => {
    const channel = bench.channels[3] as string;
    await activate(channel);
    const status = await command(channel, '/status');
    await bench.stack.pool.query('DELETE FROM chat_command_claims WHERE message_id = $1', [status]);
    const during = offline(channel, 'posted during the restart');

    const restarted = await startAnotherAdapter();
    try {
      expect((await bench.waitInbound(during)).status).toBe('processed');
      await settle();
      // Not even handed to the ingress: the bot's answer among the fetched messages replies to it.
      expect(restarted.outcomesOf(status)).toEqual([]);
      expect(bench.repliesTo(channel, status)).toHaveLength(1);
    } finally {
      await restarted.adapter.stop();
    }
  });

  it('answers a command once when two adapter processes both receive it', async () => {
    const channel = bench.channels[4] as string;
    await activate(channel);
    const second = await startAnotherAdapter();
    try {
      const status = bench.fake.injectMessage({
        channelId: channel,
        author: bench.alice,
        content: '/status',
        mentionBot: true,
      }).id as string;
      await bench.fake.waitFor(
        () => bench.outcomesOf(status).length > 0 && second.outcomesOf(status).length > 0,
        20_000,
        'both processes',
      );
      expect([...bench.outcomesOf(status), ...second.outcomesOf(status)].sort()).toEqual([
        'command',
        'duplicate',
      ]);
      await settle();
      expect(bench.repliesTo(channel, status)).toHaveLength(1);
    } finally {
      await second.adapter.stop();
    }
  });
});

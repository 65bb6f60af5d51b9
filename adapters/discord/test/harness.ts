/**
 * A Discord test bench: the fake Discord (fake-server.ts beside this file), a real Kesoku stack (Temporal,
 * Postgres, fake model, in-process worker) and the real adapter — discord.js over 127.0.0.1 — wired like
 * `npm start` wires them: the adapter's sink is the worker's `sinks.discord`.
 */
import type { ChannelSink } from '../../../activities/delivery.ts';
import type { Message } from '../../../domain/message.ts';
import { loadDiscordConfig } from '../config.ts';
import { createLogger } from '../../../infra/logger.ts';
import type { IngressOutcome } from '../ingress.ts';
import { startDiscordAdapter, type DiscordAdapter, type DiscordAdapterDeps } from '../run.ts';
import {
  snowflake,
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
  type FakeMessage,
  type InjectOptions,
} from './fake-server.ts';
import { startStack, type Stack, type StackOptions } from '../../../test/support/stack.ts';

export interface DiscordBench {
  fake: FakeDiscord;
  stack: Stack;
  adapter: DiscordAdapter;
  guildId: string;
  /** Text channels of the guild (each test uses its own, so sessions never mix). */
  channels: string[];
  threadId: string;
  threadParentId: string;
  alice: InjectOptions['author'];
  mallory: InjectOptions['author'];
  /** Injects a message and waits until the adapter handled it. */
  say(
    opts: Omit<InjectOptions, 'author'> & { author?: InjectOptions['author'] },
  ): Promise<{ id: string; outcome: IngressOutcome }>;
  /** Waits until Kesoku message `discord-<id>` has one of `statuses`. */
  waitInbound(discordId: string, statuses?: Message['status'][]): Promise<Message>;
  /** Every ingress outcome reported for Discord message `discordId`, in order (a replay adds one). */
  outcomesOf(discordId: string): IngressOutcome[];
  /** Bot messages in `channelId` that reply to Discord message `discordId`. */
  repliesTo(channelId: string, discordId: string): FakeMessage[];
  stop(): Promise<void>;
}

/** `env` is extra adapter configuration; as a function it gets the bench's ids (e.g. for allowlists). */
export async function startDiscordBench(
  env:
    | Record<string, string>
    | ((ids: { aliceId: string; guildId: string; channels: string[] }) => Record<string, string>) = {},
  channelCount = 12,
  more: {
    fake?: FakeDiscordOptions;
    adapter?: Partial<DiscordAdapterDeps>;
    stack?: Omit<StackOptions, 'sinks'>;
    /** The session client the adapter uses, built from the stack (default: the stack's own). */
    sessionsOf?: (stack: Stack) => Promise<Stack['sessions']>;
  } = {},
): Promise<DiscordBench> {
  const alice = { id: snowflake(), username: 'alice', global_name: 'Alice' };
  const mallory = { id: snowflake(), username: 'mallory', global_name: 'Mallory' };
  const guildId = snowflake();
  const channels = Array.from({ length: channelCount }, () => snowflake());
  const threadParentId = channels[0] as string;
  const threadId = snowflake();
  const fake = await startFakeDiscord({
    guilds: [
      {
        id: guildId,
        channels: channels.map((id) => ({ id })),
        threads: [{ id: threadId, parentId: threadParentId }],
      },
    ],
    ...more.fake,
  });
  const sinks: Record<string, ChannelSink> = {};
  const stack = await startStack({ ...more.stack, sinks });
  // Alice is a paired user (as after `npm run kesoku -- pairing approve`), so she may talk under the default
  // access (pairing); Mallory is a stranger.
  await stack.pool.query(
    `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('discord', $1, 'Alice', 'cli')`,
    [alice.id],
  );
  const outcomes = new Map<string, IngressOutcome>();
  const allOutcomes = new Map<string, IngressOutcome[]>();
  const extra = typeof env === 'function' ? env({ aliceId: alice.id, guildId, channels }) : env;
  let adapter: DiscordAdapter;
  try {
    adapter = await startDiscordAdapter({
      config: {
        ...loadDiscordConfig({ DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, ...extra }),
        KESOKU_DATA_DIR: stack.dataDir,
      },
      sessions: more.sessionsOf ? await more.sessionsOf(stack) : stack.sessions,
      pool: stack.pool,
      logger: createLogger('discord-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      onHandled: (id, outcome) => {
        outcomes.set(id, outcome);
        allOutcomes.set(id, [...(allOutcomes.get(id) ?? []), outcome]);
      },
      ...more.adapter,
    });
  } catch (err) {
    await stack.stop();
    await fake.close();
    throw err;
  }
  sinks.discord = adapter.sink;
  return {
    fake,
    stack,
    adapter,
    guildId,
    channels,
    threadId,
    threadParentId,
    alice,
    mallory,
    async say(opts) {
      const payload = fake.injectMessage({ author: alice, ...opts });
      const id = payload.id as string;
      const outcome = await fake.waitFor(() => outcomes.get(id), 20_000, `ingress of ${id}`);
      return { id, outcome };
    },
    outcomesOf: (discordId) => allOutcomes.get(discordId) ?? [],
    waitInbound: (discordId, statuses = ['processed', 'error', 'interrupted']) =>
      stack.waitForStatus(`discord-${discordId}`, statuses),
    repliesTo: (channelId, discordId) =>
      fake.botMessages(channelId).filter((m) => m.message_reference?.message_id === discordId),
    async stop() {
      await adapter.stop();
      await stack.stop();
      await fake.close();
    },
  };
}

/** The time inside a Discord snowflake. */
export function snowflakeTime(id: string): Date {
  return new Date(Number((BigInt(id) >> 22n) + 1420070400000n));
}

/** Runs of 3+ backticks in `s` (even = balanced fences). */
export function fenceCount(s: string): number {
  return (s.match(/`{3,}/g) ?? []).length;
}

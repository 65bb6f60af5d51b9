/**
 * Live status rendering never holds up a turn: writes are throttled without making the caller wait, each write is
 * bounded in time even under a long rate limit (429 with its X-RateLimit headers), a status message Discord will
 * no longer edit (30046, older than an hour) continues in a new message, and a status that cannot be rendered at
 * all does not fail the turn (end to end with a real stack).
 */
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { Message } from '../../../domain/message.ts';
import { createDeliveryStore } from '../../../db/deliveries.ts';
import { createPool, type Pool } from '../../../db/pool.ts';
import type { SessionRow } from '../../../db/sessions.ts';
import { createLogger } from '../../../infra/logger.ts';
import { createDiscordRest } from '../rest.ts';
import { createDiscordSink, type DiscordSinkOptions } from '../sink.ts';
import { snowflake, startFakeDiscord, type FakeDiscord } from './fake-server.ts';
import { startDiscordBench } from './harness.ts';

const STATUS_FLAGS = (1 << 2) | (1 << 12);
let fake: FakeDiscord;
let pool: Pool;
const channels = Array.from({ length: 6 }, () => snowflake());
beforeAll(async () => {
  fake = await startFakeDiscord({
    guilds: [{ id: snowflake(), channels: channels.map((id) => ({ id })) }],
    oldMessageEdits: 1,
  });
  pool = createPool(inject('databaseUrl'));
});
afterAll(async () => {
  await fake?.close();
  await pool?.end();
});

const logger = createLogger('discord-status-test', process.env.KESOKU_TEST_LOG ?? 'silent');
const sinkFor = (extra: Partial<DiscordSinkOptions> = {}) =>
  createDiscordSink({
    rest: createDiscordRest({ token: fake.token, apiUrl: fake.apiUrl }),
    logger,
    store: createDeliveryStore(pool),
    ...extra,
  });

const now = new Date().toISOString();
function sessionOf(channel: string): SessionRow {
  return {
    id: `discord:${channel}`,
    timezone: null,
    chatbot_id: 'discord',
    channel_id: channel,
    title: null,
    title_source: 'default',
    mode: 'interrupt',
    locale: 'en',
    revision: 0,
    turn_count: 0,
    channel_context: null,
    created_at: now,
    updated_at: now,
  };
}
function msg(
  channel: string,
  turnId: string,
  p: Partial<Message> & Pick<Message, 'id' | 'type' | 'role'>,
): Message {
  return {
    session_id: `discord:${channel}`,
    parent_id: turnId,
    chatbot_id: 'discord',
    channel_id: channel,
    sender: 'Kesoku',
    status: 'responded',
    content: '',
    metadata: null,
    turn_id: turnId,
    step: 0,
    seq: 1,
    revision: 1,
    received_at: null,
    created_at: now,
    updated_at: now,
    ...p,
  };
}
const call = (channel: string, turn: string, n: number, command: string) =>
  msg(channel, turn, {
    id: `${turn}:call${n}`,
    type: 'tool_call',
    role: 'tool',
    metadata: { tool_name: 'run_shell_command', tool_arguments: { command }, tool_call_id: `c${n}` },
  });
const result = (channel: string, turn: string, n: number, summary: string) =>
  msg(channel, turn, {
    id: `${turn}:call${n}:result`,
    parent_id: `${turn}:call${n}`,
    type: 'tool_result',
    role: 'tool',
    sender: 'run_shell_command',
    content: summary,
    metadata: { tool_name: 'run_shell_command', tool_result: summary, tool_call_id: `c${n}` },
  });
const statusMessages = (channel: string) => fake.botMessages(channel).filter((m) => m.flags === STATUS_FLAGS);
const timed = async <T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = Date.now();
  const value = await f();
  return { value, ms: Date.now() - started };
};

describe('Discord live status never holds up a turn', () => {
  it('throttles a burst of updates without making any caller wait for the throttle', async () => {
    const channel = channels[0] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 1000 });
    const session = sessionOf(channel);
    const durations: number[] = [];
    const burstStart = Date.now();
    for (let n = 1; n <= 8; n++) {
      durations.push(
        (await timed(() => sink.presentProgress!([call(channel, turn, n, `echo ${n}`)], session))).ms,
      );
      durations.push(
        (await timed(() => sink.presentProgress!([result(channel, turn, n, `${n}`)], session))).ms,
      );
    }
    const burstEnd = Date.now();
    // One create, then at most one edit per second of burst (the first edit waits for the throttle).
    const writesDuringBurst = fake.calls.filter(
      (c) => c.path.startsWith(`/channels/${channel}/messages`) && c.at >= burstStart && c.at <= burstEnd,
    );
    expect(writesDuringBurst.length).toBeLessThanOrEqual(2 + Math.floor((burstEnd - burstStart) / 1000));
    expect(Math.max(...durations)).toBeLessThan(800);
    await sink.close();
    expect(
      statusMessages(channel)[0]
        ?.content.split('\n')
        .filter((l) => l.includes('✅')),
    ).toHaveLength(8);
  });

  it('bounds a status write held up by a long rate limit (429 for a minute)', async () => {
    const channel = channels[1] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ statusRequestTimeoutMs: 800 });
    const session = sessionOf(channel);
    // Discord rate-limits message creation in this channel for a minute (429, Retry-After, X-RateLimit-*).
    fake.failNext('POST /channels/:id/messages', { kind: 'rate_limit', retryAfterS: 60 }, 1);
    const { value: shown, ms } = await timed(() =>
      sink.presentProgress!([call(channel, turn, 1, 'make build')], session),
    );
    expect(ms).toBeLessThan(5000);
    expect(shown).toEqual([]); // not shown: the messages stay `responded`, the turn goes on
    const limited = fake.calls.find((c) => c.status === 429 && c.path === `/channels/${channel}/messages`);
    expect(limited).toBeDefined();
    fake.clearFailures();
    await sink.close();
  });

  it('continues a status that Discord will no longer edit (older than an hour, 30046) in a new message', async () => {
    const channel = channels[2] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    const session = sessionOf(channel);
    await sink.presentProgress!([call(channel, turn, 1, 'long job')], session);
    const [first] = statusMessages(channel);
    expect(first?.content).toContain('⏳');
    // The status is now older than an hour; the fake allows one more edit of such a message, then 30046.
    fake.ageMessage(first?.id as string, 2 * 3_600_000);
    await sink.presentProgress!([result(channel, turn, 1, 'ok')], session);
    await sink.presentProgress!([call(channel, turn, 2, 'second job')], session);
    const refused = fake.calls.filter((c) => c.method === 'PATCH' && c.status === 400);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    const statuses = statusMessages(channel);
    expect(statuses).toHaveLength(2);
    expect(statuses[1]?.content).toContain('`second job` ⏳');
    expect(statuses[1]?.content).toContain('`long job` ✅');
    // Later writes go to the new message (it is not marked broken), also from a fresh process.
    const other = sinkFor({ editIntervalMs: 0 });
    const shown = await other.presentProgress!([result(channel, turn, 2, 'fine')], session);
    expect(shown).toEqual([`${turn}:call2:result`]);
    expect(statusMessages(channel)).toHaveLength(2);
    expect(statusMessages(channel)[1]?.content).toContain('`second job` ✅');
    await sink.close();
    await other.close();
  });
});

describe('Discord live status failure end to end', () => {
  it('a status Discord refuses does not fail the turn: the tool runs and the reply goes out', async () => {
    const bench = await startDiscordBench(({ aliceId }) => ({ DISCORD_ALLOWED_USERS: aliceId }), 2);
    try {
      const channel = bench.channels[0] as string;
      // The first message the bot posts in this channel is the live status: refused (missing permissions).
      bench.fake.failNext(
        'POST /channels/:id/messages',
        { kind: 'error', status: 403, code: 50013, message: 'Missing Permissions' },
        1,
      );
      const { id } = await bench.say({ channelId: channel, content: 'run: echo hi', mentionBot: true });
      expect((await bench.waitInbound(id)).status).toBe('processed');
      const reply = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
      expect(reply.content).toContain('Done: hi');
      expect(bench.fake.calls.some((c) => c.status === 403)).toBe(true);
    } finally {
      await bench.stop();
    }
  });
});

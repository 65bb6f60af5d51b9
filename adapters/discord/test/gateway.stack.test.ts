/**
 * The Discord gateway's health end to end (the real discord.js client against the fake Discord, a real Kesoku
 * stack): messages missed while the connection was away are fetched and answered once, a replay after RESUME is
 * handled once, the Message Content intent is asked for only when the respond mode needs it, and a close code that
 * means "fix your setup" stops the adapter process with a clear error while `/healthz` shows the gateway state.
 */
import { createServer } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../infra/config.ts';
import { loadDiscordConfig } from '../config.ts';

/** The adapter's configuration from `env`: the `DISCORD_*` variables plus the data directory. */
const adapterConfig = (env: NodeJS.ProcessEnv) => ({
  ...loadDiscordConfig(env),
  KESOKU_DATA_DIR: loadConfig(env).KESOKU_DATA_DIR,
});
import { createLogger } from '../../../infra/logger.ts';
import { GatewayFatalError } from '../gateway-health.ts';
import { startDiscordAdapter } from '../run.ts';
import { createConversations } from '../conversations.ts';
import { snowflake, startFakeDiscord } from './fake-server.ts';
import { stackEnv, startPart } from '../../../test/support/processes.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

const MESSAGE_CONTENT = 1 << 15;

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench(({ aliceId }) => ({ DISCORD_ALLOWED_USERS: aliceId }), 6);
});
afterAll(async () => bench?.stop());

/** Model requests of a session whose prompt contains `text`. */
const requestsWith = (sessionId: string, text: string) =>
  bench.stack.requestsOf(sessionId).filter((r) => JSON.stringify(r.body?.messages ?? []).includes(text));

describe('Discord gateway health', () => {
  it('fetches and answers, once, a message posted while the gateway was away, also when it arrives again live', async () => {
    const channel = bench.channels[0] as string;
    const sessionId = `discord:${channel}`;
    const first = await bench.say({ channelId: channel, content: 'before the outage', mentionBot: true });
    expect((await bench.waitInbound(first.id)).status).toBe('processed');

    // The connection drops and its session is lost (no RESUME): whatever is posted now never arrives as an event.
    const identifies = bench.fake.gateway.identifies.length;
    bench.fake.gateway.disconnect({ invalidate: true });
    const away = bench.fake.injectMessage({
      channelId: channel,
      author: bench.alice,
      content: 'posted while you were away',
      mentionBot: true,
      offline: true,
    });
    const awayId = away.id as string;
    await bench.fake.waitFor(
      () => bench.fake.gateway.identifies.length > identifies && bench.fake.gateway.connected(),
    );
    expect((await bench.waitInbound(awayId)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(channel, awayId)[0]);
    expect(reply.content).toContain('posted while you were away');
    expect(bench.outcomesOf(awayId)).toEqual(['submitted']);
    // It came from the history fetch, which asked only for what followed the last message seen in the channel.
    const fetch = bench.fake.calls.find(
      (c) => c.method === 'GET' && c.path === `/channels/${channel}/messages` && c.status === 200,
    );
    expect(fetch).toBeDefined();

    // The same message then also arrives as an event (Discord re-sending it): handled once all the same.
    bench.fake.gateway.dispatchAll('MESSAGE_CREATE', away);
    await bench.fake.waitFor(() => bench.outcomesOf(awayId).length >= 2, 15_000, 'the second arrival');
    expect(bench.outcomesOf(awayId)).toEqual(['submitted', 'duplicate']);
    await new Promise((r) => setTimeout(r, 500));
    expect(bench.repliesTo(channel, awayId)).toHaveLength(1);
    expect(requestsWith(sessionId, 'posted while you were away')).toHaveLength(1);
  });

  it('handles a MESSAGE_CREATE replayed after RESUME once: one turn, one reply', async () => {
    const channel = bench.channels[1] as string;
    const sessionId = `discord:${channel}`;
    const { id } = await bench.say({ channelId: channel, content: 'replay me', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);

    // The connection drops; on RESUME the fake re-sends the last events, the message among them.
    const resumes = bench.fake.gateway.resumes();
    bench.fake.gateway.disconnect({ replay: 3 });
    await bench.fake.waitFor(() => bench.fake.gateway.resumes() > resumes, 15_000, 'RESUME');
    // discord.js drops a re-sent MESSAGE_CREATE of a message it has cached; one it has not (a message fetched by
    // the catch-up) reaches the adapter's once-gate and the session's message-id idempotency (the test above).
    await new Promise((r) => setTimeout(r, 1500));
    expect(bench.outcomesOf(id)).toEqual(['submitted']);
    expect(bench.repliesTo(channel, id)).toHaveLength(1);
    expect(requestsWith(sessionId, 'replay me')).toHaveLength(1);
    expect(bench.adapter.health()).toMatchObject({ ok: true, gateway: 'ready' });
    expect(bench.adapter.health().reconnects).toBeGreaterThanOrEqual(1);
  });

  it('after a restart, answers a message posted while no adapter ran (the last id seen comes from Postgres)', async () => {
    const channel = bench.channels[2] as string;
    const first = await bench.say({ channelId: channel, content: 'before the restart', mentionBot: true });
    expect((await bench.waitInbound(first.id)).status).toBe('processed');
    const away = bench.fake.injectMessage({
      channelId: channel,
      author: bench.alice,
      content: 'posted during the deploy',
      mentionBot: true,
      offline: true,
    });
    // A freshly started adapter (a new process after a deploy) knows nothing in memory.
    const handled: string[] = [];
    const restarted = await startDiscordAdapter({
      config: adapterConfig({
        DISCORD_TOKEN: bench.fake.token,
        DISCORD_API_URL: bench.fake.apiUrl,
        KESOKU_DATA_DIR: bench.stack.dataDir,
        DISCORD_ALLOWED_USERS: bench.alice.id,
      }),
      sessions: bench.stack.sessions,
      pool: bench.stack.pool,
      logger: createLogger('discord-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      onHandled: (id, outcome) => handled.push(`${id}:${outcome}`),
    });
    try {
      expect((await bench.waitInbound(away.id as string)).status).toBe('processed');
      expect(handled).toContain(`${away.id as string}:submitted`);
      expect(handled).not.toContain(`${first.id}:submitted`); // only what came after the last stored message
      const fetch = bench.fake.calls.find(
        (c) => c.method === 'GET' && c.path === `/channels/${channel}/messages` && c.status === 200,
      );
      expect(fetch).toBeDefined();
    } finally {
      await restarted.stop();
    }
  });

  it('stops without logging a disconnect or a reconnect: destroying the client is no outage', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const adapter = await startDiscordAdapter({
      config: adapterConfig({
        DISCORD_TOKEN: bench.fake.token,
        DISCORD_API_URL: bench.fake.apiUrl,
        KESOKU_DATA_DIR: bench.stack.dataDir,
        DISCORD_ALLOWED_USERS: bench.alice.id,
      }),
      sessions: bench.stack.sessions,
      pool: bench.stack.pool,
      logger,
    });
    await adapter.stop();
    await new Promise((r) => setTimeout(r, 500));
    const gatewayWarnings = lines.filter((l) => l.level >= 40 && l.msg.startsWith('discord gateway'));
    expect(gatewayWarnings.map((l) => l.msg)).toEqual([]);
  });

  it('a typed /new fetched again by a restarted adapter (catch-up) starts no second conversation', async () => {
    const channel = bench.channels[3] as string;
    const first = await bench.say({ channelId: channel, content: 'the old conversation', mentionBot: true });
    expect((await bench.waitInbound(first.id)).status).toBe('processed');
    const typedNew = await bench.say({ channelId: channel, content: '/new', mentionBot: true });
    expect(typedNew.outcome).toBe('command');
    const conversations = createConversations(bench.stack.pool);
    expect((await conversations.current(channel)).sessionId).toBe(`discord:${channel}:1`);
    // A new process: the command message is newer than the last stored message, so catch-up fetches it again
    // (test/catch-up.stack.test.ts has the other commands and the claim in Postgres).
    const during = bench.fake.injectMessage({
      channelId: channel,
      author: bench.alice,
      content: 'the new one',
      mentionBot: true,
      offline: true,
    }).id as string;
    const handled: string[] = [];
    const restarted = await startDiscordAdapter({
      config: adapterConfig({
        DISCORD_TOKEN: bench.fake.token,
        DISCORD_API_URL: bench.fake.apiUrl,
        KESOKU_DATA_DIR: bench.stack.dataDir,
        DISCORD_ALLOWED_USERS: bench.alice.id,
      }),
      sessions: bench.stack.sessions,
      pool: bench.stack.pool,
      logger: createLogger('discord-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      onHandled: (id, outcome) => handled.push(`${id}:${outcome}`),
    });
    try {
      // The message after the /new is handled after it, in the channel's order: in the new conversation.
      expect((await bench.waitInbound(during)).session_id).toBe(`discord:${channel}:1`);
      expect(handled).not.toContain(`${typedNew.id}:command`);
      expect((await conversations.current(channel)).sessionId).toBe(`discord:${channel}:1`);
      expect(bench.repliesTo(channel, typedNew.id)).toHaveLength(1);
    } finally {
      await restarted.stop();
    }
  });

  it('does not ask for the Message Content intent in mention mode, says at start what that turns off, and explains a refusal of it', async () => {
    const guildId = snowflake();
    const channel = snowflake();
    // The intent is not enabled for this bot in the developer portal.
    const fake = await startFakeDiscord({
      guilds: [{ id: guildId, channels: [{ id: channel }] }],
      messageContentIntent: false,
    });
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const base = {
      DISCORD_TOKEN: fake.token,
      DISCORD_API_URL: fake.apiUrl,
      KESOKU_DATA_DIR: bench.stack.dataDir,
    };
    try {
      const adapter = await startDiscordAdapter({
        config: adapterConfig(base),
        sessions: bench.stack.sessions,
        pool: bench.stack.pool,
        logger,
      });
      expect(adapter.health()).toMatchObject({ ok: true, gateway: 'ready' });
      expect((fake.gateway.identifies[0]?.intents ?? -1) & MESSAGE_CONTENT).toBe(0);
      await adapter.stop();
      // A start-up warning (visible under `npm start`) names the features that are off and the variable.
      const notice = lines.filter((l) => l.msg.includes('Message Content intent is not requested'));
      expect(notice).toHaveLength(1);
      expect(notice[0]?.level).toBe(40);
      expect(notice[0]?.msg).toMatch(/replies to the bot sent without the ping/);
      expect(notice[0]?.msg).toMatch(/typed \/stop .* without a mention/);
      expect(notice[0]?.msg).toContain('DISCORD_MESSAGE_CONTENT=true');

      // DISCORD_RESPOND=always needs it: the start fails at once with what to change.
      const started = Date.now();
      const err = await startDiscordAdapter({
        config: adapterConfig({ ...base, DISCORD_RESPOND: 'always' }),
        sessions: bench.stack.sessions,
        pool: bench.stack.pool,
        logger,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayFatalError);
      expect((err as GatewayFatalError).closeCode).toBe(4014);
      expect((err as Error).message).toMatch(/Message Content Intent/);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((fake.gateway.identifies.at(-1)?.intents ?? 0) & MESSAGE_CONTENT).toBe(MESSAGE_CONTENT);
      // Asked for: no such warning from the second start.
      expect(lines.filter((l) => l.msg.includes('Message Content intent is not requested'))).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('exits non-zero with a clear message when the gateway closes with 4004 after start; /healthz shows the gateway', async () => {
    const guildId = snowflake();
    const fake = await startFakeDiscord({ guilds: [{ id: guildId, channels: [{ id: snowflake() }] }] });
    const port = await freePort();
    const part = startPart(
      'bin/channels.ts',
      stackEnv(bench.stack, {
        DISCORD_TOKEN: fake.token,
        DISCORD_API_URL: fake.apiUrl,
        DISCORD_ALLOW_ALL: 'true',
        KESOKU_METRICS_PORT: String(port),
      }),
      ['discord'],
    );
    try {
      await part.waitFor('kesoku channels running', 60_000);
      const health = await fetchHealth(port);
      expect(JSON.stringify(health)).toMatch(/"gateway":"ready"/);

      const exited = new Promise<number | null>((r) => part.child.once('exit', (code) => r(code)));
      fake.gateway.disconnect({ code: 4004, reason: 'Authentication failed.' });
      expect(await exited).toBe(1);
      expect(part.output()).toMatch(
        /Discord adapter stopped: Discord gateway closed with 4004: authentication failed/,
      );
    } finally {
      await part.kill('SIGKILL');
      await fake.close();
    }
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function fetchHealth(port: number): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return await res.json();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

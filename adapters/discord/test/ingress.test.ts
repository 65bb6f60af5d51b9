/**
 * Discord ingress rules without Temporal: allowlists and addressing, commands, prompt formatting, nonces, and
 * what the user is told when a submission fails (queue full, Temporal down) — the session client is a stub,
 * the REST side is the fake Discord.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../infra/logger.ts';
import { SessionClientError } from '../../../infra/session-client.ts';
import type { InboundMessage, SessionAddress, SubmitResult } from '../../../workflows/definitions.ts';
import { parseCommand } from '../commands.ts';
import { parseChatCommand } from '../../kit/commands.ts';
import { formatInboundContent, metricsHeader } from '../format.ts';
import { toolResultState } from '../../../domain/presentation.ts';
import { createDiscordIngress, withoutBotMention, type IncomingDiscordMessage } from '../ingress.ts';
import { chatPlaceOf, discordPolicy, isAddressed, isAllowed, type MessagePlace } from '../policy.ts';
import { decideAccess } from '../../../domain/access-policy.ts';
import { loadDiscordConfig } from '../config.ts';
import { createDiscordRest, discordApiBase, nonceFor } from '../rest.ts';
import type { Message } from '../../../domain/message.ts';
import { snowflake, startFakeDiscord, type FakeDiscord } from './fake-server.ts';

const policy = (lists: {
  guilds?: string[];
  channels?: string[];
  users?: string[];
  respond?: 'mention' | 'always';
  allowAll?: boolean;
}) =>
  discordPolicy({
    DISCORD_ALLOWED_GUILDS: lists.guilds ?? [],
    DISCORD_ALLOWED_CHANNELS: lists.channels ?? [],
    DISCORD_ALLOWED_USERS: lists.users ?? [],
    DISCORD_RESPOND: lists.respond ?? 'mention',
    DISCORD_ALLOW_ALL: lists.allowAll ?? false,
  });
const inGuild: MessagePlace = { guildId: 'g1', channelId: 'c1', parentId: null, userId: 'u1', isDM: false };
const inThread: MessagePlace = { guildId: 'g1', channelId: 't1', parentId: 'c1', userId: 'u1', isDM: false };
const inDM: MessagePlace = { guildId: null, channelId: 'd1', parentId: null, userId: 'u1', isDM: true };

describe('allowlists and addressing', () => {
  it('asks for pairing while no list is set: only paired users are allowed; DISCORD_ALLOW_ALL allows everyone', () => {
    expect(policy({}).access.mode).toBe('pairing');
    for (const place of [inGuild, inThread, inDM]) {
      expect(isAllowed(policy({}), place)).toBe(false);
      expect(decideAccess(policy({}).access, chatPlaceOf(place), false)).toBe('pairing');
      expect(isAllowed(policy({}), place, true)).toBe(true);
      expect(isAllowed(policy({ allowAll: true }), place)).toBe(true);
    }
    expect(policy({ allowAll: true, users: ['u9'] }).access.mode).toBe('open');
    expect(policy({ users: ['u9'] }).access.mode).toBe('lists');
  });

  it('with allowlists, strangers are denied (no code) and paired users count as listed users', () => {
    const lists = policy({ users: ['u9'] });
    expect(decideAccess(lists.access, chatPlaceOf(inDM), false)).toBe('denied');
    expect(decideAccess(lists.access, chatPlaceOf(inDM), true)).toBe('allowed');
    expect(isAllowed(policy({ users: ['u9'], guilds: ['g1'] }), inGuild, true)).toBe(true);
    // The guild and channel lists still bound where a paired user may talk.
    expect(isAllowed(policy({ users: ['u9'], guilds: ['g2'] }), inGuild, true)).toBe(false);
    expect(isAllowed(policy({ channels: ['c2'] }), inGuild, true)).toBe(false);
    expect(isAllowed(policy({ channels: ['c2'] }), inDM, true)).toBe(true);
  });

  it('reads DISCORD_ALLOW_ALL strictly', () => {
    expect(loadDiscordConfig({}).DISCORD_ALLOW_ALL).toBe(false);
    expect(loadDiscordConfig({ DISCORD_ALLOW_ALL: 'true' }).DISCORD_ALLOW_ALL).toBe(true);
    expect(loadDiscordConfig({ DISCORD_ALLOW_ALL: 'false' }).DISCORD_ALLOW_ALL).toBe(false);
    expect(() => loadDiscordConfig({ DISCORD_ALLOW_ALL: 'yes please' })).toThrow(/DISCORD_ALLOW_ALL/);
  });

  it('denies by default once any list is set, and every set list must match', () => {
    expect(isAllowed(policy({ guilds: ['g1'] }), inGuild)).toBe(true);
    expect(isAllowed(policy({ guilds: ['g2'] }), inGuild)).toBe(false);
    expect(isAllowed(policy({ guilds: ['g1'] }), inDM)).toBe(false);
    expect(isAllowed(policy({ channels: ['c1'] }), inThread)).toBe(true);
    expect(isAllowed(policy({ channels: ['c2'] }), inThread)).toBe(false);
    expect(isAllowed(policy({ users: ['u1'] }), inDM)).toBe(true);
    expect(isAllowed(policy({ users: ['u2'] }), inDM)).toBe(false);
    expect(isAllowed(policy({ users: ['u1'], guilds: ['g2'] }), inGuild)).toBe(false);
    expect(isAllowed(policy({ users: ['u1'], guilds: ['g1'], channels: ['c1'] }), inGuild)).toBe(true);
    expect(isAllowed(policy({ channels: ['d1'] }), inDM)).toBe(true);
  });

  it('answers DMs and mentions; with DISCORD_RESPOND=always also every message in listed channels and their threads', () => {
    expect(isAddressed(policy({}), inDM, false)).toBe(true);
    expect(parseCommand('hello')).toBeNull();
    expect(isAddressed(policy({}), inGuild, true)).toBe(true);
    expect(isAddressed(policy({}), inGuild, false)).toBe(false);
    expect(isAddressed(policy({ respond: 'always', channels: ['c1'] }), inThread, false)).toBe(true);
    expect(isAddressed(policy({ respond: 'always', channels: ['c9'] }), inGuild, false)).toBe(false);
    expect(isAddressed(policy({ respond: 'always' }), inGuild, false)).toBe(true);
  });
});

describe('commands and formatting', () => {
  it('parses the chat commands and leaves other slash text alone', () => {
    expect(parseCommand('/stop')).toEqual({ name: 'stop' });
    expect(parseCommand('  /COMPACT ')).toEqual({ name: 'compact' });
    expect(parseCommand('/title  Weekly report ')).toEqual({ name: 'title', title: 'Weekly report' });
    expect(parseCommand('/mode queue')).toEqual({ name: 'mode', mode: 'queue' });
    expect(parseCommand('/mode fast')?.name).toBe('usage');
    expect(parseCommand('/title')?.name).toBe('usage');
    expect(parseCommand('/stopper')).toBeNull();
    expect(parseCommand('/usr/bin/env please')).toBeNull();
    expect(parseCommand('please /stop')).toBeNull();
  });

  it('parses a command only when the whole message is one', () => {
    expect(parseCommand('/stop the nginx service after the backup')).toBeNull();
    expect(parseCommand('/compact this function into one line please')).toBeNull();
    expect(parseCommand('/etc/hosts lacks a line')).toBeNull();
    expect(parseCommand('/mode of transport: which is cheaper?')).toBeNull();
    expect(parseCommand('/locale en please')).toBeNull();
    expect(parseCommand('/new topic please')).toBeNull();
    expect(parseCommand('/status of the deploy?')).toBeNull();
    expect(parseCommand('/help')).toEqual({ name: 'local', command: 'help' });
    expect(parseCommand(' /NEW ')).toEqual({ name: 'local', command: 'new' });
    expect(parseCommand('/status')).toEqual({ name: 'local', command: 'status' });
    expect(parseCommand('/hlep')).toBeNull();
    expect(parseCommand('/mode')?.name).toBe('usage');
    expect(parseCommand('/locale zh')).toEqual({ name: 'locale', locale: 'zh' });
    expect(parseCommand('/title a b  c')).toEqual({ name: 'title', title: 'a b  c' });
    // The same rule serves the terminal client, with its own bare commands.
    expect(parseChatCommand('/quit', ['quit'])).toEqual({ name: 'local', command: 'quit' });
    expect(parseChatCommand('/quit now', ['quit'])).toBeNull();
    expect(parseChatCommand('/hlep')).toEqual({ name: 'unknown', word: '/hlep' });
    expect(parseChatCommand('/stop')).toEqual({ name: 'stop' });
  });

  it("strips a leading mention of the bot's managed role like the bot's own", () => {
    expect(withoutBotMention('<@&7> /stop', { id: '42', name: 'Kesoku' }, '7')).toBe('/stop');
    expect(withoutBotMention('<@&7> <@42> hi <@&7>', { id: '42', name: 'Kesoku' }, '7')).toBe('hi @Kesoku');
    expect(withoutBotMention('<@&8> hi', { id: '42', name: 'Kesoku' }, '7')).toBe('<@&8> hi');
  });

  it('formats the prompt like docs/message-model.md §6.1, with one line per attachment', () => {
    const text = formatInboundContent({
      displayName: 'Chii',
      userId: '112233',
      at: new Date('2026-05-27T12:50:00.123Z'),
      text: '运行 agent 历史模块的单元测试',
      attachments: [
        { name: 'a.csv', content_type: 'text/csv', size: 2048, path: '/data/staging/discord/1/2/0-a.csv' },
        { name: 'big.bin', size: 5e7 },
      ],
    });
    expect(text).toBe(
      '`Chii` <@112233> at `2026-05-27 12:50:00 UTC`:\n运行 agent 历史模块的单元测试\n[Attachment: a.csv (text/csv, 2.0 KiB) saved at /data/staging/discord/1/2/0-a.csv]\n[Attachment: big.bin (47.7 MiB), not downloaded]',
    );
  });

  it('strips the leading bot mention and names later ones', () => {
    expect(withoutBotMention('<@42> <@!42> hi <@42>', { id: '42', name: 'Kesoku' })).toBe('hi @Kesoku');
  });

  it('derives stable nonces of at most 25 characters, distinct per message and chunk', () => {
    expect(nonceFor('m1', 0)).toBe(nonceFor('m1', 0));
    expect(nonceFor('m1', 0).length).toBeLessThanOrEqual(25);
    expect(
      new Set([nonceFor('m1', 0), nonceFor('m1', 1), nonceFor('m2', 0), nonceFor('status:m1', 0)]).size,
    ).toBe(4);
  });

  it('formats the metrics header and reads tool outcomes', () => {
    expect(
      metricsHeader({
        session_turns: 3,
        context_tokens: 8421,
        turn_tool_calls: 1,
        turn_tokens: 1042,
        turn_time: 2.1,
      }),
    ).toBe('-# ⏱ 2.1s · 🔧 1 tool · 1042 tokens');
    expect(
      metricsHeader({
        session_turns: 1,
        context_tokens: 1,
        turn_tool_calls: 0,
        turn_tokens: 7,
        turn_time: 125,
      }),
    ).toBe('-# ⏱ 2m 05s · 🔧 0 tools · 7 tokens');
    const r = (tool_result: string, extra: Record<string, unknown> = {}) =>
      ({ metadata: { tool_result, ...extra } }) as unknown as Message;
    expect(toolResultState(r('5 passed in 0.42s'))).toBe('ok');
    expect(toolResultState(r('exit 0 in 1.2s'))).toBe('ok');
    expect(toolResultState(r('exit 2 in 0.1s: boom'))).toBe('failed');
    expect(toolResultState(r('timed out after 30s'))).toBe('failed');
    expect(toolResultState(r('error: unknown tool'))).toBe('failed');
    expect(toolResultState(r('interrupted', { synthetic: true }))).toBe('interrupted');
    expect(toolResultState(r('exit 2 in 0.1s', { tool_ok: true }))).toBe('ok');
  });

  it('normalises DISCORD_API_URL for the REST client', () => {
    expect(discordApiBase(undefined)).toBe('https://discord.com/api');
    expect(discordApiBase('http://127.0.0.1:9/api/v10/')).toBe('http://127.0.0.1:9/api');
  });
});

describe('ingress with a failing session', () => {
  let fake: FakeDiscord;
  let dataDir: string;
  const channel = snowflake();
  const bot = { id: snowflake(), name: 'Kesoku' };
  beforeAll(async () => {
    fake = await startFakeDiscord({ guilds: [{ id: snowflake(), channels: [{ id: channel }] }] });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-discord-ingress-'));
  });
  afterAll(async () => {
    await fake?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function ingressWith(
    submit: (a: SessionAddress, m: InboundMessage) => Promise<SubmitResult>,
    submitted: InboundMessage[] = [],
  ) {
    const fail = async (): Promise<never> => {
      throw new SessionClientError('unavailable', 'Temporal did not answer');
    };
    return createDiscordIngress({
      sessions: {
        submit: async (a, m) => {
          submitted.push(m);
          return submit(a, m);
        },
        stop: fail,
        compact: fail,
        setTitle: fail,
        setMode: fail,
      },
      rest: createDiscordRest({ token: fake.token, apiUrl: fake.apiUrl }),
      logger: createLogger('discord-ingress-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      policy: policy({ allowAll: true }),
      botUser: () => bot,
      staging: { dataDir, timeoutMs: 2000 },
    });
  }
  const incoming = (p: Partial<IncomingDiscordMessage> = {}): IncomingDiscordMessage => ({
    id: snowflake(),
    channelId: channel,
    guildId: 'g',
    parentId: null,
    isThread: false,
    isDM: false,
    author: { id: snowflake(), bot: false, displayName: 'Alice' },
    content: `<@${bot.id}> hello`,
    createdAt: new Date(),
    type: 0,
    mentionsBot: true,
    attachments: [],
    ...p,
  });
  const replyTo = (id: string) =>
    fake.botMessages(channel).filter((m) => m.message_reference?.message_id === id);

  it('tells the user when the queue is full', async () => {
    const ingress = ingressWith(async () => {
      throw new SessionClientError('queue_full', 'queue full: the session already holds 32 messages');
    });
    const m = incoming();
    expect(await ingress.handle(m)).toBe('rejected');
    expect(replyTo(m.id).map((x) => x.content)).toEqual([
      '⚠️ The queue is full (at most 32 messages); this message was not processed.',
    ]);
  });

  it('tells the user when Temporal is down, once, and says so for commands too', async () => {
    const ingress = ingressWith(async () => {
      throw new SessionClientError('unavailable', 'Temporal did not answer');
    });
    const m = incoming();
    expect(await ingress.handle(m)).toBe('rejected');
    expect(await ingress.handle(m)).toBe('rejected'); // a gateway replay: same nonce, no second reply
    expect(replyTo(m.id)).toHaveLength(1);
    expect(replyTo(m.id)[0]?.content).toMatch(/^⚠️ Kesoku is not reachable right now/);
    const stop = incoming({ content: `<@${bot.id}> /stop` });
    expect(await ingress.handle(stop)).toBe('command');
    expect(replyTo(stop.id)[0]?.content).toMatch(/^⚠️ Kesoku is not reachable right now/);
  });

  it('ignores bots, itself and system messages', async () => {
    const submitted: InboundMessage[] = [];
    const ingress = ingressWith(async () => {
      throw new Error('not reached');
    }, submitted);
    expect(
      await ingress.handle(incoming({ author: { id: snowflake(), bot: true, displayName: 'OtherBot' } })),
    ).toBe('ignored');
    expect(
      await ingress.handle(incoming({ author: { id: bot.id, bot: false, displayName: 'Kesoku' } })),
    ).toBe('ignored');
    expect(await ingress.handle(incoming({ type: 7 }))).toBe('ignored');
    expect(submitted).toEqual([]);
  });

  it('still submits an attachment that could not be downloaded, without a path', async () => {
    const submitted: InboundMessage[] = [];
    const ingress = ingressWith(
      async () => ({ message: {} as Message, queue_position: 0, duplicate: false }),
      submitted,
    );
    const m = incoming({
      content: `<@${bot.id}>`,
      attachments: [
        {
          id: '1',
          name: 'gone.png',
          url: `${fake.apiUrl.replace('/api', '')}/attachments/none/gone.png`,
          contentType: 'image/png',
          size: 10,
        },
      ],
    });
    expect(await ingress.handle(m)).toBe('submitted');
    expect(submitted[0]?.attachments).toEqual([
      {
        name: 'gone.png',
        content_type: 'image/png',
        size: 10,
        url: expect.stringContaining('/attachments/none/gone.png'),
      },
    ]);
    expect(submitted[0]?.content).toMatch(
      /\n\[Attachment: gone\.png \(image\/png, 10 B\), not downloaded\]$/,
    );
    expect(submitted[0]).toMatchObject({
      id: `discord-${m.id}`,
      sender: 'Alice',
      replyTo: m.id,
      platformMessageId: m.id,
    });
  });

  it('keeps one channel in arrival order behind a slow attachment, while /stop skips the queue', async () => {
    const order: string[] = [];
    const submitted: InboundMessage[] = [];
    const ingress = ingressWith(async (_a, msg) => {
      order.push(msg.id);
      return { message: {} as Message, queue_position: 0, duplicate: false };
    }, submitted);
    const slow = fake.addAttachment('log.csv', 'a,b\n1,2\n', 'text/csv', { delayMs: 800 });
    const first = incoming({
      content: `<@${bot.id}> here is the log`,
      attachments: [
        { id: slow.id, name: slow.filename, url: slow.url, contentType: 'text/csv', size: slow.size },
      ],
    });
    const second = incoming({ content: `<@${bot.id}> what is wrong with column b?` });
    const stop = incoming({ content: `<@${bot.id}> /stop` });
    const done = [ingress.accept(first), ingress.accept(second)];
    // The command is answered while the first message is still downloading its attachment.
    expect(await ingress.accept(stop)).toBe('command');
    expect(order).toEqual([]);
    expect(await Promise.all(done)).toEqual(['submitted', 'submitted']);
    expect(order).toEqual([`discord-${first.id}`, `discord-${second.id}`]);
  });
});

/**
 * The channel registry and kit: descriptors are well-formed and unique, the workflow's capabilities come from
 * each descriptor's features, secrets and metadata keys come from the descriptors, and generic code names no
 * channel (docs/adding-a-channel.md).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { inboundToMessage } from '../../activities/persistence.ts';
import { turnEndOf } from '../../adapters/kit/live-status.ts';
import { presentationFor } from '../../adapters/kit/presentation.ts';
import { measure, splitText } from '../../adapters/kit/split.ts';
import {
  CHANNELS,
  approvalDefaultOf,
  capabilitiesOf,
  channelSecretKeys,
  chatSessionPrefixes,
  loadChannelConfigs,
  platformMessageIdKeys,
} from '../../adapters/registry.ts';
import { API_CAPABILITIES, NO_CAPABILITIES } from '../../domain/channels.ts';
import type { Message } from '../../domain/message.ts';
import { ConfigError } from '../../infra/config.ts';
import { redactPaths } from '../../infra/logger.ts';
import { SessionClient } from '../../infra/session-client.ts';
import type { ChannelSink } from '../../activities/sink.ts';
import type { ChannelDescriptor } from '../../adapters/kit/channel.ts';
import type { ConfiguredChannel } from '../../adapters/registry.ts';
import { createLogger } from '../../infra/logger.ts';
import { createChannelSinks, startChannelsService } from '../../workers/channel-services.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the channel registry', () => {
  it('lists descriptors with unique ids and session prefixes of the form `<id>:`', () => {
    expect(CHANNELS.length).toBeGreaterThan(0);
    const ids = CHANNELS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const prefixes = chatSessionPrefixes();
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const c of CHANNELS) {
      expect(c.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(c.id).not.toBe('api');
      // `<platform>:` — the chatbot id or the platform's own short name (`googlechat:` for `google_chat`).
      expect(c.sessionPrefix).toMatch(/^[a-z][a-z0-9]*:$/);
      expect(c.features.maxMessageLength).toBeGreaterThanOrEqual(32);
      expect(c.features.inlineDelivery).toBe(false);
    }
    // No prefix is a prefix of another: a session id belongs to one channel only.
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a)).toBe(false);
  });

  it('parses every channel off from an empty environment, and names a bad variable', () => {
    for (const { channel, enabled } of loadChannelConfigs({})) expect(enabled, channel.id).toBe(false);
    expect(loadChannelConfigs({ DISCORD_TOKEN: 't' }).find((c) => c.channel.id === 'discord')?.enabled).toBe(
      true,
    );
    expect(() => loadChannelConfigs({ DISCORD_ALLOW_ALL: 'yes please' })).toThrow(ConfigError);
    expect(() => loadChannelConfigs({ DISCORD_ALLOW_ALL: 'yes please' })).toThrow(
      /DISCORD_ALLOW_ALL: must be true or false/,
    );
    expect(() => loadChannelConfigs({}, ['nosuch'])).toThrow(/unknown channel nosuch/);
    expect(loadChannelConfigs({}, ['discord']).map((c) => c.channel.id)).toEqual(['discord']);
  });

  it('gives the workflow the capabilities of the descriptor, the REST API its own, an unknown chatbot none', () => {
    for (const c of CHANNELS) {
      expect(capabilitiesOf(c.id)).toEqual({
        liveProgress: c.features.liveProgress,
        inlineDelivery: c.features.inlineDelivery,
      });
    }
    expect(capabilitiesOf('api')).toEqual(API_CAPABILITIES);
    expect(capabilitiesOf('nosuch')).toEqual(NO_CAPABILITIES);
    const address = { sessionId: 'discord:1', chatbotId: 'discord', channelId: '1' };
    const withRegistry = new SessionClient({
      client: {} as Client,
      taskQueue: 'q',
      capabilities: capabilitiesOf,
    });
    expect(withRegistry.workflowInput(address)).toMatchObject({ liveProgress: true, inlineDelivery: false });
    const apiOnly = new SessionClient({ client: {} as Client, taskQueue: 'q' });
    expect(apiOnly.workflowInput(address)).toMatchObject({ liveProgress: false, inlineDelivery: false });
    expect(apiOnly.workflowInput({ ...address, chatbotId: 'api' })).toMatchObject({ inlineDelivery: true });
  });

  it('redacts every channel secret and keeps the platform id under the channel metadata key', () => {
    expect(channelSecretKeys()).toContain('DISCORD_TOKEN');
    for (const key of channelSecretKeys()) expect(redactPaths(channelSecretKeys())).toContain(`*.${key}`);
    const keys = platformMessageIdKeys();
    expect(keys.discord).toBe('discord_message_id');
    const m = {
      id: 'x-1',
      content: 'hi',
      sender: 'alice',
      receivedAt: '2026-01-01T00:00:00Z',
      platformMessageId: '42',
    };
    const stored = inboundToMessage(
      { sessionId: 's:1', chatbotId: 'discord', channelId: '1' },
      m,
      keys.discord,
    );
    expect(stored.metadata).toEqual({ discord_message_id: '42' });
    const other = inboundToMessage(
      { sessionId: 'o:1', chatbotId: 'other', channelId: '1' },
      m,
      'other_msg_id',
    );
    expect(other.metadata).toEqual({ other_msg_id: '42' });
    expect(
      inboundToMessage({ sessionId: 'api1', chatbotId: 'api', channelId: 'api1' }, m).metadata,
    ).toBeNull();
  });

  it("takes a chatbot's default approval policy from its descriptor's decidesApprovals", () => {
    for (const c of CHANNELS)
      expect(approvalDefaultOf(c.id), c.id).toBe(c.features.decidesApprovals ? 'writes' : 'off');
    // The chat channels of today all decide where they talk (buttons, typed /approve).
    expect(CHANNELS.map((c) => approvalDefaultOf(c.id))).toEqual(CHANNELS.map(() => 'writes'));
    expect(approvalDefaultOf('api')).toBe('writes');
    expect(approvalDefaultOf('cli')).toBe('off');
    expect(approvalDefaultOf('some_new_channel')).toBe('off');
  });

  it('names no channel in generic code', () => {
    const generic = [
      'workflows',
      'activities',
      'api',
      'infra',
      'workers',
      'domain/channels.ts',
      'domain/tool-approval.ts',
    ];
    // The message model's literal metadata key, and the tool sandbox's list of secret variable prefixes.
    const allowed = [/discord_message_id/, /SECRET_PREFIX = /];
    const offenders: string[] = [];
    const visit = (p: string) => {
      const full = path.join(ROOT, p);
      if (fs.statSync(full).isDirectory()) {
        for (const f of fs.readdirSync(full)) visit(path.join(p, f));
        return;
      }
      if (!p.endsWith('.ts') || p.endsWith('.test.ts')) return;
      for (const [i, line] of fs.readFileSync(full, 'utf8').split('\n').entries()) {
        const code = line.trim();
        if (code.startsWith('*') || code.startsWith('/*') || code.startsWith('//')) continue;
        if (/discord|google_?chat|wechat/i.test(code) && !allowed.some((a) => a.test(code)))
          offenders.push(`${p}:${i + 1}: ${code}`);
      }
    };
    for (const p of generic) visit(p);
    expect(offenders).toEqual([]);
  });
});

describe('the channel kit', () => {
  it('splits by UTF-8 bytes and by code points without losing or tearing text', () => {
    const text = `${'漢字かな交じり文。'.repeat(300)}\n\n${'😀 emoji '.repeat(400)}`;
    const bytes = splitText(text, { maxLength: 2048, unit: 'utf8_bytes' });
    expect(bytes.length).toBeGreaterThan(1);
    for (const c of bytes) expect(measure(c, 'utf8_bytes')).toBeLessThanOrEqual(2048);
    expect(bytes.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    for (const c of bytes) expect(c.isWellFormed()).toBe(true);
    const points = splitText(text, { maxLength: 1000, unit: 'codepoints' });
    for (const c of points) expect(measure(c, 'codepoints')).toBeLessThanOrEqual(1000);
    expect(points.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    // Plain text: a ``` is just text (no fences added).
    const plain = splitText(`\`\`\`\n${'line\n'.repeat(100)}`, { maxLength: 64, unit: 'utf8_bytes' });
    expect(plain.slice(1).every((c) => !c.startsWith('```'))).toBe(true);
  });

  it('asks the visibility matrix, or the features of a channel without a column', () => {
    const thought = {
      type: 'thought',
      role: 'assistant',
      sender: 'agent',
      chatbot_id: 'x',
    } as unknown as Message;
    const reply = {
      type: 'text',
      role: 'assistant',
      sender: 'agent',
      chatbot_id: 'x',
      metadata: null,
    } as unknown as Message;
    expect(presentationFor('discord', thought)).toBe('live');
    expect(presentationFor('wechat', thought)).toBe('silent');
    expect(presentationFor('newchat', thought, { liveProgress: true, editsInPlace: true })).toBe('live');
    expect(presentationFor('newchat', thought, { liveProgress: false, editsInPlace: false })).toBe('silent');
    expect(presentationFor('newchat', reply)).toBe('shown');
  });

  it('says when a delivered message ends its turn, and how running tool lines end', () => {
    const m = (over: Partial<Message>) =>
      ({
        id: 't1:x',
        turn_id: 't1',
        type: 'text',
        role: 'assistant',
        sender: 'agent',
        metadata: null,
        ...over,
      }) as Message;
    expect(turnEndOf(m({}))).toBeNull();
    expect(turnEndOf(m({ metadata: { failure_kind: 'model' } }))).toBe('failed');
    expect(turnEndOf(m({ id: 't1:notice', sender: 'Notification' }))).toBe('interrupted');
    expect(turnEndOf(m({ id: 'other', sender: 'Notification' }))).toBe(false);
    expect(turnEndOf(m({ type: 'thought' }))).toBe(false);
    expect(turnEndOf(m({ turn_id: null }))).toBe(false);
  });
});

describe('the channel services of a process', () => {
  const events: string[] = [];
  const sinkOf = (id: string): ChannelSink & { close(): Promise<void> } => ({
    async send() {},
    async close() {
      events.push(`close sink ${id}`);
    },
  });
  const fake = (id: string, startFails = false): ChannelDescriptor<{ on: boolean }> => ({
    id,
    title: id.toUpperCase(),
    sessionPrefix: `${id}:`,
    features: CHANNELS[0]!.features,
    configSchema: CHANNELS[0]!.configSchema as never,
    secretKeys: [],
    enabled: (c) => c.on,
    disabledHint: `set ${id.toUpperCase()}_ON`,
    async start() {
      if (startFails) throw new Error(`${id} refused`);
      events.push(`start ${id}`);
      return {
        sink: sinkOf(id),
        health: async () => ({ ok: id !== 'sick', detail: id }),
        stop: async () => {
          events.push(`stop ${id}`);
        },
      };
    },
    createSink: () => sinkOf(id),
  });
  const configured = (d: ChannelDescriptor<{ on: boolean }>, on: boolean): ConfiguredChannel => ({
    channel: d as ChannelDescriptor<unknown>,
    config: { on },
    enabled: on,
  });
  const deps = { pool: {} as never, sessions: {} as never };
  const logger = createLogger('test', 'silent');

  it('starts the enabled channels, registers their sinks, and lists every channel in /healthz and the banner', async () => {
    events.length = 0;
    const chat = await startChannelsService(
      [configured(fake('alpha'), true), configured(fake('sick'), true), configured(fake('beta'), false)],
      { KESOKU_DATA_DIR: '/tmp' },
      deps,
      logger,
    );
    expect(Object.keys(chat.sinks)).toEqual(['alpha', 'sick']);
    expect(await chat.health()).toEqual({
      alpha: { state: 'running', ok: true, detail: 'alpha' },
      sick: { state: 'running', ok: false, detail: 'sick' },
      beta: { ok: true, state: 'off' },
    });
    expect(chat.bannerLines()).toEqual([
      `  ${'ALPHA'.padEnd(16)} connected`,
      `  ${'SICK'.padEnd(16)} connected`,
      `  ${'BETA'.padEnd(16)} off (set BETA_ON)`,
    ]);
    await chat.stop();
    expect(events).toEqual(['start alpha', 'start sick', 'stop sick', 'stop alpha']);
  });

  it('stops the channels already started when one fails, and refuses a named channel that is off', async () => {
    events.length = 0;
    await expect(
      startChannelsService(
        [configured(fake('alpha'), true), configured(fake('broken', true), true)],
        { KESOKU_DATA_DIR: '/tmp' },
        deps,
        logger,
      ),
    ).rejects.toThrow('broken refused');
    expect(events).toEqual(['start alpha', 'stop alpha']);
    await expect(
      startChannelsService([configured(fake('beta'), false)], { KESOKU_DATA_DIR: '/tmp' }, deps, logger, {
        required: true,
      }),
    ).rejects.toThrow(new ConfigError('BETA is off: set BETA_ON'));
  });

  it('builds a sink of every enabled channel for a worker, and closes them', async () => {
    events.length = 0;
    const sinks = createChannelSinks(
      [configured(fake('alpha'), true), configured(fake('beta'), false)],
      { KESOKU_DATA_DIR: '/tmp' },
      deps,
      logger,
    );
    expect(Object.keys(sinks.sinks)).toEqual(['alpha']);
    await sinks.stop();
    expect(events).toEqual(['close sink alpha']);
  });

  it('`npm run channels` and `npm run discord` refuse to start with nothing to run, before connecting', () => {
    // Two Node processes loading the registry: slow on a busy machine.
    const env = { ...process.env, DISCORD_TOKEN: '', DATABASE_URL: '', TEMPORAL_ADDRESS: '' };
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, 'bin/channels.ts'), ...args], { env, encoding: 'utf8' });
    const all = run();
    expect(all.status).toBe(1);
    expect(all.stderr).toContain('no chat channel is enabled (Discord: set DISCORD_TOKEN to enable;');
    const discord = run('discord');
    expect(discord.status).toBe(1);
    expect(discord.stderr).toContain('Discord is off: set DISCORD_TOKEN to enable');
  }, 180_000);
});

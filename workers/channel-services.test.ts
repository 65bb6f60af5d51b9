// The chat channels of a process: started from the registry's configured channels, their sinks registered,
// their state in /healthz and the start banner, and stopped in reverse order.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChannelSink } from '../activities/sink.ts';
import type { ChannelDescriptor } from '../adapters/kit/channel.ts';
import { CHANNELS, type ConfiguredChannel } from '../adapters/registry.ts';
import { ConfigError } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import { createChannelSinks, startChannelsService } from './channel-services.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

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
    messageIdPrefix: `${id}-`,
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

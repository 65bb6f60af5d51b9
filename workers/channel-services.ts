/**
 * The chat channels as services of a Kesoku process, driven by the registry (adapters/registry.ts): start the
 * ingress of every enabled channel (`npm start`, `npm run channels`), or build REST-only sinks for a worker
 * that runs no ingress (`npm run worker`). Nothing here names a channel.
 */
import type { ChannelSink } from '../activities/sink.ts';
import type { RunningChannel } from '../adapters/kit/channel.ts';
import type { ConfiguredChannel } from '../adapters/registry.ts';
import { ConfigError, type Config } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import type { ComponentHealth } from '../infra/health.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { Service } from './process.ts';

/** The channels running in this process. */
export interface ChannelsService extends Service {
  /** Sinks of the running channels by chatbot id, for the worker of the same process. */
  sinks: Record<string, ChannelSink>;
  /**
   * Every channel's state for `/healthz`, by chatbot id: a running channel's own health (`ok` false when it
   * cannot take messages), `{ ok: true, state: 'off' }` for one its configuration leaves off.
   */
  health(): Promise<ComponentHealth>;
  /** One start-banner line per channel: `  Discord          connected` / `off (set DISCORD_TOKEN to enable)`. */
  bannerLines(): string[];
  /** How many channels run. */
  running: number;
}

/**
 * Starts the ingress of every enabled channel in `channels`, in order; a channel that fails to start stops the
 * ones started before it and the error propagates.
 * @param required true when the channels were named on the command line: a named channel that is off is a
 *   ConfigError, and so is an empty selection
 */
export async function startChannelsService(
  channels: readonly ConfiguredChannel[],
  cfg: Pick<Config, 'KESOKU_DATA_DIR'> &
    Partial<Pick<Config, 'KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY' | 'KESOKU_MEMORY_SHARED_SCOPES'>>,
  infra: Pick<Infrastructure, 'pool' | 'sessions'>,
  logger: Logger,
  opts: { required?: boolean } = {},
): Promise<ChannelsService> {
  if (opts.required) {
    const off = channels.filter((c) => !c.enabled);
    if (off.length > 0)
      throw new ConfigError(
        off.map((c) => `${c.channel.title} is off: ${c.channel.disabledHint ?? 'not configured'}`).join('; '),
      );
  }
  const running = new Map<string, RunningChannel>();
  const stopRunning = async () => {
    for (const [id, r] of [...running].reverse())
      await r.stop().catch((err) => logger.warn({ channel: id, err: String(err) }, 'channel stop failed'));
  };
  try {
    for (const { channel, config, enabled } of channels) {
      if (!enabled) continue;
      running.set(
        channel.id,
        await channel.start({
          config,
          dataDir: cfg.KESOKU_DATA_DIR,
          pool: infra.pool,
          sessions: infra.sessions,
          logger,
          ...(cfg.KESOKU_MEMORY_SHARED_SCOPES ? { memorySharedScopes: cfg.KESOKU_MEMORY_SHARED_SCOPES } : {}),
          ...(cfg.KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY === undefined
            ? {}
            : { newConversationsPerDay: cfg.KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY }),
        }),
      );
    }
  } catch (err) {
    await stopRunning();
    throw err;
  }
  const sinks: Record<string, ChannelSink> = {};
  for (const [id, r] of running) if (r.sink) sinks[id] = r.sink;
  return {
    name: 'channels',
    sinks,
    running: running.size,
    async health() {
      const entries = await Promise.all(
        channels.map(async ({ channel }) => {
          const r = running.get(channel.id);
          if (!r) return [channel.id, { ok: true, state: 'off' }] as const;
          const h = await (r.health?.() ?? Promise.resolve({ ok: true })).catch((err: unknown) => ({
            ok: false,
            error: String(err),
          }));
          return [channel.id, { state: 'running', ...h }] as const;
        }),
      );
      return Object.fromEntries(entries);
    },
    bannerLines: () =>
      channels.map(({ channel }) => {
        const r = running.get(channel.id);
        const state = r
          ? `connected${r.url ? ` (${r.url})` : ''}`
          : `off${channel.disabledHint ? ` (${channel.disabledHint})` : ''}`;
        return `  ${channel.title.padEnd(16)} ${state}`;
      }),
    stop: stopRunning,
  };
}

/**
 * REST-only sinks (each descriptor's `createSink`) of every enabled channel, for a worker process that runs no
 * ingress. `close` closes them (pending status edits written); call it after the worker stopped and before the
 * pool closes.
 */
export function createChannelSinks(
  channels: readonly ConfiguredChannel[],
  cfg: Pick<Config, 'KESOKU_DATA_DIR'> & Partial<Pick<Config, 'KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY'>>,
  infra: Pick<Infrastructure, 'pool'>,
  logger: Logger,
): Service & { sinks: Record<string, ChannelSink> } {
  const built = channels
    .filter((c) => c.enabled)
    .map(({ channel, config }) => ({
      id: channel.id,
      sink: channel.createSink({ config, dataDir: cfg.KESOKU_DATA_DIR, pool: infra.pool, logger }),
    }));
  return {
    name: 'channel-sinks',
    sinks: Object.fromEntries(built.map((b) => [b.id, b.sink])),
    async stop() {
      for (const b of built)
        await b.sink
          .close?.()
          .catch((err: unknown) => logger.warn({ channel: b.id, err: String(err) }, 'sink close failed'));
    },
  };
}

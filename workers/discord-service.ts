/** Wiring of the Discord adapter (adapters/discord) into Kesoku processes. */
import type { ChannelSink } from '../activities/delivery.ts';
import { createDiscordSinkFromConfig, startDiscordAdapter } from '../adapters/discord/run.ts';
import type { DiscordSink } from '../adapters/discord/sink.ts';
import { gatewayHealth } from '../adapters/discord/gateway-health.ts';
import type { Config } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import type { ComponentHealth } from '../infra/metrics.ts';
import type { Infrastructure, Service } from './services.ts';

/** Starts the Discord adapter (gateway ingress + REST sink); resolves once the gateway is ready. */
export async function startDiscordService(
  cfg: Config,
  infra: Infrastructure,
  logger: Logger,
): Promise<Service & { sink: ChannelSink; health: () => Promise<ComponentHealth> }> {
  const adapter = await startDiscordAdapter({
    config: cfg,
    sessions: infra.sessions,
    pool: infra.pool,
    logger,
  });
  // The gateway connection's state for /healthz (of the API and of the metrics port).
  const health = async (): Promise<ComponentHealth> => ({ discord: gatewayHealth(adapter.client) });
  return { name: 'discord', sink: adapter.sink, health, stop: () => adapter.stop() };
}

/**
 * A REST-only Discord sink for a worker running apart from the adapter, or null without DISCORD_TOKEN. Close it
 * after the worker stopped and before the pool does: it writes pending live status edits.
 */
export function discordSinkFromConfig(
  cfg: Config,
  infra: Infrastructure,
  logger: Logger,
): DiscordSink | null {
  return cfg.DISCORD_TOKEN ? createDiscordSinkFromConfig(cfg, { logger, pool: infra.pool }) : null;
}

/**
 * The metrics endpoint as a service of a Kesoku process: `/metrics` (Kesoku's series and the Temporal SDK
 * runtime's, re-served) and `/healthz` on `KESOKU_METRICS_HOST:KESOKU_METRICS_PORT`, when that port is set.
 */
import type { Config } from '../infra/config.ts';
import type { ComponentHealth } from '../infra/health.ts';
import type { Logger } from '../infra/logger.ts';
import { startMetricsServer } from '../infra/metrics.ts';
import { freePort } from '../infra/temporal-server.ts';
import type { Service } from './process.ts';

/**
 * A loopback address for the Temporal SDK runtime's Prometheus exporter when this process serves metrics
 * (`KESOKU_METRICS_PORT` set), else undefined. Call before {@link installTemporalLogging}.
 */
export async function coreMetricsAddress(cfg: Config): Promise<string | undefined> {
  return cfg.KESOKU_METRICS_PORT === undefined ? undefined : `127.0.0.1:${await freePort()}`;
}

/**
 * Serves `/metrics` and `/healthz` on `KESOKU_METRICS_HOST:KESOKU_METRICS_PORT` (see infra/metrics.ts), or
 * returns null when `KESOKU_METRICS_PORT` is unset.
 */
export async function startMetricsService(
  cfg: Config,
  logger: Logger,
  opts: { coreMetricsAddress?: string; health?: () => Promise<ComponentHealth> } = {},
): Promise<(Service & { url: string }) | null> {
  if (cfg.KESOKU_METRICS_PORT === undefined) return null;
  const server = await startMetricsServer({
    host: cfg.KESOKU_METRICS_HOST,
    port: cfg.KESOKU_METRICS_PORT,
    logger,
    coreMetricsUrl: opts.coreMetricsAddress ? `http://${opts.coreMetricsAddress}/metrics` : undefined,
    health: opts.health,
  });
  logger.info({ url: `${server.url}/metrics` }, 'metrics endpoint listening');
  return { name: 'metrics', url: server.url, stop: () => server.close() };
}

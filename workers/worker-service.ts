/**
 * The Temporal worker as a service of a Kesoku process (`npm start`, `npm run worker`): the worker built from
 * the configuration (workers/build-worker.ts), its own pool for tool runs, and a graceful stop that tells the
 * person at the terminal what the drain waits for.
 */
import { NativeConnection } from '@temporalio/worker';
import type { ChannelSink } from '../activities/delivery.ts';
import type { LlmConfig } from '../activities/llm/provider.ts';
import { loadMcpConfig } from '../activities/mcp/config.ts';
import { sandboxSettingsFrom } from '../activities/tools/sandbox-settings.ts';
import { createPool } from '../db/pool.ts';
import { requireLlmConfig, type Config, ConfigError } from '../infra/config.ts';
import { jobLimitsFrom } from '../infra/jobs.ts';
import type { Logger } from '../infra/logger.ts';
import { activityMetricsInterceptor } from '../infra/metrics.ts';
import { ensureSearchAttributes } from '../infra/temporal-search-attributes.ts';
import { approvalSettingsFrom, createKesokuWorker } from './build-worker.ts';
import { taskQueueOf, type Infrastructure } from './infrastructure.ts';
import type { Service } from './process.ts';

/** The model settings, or null with a warning naming what is missing (turns then fail with a clear notice). */
export function llmOrWarn(cfg: Config, logger: Logger): LlmConfig | null {
  try {
    return requireLlmConfig(cfg);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // One line for a person at a terminal, the JSON log line for everyone else.
    if (process.stderr.isTTY) process.stderr.write(`kesoku: warning: ${err.message}\n`);
    else logger.warn(err.message);
    return null;
  }
}

/**
 * What a stopping worker waits for, for the person who pressed Ctrl-C: null when nothing runs.
 * @param running activities in flight (tool commands, model calls, writes)
 * @param drainS seconds they are given before they are cancelled (KESOKU_WORKER_DRAIN_S)
 */
export function drainNotice(running: number, drainS: number): string | null {
  if (running <= 0) return null;
  const what =
    running === 1
      ? '1 running tool command or model call'
      : `${running} running tool commands or model calls`;
  return `waiting for ${what} to finish (up to ${drainS} s); press Ctrl-C again to exit now`;
}

/**
 * Runs a worker on the `kesoku` task queue until stopped.
 * @param opts.onDrain told, when the worker stops while activities run, what it waits for ({@link drainNotice});
 *   default: an info log line
 */
export async function startWorkerService(
  cfg: Config,
  infra: Infrastructure,
  logger: Logger,
  sinks: Record<string, ChannelSink> = {},
  opts: { onDrain?: (notice: string) => void } = {},
): Promise<Service> {
  // Session workflows set Kesoku's search attributes when they start: make sure the namespace has them before
  // polling, or stop here with the command to add them (never a rejected start per message).
  await ensureSearchAttributes({ connection: infra.connection, namespace: infra.temporal.namespace, logger });
  const connection = await NativeConnection.connect({
    address: infra.temporal.address,
    ...infra.temporalConnection,
  });
  // Tool runs get connections of their own: a busy tool queue never holds those of model steps and writes.
  const toolPool = createPool(infra.postgres.url, {
    max: Math.min(cfg.KESOKU_DB_POOL_MAX, cfg.KESOKU_WORKER_TOOL_SLOTS),
    onError: (err) => logger.debug({ err: err.message }, 'idle pg client error (tool pool)'),
  });
  const worker = await createKesokuWorker({
    connection,
    namespace: infra.temporal.namespace,
    taskQueue: taskQueueOf(),
    pool: infra.pool,
    toolPool,
    activitySlots: cfg.KESOKU_WORKER_ACTIVITY_SLOTS,
    toolSlots: cfg.KESOKU_WORKER_TOOL_SLOTS,
    logger,
    llm: llmOrWarn(cfg, logger),
    dataDir: cfg.KESOKU_DATA_DIR,
    maxSteps: cfg.KESOKU_MAX_STEPS,
    compactTokens: cfg.KESOKU_COMPACT_TOKENS,
    shellTimeoutMs: cfg.KESOKU_SHELL_TIMEOUT_S * 1000,
    jobLimits: jobLimitsFrom(cfg),
    defaultLocale: cfg.KESOKU_LOCALE,
    maxCachedSessions: cfg.KESOKU_WORKER_CACHED_SESSIONS,
    dataConverter: { payloadCodecs: [infra.payloadCodec] },
    drainS: cfg.KESOKU_WORKER_DRAIN_S,
    heartbeatThrottleMs: cfg.KESOKU_WORKER_HEARTBEAT_THROTTLE_MS,
    sandbox: sandboxSettingsFrom(cfg),
    approvals: approvalSettingsFrom(cfg),
    mcp: { config: loadMcpConfig(cfg.KESOKU_MCP_CONFIG), maxListed: cfg.KESOKU_MCP_MAX_TOOLS },
    sessions: infra.sessions,
    ...(cfg.KESOKU_TIMEZONE ? { defaultZone: cfg.KESOKU_TIMEZONE } : {}),
    ...(cfg.KESOKU_SKILLS_DIR ? { skillsDir: cfg.KESOKU_SKILLS_DIR } : {}),
    memorySharedScopes: cfg.KESOKU_MEMORY_SHARED_SCOPES,
    sinks,
    activityInterceptors: [activityMetricsInterceptor],
    ...(cfg.KESOKU_WORKER_BUILD_ID
      ? { deployment: { name: cfg.KESOKU_WORKER_DEPLOYMENT, buildId: cfg.KESOKU_WORKER_BUILD_ID } }
      : {}),
  });
  const running = worker.run();
  running.catch((err) => logger.error({ err: String(err) }, 'worker stopped with an error'));
  logger.info(
    {
      taskQueue: taskQueueOf(),
      deployment: cfg.KESOKU_WORKER_BUILD_ID
        ? `${cfg.KESOKU_WORKER_DEPLOYMENT}.${cfg.KESOKU_WORKER_BUILD_ID}`
        : 'unversioned',
    },
    'worker running',
  );
  return {
    name: 'worker',
    async stop() {
      // The SDK's own signal handling (Runtime `shutdownSignals`) may have begun the shutdown already on the
      // same SIGINT/SIGTERM: the activities still running are worth a notice in either case.
      const state = worker.getState();
      if (state === 'RUNNING' || state === 'STOPPING' || state === 'DRAINING') {
        const notice = drainNotice(
          worker.getStatus().numInFlightNonLocalActivities,
          cfg.KESOKU_WORKER_DRAIN_S,
        );
        if (notice) (opts.onDrain ?? ((text: string) => logger.info(text)))(notice);
      }
      if (state === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await toolPool.end().catch(() => undefined);
      await connection.close();
    },
  };
}

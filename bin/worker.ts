/**
 * `npm run worker`: the Temporal worker process alone (needs DATABASE_URL and TEMPORAL_ADDRESS). It runs the
 * workflows and every activity; deliveries go through a REST-only sink of every chat channel its configuration
 * enables (adapters/registry.ts, each descriptor's `createSink`).
 */
import { channelSecretKeys, channelVariableNames, loadChannelConfigs } from '../adapters/registry.ts';
import { readSettings } from '../infra/env-file.ts';
import { loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import { prepareOrExit, runProcess, stopAll, type Service } from '../workers/process.ts';
import { startInfrastructure, taskQueueOf } from '../workers/infrastructure.ts';
import { installTemporalLogging } from '../workers/temporal-logging.ts';
import { startWorkerService } from '../workers/worker-service.ts';
import { coreMetricsAddress, startMetricsService } from '../workers/metrics-service.ts';
import { createChannelSinks } from '../workers/channel-services.ts';
import { workflowTaskHealth } from '../infra/workflow-health.ts';

const { cfg, channels, logger } = prepareOrExit('worker', () => {
  readSettings(channelVariableNames());
  const cfg = loadConfig();
  const channels = loadChannelConfigs();
  const logger = createLogger('kesoku-worker', cfg.KESOKU_LOG_LEVEL, channelSecretKeys());
  return { cfg, channels, logger };
});
const prometheusBindAddress = await coreMetricsAddress(cfg);
installTemporalLogging(cfg.KESOKU_LOG_LEVEL, logger, { prometheusBindAddress });

runProcess('worker', logger, async () => {
  const infra = await startInfrastructure(cfg, logger, false);
  const sinks = createChannelSinks(channels, cfg, infra, logger);
  const worker = await startWorkerService(cfg, infra, logger, sinks.sinks).catch(async (err) => {
    await sinks.stop();
    await infra.stop();
    throw err;
  });
  const services: Service[] = [worker];
  const metrics = await startMetricsService(cfg, logger, {
    coreMetricsAddress: prometheusBindAddress,
    // 503 while a workflow task of this worker recently failed with a nondeterminism error.
    health: async () => ({ workflows: workflowTaskHealth() }),
  });
  if (metrics) services.push(metrics);
  process.stdout.write(`kesoku worker running on task queue ${taskQueueOf()}\n`);
  if (metrics) process.stdout.write(`kesoku metrics on ${metrics.url}/metrics\n`);
  // Stopped in reverse order: the worker first, then the sinks write their pending status edits, then metrics, the pool.
  return () => stopAll([...services.slice(1), sinks, worker], infra, logger);
});

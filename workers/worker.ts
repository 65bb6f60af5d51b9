/** `npm run worker`: a worker alone (needs DATABASE_URL and TEMPORAL_ADDRESS). */
import { loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import {
  coreMetricsAddress,
  installTemporalLogging,
  runProcess,
  startInfrastructure,
  startMetricsService,
  startWorkerService,
  stopAll,
  type Service,
} from './services.ts';
import { discordSinkFromConfig } from './discord-service.ts';

const cfg = loadConfig();
const logger = createLogger('kesoku-worker', cfg.KESOKU_LOG_LEVEL);
const prometheusBindAddress = await coreMetricsAddress(cfg);
installTemporalLogging(cfg.KESOKU_LOG_LEVEL, logger, { prometheusBindAddress });

runProcess('worker', logger, async () => {
  const infra = await startInfrastructure(cfg, logger, false);
  const sink = discordSinkFromConfig(cfg, infra, logger);
  const worker = await startWorkerService(cfg, infra, logger, sink ? { discord: sink } : {}).catch(
    async (err) => {
      await infra.stop();
      throw err;
    },
  );
  const services: Service[] = [worker];
  const metrics = await startMetricsService(cfg, logger, { coreMetricsAddress: prometheusBindAddress });
  if (metrics) services.push(metrics);
  process.stdout.write(`kesoku worker running on task queue ${process.env.KESOKU_TASK_QUEUE || 'kesoku'}\n`);
  if (metrics) process.stdout.write(`kesoku metrics on ${metrics.url}/metrics\n`);
  // Stopped in reverse order: the worker first, then the sink writes its pending status edits, then metrics, the pool.
  const sinkService = sink ? [{ name: 'discord-sink', stop: () => sink.close() }] : [];
  return () => stopAll([...services.slice(1), ...sinkService, worker], infra, logger);
});

/** `npm run worker`: a worker alone (needs DATABASE_URL and TEMPORAL_ADDRESS). */
import { loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import { installTemporalLogging, runProcess, startInfrastructure, startWorkerService, stopAll } from './services.ts';
import { discordSinkFromConfig } from './discord-service.ts';

const cfg = loadConfig();
const logger = createLogger('kesoku-worker', cfg.KESOKU_LOG_LEVEL);
installTemporalLogging(cfg.KESOKU_LOG_LEVEL, logger);

runProcess('worker', logger, async () => {
  const infra = await startInfrastructure(cfg, logger, false);
  const sink = discordSinkFromConfig(cfg, infra, logger);
  const worker = await startWorkerService(cfg, infra, logger, sink ? { discord: sink } : {}).catch(async (err) => {
    await infra.stop();
    throw err;
  });
  process.stdout.write(`kesoku worker running on task queue ${process.env.KESOKU_TASK_QUEUE || 'kesoku'}\n`);
  // Stopped in reverse order: the worker first, then the sink writes its pending status edits, then the pool.
  const sinkService = sink ? [{ name: 'discord-sink', stop: () => sink.close() }] : [];
  return () => stopAll([...sinkService, worker], infra, logger);
});

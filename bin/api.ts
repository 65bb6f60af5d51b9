/** `npm run api`: the REST API alone (needs DATABASE_URL and TEMPORAL_ADDRESS). */
import { channelSecretKeys, channelVariableNames } from '../adapters/registry.ts';
import { readSettings } from '../infra/env-file.ts';
import { loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import { prepareOrExit, runProcess, stopAll, type Service } from '../workers/process.ts';
import { startInfrastructure } from '../workers/infrastructure.ts';
import { installTemporalLogging } from '../workers/temporal-logging.ts';
import { startMetricsService } from '../workers/metrics-service.ts';
import { apiBindOf, checkApiPortFree, startApiService } from '../workers/api-service.ts';

// Configuration and API tokens are checked before connecting anywhere.
const { cfg, logger, apiBind } = prepareOrExit('api', () => {
  readSettings(channelVariableNames());
  const cfg = loadConfig();
  const apiBind = apiBindOf(cfg);
  const logger = createLogger('kesoku-api', cfg.KESOKU_LOG_LEVEL, channelSecretKeys());
  return { cfg, logger, apiBind };
});
installTemporalLogging(cfg.KESOKU_LOG_LEVEL, logger);

runProcess('api', logger, async () => {
  await checkApiPortFree(cfg, apiBind.host);
  const infra = await startInfrastructure(cfg, logger, false);
  const api = await startApiService(cfg, infra, logger).catch(async (err) => {
    await infra.stop();
    throw err;
  });
  const services: Service[] = [api];
  const metrics = await startMetricsService(cfg, logger);
  if (metrics) services.push(metrics);
  process.stdout.write(`kesoku API listening on ${api.url}\n`);
  if (metrics) process.stdout.write(`kesoku metrics on ${metrics.url}/metrics\n`);
  return () => stopAll(services, infra, logger);
});

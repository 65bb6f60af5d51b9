/** `npm run discord`: the Discord adapter alone (needs DISCORD_TOKEN, DATABASE_URL and TEMPORAL_ADDRESS). */
import { loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import {
  installTemporalLogging,
  runProcess,
  startInfrastructure,
  startMetricsService,
  stopAll,
  type Service,
} from './services.ts';
import { startDiscordService } from './discord-service.ts';

const cfg = loadConfig();
const logger = createLogger('kesoku-discord', cfg.KESOKU_LOG_LEVEL);
installTemporalLogging(cfg.KESOKU_LOG_LEVEL, logger);

runProcess('discord', logger, async () => {
  const infra = await startInfrastructure(cfg, logger, false);
  const discord = await startDiscordService(cfg, infra, logger).catch(async (err) => {
    await infra.stop();
    throw err;
  });
  const services: Service[] = [discord];
  const metrics = await startMetricsService(cfg, logger, { health: discord.health });
  if (metrics) services.push(metrics);
  process.stdout.write('kesoku Discord adapter connected\n');
  return () => stopAll(services, infra, logger);
});

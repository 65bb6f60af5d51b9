/**
 * `npm start`: everything in one process tree for a laptop — embedded Postgres and the Temporal dev server
 * (when DATABASE_URL / TEMPORAL_ADDRESS are unset), migrations, a worker, the REST API, and the Discord
 * adapter when DISCORD_TOKEN is set. Prints the URLs; Ctrl-C stops every part.
 */
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
import { startApiService } from './api-service.ts';
import { startDiscordService } from './discord-service.ts';

const cfg = loadConfig();
// The all-in-one process is for a person at a terminal: warnings and errors only, unless asked for more.
const level = process.env.KESOKU_LOG_LEVEL ? cfg.KESOKU_LOG_LEVEL : 'warn';
const logger = createLogger('kesoku', level);
const prometheusBindAddress = await coreMetricsAddress(cfg);
installTemporalLogging(level, logger, { prometheusBindAddress });

runProcess('kesoku', logger, async () => {
  const infra = await startInfrastructure(cfg, logger, true);
  const services: Service[] = [];
  try {
    // Stopped in reverse: API, worker (drained while Discord can still take its deliveries), then Discord.
    const discord = cfg.DISCORD_TOKEN ? await startDiscordService(cfg, infra, logger) : null;
    if (discord) services.push(discord);
    services.push(await startWorkerService(cfg, infra, logger, discord ? { discord: discord.sink } : {}));
    const api = await startApiService(cfg, infra, logger, { components: discord?.health });
    services.push(api);
    const metrics = await startMetricsService(cfg, logger, {
      coreMetricsAddress: prometheusBindAddress,
      health: discord?.health,
    });
    if (metrics) services.push(metrics);
    const lines = [
      '',
      'Kesoku is running.',
      `  REST API         ${api.url}   (try: curl ${api.url}/healthz)`,
      infra.temporal.uiUrl
        ? `  Temporal Web UI  ${infra.temporal.uiUrl}`
        : `  Temporal         ${infra.temporal.address} (external)`,
      `  Postgres         ${infra.postgres.source === 'embedded' ? 'embedded, data in ' + cfg.KESOKU_DATA_DIR : 'DATABASE_URL'}`,
      `  Discord          ${discord ? 'connected' : 'off (set DISCORD_TOKEN to enable)'}`,
      '  Terminal chat    npm run chat',
      'Press Ctrl-C to stop.',
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } catch (err) {
    await stopAll(services, infra, logger);
    throw err;
  }
  return () => stopAll(services, infra, logger);
});

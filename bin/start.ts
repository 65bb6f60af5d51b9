/**
 * `npm start`: everything in one process tree for a laptop — embedded Postgres and the Temporal dev server
 * (when DATABASE_URL / TEMPORAL_ADDRESS are unset), migrations, a Temporal worker, the REST API, and every chat
 * channel its configuration enables (adapters/registry.ts). Prints the URLs; Ctrl-C stops every part.
 */
import { chatCommand } from '../adapters/cli/options.ts';
import { channelSecretKeys, loadChannelConfigs } from '../adapters/registry.ts';
import { loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import {
  coreMetricsAddress,
  installTemporalLogging,
  prepareOrExit,
  runProcess,
  startInfrastructure,
  startMetricsService,
  startWorkerService,
  stopAll,
  type Service,
} from '../workers/services.ts';
import { apiBindOf, checkApiPortFree, startApiService } from '../workers/api-service.ts';
import { acquireInstanceLock } from '../infra/instance-lock.ts';
import { ensurePrivateDir } from '../infra/private-files.ts';
import { startChannelsService } from '../workers/channel-services.ts';

// Everything that can be checked without a server is checked here, before embedded Postgres and Temporal start:
// a bad value is one line and exit 1 within a second, not a refusal after the servers came up.
const { cfg, channels, level, logger, lock, apiBind } = prepareOrExit('kesoku', () => {
  const cfg = loadConfig();
  const channels = loadChannelConfigs();
  const apiBind = apiBindOf(cfg);
  // The all-in-one process is for a person at a terminal: warnings and errors only, unless asked for more.
  const level = process.env.KESOKU_LOG_LEVEL ? cfg.KESOKU_LOG_LEVEL : 'warn';
  const logger = createLogger('kesoku', level, channelSecretKeys());
  // One `npm start` per data dir: a second one is told where the first runs (infra/instance-lock.ts).
  ensurePrivateDir(cfg.KESOKU_DATA_DIR);
  const lock = acquireInstanceLock(
    cfg.KESOKU_DATA_DIR,
    cfg.KESOKU_API_PORT === 0 ? undefined : `http://${displayHost(apiBind.host)}:${cfg.KESOKU_API_PORT}`,
  );
  return { cfg, channels, level, logger, lock, apiBind };
});
const prometheusBindAddress = await coreMetricsAddress(cfg);
installTemporalLogging(level, logger, { prometheusBindAddress });

runProcess('kesoku', logger, async () => {
  await checkApiPortFree(cfg, apiBind.host);
  const infra = await startInfrastructure(cfg, logger, true);
  const services: Service[] = [];
  try {
    // Stopped in reverse: API, worker (drained while the channels can still take its deliveries), channels.
    const chat = await startChannelsService(channels, cfg, infra, logger);
    services.push(chat);
    services.push(
      await startWorkerService(cfg, infra, logger, chat.sinks, {
        onDrain: (notice) => process.stderr.write(`kesoku: ${notice}\n`),
      }),
    );
    const api = await startApiService(cfg, infra, logger, { components: chat.health });
    services.push(api);
    lock.update(api.url);
    const metrics = await startMetricsService(cfg, logger, {
      coreMetricsAddress: prometheusBindAddress,
      health: () => chat.health(),
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
      ...chat.bannerLines(),
      `  Terminal chat    ${chatCommand(api.url)}`,
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

/** The host to show in a URL for an interface the API binds (all interfaces: the loopback address). */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

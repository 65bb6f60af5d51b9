/**
 * `npm start`: everything in one process tree for a laptop — embedded Postgres and the Temporal dev server
 * (when DATABASE_URL / TEMPORAL_ADDRESS are unset), migrations, a Temporal worker, the REST API, and every chat
 * channel its configuration enables (adapters/registry.ts). Each step says what it does and how long it took
 * (infra/progress.ts); the banner prints the URLs, and the next steps when no model is configured. Ctrl-C stops
 * every part. `npm run demo` is `npm start -- --fake-model`: the same with the fake model the tests use.
 */
import { parseArgs } from 'node:util';
import { chatCommand } from '../adapters/cli/options.ts';
import { channelSecretKeys, channelVariableNames, loadChannelConfigs } from '../adapters/registry.ts';
import { loadConfig, MODEL_NEXT_STEPS, requireLlmConfig } from '../infra/config.ts';
import { readSettings } from '../infra/env-file.ts';
import { createProgress, setProgress } from '../infra/progress.ts';
import { createLogger } from '../infra/logger.ts';
import { prepareOrExit, runProcess, stopAll, type Service } from '../workers/process.ts';
import { startInfrastructure } from '../workers/infrastructure.ts';
import { installTemporalLogging } from '../workers/temporal-logging.ts';
import { startWorkerService } from '../workers/worker-service.ts';
import { coreMetricsAddress, startMetricsService } from '../workers/metrics-service.ts';
import { apiBindOf, checkApiPortFree, startApiService } from '../workers/api-service.ts';
import { acquireInstanceLock } from '../infra/instance-lock.ts';
import { ensurePrivateDir } from '../infra/private-files.ts';
import { startChannelsService } from '../workers/channel-services.ts';

export const START_HELP = `Run Kesoku: embedded Postgres and a Temporal dev server (unless DATABASE_URL /
TEMPORAL_ADDRESS name your own), the worker, the REST API and every chat channel that is configured.

usage: npm start [-- --fake-model]
       npm run demo               (the same as npm start -- --fake-model)

options:
  --fake-model   answer with the fake model the tests use (echoes; "run: <command>" runs a command),
                 instead of the model in .env; nothing is sent to a provider
  -h, --help     this text; starts nothing

Settings come from the environment and from .env in the checkout (KESOKU_ENV_FILE names another file);
docs/configuration.md lists them. Check a setup with: npx kesoku doctor. Ctrl-C stops every part.`;

const args = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      options: { 'fake-model': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`kesoku: ${err instanceof Error ? err.message : String(err)}\n\n${START_HELP}\n`);
    process.exit(2);
  }
})();
if (args.help) {
  process.stdout.write(`${START_HELP}\n`);
  process.exit(0);
}

// Everything that can be checked without a server is checked here, before embedded Postgres and Temporal start:
// a bad value is one line and exit 1 within a second, not a refusal after the servers came up.
const { cfg, channels, level, logger, lock, apiBind, settingsFile } = prepareOrExit('kesoku', () => {
  const settingsFile = readSettings(channelVariableNames());
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
    { fakeModel: args['fake-model'] === true },
  );
  return { cfg, channels, level, logger, lock, apiBind, settingsFile };
});
const report = createProgress();
setProgress(report);
if (settingsFile.file)
  report.note(`settings from ${settingsFile.file}: ${settingsFile.applied.join(', ') || 'nothing new'}`);
const prometheusBindAddress = await coreMetricsAddress(cfg);
installTemporalLogging(level, logger, { prometheusBindAddress });

runProcess('kesoku', logger, async () => {
  await checkApiPortFree(cfg, apiBind.host);
  const fake = args['fake-model'] ? await startFakeModel() : null;
  const runCfg = fake ? { ...cfg, ...fake.settings } : cfg;
  const infra = await startInfrastructure(runCfg, logger, true);
  const services: Service[] = [];
  try {
    // Stopped in reverse: API, worker (drained while the channels can still take its deliveries), channels.
    if (fake) services.push(fake.service);
    const chat = await startChannelsService(channels, runCfg, infra, logger);
    services.push(chat);
    const model = modelLine(runCfg);
    const workerStep = report.step('worker', 'starting');
    services.push(
      await startWorkerService(runCfg, infra, logger, chat.sinks, {
        onDrain: (notice) => process.stderr.write(`kesoku: ${notice}\n`),
      }),
    );
    workerStep.done(`running (model: ${model ?? 'not configured'})`);
    const apiStep = report.step('REST API', 'starting');
    const api = await startApiService(runCfg, infra, logger, { components: chat.health });
    services.push(api);
    apiStep.done(`listening on ${api.url}`);
    report.close();
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
      `  Model            ${fake ? 'the fake model (echoes; "run: <command>" runs a command)' : (model ?? 'not configured')}`,
      `  Web chat         ${api.url}/`,
      `  Terminal chat    ${chatCommand(api.url)}`,
      ...(model === null
        ? [
            '',
            'No model is configured: every message is answered with a notice until one is. Next steps:',
            ...MODEL_NEXT_STEPS.map((l) => `  ${l}`),
            '  then restart: npm start',
          ]
        : []),
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

/** `<model> (<provider>)` of the configuration, or null when the model is not configured. */
function modelLine(c: typeof cfg): string | null {
  try {
    const llm = requireLlmConfig(c);
    return `${llm.model} (${llm.provider}${llm.baseUrl ? ` at ${llm.baseUrl}` : ''})`;
  } catch {
    return null;
  }
}

/**
 * The fake model server of the tests on a free loopback port, and the settings that point the worker at it.
 * It lives under test/fakes (it speaks the OpenAI Chat Completions protocol to the real AI SDK).
 */
async function startFakeModel(): Promise<{ settings: Partial<typeof cfg>; service: Service }> {
  const { startFakeModelServer } = await import('../test/fakes/model-server.ts');
  const server = await startFakeModelServer();
  return {
    settings: {
      KESOKU_LLM_PROVIDER: 'openai-compatible',
      KESOKU_LLM_BASE_URL: server.url,
      KESOKU_LLM_MODEL: 'fake-model',
      KESOKU_LLM_API_KEY: undefined,
    },
    service: { name: 'fake model', stop: () => server.close() },
  };
}

/** The host to show in a URL for an interface the API binds (all interfaces: the loopback address). */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

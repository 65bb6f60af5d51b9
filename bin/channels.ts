/**
 * `npm run channels [-- <channel id>…]`: the chat channels' ingress alone (gateway connections, HTTP
 * endpoints), without a worker or the API; needs DATABASE_URL and TEMPORAL_ADDRESS. Without arguments it runs
 * every channel its configuration enables (adapters/registry.ts) and refuses to start when none is; with ids
 * (`npm run discord` is `bin/channels.ts discord`) it runs exactly those and refuses one that is off.
 */
import { channelSecretKeys, channelVariableNames, loadChannelConfigs } from '../adapters/registry.ts';
import { readSettings } from '../infra/env-file.ts';
import { ConfigError, loadConfig } from '../infra/config.ts';
import { createLogger } from '../infra/logger.ts';
import { prepareOrExit, runProcess, stopAll, type Service } from '../workers/process.ts';
import { startInfrastructure } from '../workers/infrastructure.ts';
import { installTemporalLogging } from '../workers/temporal-logging.ts';
import { startMetricsService } from '../workers/metrics-service.ts';
import { startChannelsService } from '../workers/channel-services.ts';

const named = process.argv.slice(2).filter((a) => a.trim() !== '');
const name = named.length === 1 ? (named[0] as string) : 'channels';
const { cfg, logger } = prepareOrExit(name, () => {
  readSettings(channelVariableNames());
  const cfg = loadConfig();
  const logger = createLogger(`kesoku-${name}`, cfg.KESOKU_LOG_LEVEL, channelSecretKeys());
  return { cfg, logger };
});
installTemporalLogging(cfg.KESOKU_LOG_LEVEL, logger);

runProcess(name, logger, async () => {
  const channels = loadChannelConfigs(process.env, named.length > 0 ? named : undefined);
  // Refused before connecting anywhere: a named channel that is off, or no channel on at all.
  const off = channels.filter((c) => !c.enabled);
  if (named.length > 0 && off.length > 0)
    throw new ConfigError(
      off.map((c) => `${c.channel.title} is off: ${c.channel.disabledHint ?? 'not configured'}`).join('; '),
    );
  if (off.length === channels.length) {
    const hints = channels.map((c) => `${c.channel.title}: ${c.channel.disabledHint ?? 'not configured'}`);
    throw new ConfigError(`no chat channel is enabled (${hints.join('; ')})`);
  }
  const infra = await startInfrastructure(cfg, logger, false);
  const chat = await startChannelsService(channels, cfg, infra, logger, { required: named.length > 0 }).catch(
    async (err) => {
      await infra.stop();
      throw err;
    },
  );
  const services: Service[] = [chat];
  const metrics = await startMetricsService(cfg, logger, { health: () => chat.health() });
  if (metrics) services.push(metrics);
  process.stdout.write(`kesoku channels running:\n${chat.bannerLines().join('\n')}\n`);
  if (metrics) process.stdout.write(`kesoku metrics on ${metrics.url}/metrics\n`);
  return () => stopAll(services, infra, logger);
});

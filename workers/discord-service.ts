/** Wiring of the Discord adapter into Kesoku processes (filled in with the adapter). */
import type { ChannelSink } from '../activities/delivery.ts';
import type { Config } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import type { Infrastructure, Service } from './services.ts';

/** Starts the Discord adapter (gateway ingress + REST sink). */
export async function startDiscordService(_cfg: Config, _infra: Infrastructure, _logger: Logger): Promise<Service & { sink: ChannelSink }> {
  throw new Error('the Discord adapter is not built yet');
}

/** A REST-only Discord sink for a worker running apart from the adapter, or null without DISCORD_TOKEN. */
export function discordSinkFromConfig(_cfg: Config, _infra: Infrastructure, _logger: Logger): ChannelSink | null {
  return null;
}

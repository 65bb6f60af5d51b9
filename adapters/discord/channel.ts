/**
 * The Discord channel descriptor (adapters/kit/channel.ts): a bot on Discord's gateway for ingress and its REST
 * API for delivery. `start` runs both in one process (./run.ts `startDiscordAdapter`); `createSink` is the
 * REST-only sink a worker process without the gateway uses.
 */
import type { ChannelDescriptor } from '../kit/channel.ts';
import { discordConfigSchema, type DiscordSettings } from './config.ts';
import { DISCORD_CHATBOT_ID } from './ids.ts';
import { createDiscordSinkFromConfig, discordEnabled, startDiscordAdapter } from './run.ts';
import { DISCORD_FEATURES } from './features.ts';

export const discordChannel: ChannelDescriptor<DiscordSettings> = {
  id: DISCORD_CHATBOT_ID,
  title: 'Discord',
  sessionPrefix: `${DISCORD_CHATBOT_ID}:`,
  messageIdPrefix: 'discord-',
  features: DISCORD_FEATURES,
  platformMessageIdKey: 'discord_message_id',
  configSchema: discordConfigSchema,
  secretKeys: ['DISCORD_TOKEN'],
  enabled: discordEnabled,
  disabledHint: 'set DISCORD_TOKEN to enable',
  async start(ctx) {
    const adapter = await startDiscordAdapter({
      config: { ...ctx.config, KESOKU_DATA_DIR: ctx.dataDir },
      sessions: ctx.sessions,
      pool: ctx.pool,
      logger: ctx.logger,
      ...(ctx.memorySharedScopes ? { memorySharedScopes: ctx.memorySharedScopes } : {}),
      ...(ctx.newConversationsPerDay === undefined
        ? {}
        : { newConversationsPerDay: ctx.newConversationsPerDay }),
    });
    return {
      sink: adapter.sink,
      // The gateway connection's state (./gateway-health.ts): per-shard status, close codes, heartbeat ping.
      health: async () => ({ ...adapter.health() }),
      stop: () => adapter.stop(),
    };
  },
  createSink: (ctx) => createDiscordSinkFromConfig(ctx.config, { logger: ctx.logger, pool: ctx.pool }),
};

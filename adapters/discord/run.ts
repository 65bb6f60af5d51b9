/**
 * Starting the Discord adapter: the gateway client (ingress) plus the sink (egress) on the same REST client.
 *
 * How processes use it (bin/kesoku.ts, workers/):
 * - `npm start` (one process: worker + API + adapters): `const discord = discordEnabled(config) ? await
 *   startDiscordAdapter({ config, sessions, pool, logger }) : null;` then register `discord.sink` as
 *   `sinks.discord` for the worker; on shutdown `await discord?.stop()`.
 * - `npm run discord` (adapter only): the same call, no worker; the worker process then builds its own sink with
 *   {@link createDiscordSinkFromConfig} (REST only, from DISCORD_TOKEN + DISCORD_API_URL).
 */
import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import { createDeliveryStore } from '../../db/deliveries.ts';
import { getMessage } from '../../db/messages.ts';
import { setLocale } from '../../db/sessions.ts';
import { setApprovalPolicy } from '../../db/approvals.ts';
import type { Pool } from '../../db/pool.ts';
import { ConfigError, type Config } from '../../infra/config.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import { createChatAccess, warnOpenAccess } from '../kit/access.ts';
import {
  createDiscordIngress,
  fromDiscordJs,
  type DiscordIngressDeps,
  type IngressOutcome,
} from './ingress.ts';
import { discordPolicy } from './policy.ts';
import { createDiscordRest, restOptions } from './rest.ts';
import { createDiscordSink, type DiscordSink } from './sink.ts';

/** The configuration keys the adapter reads. */
export type DiscordConfig = Pick<
  Config,
  | 'DISCORD_TOKEN'
  | 'DISCORD_API_URL'
  | 'DISCORD_ALLOWED_GUILDS'
  | 'DISCORD_ALLOWED_CHANNELS'
  | 'DISCORD_ALLOWED_USERS'
  | 'DISCORD_RESPOND'
  | 'DISCORD_ALLOW_ALL'
  | 'KESOKU_DATA_DIR'
>;

/** True when the adapter should run (the adapter is off without a token). */
export function discordEnabled(config: Pick<Config, 'DISCORD_TOKEN'>): boolean {
  return config.DISCORD_TOKEN !== undefined;
}

/** What {@link startDiscordAdapter} needs. */
export interface DiscordAdapterDeps {
  config: DiscordConfig;
  sessions: Pick<SessionClient, 'submit' | 'stop' | 'compact' | 'setTitle' | 'setMode'>;
  pool: Pool;
  logger: Logger;
  /** How long to wait for the gateway's READY, ms. Default 60 s. */
  readyTimeoutMs?: number;
  /** Called after each inbound message was handled (tests, metrics). */
  onHandled?: (discordMessageId: string, outcome: IngressOutcome) => void;
  /** Where the open-access warning is printed. Default process.stderr. */
  stderr?: Pick<NodeJS.WriteStream, 'write'>;
}

/** A running adapter. */
export interface DiscordAdapter {
  /** The sink to register as `sinks.discord` in the worker of this process. */
  sink: DiscordSink;
  client: Client;
  /** Stops taking messages, waits for the ones being handled, closes the gateway. */
  stop(): Promise<void>;
}

/**
 * Logs in to the gateway and starts handling messages; resolves once the client is ready.
 * @throws ConfigError without DISCORD_TOKEN; the login error when Discord refuses the token
 */
export async function startDiscordAdapter(deps: DiscordAdapterDeps): Promise<DiscordAdapter> {
  const { config, pool } = deps;
  const logger = deps.logger.child({ component: 'discord' });
  if (!config.DISCORD_TOKEN) throw new ConfigError('DISCORD_TOKEN is not set: the Discord adapter is off');
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      GatewayIntentBits.MessageContent,
    ],
    partials: [Partials.Channel],
    rest: restOptions(config.DISCORD_API_URL),
  });
  const s = deps.sessions;
  const sessions: DiscordIngressDeps['sessions'] = {
    submit: (...a) => s.submit(...a),
    stop: (...a) => s.stop(...a),
    compact: (...a) => s.compact(...a),
    setTitle: (...a) => s.setTitle(...a),
    setMode: (...a) => s.setMode(...a),
    async setLocale(sessionId, locale) {
      if (!(await setLocale(pool, sessionId, locale)))
        throw new SessionClientError('not_found', `no session ${sessionId}`);
      return { locale };
    },
    async setApproval(sessionId, policy) {
      if (!(await setApprovalPolicy(pool, sessionId, policy)))
        throw new SessionClientError('not_found', `no session ${sessionId}`);
    },
  };
  const sink = createDiscordSink({
    rest: client.rest,
    logger,
    store: createDeliveryStore(pool),
    loadMessage: (id) => getMessage(pool, id),
  });
  const policy = discordPolicy(config);
  if (policy.access.mode === 'open') warnOpenAccess('Discord', 'DISCORD_ALLOW_ALL', logger, deps.stderr);
  else logger.info({ access: policy.access.mode }, 'discord access');
  const ingress = createDiscordIngress({
    sessions,
    rest: client.rest,
    logger,
    policy,
    access: createChatAccess({ policy: policy.access, pool, logger }),
    botUser: () => (client.user ? { id: client.user.id, name: client.user.username } : null),
    staging: { dataDir: config.KESOKU_DATA_DIR },
  });

  // One channel's messages are submitted in arrival order (ingress.accept); channels never wait for each other,
  // and chat commands skip the channel's queue.
  const inFlight = new Set<Promise<unknown>>();
  let accepting = true;
  client.on(Events.MessageCreate, (message) => {
    if (!accepting) return;
    const task = ingress.accept(fromDiscordJs(message, client.user?.id ?? null)).then((outcome) => {
      logger.debug({ discordMessageId: message.id, outcome }, 'discord message handled');
      deps.onHandled?.(message.id, outcome);
    });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  });
  client.on(Events.Error, (err) => logger.warn({ err: String(err) }, 'discord client error'));

  let readyTimer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    readyTimer = setTimeout(
      () => reject(new Error('the Discord gateway did not become ready in time')),
      deps.readyTimeoutMs ?? 60_000,
    );
    client.once(Events.ClientReady, () => resolve());
  });
  try {
    await client.login(config.DISCORD_TOKEN);
    await ready;
  } catch (err) {
    await client.destroy();
    throw err;
  } finally {
    clearTimeout(readyTimer);
  }
  logger.info({ user: client.user?.username, guilds: client.guilds.cache.size }, 'discord adapter ready');

  return {
    sink,
    client,
    async stop() {
      accepting = false;
      await Promise.allSettled([...inFlight]);
      await sink.close();
      await client.destroy();
    },
  };
}

/**
 * The sink for a worker process that does not run the gateway (REST only, from DISCORD_TOKEN and
 * DISCORD_API_URL). @throws ConfigError without DISCORD_TOKEN
 */
export function createDiscordSinkFromConfig(
  config: Pick<Config, 'DISCORD_TOKEN' | 'DISCORD_API_URL'>,
  deps: { logger: Logger; pool: Pool },
): DiscordSink {
  if (!config.DISCORD_TOKEN) throw new ConfigError('DISCORD_TOKEN is not set: the Discord adapter is off');
  const pool = deps.pool;
  return createDiscordSink({
    rest: createDiscordRest({ token: config.DISCORD_TOKEN, apiUrl: config.DISCORD_API_URL }),
    logger: deps.logger.child({ component: 'discord' }),
    store: createDeliveryStore(pool),
    loadMessage: (id: string) => getMessage(pool, id),
  });
}

/**
 * Starting the Discord adapter: the gateway client (ingress) plus the sink (egress) on the same REST client.
 *
 * Processes reach it through the channel descriptor (./channel.ts): `start` wraps {@link startDiscordAdapter}
 * (the sink it returns is registered as `sinks.discord` in the worker of the same process) and `createSink` wraps
 * {@link createDiscordSinkFromConfig} (REST only, from DISCORD_TOKEN + DISCORD_API_URL) for a worker process
 * that runs no gateway.
 */
import { Client, Events, Partials, type Message as DiscordJsMessage } from 'discord.js';
import { claimCommandMessage } from '../../db/command-claims.ts';
import { createDeliveryStore } from '../../db/deliveries.ts';
import { getMessage, listOpenInputs } from '../../db/messages.ts';
import { sessionCommands } from '../kit/session-commands.ts';
import { DISCORD_FEATURES } from './features.ts';
import type { Pool } from '../../db/pool.ts';
import { ConfigError, type Config } from '../../infra/config.ts';
import type { DiscordSettings } from './config.ts';
import type { Logger } from '../../infra/logger.ts';
import type { SessionClient } from '../../infra/session-client.ts';
import { createChatAccess, warnOpenAccess } from '../kit/access.ts';
import {
  createDiscordIngress,
  fromDiscordJs,
  type DiscordIngressDeps,
  type IngressOutcome,
} from './ingress.ts';
import { watchEditsAndDeletes } from './changes.ts';
import { createAppCommands, fromInteraction, type AppCommandExtension } from './app-commands.ts';
import { createApprovalButtons } from './approvals.ts';
import { createCatchUp } from './catch-up.ts';
import { conversationChannelOf, createConversations } from './conversations.ts';
import type { GatewayFatalError } from './gateway-health.ts';
import {
  intentsFor,
  messageContentOffNotice,
  watchGateway,
  type GatewayHealthReport,
} from './gateway-health.ts';
import { DISCORD_CHATBOT_ID } from './ids.ts';
import { createOnceGate } from './once.ts';
import { discordPolicy } from './policy.ts';
import { createDiscordRest, restOptions } from './rest.ts';
import { createDiscordSink, type DiscordSink } from './sink.ts';

/** The configuration keys the adapter reads: the `DISCORD_*` variables (./config.ts) and the data directory. */
export type DiscordConfig = DiscordSettings & Pick<Config, 'KESOKU_DATA_DIR'>;

/** True when the adapter should run (the adapter is off without a token). */
export function discordEnabled(config: Pick<DiscordSettings, 'DISCORD_TOKEN'>): boolean {
  return config.DISCORD_TOKEN !== undefined;
}

/** What {@link startDiscordAdapter} needs. */
export interface DiscordAdapterDeps {
  config: DiscordConfig;
  sessions: Pick<SessionClient, 'submit' | 'stop' | 'compact' | 'setTitle' | 'setMode'> &
    Partial<
      Pick<
        SessionClient,
        'state' | 'editQueued' | 'withdrawQueued' | 'decideApproval' | 'client' | 'taskQueue'
      >
    >;
  pool: Pool;
  logger: Logger;
  /** New conversations (`/new`) one user may start per 24 hours (kit/conversations.ts); default 50. */
  newConversationsPerDay?: number;
  /** Sessions and channels with a shared memory scope, which `/memory` lists too (KESOKU_MEMORY_SHARED_SCOPES). */
  memorySharedScopes?: readonly string[];
  /** How long to wait for the gateway's READY, ms. Default 60 s. */
  readyTimeoutMs?: number;
  /** Called after each inbound message was handled (tests, metrics). */
  onHandled?: (discordMessageId: string, outcome: IngressOutcome) => void;
  /** Where the open-access warning is printed. Default process.stderr. */
  stderr?: Pick<NodeJS.WriteStream, 'write'>;
  /**
   * Called when the gateway refuses the bot for good after start (gateway-health.ts, e.g. the token was reset).
   * Default: the adapter stops, the message goes to stderr and the process exits with status 1.
   */
  onFatal?: (err: GatewayFatalError) => void;
  /** Slash commands other modules add (e.g. the approval command). */
  appCommands?: readonly AppCommandExtension[];
}

/** A running adapter. */
export interface DiscordAdapter {
  /** The sink to register as `sinks.discord` in the worker of this process. */
  sink: DiscordSink;
  client: Client;
  /** The gateway state for `/healthz`. */
  health(): GatewayHealthReport;
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
  const policy = discordPolicy(config);
  const contentOff = messageContentOffNotice(
    policy.respond,
    config.DISCORD_MESSAGE_CONTENT,
    config.DISCORD_THREADS,
  );
  // A warning so that `npm start` (log level warn) shows it: the default setup silently ignores these messages.
  if (contentOff) logger.warn({ messageContentIntent: false }, contentOff);
  const client = new Client({
    intents: intentsFor(policy.respond, config.DISCORD_MESSAGE_CONTENT, config.DISCORD_THREADS),
    partials: [Partials.Channel, Partials.Message],
    rest: restOptions(config.DISCORD_API_URL),
  });
  const s = deps.sessions;
  const conversations = createConversations(pool, deps.newConversationsPerDay);
  const sessions: DiscordIngressDeps['sessions'] = {
    ...sessionCommands({
      sessions: s,
      pool,
      logger,
      features: DISCORD_FEATURES,
      configured: config.KESOKU_TOOL_APPROVAL,
      chatbotId: DISCORD_CHATBOT_ID,
      sharedMemoryScopes: deps.memorySharedScopes,
    }),
    ...(s.editQueued ? { editQueued: s.editQueued.bind(s) } : {}),
    ...(s.withdrawQueued ? { withdrawQueued: s.withdrawQueued.bind(s) } : {}),
    // `/new`, typed or slash: the channel of the current session moves to a new conversation.
    async newConversation(sessionId, key, sender) {
      const channelId = conversationChannelOf(sessionId);
      if (channelId === null) throw new Error(`not a Discord conversation: ${sessionId}`);
      const { previous, repeated } = await conversations.startNew(channelId, key, sender);
      // The old conversation's running turn would answer into the new one: stop it (nothing running is fine).
      if (!repeated) await s.stop(previous.sessionId).catch(() => undefined);
    },
  };
  const sink = createDiscordSink({
    rest: client.rest,
    logger,
    store: createDeliveryStore(pool),
    loadMessage: (id) => getMessage(pool, id),
    openInputs: (sessionId) => listOpenInputs(pool, sessionId),
    maxChunks: config.DISCORD_MAX_CHUNKS,
  });
  if (policy.access.mode === 'open') warnOpenAccess('Discord', 'DISCORD_ALLOW_ALL', logger, deps.stderr);
  else logger.info({ access: policy.access.mode }, 'discord access');
  const access = createChatAccess({ policy: policy.access, pool, logger });
  const ingress = createDiscordIngress({
    sessions,
    rest: client.rest,
    logger,
    policy,
    access,
    addressOf: (channelId) => conversations.current(channelId),
    botUser: () => (client.user ? { id: client.user.id, name: client.user.username } : null),
    staging: { dataDir: config.KESOKU_DATA_DIR },
    threads: config.DISCORD_THREADS,
    approvers: config.DISCORD_APPROVERS,
    // A typed command runs and is answered by one process, once, also when a catch-up fetches it again.
    claimCommand: (messageId) => claimCommandMessage(pool, DISCORD_CHATBOT_ID, messageId),
  });

  // One channel's messages are submitted in arrival order (ingress.accept); channels never wait for each other,
  // and chat commands skip the channel's queue.
  // A message arriving twice (a RESUME replay, a catch-up fetch overlapping a live event) is handled once (once.ts).
  const inFlight = new Set<Promise<unknown>>();
  let accepting = true;
  const once = createOnceGate();
  const take = (message: DiscordJsMessage): Promise<void> => {
    catchUp.seen(message.channelId, message.id);
    const task = once
      .run(message.id, () => ingress.accept(fromDiscordJs(message, client.user?.id ?? null)))
      .then((outcome) => {
        logger.debug({ discordMessageId: message.id, outcome }, 'discord message handled');
        deps.onHandled?.(message.id, outcome);
      });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
    return task;
  };
  const catchUp = createCatchUp({
    client,
    pool,
    logger,
    accept: (m) => (accepting ? take(m) : Promise.resolve()),
  });
  client.on(Events.MessageCreate, (message) => {
    if (accepting) void take(message);
  });
  client.on(Events.Error, (err) => logger.warn({ err: String(err) }, 'discord client error'));

  const commands = createAppCommands({
    sessions,
    rest: client.rest,
    logger,
    access,
    approvers: config.DISCORD_APPROVERS,
    extensions: deps.appCommands,
    sessionOf: async (channelId) => (await conversations.current(channelId)).sessionId,
  });
  // Approval buttons (message components): who clicked, the decision, the message's edit (./approvals.ts).
  const decideApproval = s.decideApproval?.bind(s);
  const buttons = createApprovalButtons({
    rest: client.rest,
    pool,
    logger,
    approvers: config.DISCORD_APPROVERS,
    access,
    ...(decideApproval ? { decide: (sessionId, input) => decideApproval(sessionId, input) } : {}),
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (!accepting) return;
    let task: Promise<unknown>;
    if (interaction.isChatInputCommand()) task = commands.handle(fromInteraction(interaction));
    else if (interaction.isButton() && buttons.handles(interaction.customId))
      task = buttons.handle({
        interactionId: interaction.id,
        token: interaction.token,
        applicationId: interaction.applicationId,
        customId: interaction.customId,
        userId: interaction.user.id,
        messageId: interaction.message.id,
        channelId: interaction.channelId,
        guildId: interaction.guildId,
        parentId: interaction.channel?.isThread() ? interaction.channel.parentId : null,
      });
    else return;
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  });

  let started = false;
  let fatalAtStart: GatewayFatalError | null = null;
  let failStart: (err: Error) => void = () => undefined;
  const gateway = watchGateway(client, {
    logger,
    onReconnected: (how) => void catchUp.run(`gateway ${how}`),
    onFatal(err) {
      if (!started) {
        fatalAtStart = err;
        return failStart(err);
      }
      if (deps.onFatal) return deps.onFatal(err);
      (deps.stderr ?? process.stderr).write(`kesoku: Discord adapter stopped: ${err.message}\n`);
      void Promise.race([stop(), new Promise((r) => setTimeout(r, 5000))]).finally(() => process.exit(1));
    },
  });
  watchEditsAndDeletes({
    client,
    ingress,
    logger,
    accepting: () => accepting,
    track: (task) => {
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
    onHandled: deps.onHandled,
  });

  let readyTimer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    readyTimer = setTimeout(
      () => reject(new Error('the Discord gateway did not become ready in time')),
      deps.readyTimeoutMs ?? 60_000,
    );
    failStart = reject;
    client.once(Events.ClientReady, () => resolve());
  });
  ready.catch(() => undefined); // also rejected when login fails first; the login error is thrown below
  try {
    await client.login(config.DISCORD_TOKEN);
    await ready;
  } catch (err) {
    gateway.stopping();
    await client.destroy();
    // A refusal for good (bad token, disallowed intents) explains itself better than the library's error.
    throw (fatalAtStart as GatewayFatalError | null) ?? err;
  } finally {
    clearTimeout(readyTimer);
  }
  started = true;
  logger.info({ user: client.user?.username, guilds: client.guilds.cache.size }, 'discord adapter ready');
  const applicationId = client.application?.id ?? client.user?.id;
  if (applicationId)
    await commands
      .register(applicationId, config.DISCORD_ALLOWED_GUILDS)
      .catch((err: unknown) => logger.warn({ err: String(err) }, 'discord slash commands not registered'));
  // Messages posted while the adapter was down (restart, deploy).
  void catchUp.run('start');

  let stopping: Promise<void> | null = null;
  function stop(): Promise<void> {
    stopping ??= (async () => {
      accepting = false;
      await Promise.allSettled([...inFlight]);
      await sink.close();
      gateway.stopping();
      await client.destroy();
    })();
    return stopping;
  }
  return { sink, client, health: () => gateway.report(), stop };
}

/**
 * The sink for a worker process that does not run the gateway (REST only, from DISCORD_TOKEN and
 * DISCORD_API_URL). @throws ConfigError without DISCORD_TOKEN
 */
export function createDiscordSinkFromConfig(
  config: Pick<DiscordSettings, 'DISCORD_TOKEN' | 'DISCORD_API_URL'> &
    Partial<Pick<DiscordSettings, 'DISCORD_MAX_CHUNKS'>>,
  deps: { logger: Logger; pool: Pool },
): DiscordSink {
  if (!config.DISCORD_TOKEN) throw new ConfigError('DISCORD_TOKEN is not set: the Discord adapter is off');
  const pool = deps.pool;
  return createDiscordSink({
    rest: createDiscordRest({ token: config.DISCORD_TOKEN, apiUrl: config.DISCORD_API_URL }),
    logger: deps.logger.child({ component: 'discord' }),
    store: createDeliveryStore(pool),
    loadMessage: (id: string) => getMessage(pool, id),
    openInputs: (sessionId) => listOpenInputs(pool, sessionId),
    maxChunks: config.DISCORD_MAX_CHUNKS,
  });
}

/**
 * The WeChat Official Account channel (docs/message-model.md §4.3 and §5.3, WeChat column): users of the account
 * talk to the agent one to one; final replies arrive as plain text in chunks; thoughts, tool calls, tool output
 * and system logs are never sent and are marked `delivered` silently.
 *
 * - Ingress: an HTTP endpoint of its own (WECHAT_HOST:WECHAT_PORT + WECHAT_PATH, endpoint.ts) for WeChat's URL
 *   verification and message pushes, plain or in safe mode; see ingress.ts for what a push becomes.
 * - Egress: the customer-service message API with a cached access token (api.ts, sink.ts).
 * README "WeChat" says what to configure on the Official Account side.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelDescriptor, ChannelContext, RunningChannel } from '../kit/channel.ts';
import { createChatAccess, warnOpenAccess } from '../kit/access.ts';
import { createDeliveryStore } from '../../db/deliveries.ts';
import { claimPushNonce, forgetExpiredPushNonces } from '../../db/push-nonces.ts';
import { holdPush, listHeldPushes, releasePush } from '../../db/held-pushes.ts';
import { accessPolicy } from '../../domain/access-policy.ts';
import { ConfigError } from '../../infra/config.ts';
import type { Logger } from '../../infra/logger.ts';
import { WechatApi } from './api.ts';
import { wechatConfigSchema, wechatEnabled, type EnabledWechatConfig, type WechatConfig } from './config.ts';
import { createWechatApp } from './endpoint.ts';
import { createConversations } from '../kit/conversations.ts';
import { sessionCommands } from '../kit/session-commands.ts';
import {
  WECHAT_CHATBOT_ID,
  createWechatIngress,
  pushKey,
  wechatSessionAddress,
  type WechatIngressDeps,
} from './ingress.ts';
import { decideOldestPending } from '../kit/typed-approvals.ts';
import { wechatDecider } from './approvals.ts';
import { createWechatSink } from './sink.ts';
import { WECHAT_MAX_TEXT_BYTES } from './text.ts';
import type { WechatPush } from './xml.ts';

function requireEnabled(config: WechatConfig): EnabledWechatConfig {
  if (!wechatEnabled(config))
    throw new ConfigError(
      'WECHAT_APP_ID, WECHAT_APP_SECRET and WECHAT_TOKEN are not set: the WeChat channel is off',
    );
  return config;
}

function apiFor(config: EnabledWechatConfig, logger: Logger): WechatApi {
  return new WechatApi({
    appId: config.WECHAT_APP_ID,
    appSecret: config.WECHAT_APP_SECRET,
    apiUrl: config.WECHAT_API_URL,
    logger,
  });
}

/** Options of {@link startWechat} beyond the channel context (tests). */
export interface WechatStartOptions {
  /** How long a push waits to be taken before it is held and acknowledged, ms (endpoint.ts). */
  ackBudgetMs?: number;
  /** How long a push that cannot be taken yet is tried again, ms (ingress.ts RETRY_FOR_MS). */
  retryForMs?: number;
}

/**
 * Starts the endpoint; resolves once it listens.
 * @throws ConfigError when the channel is not configured
 */
export async function startWechat(
  ctx: ChannelContext<WechatConfig>,
  opts: WechatStartOptions = {},
): Promise<RunningChannel> {
  const config = requireEnabled(ctx.config);
  const { pool } = ctx;
  const logger = ctx.logger.child({ component: 'wechat' });
  const api = apiFor(config, logger);
  const sink = createWechatSink({ api, store: createDeliveryStore(pool), logger });
  const policy = accessPolicy({ allowAll: config.WECHAT_ALLOW_ALL, users: config.WECHAT_ALLOWED_USERS });
  if (policy.mode === 'open') warnOpenAccess('WeChat', 'WECHAT_ALLOW_ALL', logger);
  else logger.info({ access: policy.mode }, 'wechat access');
  const s = ctx.sessions;
  const conversations = createConversations(pool, WECHAT_CHATBOT_ID, wechatSessionAddress, {
    ...(ctx.newConversationsPerDay === undefined ? {} : { newPerUserPerDay: ctx.newConversationsPerDay }),
  });
  const sessions: WechatIngressDeps['sessions'] = {
    ...sessionCommands({
      sessions: s,
      pool,
      logger,
      features: wechatChannel.features,
      chatbotId: WECHAT_CHATBOT_ID,
      sharedMemoryScopes: ctx.memorySharedScopes,
    }),
    // `/new`: the user's current session moves to a new conversation; its running turn is stopped.
    async newConversation(sessionId, key, sender) {
      const openId = /^wechat:([^:]+)(?::\d+)?$/.exec(sessionId)?.[1];
      if (openId === undefined) throw new Error(`not a WeChat conversation: ${sessionId}`);
      const { previous, repeated } = await conversations.startNew(openId, key, sender ?? openId);
      if (!repeated) await s.stop(previous.sessionId).catch(() => undefined);
    },
    // `/approve`, `/deny`, `/always`: one-to-one chat, the follower is the requester; no other check.
    async decidePending(sessionId, decision, { updateId, sender }) {
      const openId = sender ?? /^wechat:([^:]+)/.exec(sessionId)?.[1] ?? 'unknown';
      return decideOldestPending({ pool, decide: (...a) => s.decideApproval(...a) }, sessionId, decision, {
        by: wechatDecider(openId),
        ...(updateId === undefined ? {} : { updateId }),
      });
    },
  };
  const ingress = createWechatIngress({
    sessions,
    addressOf: (openId) => conversations.current(openId),
    answer: (openId, text) => api.sendText(openId, text),
    pool,
    policy,
    access: createChatAccess({ policy, pool, logger }),
    logger,
    ...(opts.retryForMs === undefined ? {} : { retryForMs: opts.retryForMs }),
  });
  const inFlight = new Set<Promise<unknown>>();
  const holds = {
    hold: (push: WechatPush) => holdPush(pool, WECHAT_CHATBOT_ID, pushKey(push), push),
    release: (push: WechatPush) => releasePush(pool, WECHAT_CHATBOT_ID, pushKey(push)),
  };
  let prunedAt = 0;
  const app = createWechatApp({
    config,
    ingress,
    async claimNonce(key, expiresAt) {
      if (Date.now() - prunedAt > 60_000) {
        prunedAt = Date.now();
        void forgetExpiredPushNonces(pool, WECHAT_CHATBOT_ID).catch((err: unknown) =>
          logger.debug({ err: String(err) }, 'old push signatures not deleted'),
        );
      }
      return claimPushNonce(pool, WECHAT_CHATBOT_ID, key, expiresAt);
    },
    holds,
    logger,
    ...(opts.ackBudgetMs === undefined ? {} : { ackBudgetMs: opts.ackBudgetMs }),
    track(handling) {
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    },
  });
  // Pushes acknowledged but not taken before this process (or another) stopped: WeChat will not push them again.
  const held = await listHeldPushes(pool, WECHAT_CHATBOT_ID).catch((err: unknown) => {
    logger.warn({ err: String(err) }, 'held wechat pushes not read');
    return [];
  });
  for (const push of held as WechatPush[]) {
    const handling = ingress.accept(push);
    handling.acknowledgedEarly();
    logger.info({ msgId: push.MsgId }, 'held wechat push taken up again');
    const done = handling.outcome.then(() => holds.release(push)).catch(() => undefined);
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  }
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.WECHAT_PORT, config.WECHAT_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.WECHAT_HOST.includes(':') ? `[${config.WECHAT_HOST}]` : config.WECHAT_HOST;
  const url = `http://${host}:${port}${config.WECHAT_PATH}`;
  logger.info({ url }, 'wechat endpoint listening');
  return {
    sink,
    url,
    async health() {
      return { ok: server.listening, outcomes: ingress.counts(), tokensFetched: api.tokensFetched };
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** The WeChat channel descriptor (adapters/kit/channel.ts). */
export const wechatChannel: ChannelDescriptor<WechatConfig> = {
  id: WECHAT_CHATBOT_ID,
  title: 'WeChat',
  disabledHint: 'set WECHAT_APP_ID, WECHAT_APP_SECRET and WECHAT_TOKEN to enable',
  sessionPrefix: 'wechat:',
  messageIdPrefix: 'wechat-',
  features: {
    // The workflow hands intermediate messages to the sink after each step; the WeChat sink sends none of them
    // and reports them shown, which marks them `delivered` (docs/message-model.md §4.3, stateless channels).
    liveProgress: true,
    inlineDelivery: false,
    editsInPlace: false,
    maxMessageLength: WECHAT_MAX_TEXT_BYTES,
    lengthUnit: 'utf8_bytes',
    markdown: 'plain',
    attachments: false,
    buttons: false,
    // The follower answers a request naming the call by typing `/approve`, `/deny` or `/always` (./approvals.ts).
    decidesApprovals: true,
  },
  configSchema: wechatConfigSchema,
  secretKeys: ['WECHAT_APP_SECRET', 'WECHAT_TOKEN', 'WECHAT_ENCODING_AES_KEY'],
  enabled: wechatEnabled,
  start: (ctx) => startWechat(ctx),
  createSink(ctx) {
    const config = requireEnabled(ctx.config);
    const logger = ctx.logger.child({ component: 'wechat' });
    return createWechatSink({ api: apiFor(config, logger), store: createDeliveryStore(ctx.pool), logger });
  },
};

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
import { setApprovalPolicy } from '../../db/approvals.ts';
import { setLocale } from '../../db/sessions.ts';
import { accessPolicy } from '../../domain/access-policy.ts';
import { ConfigError } from '../../infra/config.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError } from '../../infra/session-client.ts';
import { WechatApi } from './api.ts';
import { wechatConfigSchema, wechatEnabled, type EnabledWechatConfig, type WechatConfig } from './config.ts';
import { createWechatApp } from './endpoint.ts';
import { createConversations } from '../kit/conversations.ts';
import {
  WECHAT_CHATBOT_ID,
  createWechatIngress,
  wechatSessionAddress,
  type WechatIngressDeps,
} from './ingress.ts';
import { decideOldestPending } from '../kit/typed-approvals.ts';
import { wechatDecider } from './approvals.ts';
import { createWechatSink } from './sink.ts';
import { WECHAT_MAX_TEXT_BYTES } from './text.ts';

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
  /** How long WeChat's last push of a message waits to be taken before it is acknowledged, ms (endpoint.ts). */
  ackBudgetMs?: number;
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
  const conversations = createConversations(pool, WECHAT_CHATBOT_ID, wechatSessionAddress);
  const sessions: WechatIngressDeps['sessions'] = {
    submit: (...a) => s.submit(...a),
    stop: (...a) => s.stop(...a),
    compact: (...a) => s.compact(...a),
    setTitle: (...a) => s.setTitle(...a),
    setMode: (...a) => s.setMode(...a),
    state: (...a) => s.state(...a),
    // `/new`: the user's current session moves to a new conversation; its running turn is stopped.
    async newConversation(sessionId, key) {
      const openId = /^wechat:([^:]+)(?::\d+)?$/.exec(sessionId)?.[1];
      if (openId === undefined) throw new Error(`not a WeChat conversation: ${sessionId}`);
      const { previous, repeated } = await conversations.startNew(openId, key);
      if (!repeated) await s.stop(previous.sessionId).catch(() => undefined);
    },
    async setLocale(sessionId, locale) {
      if (!(await setLocale(pool, sessionId, locale)))
        throw new SessionClientError('not_found', `no session ${sessionId}`);
      return { locale };
    },
    async setApproval(sessionId, policy) {
      if (!(await setApprovalPolicy(pool, sessionId, policy)))
        throw new SessionClientError('not_found', `no session ${sessionId}`);
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
  });
  const inFlight = new Set<Promise<unknown>>();
  const app = createWechatApp({
    config,
    ingress,
    logger,
    ...(opts.ackBudgetMs === undefined ? {} : { ackBudgetMs: opts.ackBudgetMs }),
    track(handling) {
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    },
  });
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

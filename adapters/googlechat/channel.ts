/**
 * The Google Chat channel (a Chat app over HTTP): its descriptor for adapters/registry.ts.
 *
 * `start` opens the app's endpoint — its own HTTP listener on GOOGLE_CHAT_HOST:GOOGLE_CHAT_PORT, POST
 * GOOGLE_CHAT_PATH — which checks the bearer token of every request (auth.ts; 401 with nothing stored when it
 * fails), hands the event to the ingress (ingress.ts) and answers Chat with an empty JSON object once it was
 * handled — a message once the session stored it, so a crash or restart before that cannot lose a message Chat
 * was told was received. A handling that failed for a reason that may pass (outcome `failed`: Temporal or the
 * database unreachable) is answered 503, not acknowledged (the user was told in the thread where possible). Chat
 * waits 30 s for the answer; one not ready within {@link GOOGLE_CHAT_ACK_BUDGET_MS} is acknowledged anyway and
 * the handling goes on (a later failure is told in the thread). A click on a tool-call approval card's button is
 * answered in the response (approvals.ts); answers go out asynchronously through the Chat REST API (sink.ts).
 * `createSink` is the REST-only sink for worker processes without the endpoint.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createDeliveryStore } from '../../db/deliveries.ts';
import { sessionCommands } from '../kit/session-commands.ts';
import { ConfigError } from '../../infra/config.ts';
import type { ChannelContext, ChannelDescriptor, RunningChannel } from '../kit/channel.ts';
import { createChatAccess, warnOpenAccess } from '../kit/access.ts';
import { accessPolicy } from '../../domain/access-policy.ts';
import { createChatApi, type ChatApi } from './api.ts';
import { createApprovalClicks, withApprovalCards } from './approvals.ts';
import { ChatTokenError, createTokenVerifier } from './auth.ts';
import { googleChatConfigSchema, tokenCheckOf, type GoogleChatConfig } from './config.ts';
import { GOOGLE_CHAT_CHATBOT_ID, GOOGLE_CHAT_SESSION_PREFIX } from './ids.ts';
import { chatEventSchema, createGoogleChatIngress, type ChatEvent, type IngressOutcome } from './ingress.ts';
import { GOOGLE_CHAT_MAX_TEXT, createGoogleChatSink, type GoogleChatSink } from './sink.ts';

/** Largest event body taken, bytes. */
const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * How long an event waits to be handled before it is acknowledged anyway, ms: well inside the 30 s Chat waits for
 * the answer of an HTTP app.
 */
export const GOOGLE_CHAT_ACK_BUDGET_MS = 10_000;

function apiOf(config: GoogleChatConfig): ChatApi {
  if (!config.GOOGLE_CHAT_CREDENTIALS_FILE)
    throw new ConfigError('GOOGLE_CHAT_CREDENTIALS_FILE is not set: the Google Chat channel is off');
  return createChatApi({
    credentialsFile: config.GOOGLE_CHAT_CREDENTIALS_FILE,
    apiUrl: config.GOOGLE_CHAT_API_URL,
    tokenUrl: config.GOOGLE_CHAT_TOKEN_URL,
  });
}

function sinkOf(ctx: Omit<ChannelContext<GoogleChatConfig>, 'sessions'>, api: ChatApi): GoogleChatSink {
  const store = createDeliveryStore(ctx.pool);
  const sink = createGoogleChatSink({ api, logger: ctx.logger.child({ component: 'google_chat' }), store });
  // Tool-call approval cards with buttons (./approvals.ts).
  return withApprovalCards(sink, { api, store, pool: ctx.pool });
}

/** Options of {@link startGoogleChat} beyond the channel context (tests, metrics). */
export interface GoogleChatStartOptions {
  /** Called after each event was handled, with the event's message name (or type) and the outcome. */
  onHandled?: (key: string, outcome: IngressOutcome) => void;
  /** Where the open-access warning is printed. Default process.stderr. */
  stderr?: Pick<NodeJS.WriteStream, 'write'>;
  /** Default {@link GOOGLE_CHAT_ACK_BUDGET_MS}, ms (tests shorten it). */
  ackBudgetMs?: number;
}

/**
 * Starts the endpoint; resolves once it listens.
 * @throws ConfigError without GOOGLE_CHAT_CREDENTIALS_FILE or GOOGLE_CHAT_AUDIENCE
 */
export async function startGoogleChat(
  ctx: ChannelContext<GoogleChatConfig>,
  opts: GoogleChatStartOptions = {},
): Promise<RunningChannel & { sink: GoogleChatSink; url: string }> {
  const { config, pool } = ctx;
  const logger = ctx.logger.child({ component: 'google_chat' });
  const check = tokenCheckOf(config);
  if (check === null)
    throw new ConfigError(
      'GOOGLE_CHAT_AUDIENCE is not set: give the project number or the endpoint URL the Chat app uses',
    );
  const verify = createTokenVerifier(check);
  const api = apiOf(config);
  const sink = sinkOf(ctx, api);
  const policy = accessPolicy({
    allowAll: config.GOOGLE_CHAT_ALLOW_ALL,
    channels: config.GOOGLE_CHAT_ALLOWED_SPACES,
    users: config.GOOGLE_CHAT_ALLOWED_USERS,
  });
  if (policy.mode === 'open') warnOpenAccess('Google Chat', 'GOOGLE_CHAT_ALLOW_ALL', logger, opts.stderr);
  else logger.info({ access: policy.mode }, 'google chat access');
  const s = ctx.sessions;
  const access = createChatAccess({ policy, pool, logger });
  const ingress = createGoogleChatIngress({
    sessions: sessionCommands({
      sessions: s,
      pool,
      logger,
      features: googleChatChannel.features,
      configured: config.KESOKU_TOOL_APPROVAL,
      chatbotId: GOOGLE_CHAT_CHATBOT_ID,
      sharedMemoryScopes: ctx.memorySharedScopes,
    }),
    api,
    access,
    logger,
    attachments: { dataDir: ctx.dataDir, maxBytes: config.GOOGLE_CHAT_ATTACHMENT_MAX_BYTES },
    approvers: config.GOOGLE_CHAT_APPROVERS,
  });

  const approvalClicks = createApprovalClicks({
    api,
    pool,
    logger,
    approvers: config.GOOGLE_CHAT_APPROVERS,
    access,
    decide: (sessionId, input) => s.decideApproval(sessionId, input),
  });

  const inFlight = new Set<Promise<unknown>>();
  let accepting = true;
  const app = express();
  app.disable('x-powered-by');
  app.post(
    config.GOOGLE_CHAT_PATH,
    (req, res, next) => {
      // The token is checked before the body is even read.
      verify(req.get('authorization')).then(
        () => next(),
        (err: unknown) => {
          if (err instanceof ChatTokenError) {
            logger.warn({ reason: err.message }, 'google chat request refused');
            res.status(401).json({ error: 'unauthorized' });
          } else {
            logger.warn({ err: String(err) }, 'google chat token could not be checked');
            res.status(503).json({ error: 'unavailable' });
          }
        },
      );
    },
    express.json({ limit: MAX_EVENT_BYTES }),
    (req, res) => {
      const parsed = chatEventSchema.safeParse(req.body);
      if (!parsed.success) {
        res.status(400).json({ error: 'not a Chat interaction event' });
        return;
      }
      if (!accepting) {
        res.status(503).json({ error: 'shutting down' });
        return;
      }
      const event: ChatEvent = parsed.data;
      // A click on an approval card's button is answered in the response: the card updated, or a private note.
      if (approvalClicks.handles(event)) {
        const task = approvalClicks.handle(event).then((body) => {
          res.status(200).json(body);
        });
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
        return;
      }
      // Acknowledged once handled (the answer goes out through the REST API), or when the budget runs out.
      const budget = setTimeout(() => {
        if (res.headersSent || res.destroyed) return;
        logger.warn(
          { type: event.type, message: event.message?.name },
          'google chat event acknowledged before it was handled',
        );
        res.status(200).json({});
      }, opts.ackBudgetMs ?? GOOGLE_CHAT_ACK_BUDGET_MS);
      const task = ingress.accept(event).then((outcome) => {
        clearTimeout(budget);
        if (!res.headersSent && !res.destroyed) {
          if (outcome === 'failed') res.status(503).json({ error: 'not taken, try again' });
          else res.status(200).json({});
        }
        logger.debug(
          { type: event.type, message: event.message?.name, outcome },
          'google chat event handled',
        );
        opts.onHandled?.(event.message?.name ?? event.type, outcome);
      });
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
  );

  const server: Server = await new Promise((resolve, reject) => {
    const srv = app.listen(config.GOOGLE_CHAT_PORT, config.GOOGLE_CHAT_HOST, (err?: Error) =>
      err ? reject(err) : resolve(srv),
    );
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}${config.GOOGLE_CHAT_PATH}`;
  logger.info({ url }, 'google chat endpoint listening');
  return {
    sink,
    url,
    async health() {
      return { ok: accepting };
    },
    async stop() {
      accepting = false;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
      await sink.close();
    },
  };
}

/** Google Chat as a Kesoku channel (docs/message-model.md §5.3 Google Chat column). */
export const googleChatChannel: ChannelDescriptor<GoogleChatConfig> = {
  id: GOOGLE_CHAT_CHATBOT_ID,
  title: 'Google Chat',
  disabledHint: 'set GOOGLE_CHAT_CREDENTIALS_FILE and GOOGLE_CHAT_AUDIENCE to enable',
  sessionPrefix: GOOGLE_CHAT_SESSION_PREFIX,
  messageIdPrefix: 'googlechat-',
  features: {
    liveProgress: true,
    inlineDelivery: false,
    editsInPlace: true,
    maxMessageLength: GOOGLE_CHAT_MAX_TEXT,
    lengthUnit: 'codepoints',
    markdown: 'google_chat',
    // Received: uploaded files are stored in the session's workspace, Drive files passed on as links.
    attachments: true,
    buttons: true,
    // Approve / Deny / Always buttons on the approval card (./approvals.ts).
    decidesApprovals: true,
  },
  configSchema: googleChatConfigSchema,
  // The key itself lives in the file GOOGLE_CHAT_CREDENTIALS_FILE names; no variable holds a secret.
  secretKeys: [],
  enabled: (config) => config.GOOGLE_CHAT_CREDENTIALS_FILE !== undefined,
  start: (ctx) => startGoogleChat(ctx),
  createSink: (ctx) => sinkOf(ctx, apiOf(ctx.config)),
};

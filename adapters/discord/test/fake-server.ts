/**
 * A fake Discord on 127.0.0.1, good enough for the real discord.js client (shared/DISCORD-NOTES.md): REST under
 * `/api/v10` and a plain ws:// gateway on the same port, plus a tiny CDN for attachment downloads.
 *
 * REST: `GET /gateway/bot`, `GET /users/@me`, `POST /users/@me/channels` (open a DM), `GET /channels/{id}`, `GET|POST /channels/{id}/messages`,
 * `GET|PATCH /channels/{id}/messages/{id}`, `POST /channels/{id}/typing` (204, no JSON content-type). It checks
 * `Authorization: Bot <token>`, answers 400/50035 for content over 2000 characters, 400/50006 for an empty
 * message, 404/10003 for unknown channels and 404/10008 for unknown messages, and implements `enforce_nonce` (the
 * same author repeating a nonce within the window gets the earlier message back, nothing new is created).
 * Every REST call is recorded in {@link FakeDiscord.calls}; {@link FakeDiscord.failNext} makes the next N calls of
 * a route answer 429 (with `Retry-After`), 5xx, a Discord error, or create the message and drop the response.
 *
 * Gateway: hello → identify → READY (with `application`) → GUILD_CREATE per guild with channels and threads;
 * heartbeats are acked; {@link FakeDiscord.injectMessage} dispatches MESSAGE_CREATE (DMs with `channel_type: 1`).
 *
 * Chat extras (section "edits, deletes, reactions, uploads, threads" below): {@link FakeDiscord.editUserMessage}
 * and {@link FakeDiscord.deleteUserMessage} dispatch MESSAGE_UPDATE and MESSAGE_DELETE; the bot's own reactions
 * (`PUT|DELETE /channels/{id}/messages/{id}/reactions/{emoji}/@me`, shown in `reactions[].me` of a fetched
 * message); multipart creates (`payload_json` + `files[n]`, kept in {@link FakeMessage.files}); threads started
 * from a message (`POST /channels/{id}/messages/{id}/threads`: the thread gets the message's id, THREAD_CREATE is
 * dispatched, a second start answers 400/160004).
 *
 * Message components: a create or edit may carry `components` (kept, sent back in the message object);
 * {@link FakeGatewayControl.clickButton} dispatches INTERACTION_CREATE type 3 (MESSAGE_COMPONENT, with the message
 * and `data.custom_id`), and the callback answers type 4 (a new message; flag 64 = ephemeral), 6 (deferred update)
 * or 7 (UPDATE_MESSAGE: the clicked message gets the callback's content and components, recorded in its history);
 * `PATCH /webhooks/{app}/{token}/messages/@original` of a component interaction edits the clicked message.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { readBody, sendJson as json } from '../../../test/fakes/http.ts';

/** A Discord user as the fake sends it. */
export interface FakeUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: null;
  bot?: boolean;
}

/** A guild the fake announces in GUILD_CREATE. */
export interface FakeGuildSpec {
  id: string;
  name?: string;
  /** Text channels (type 0). */
  channels: { id: string; name?: string }[];
  /** Public threads (type 11) under one of the channels. */
  threads?: { id: string; parentId: string; name?: string }[];
}

/** Options of {@link startFakeDiscord}. */
export interface FakeDiscordOptions {
  /** Bot token the fake accepts (REST `Bot <token>` and IDENTIFY). Default `fake-token`. */
  token?: string;
  bot?: { id?: string; username?: string };
  guilds?: FakeGuildSpec[];
  /** Heartbeat interval sent in HELLO, ms. Default 41250 (Discord's). */
  heartbeatIntervalMs?: number;
  /** How long a nonce is remembered for `enforce_nonce`, ms. Default 5 minutes. */
  nonceWindowMs?: number;
  /**
   * Whether the Message Content intent is enabled for the bot in the developer portal. Default true. When false,
   * an IDENTIFY that asks for it is closed with 4014 (Disallowed intents). Without the intent (not asked for, or
   * not granted) guild messages that do not mention the bot arrive with empty content, as on Discord.
   */
  messageContentIntent?: boolean;
  /**
   * How many edits Discord allows to a message once it is older than an hour; the next edit gets 400 / 30046
   * ("Maximum number of edits to messages older than 1 hour reached"). Default 3. Age a message with
   * {@link FakeDiscord.ageMessage}.
   */
  oldMessageEdits?: number;
}

/** One REST call as the fake saw it. `route` is the template, e.g. `POST /channels/:id/messages`. */
export interface RestCall {
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  route: string;
  body: Record<string, unknown> | undefined;
  status: number;
  at: number;
}

/** A message stored by the fake: bot messages created through REST and injected user messages. */
export interface FakeMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeUser;
  content: string;
  nonce?: string | number;
  message_reference?: {
    message_id?: string;
    channel_id?: string;
    guild_id?: string;
    fail_if_not_exists?: boolean;
  };
  allowed_mentions?: unknown;
  flags: number;
  timestamp: string;
  edited_timestamp: string | null;
  /** Every content this message had, oldest first (creation, then each edit). */
  history: string[];
  /** Files uploaded with it (multipart `files[n]`), as text. */
  files?: { name: string; content: string }[];
  /** The bot's own reactions on it, in the order they were added. */
  reactions?: string[];
  /** Message components (action rows of buttons) as last created or edited; absent: none. */
  components?: unknown[];
}

/** What the next matching call(s) get instead of a normal answer. */
export type FakeFailure =
  | { kind: 'rate_limit'; retryAfterS: number; global?: boolean }
  | { kind: 'server_error'; status?: number }
  | { kind: 'error'; status: number; code: number; message: string }
  /** POST messages only: the message is created, then the connection is destroyed before any response. */
  | { kind: 'drop' };

/** A user message to dispatch with {@link FakeDiscord.injectMessage}. */
export interface InjectOptions {
  /** Channel (or thread) id; for `dm`, the DM channel id (created on first use). */
  channelId: string;
  author: { id: string; username: string; global_name?: string | null; bot?: boolean };
  content?: string;
  /** Adds the bot to `mentions` and prepends `<@bot>` to the content unless it is there. */
  mentionBot?: boolean;
  /** A DM: no guild, `channel_type: 1`. */
  dm?: boolean;
  /** Store the message without dispatching it (posted while the bot was away; found by a history fetch). */
  offline?: boolean;
  /** Guild nickname (sent as `member.nick`). */
  nick?: string;
  attachments?: FakeAttachment[];
  /** Message type; 0 (default) or 19 (reply). */
  type?: number;
  timestamp?: string;
  /** Role ids mentioned (`mention_roles`); their `<@&id>` is prepended to the content unless it is there. */
  mentionRoles?: string[];
  /**
   * A reply (type 19) to stored message `messageId`: `message_reference` and `referenced_message` are sent; with
   * `ping` (Discord's default) the replied-to author is also in `mentions`, as Discord does.
   */
  replyTo?: { messageId: string; ping?: boolean };
}

/** An attachment object as Discord sends it; `url` points at the fake's own CDN. */
export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
}

/** A running fake Discord. */
export interface FakeDiscord {
  /** What `rest.api` wants: `http://127.0.0.1:PORT/api` (no version). */
  apiUrl: string;
  gatewayUrl: string;
  token: string;
  bot: FakeUser;
  /** Every REST call, in arrival order. */
  readonly calls: RestCall[];
  /** Every message, bot and user, in creation order. */
  readonly messages: FakeMessage[];
  /** Messages the bot created in `channelId`, oldest first. */
  botMessages(channelId?: string): FakeMessage[];
  /** REST calls whose route template equals `route`, e.g. `PATCH /channels/:id/messages/:id`. */
  callsTo(route: string): RestCall[];
  /** Dispatches MESSAGE_CREATE to every identified gateway connection. @returns the message payload */
  injectMessage(opts: InjectOptions): Record<string, unknown>;
  /**
   * Serves `content` from the fake CDN; with `delayMs` the CDN waits that long before answering (a slow download).
   * @returns the attachment object to put into a message
   */
  addAttachment(
    filename: string,
    content: string | Buffer,
    contentType?: string,
    opts?: { delayMs?: number },
  ): FakeAttachment;
  /** The DM channel the bot opened with `userId` (`POST /users/@me/channels`), if any. */
  dmChannelOf(userId: string): string | undefined;
  /** The bot's managed role in guild `guildId` (`tags.bot_id` = the bot; the bot member has it). */
  botRoleId(guildId: string): string;
  /**
   * The next `count` calls of `route` (a template, see {@link RestCall.route}) get `failure`; Infinity = always.
   * With `skip`, the first `skip` matching calls are answered normally before the failures start.
   */
  failNext(route: string, failure: FakeFailure, count?: number, skip?: number): void;
  /** Changes how long a nonce is remembered for `enforce_nonce` from now on, ms (0: forgotten at once). */
  setNonceWindowMs(ms: number): void;
  /** Removes every pending failure. */
  clearFailures(): void;
  /** Gateway lifecycle, interactions and command registration (see the "Gateway sessions" section). */
  gateway: FakeGatewayControl;
  /** Makes message `id` look `ms` older (for the 1-hour edit cap, 30046). */
  ageMessage(id: string, ms: number): void;
  /** Edits a user message and dispatches MESSAGE_UPDATE (the full message, `edited_timestamp` set). */
  editUserMessage(
    messageId: string,
    content: string,
    opts?: { mentionBot?: boolean },
  ): Record<string, unknown>;
  /** Deletes a message and dispatches MESSAGE_DELETE (`id`, `channel_id`, `guild_id`). */
  deleteUserMessage(messageId: string): void;
  /** The bot's own reactions on a message, in the order they were added. */
  reactionsOf(messageId: string): string[];
  /** A channel or thread the fake knows (threads started through REST included). */
  channel(id: string): Record<string, unknown> | undefined;
  /** Resolves once a gateway connection has identified (READY and GUILD_CREATE sent). */
  waitForIdentify(timeoutMs?: number): Promise<void>;
  /** Polls `fn` every 20 ms until it returns a value that is not undefined/false/null. */
  waitFor<T>(fn: () => T | undefined | null | false, timeoutMs?: number, what?: string): Promise<T>;
  close(): Promise<void>;
}

// ---- Gateway sessions, close codes, interactions and command registration (types) ----

/** An application command as the bot registered it (bulk overwrite, `PUT …/commands`), with the fake's id. */
export interface FakeAppCommand {
  id: string;
  name: string;
  description?: string;
  options?: { name: string; type: number; required?: boolean; choices?: { name: string; value: string }[] }[];
  [field: string]: unknown;
}

/** An interaction the fake dispatched (a slash command, or a button click), and how the bot answered it. */
export interface FakeInteraction {
  id: string;
  token: string;
  channelId: string;
  /** The command's name; for a button click its custom id. */
  name: string;
  /** A button click: the message whose button was clicked (types 6/7 and `@original` edit it). */
  messageId?: string;
  dispatchedAt: number;
  /** Interaction callbacks in arrival order: type 4 (message), 5 (deferred), … with the time since dispatch. */
  callbacks: { type: number; data?: Record<string, unknown>; afterMs: number }[];
  /** The response message (type 4 content, or the deferred one's `@original` after its edits); null before. */
  response: FakeMessage | null;
  /** Follow-up messages (`POST /webhooks/{app}/{token}`). */
  followups: FakeMessage[];
}

/** A slash command to dispatch with {@link FakeGatewayControl.injectCommand}. */
export interface InjectCommandOptions {
  channelId: string;
  author: InjectOptions['author'];
  name: string;
  /** String options by name (`{ text: 'My title' }`). */
  options?: Record<string, string>;
  dm?: boolean;
  nick?: string;
}

/** Gateway lifecycle and interactions of the fake. */
export interface FakeGatewayControl {
  /** IDENTIFY payloads as received, oldest first (`intents` is the bit field). */
  readonly identifies: { intents: number; at: number }[];
  /** Successful RESUMEs. */
  resumes(): number;
  /** Whether a connection is identified (or resumed) now. */
  connected(): boolean;
  /**
   * Closes every gateway connection with `code` (default 4000, after which the client resumes). `invalidate`
   * forgets the sessions, so a RESUME is refused (op 9) and the client identifies afresh: events dispatched
   * meanwhile are lost, as after a long outage. `replay`: the next RESUME also re-sends that many events the client
   * had already received (a duplicate delivery), before the missed ones.
   */
  disconnect(opts?: { code?: number; reason?: string; invalidate?: boolean; replay?: number }): void;
  /** Dispatches `event` with `data` to every identified connection (e.g. a MESSAGE_CREATE replay). */
  dispatchAll(event: string, data: unknown): void;
  /** Commands as last registered globally, or for `guildId`; undefined when never registered. */
  commands(guildId?: string): FakeAppCommand[] | undefined;
  /** Dispatches INTERACTION_CREATE for slash command `name`. */
  injectCommand(opts: InjectCommandOptions): FakeInteraction;
  /**
   * Dispatches INTERACTION_CREATE type 3 (MESSAGE_COMPONENT): `author` clicks the button `customId` of bot message
   * `messageId` (Discord sends the whole message and `data: {custom_id, component_type: 2}`). `stale`: the click
   * comes from a client that still shows a button the message no longer has (a late click).
   * @throws when the message has no such button (and the click is not `stale`)
   */
  clickButton(opts: {
    messageId: string;
    customId: string;
    author: InjectOptions['author'];
    nick?: string;
    stale?: boolean;
  }): FakeInteraction;
  interaction(id: string): FakeInteraction | undefined;
}

/** A gateway session: its sequence and the events sent in it (for RESUME). */
interface GatewaySession {
  id: string;
  seq: number;
  log: { s: number; t: string; d: unknown }[];
  intents: number;
}

/** One gateway connection. */
interface GatewayConn {
  ws: WebSocket;
  identified: boolean;
  session: GatewaySession | null;
}

/** How long an interaction token accepts its first callback, ms (Discord: 3 s). */
const INTERACTION_ACK_MS = 3000;
/** The Message Content intent bit (privileged). */
const MESSAGE_CONTENT_INTENT = 1 << 15;

const DISCORD_EPOCH = 1420070400000n;
// Worker/process bits from the pid and a random start: test files run in parallel processes against one Temporal
// server and one database, so ids (and the session ids made from them) must not collide across processes.
const PROCESS_BITS = BigInt(process.pid & 0x3ff) << 12n;
let increment = BigInt(Math.floor(Math.random() * 0x1000));
/** A real-looking snowflake (timestamp in the top bits), unique within the process and across test processes. */
export function snowflake(at = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | PROCESS_BITS | increment).toString();
}

const MAX_CONTENT = 2000;

/** Starts the fake on 127.0.0.1 (a free port): REST, CDN and gateway on the same port. */
export async function startFakeDiscord(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = opts.token ?? 'fake-token';
  let nonceWindowMs = opts.nonceWindowMs ?? 5 * 60_000;
  const bot: FakeUser = {
    id: opts.bot?.id ?? snowflake(),
    username: opts.bot?.username ?? 'Kesoku',
    global_name: null,
    discriminator: '0',
    avatar: null,
    bot: true,
  };
  const applicationId = bot.id;
  const guilds = opts.guilds ?? [];
  const channels = new Map<string, Record<string, unknown>>();
  for (const g of guilds) {
    for (const c of g.channels) channels.set(c.id, channelObject(g.id, c.id, c.name ?? `channel-${c.id}`));
    for (const t of g.threads ?? [])
      channels.set(t.id, threadObject(g.id, t.id, t.parentId, t.name ?? `thread-${t.id}`, bot.id));
  }
  /** The bot's managed role per guild, as an integration's bot gets one when it joins. */
  const botRoles = new Map(guilds.map((g) => [g.id, snowflake()] as const));
  const calls: RestCall[] = [];
  const messages: FakeMessage[] = [];
  const nonces = new Map<string, { message: FakeMessage; at: number }>();
  const failures: { route: string; failure: FakeFailure; remaining: number; skip: number }[] = [];
  const files = new Map<string, { body: Buffer; contentType: string; delayMs: number }>();
  /** DM channels the bot opened, by recipient user id. */
  const dmChannels = new Map<string, string>();
  const sockets = new Set<GatewayConn>();
  let identifyCount = 0;
  const gatewayState = createGatewayState();
  let base = '';

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) json(res, 500, { message: String(err), code: 0 });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    if (url.pathname.startsWith('/attachments/')) {
      const file = files.get(url.pathname);
      if (!file) return json(res, 404, { message: 'Not Found', code: 0 });
      if (file.delayMs > 0) await new Promise((r) => setTimeout(r, file.delayMs));
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.body.length) });
      res.end(file.body);
      return;
    }
    if (!url.pathname.startsWith('/api/v10/')) return json(res, 404, { message: '404: Not Found', code: 0 });
    const path = url.pathname.slice('/api/v10'.length);
    const method = req.method ?? 'GET';
    const route = `${method} ${path
      .replace(/\/\d{5,}/g, '/:id')
      .replace(/^\/(interactions\/:id|webhooks\/:id)\/[^/]+/, '/$1/:token')}`;
    let body: Record<string, unknown> | undefined;
    let uploads: { name: string; content: string }[] = [];
    try {
      const contentType = req.headers['content-type'] ?? '';
      if (contentType.startsWith('multipart/form-data'))
        ({ body, uploads } = await parseMultipart(raw, contentType));
      else body = raw.length > 0 ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const call: RestCall = { method, path, route, body, status: 0, at: Date.now() };
    calls.push(call);
    const send = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      call.status = status;
      if (payload === undefined) {
        res.writeHead(status, headers);
        res.end();
      } else json(res, status, payload, headers);
    };

    // Interaction callbacks and webhook calls authenticate with the interaction token in the path.
    if (req.headers.authorization !== `Bot ${token}` && !/^\/(interactions|webhooks)\//.test(path))
      return send(401, { message: '401: Unauthorized', code: 0 });

    const failure = takeFailure(route);
    if (failure) {
      switch (failure.kind) {
        case 'rate_limit':
          return send(
            429,
            {
              message: 'You are being rate limited.',
              retry_after: failure.retryAfterS,
              global: failure.global ?? false,
            },
            rateLimitHeaders(failure.retryAfterS, failure.global ?? false, route),
          );
        case 'server_error':
          return send(failure.status ?? 500, { message: '500: Internal Server Error', code: 0 });
        case 'error':
          return send(failure.status, { message: failure.message, code: failure.code });
        case 'drop':
          break; // handled by the create below
      }
    }

    const extra = gatewayState.route(method, decodeURIComponent(path), body, url);
    if (extra) return send(extra.status, extra.body);

    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/gateway/bot') {
      return send(200, {
        url: base.replace(/^http/, 'ws'),
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/users/@me') return send(200, bot);
    if (method === 'POST' && path === '/users/@me/channels') {
      const recipient = typeof body?.recipient_id === 'string' ? body.recipient_id : '';
      if (!/^\d{5,}$/.test(recipient))
        return send(400, invalidForm('recipient_id', 'NUMBER_TYPE_COERCE', 'Value is not snowflake.'));
      let id = dmChannels.get(recipient);
      if (!id) {
        id = snowflake();
        dmChannels.set(recipient, id);
        channels.set(id, {
          id,
          type: 1,
          last_message_id: null,
          recipients: [{ id: recipient, username: `user-${recipient}`, discriminator: '0', avatar: null }],
        });
      }
      return send(200, channels.get(id));
    }
    if ((m = /^\/channels\/(\d+)$/.exec(path)) && method === 'GET') {
      const channel = channels.get(m[1] ?? '');
      return channel ? send(200, channel) : send(404, { message: 'Unknown Channel', code: 10003 });
    }
    if ((m = /^\/channels\/(\d+)\/typing$/.exec(path)) && method === 'POST') {
      if (!channels.has(m[1] ?? '')) return send(404, { message: 'Unknown Channel', code: 10003 });
      return send(204); // no JSON content-type: @discordjs/rest breaks on JSON + empty body
    }
    if ((m = /^\/channels\/(\d+)\/messages$/.exec(path))) {
      const channelId = m[1] ?? '';
      if (!channels.has(channelId)) return send(404, { message: 'Unknown Channel', code: 10003 });
      if (method === 'GET') return send(200, gatewayState.history(channelId, url.searchParams));
      if (method !== 'POST') return send(405, { message: '405: Method Not Allowed', code: 0 });
      const b = body ?? {};
      const content = typeof b.content === 'string' ? b.content : '';
      const problem = contentProblem(content, uploads.length > 0 ? { ...b, embeds: [{}] } : b);
      if (problem) return send(400, problem);
      const nonce = b.nonce as string | number | undefined;
      if (b.enforce_nonce === true && nonce !== undefined) {
        const key = `${bot.id}:${String(nonce)}`;
        const prior = nonces.get(key);
        if (prior && Date.now() - prior.at < nonceWindowMs) return send(200, wire(prior.message));
      }
      const ref = b.message_reference as FakeMessage['message_reference'];
      if (
        ref?.message_id &&
        ref.fail_if_not_exists !== false &&
        !messages.some((x) => x.id === ref.message_id)
      ) {
        return send(
          400,
          invalidForm('message_reference', 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message'),
        );
      }
      const channel = channels.get(channelId);
      const created: FakeMessage = {
        id: snowflake(),
        channel_id: channelId,
        ...(typeof channel?.guild_id === 'string' ? { guild_id: channel.guild_id } : {}),
        author: bot,
        content,
        nonce,
        message_reference: ref,
        allowed_mentions: b.allowed_mentions,
        flags: typeof b.flags === 'number' ? b.flags : 0,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        history: [content],
        ...(uploads.length > 0 ? { files: uploads } : {}),
        ...(Array.isArray(b.components) && b.components.length > 0 ? { components: b.components } : {}),
      };
      messages.push(created);
      if (nonce !== undefined) nonces.set(`${bot.id}:${String(nonce)}`, { message: created, at: Date.now() });
      if (failure?.kind === 'drop') {
        call.status = -1;
        res.socket?.destroy();
        return;
      }
      return send(200, wire(created));
    }
    const chatExtra = handleChatExtras(method, path, body);
    if (chatExtra) return send(chatExtra.status, chatExtra.payload);
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path))) {
      const message = messages.find((x) => x.channel_id === m?.[1] && x.id === m[2]);
      if (!message) return send(404, { message: 'Unknown Message', code: 10008 });
      if (method === 'GET') return send(200, wire(message));
      if (method !== 'PATCH') return send(405, { message: '405: Method Not Allowed', code: 0 });
      if (message.author.id !== bot.id)
        return send(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
      if (gatewayState.oldEditRefused(message))
        return send(400, {
          message: 'Maximum number of edits to messages older than 1 hour reached. Try again later.',
          code: 30046,
        });
      const b = body ?? {};
      if (typeof b.content === 'string') {
        const problem = contentProblem(b.content, { ...b, edit: true });
        if (problem) return send(400, problem);
        message.content = b.content;
        message.history.push(b.content);
      }
      if (typeof b.flags === 'number') message.flags = b.flags;
      if (Array.isArray(b.components)) message.components = b.components;
      message.edited_timestamp = new Date().toISOString();
      return send(200, wire(message));
    }
    return send(404, { message: '404: Not Found', code: 0 });
  }

  function takeFailure(route: string): FakeFailure | null {
    const i = failures.findIndex((f) => f.route === route && f.remaining > 0);
    if (i < 0) return null;
    const f = failures[i];
    if (!f) return null;
    if (f.skip > 0) {
      f.skip -= 1;
      return null;
    }
    f.remaining -= 1;
    if (f.remaining <= 0) failures.splice(i, 1);
    return f.failure;
  }

  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    const conn: GatewayConn = { ws, identified: false, session: null };
    sockets.add(conn);
    ws.on('close', () => sockets.delete(conn));
    ws.on('error', () => sockets.delete(conn));
    ws.send(
      JSON.stringify({
        op: 10,
        d: { heartbeat_interval: opts.heartbeatIntervalMs ?? 41_250 },
        s: null,
        t: null,
      }),
    );
    ws.on('message', (data) => {
      let frame: { op: number; d: unknown };
      try {
        frame = JSON.parse(String(data)) as { op: number; d: unknown };
      } catch {
        return;
      }
      if (frame.op === 1) ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      else if (frame.op === 2) {
        const d = frame.d as { token?: string; intents?: number };
        if (d.token !== token && d.token !== `Bot ${token}`) {
          ws.close(4004, 'Authentication failed.');
          return;
        }
        const intents = typeof d.intents === 'number' ? d.intents : 0;
        gatewayState.identifies.push({ intents, at: Date.now() });
        if ((intents & MESSAGE_CONTENT_INTENT) !== 0 && opts.messageContentIntent === false) {
          ws.close(4014, 'Disallowed intent(s).');
          return;
        }
        conn.session = gatewayState.newSession(intents);
        dispatch(conn, 'READY', {
          v: 10,
          user: bot,
          guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
          session_id: conn.session.id,
          resume_gateway_url: base.replace(/^http/, 'ws'),
          application: { id: applicationId, flags: 0 },
          private_channels: [],
        });
        for (const g of guilds) dispatch(conn, 'GUILD_CREATE', guildObject(g));
        conn.identified = true;
        identifyCount++;
      } else if (frame.op === 6) {
        gatewayState.resume(conn, frame.d as { token?: string; session_id?: string; seq?: number });
      }
    });
  });

  /** Sends a dispatch on `conn`, numbered in its gateway session (kept for RESUME replays). */
  function dispatch(conn: GatewayConn, t: string, d: unknown): void {
    const session = conn.session;
    if (!session) return;
    session.seq += 1;
    session.log.push({ s: session.seq, t, d });
    if (session.log.length > 1000) session.log.shift();
    conn.ws.send(JSON.stringify({ op: 0, t, s: session.seq, d }));
  }

  // ---- Gateway sessions, close codes, interactions and command registration ----

  /**
   * RESUME with replays, disconnects with close codes, history fetches with `after`, the 1-hour edit cap (30046),
   * slash-command interactions (callbacks and `@original` edits) and application command registration.
   */
  function createGatewayState() {
    const sessions = new Map<string, GatewaySession>();
    let sessionCount = 0;
    let resumeCount = 0;
    let pendingReplay = 0;
    const registered = new Map<string, FakeAppCommand[]>();
    const interactions = new Map<string, FakeInteraction>();
    const oldEdits = new Map<string, number>();
    const identifies: { intents: number; at: number }[] = [];

    function newSession(intents: number): GatewaySession {
      sessionCount += 1;
      const session = { id: `fake-session-${sessionCount}`, seq: 0, log: [], intents };
      sessions.set(session.id, session);
      return session;
    }

    function resume(conn: GatewayConn, d: { token?: string; session_id?: string; seq?: number }): void {
      if (d.token !== token && d.token !== `Bot ${token}`) {
        conn.ws.close(4004, 'Authentication failed.');
        return;
      }
      const session = sessions.get(d.session_id ?? '');
      if (!session) {
        // Not resumable: the client must identify afresh.
        conn.ws.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
        return;
      }
      const seq = d.seq ?? 0;
      // Re-sent duplicates are ordinary dispatches (never READY or GUILD_CREATE, which a resume does not repeat).
      const duplicates = session.log
        .filter((e) => e.s <= seq && e.t !== 'READY' && e.t !== 'GUILD_CREATE' && e.t !== 'RESUMED')
        .slice(pendingReplay > 0 ? -pendingReplay : 0);
      const replay = [...(pendingReplay > 0 ? duplicates : []), ...session.log.filter((e) => e.s > seq)];
      pendingReplay = 0;
      conn.session = session;
      for (const e of replay) conn.ws.send(JSON.stringify({ op: 0, t: e.t, s: e.s, d: e.d }));
      conn.identified = true;
      resumeCount += 1;
      dispatch(conn, 'RESUMED', null);
    }

    function route(
      method: string,
      path: string,
      body: Record<string, unknown> | undefined,
      _url: URL,
    ): { status: number; body?: unknown } | null {
      let m: RegExpExecArray | null;
      if ((m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path))) {
        if (m[1] !== applicationId) return { status: 403, body: { message: 'Missing Access', code: 50001 } };
        const scope = m[2] ?? 'global';
        if (method === 'GET') return { status: 200, body: registered.get(scope) ?? [] };
        if (method !== 'PUT') return null;
        const list = Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
        const bad = list.find((c) => typeof c.name !== 'string' || !/^[-_\p{L}\p{N}]{1,32}$/u.test(c.name));
        if (bad)
          return { status: 400, body: invalidForm('name', 'APPLICATION_COMMAND_INVALID_NAME', 'Bad name') };
        const prior = registered.get(scope) ?? [];
        const stored = list.map((c) => ({
          ...c,
          id: prior.find((p) => p.name === c.name)?.id ?? snowflake(),
          application_id: applicationId,
          version: snowflake(),
          type: 1,
        })) as unknown as FakeAppCommand[];
        registered.set(scope, stored);
        return { status: 200, body: stored };
      }
      if ((m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path)) && method === 'POST') {
        const it = interactions.get(m[1] ?? '');
        if (!it || it.token !== m[2])
          return { status: 404, body: { message: 'Unknown interaction', code: 10062 } };
        const afterMs = Date.now() - it.dispatchedAt;
        if (it.callbacks.length > 0)
          return {
            status: 400,
            body: { message: 'Interaction has already been acknowledged.', code: 40060 },
          };
        if (afterMs > INTERACTION_ACK_MS)
          return { status: 404, body: { message: 'Unknown interaction', code: 10062 } };
        const b = body ?? {};
        const type = typeof b.type === 'number' ? b.type : 0;
        const data = (b.data ?? undefined) as Record<string, unknown> | undefined;
        it.callbacks.push({ type, ...(data ? { data } : {}), afterMs });
        const clicked = it.messageId ? messages.find((x) => x.id === it.messageId) : undefined;
        if ((type === 6 || type === 7) && !clicked)
          return { status: 400, body: { message: 'Interaction has no message to update', code: 50035 } };
        if (clicked && (type === 6 || type === 7)) {
          it.response = clicked;
          if (type === 7) applyEdit(clicked, data ?? {});
        } else if (type === 4 || type === 5) {
          const content = type === 4 && typeof data?.content === 'string' ? data.content : '';
          it.response = botMessage(it.channelId, content, typeof data?.flags === 'number' ? data.flags : 0);
        }
        return { status: 204 };
      }
      if ((m = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/@original)?$/.exec(path))) {
        const it = [...interactions.values()].find((x) => x.token === m?.[2]);
        if (!it || m[1] !== applicationId)
          return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
        const b = body ?? {};
        if (m[3] && method === 'PATCH') {
          if (!it.response) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
          applyEdit(it.response, b);
          return { status: 200, body: wire(it.response) };
        }
        if (!m[3] && method === 'POST') {
          const followup = botMessage(
            it.channelId,
            typeof b.content === 'string' ? b.content : '',
            typeof b.flags === 'number' ? b.flags : 0,
          );
          it.followups.push(followup);
          return { status: 200, body: wire(followup) };
        }
      }
      return null;
    }

    /** An edit through an interaction (UPDATE_MESSAGE, `@original`): content and components. */
    function applyEdit(message: FakeMessage, b: Record<string, unknown>): void {
      if (typeof b.content === 'string') {
        message.content = b.content;
        message.history.push(b.content);
      }
      if (Array.isArray(b.components)) message.components = b.components;
      message.edited_timestamp = new Date().toISOString();
    }

    function botMessage(channelId: string, content: string, flags: number): FakeMessage {
      const channel = channels.get(channelId);
      const created: FakeMessage = {
        id: snowflake(),
        channel_id: channelId,
        ...(typeof channel?.guild_id === 'string' ? { guild_id: channel.guild_id } : {}),
        author: bot,
        content,
        flags,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        history: [content],
      };
      messages.push(created);
      return created;
    }

    /** `GET /channels/{id}/messages` with `after`, `before` and `limit` (1-100, default 50), newest first. */
    function history(channelId: string, q: URLSearchParams): Record<string, unknown>[] {
      const after = q.get('after');
      const before = q.get('before');
      const limit = Math.min(100, Math.max(1, Number(q.get('limit') ?? 50) || 50));
      let list = messages
        .filter((x) => x.channel_id === channelId)
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      if (after) list = list.filter((x) => BigInt(x.id) > BigInt(after)).slice(0, limit);
      else {
        if (before) list = list.filter((x) => BigInt(x.id) < BigInt(before));
        list = list.slice(-limit);
      }
      return list.reverse().map((x) => {
        const w = wire(x);
        // Without the Message Content intent enabled in the portal, REST shows no content either.
        if (opts.messageContentIntent === false && w.guild_id !== undefined && !addressesBot(x.content))
          return { ...w, content: '' };
        return w;
      });
    }

    function oldEditRefused(message: FakeMessage): boolean {
      if (Date.now() - Date.parse(message.timestamp) < 3_600_000) return false;
      const n = (oldEdits.get(message.id) ?? 0) + 1;
      oldEdits.set(message.id, n);
      return n > (opts.oldMessageEdits ?? 3);
    }

    function injectCommand(o: InjectCommandOptions): FakeInteraction {
      let channel = channels.get(o.channelId);
      if (o.dm && !channel) {
        channel = { id: o.channelId, type: 1, last_message_id: null, recipients: [userObject(o.author)] };
        channels.set(o.channelId, channel);
      }
      if (!channel) throw new Error(`fake discord: channel ${o.channelId} was not declared in a guild`);
      const user = userObject(o.author);
      const id = snowflake();
      const interactionToken = `itoken-${id}-${Math.random().toString(36).slice(2)}`;
      const guildId = o.dm ? undefined : (channel.guild_id as string);
      const options = Object.entries(o.options ?? {}).map(([name, value]) => ({ name, type: 3, value }));
      const payload: Record<string, unknown> = {
        id,
        application_id: applicationId,
        type: 2,
        data: { id: snowflake(), name: o.name, type: 1, ...(options.length > 0 ? { options } : {}) },
        channel_id: o.channelId,
        channel,
        token: interactionToken,
        version: 1,
        app_permissions: '1071698660929',
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: { '0': guildId ?? user.id },
        context: o.dm ? 1 : 0,
        attachment_size_limit: 10_485_760,
      };
      if (guildId) {
        payload.guild_id = guildId;
        payload.guild_locale = 'en-US';
        payload.member = {
          user,
          nick: o.nick ?? null,
          roles: [],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
          permissions: '1071698660929',
        };
      } else payload.user = user;
      const it: FakeInteraction = {
        id,
        token: interactionToken,
        channelId: o.channelId,
        name: o.name,
        dispatchedAt: Date.now(),
        callbacks: [],
        response: null,
        followups: [],
      };
      interactions.set(id, it);
      dispatchAll('INTERACTION_CREATE', payload);
      return it;
    }

    function clickButton(o: {
      messageId: string;
      customId: string;
      author: InjectOptions['author'];
      nick?: string;
      stale?: boolean;
    }): FakeInteraction {
      const message = messages.find((x) => x.id === o.messageId);
      if (!message) throw new Error(`fake discord: no message ${o.messageId}`);
      const buttons = (message.components ?? []).flatMap(
        (row) => ((row as { components?: unknown[] }).components ?? []) as { custom_id?: string }[],
      );
      if (!o.stale && !buttons.some((b) => b.custom_id === o.customId))
        throw new Error(`fake discord: message ${o.messageId} has no button ${o.customId}`);
      const channel = channels.get(message.channel_id);
      const user = userObject(o.author);
      const id = snowflake();
      const interactionToken = `itoken-${id}-${Math.random().toString(36).slice(2)}`;
      const guildId = typeof channel?.guild_id === 'string' ? channel.guild_id : undefined;
      const payload: Record<string, unknown> = {
        id,
        application_id: applicationId,
        type: 3,
        data: { custom_id: o.customId, component_type: 2 },
        message: wire(message),
        channel_id: message.channel_id,
        channel,
        token: interactionToken,
        version: 1,
        app_permissions: '1071698660929',
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: { '0': guildId ?? user.id },
        context: guildId ? 0 : 1,
        attachment_size_limit: 10_485_760,
      };
      if (guildId) {
        payload.guild_id = guildId;
        payload.guild_locale = 'en-US';
        payload.member = {
          user,
          nick: o.nick ?? null,
          roles: [],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
          permissions: '1071698660929',
        };
      } else payload.user = user;
      const it: FakeInteraction = {
        id,
        token: interactionToken,
        channelId: message.channel_id,
        name: o.customId,
        messageId: message.id,
        dispatchedAt: Date.now(),
        callbacks: [],
        response: null,
        followups: [],
      };
      interactions.set(id, it);
      dispatchAll('INTERACTION_CREATE', payload);
      return it;
    }

    function dispatchAll(event: string, data: unknown): void {
      let delivered = 0;
      for (const conn of sockets) {
        if (!conn.identified) continue;
        dispatch(conn, event, data);
        delivered++;
      }
      if (delivered === 0) throw new Error('fake discord: no identified gateway connection');
    }

    const control: FakeGatewayControl = {
      identifies,
      resumes: () => resumeCount,
      connected: () => [...sockets].some((c) => c.identified),
      disconnect(o = {}) {
        if (o.invalidate) sessions.clear();
        pendingReplay = o.replay ?? 0;
        for (const conn of sockets) {
          conn.identified = false;
          conn.ws.close(o.code ?? 4000, o.reason ?? 'Unknown error.');
        }
      },
      dispatchAll,
      commands: (guildId) => registered.get(guildId ?? 'global'),
      injectCommand,
      clickButton,
      interaction: (id) => interactions.get(id),
    };
    return { identifies, newSession, resume, route, history, oldEditRefused, control };
  }

  /** Whether stored content addresses the bot (its user or managed-role mention). */
  function addressesBot(content: string): boolean {
    return (
      content.includes(`<@${bot.id}>`) || [...botRoles.values()].some((r) => content.includes(`<@&${r}>`))
    );
  }

  /**
   * A guild message as a connection without the Message Content intent sees it: no content, attachments or embeds
   * unless it mentions the bot (DMs always carry content).
   */
  function contentFor(conn: GatewayConn, payload: Record<string, unknown>): Record<string, unknown> {
    const intents = conn.session?.intents ?? 0;
    if ((intents & MESSAGE_CONTENT_INTENT) !== 0 || payload.guild_id === undefined) return payload;
    const mentions = (payload.mentions as FakeUser[] | undefined) ?? [];
    if (mentions.some((u) => u.id === bot.id) || addressesBot(String(payload.content))) return payload;
    return { ...payload, content: '', attachments: [], embeds: [] };
  }

  /** Rate-limit headers of a 429, as Discord sends them. */
  function rateLimitHeaders(retryAfterS: number, global: boolean, route: string): Record<string, string> {
    return {
      'retry-after': String(Math.ceil(retryAfterS)),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String((Date.now() + retryAfterS * 1000) / 1000),
      'x-ratelimit-reset-after': String(retryAfterS),
      'x-ratelimit-bucket': createHash('sha1').update(route).digest('hex').slice(0, 16),
      'x-ratelimit-scope': global ? 'global' : 'user',
      ...(global ? { 'x-ratelimit-global': 'true' } : {}),
    };
  }

  function guildObject(g: FakeGuildSpec): Record<string, unknown> {
    const now = new Date().toISOString();
    return {
      id: g.id,
      name: g.name ?? `guild-${g.id}`,
      icon: null,
      splash: null,
      discovery_splash: null,
      owner_id: bot.id,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: [
        {
          id: g.id,
          name: '@everyone',
          color: 0,
          hoist: false,
          position: 0,
          permissions: '1071698660929',
          managed: false,
          mentionable: false,
          flags: 0,
        },
        botRoleObject(g.id),
      ],
      emojis: [],
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      preferred_locale: 'en-US',
      public_updates_channel_id: null,
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      stickers: [],
      joined_at: now,
      large: false,
      unavailable: false,
      member_count: 2,
      voice_states: [],
      members: [
        {
          user: bot,
          nick: null,
          roles: [botRoles.get(g.id)],
          joined_at: now,
          deaf: false,
          mute: false,
          flags: 0,
        },
      ],
      channels: g.channels.map((c) => channels.get(c.id)),
      threads: (g.threads ?? []).map((t) => channels.get(t.id)),
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  const fake: FakeDiscord = {
    apiUrl: `${base}/api`,
    gatewayUrl: base.replace(/^http/, 'ws'),
    token,
    bot,
    calls,
    messages,
    botMessages: (channelId) =>
      messages.filter(
        (x) => x.author.id === bot.id && (channelId === undefined || x.channel_id === channelId),
      ),
    callsTo: (route) => calls.filter((c) => c.route === route),
    injectMessage(o) {
      let guildId: string | undefined;
      if (o.dm) {
        if (!channels.has(o.channelId)) {
          channels.set(o.channelId, {
            id: o.channelId,
            type: 1,
            last_message_id: null,
            recipients: [userObject(o.author)],
          });
        }
      } else {
        const channel = channels.get(o.channelId);
        if (!channel) throw new Error(`fake discord: channel ${o.channelId} was not declared in a guild`);
        guildId = channel.guild_id as string;
      }
      const author = userObject(o.author);
      let content = o.content ?? '';
      if (o.mentionBot && !content.includes(`<@${bot.id}>`)) content = `<@${bot.id}> ${content}`;
      const id = snowflake();
      const timestamp = o.timestamp ?? new Date().toISOString();
      const stored: FakeMessage = {
        id,
        channel_id: o.channelId,
        ...(guildId ? { guild_id: guildId } : {}),
        author,
        content,
        flags: 0,
        timestamp,
        edited_timestamp: null,
        history: [content],
      };
      messages.push(stored);
      const payload: Record<string, unknown> = {
        id,
        channel_id: o.channelId,
        author,
        content,
        timestamp,
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: o.mentionBot ? [bot] : [],
        mention_roles: [],
        mention_channels: [],
        attachments: o.attachments ?? [],
        embeds: [],
        components: [],
        pinned: false,
        type: o.type ?? 0,
        flags: 0,
        nonce: snowflake(),
      };
      Object.assign(payload, roleAndReplyFields(o, payload));
      if (o.dm) payload.channel_type = 1;
      else {
        payload.guild_id = guildId;
        payload.member = {
          nick: o.nick ?? null,
          roles: [],
          joined_at: timestamp,
          deaf: false,
          mute: false,
          flags: 0,
        };
      }
      if (o.offline) return payload;
      let delivered = 0;
      for (const conn of sockets) {
        if (!conn.identified) continue;
        dispatch(conn, 'MESSAGE_CREATE', contentFor(conn, payload));
        delivered++;
      }
      if (delivered === 0) throw new Error('fake discord: no identified gateway connection');
      return payload;
    },
    dmChannelOf: (userId) => dmChannels.get(userId),
    botRoleId: (guildId) => {
      const id = botRoles.get(guildId);
      if (id === undefined) throw new Error(`fake discord: unknown guild ${guildId}`);
      return id;
    },
    addAttachment(filename, content, contentType = 'application/octet-stream', o = {}) {
      const id = snowflake();
      const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      const path = `/attachments/${id}/${encodeURIComponent(filename)}`;
      files.set(path, { body, contentType, delayMs: o.delayMs ?? 0 });
      return {
        id,
        filename,
        size: body.length,
        url: `${base}${path}?ex=fake`,
        proxy_url: `${base}${path}?ex=fake`,
        content_type: contentType,
      };
    },
    failNext(route, failure, count = 1, skip = 0) {
      failures.push({ route, failure, remaining: count, skip });
    },
    setNonceWindowMs(ms) {
      nonceWindowMs = ms;
    },
    clearFailures() {
      failures.length = 0;
    },
    gateway: gatewayState.control,
    ageMessage(id, ms) {
      const x = messages.find((y) => y.id === id);
      if (!x) throw new Error(`fake discord: no message ${id}`);
      x.timestamp = new Date(Date.parse(x.timestamp) - ms).toISOString();
    },
    editUserMessage: (id, content, o) => editUserMessage(id, content, o),
    deleteUserMessage: (id) => deleteUserMessage(id),
    reactionsOf: (id) => [...(messages.find((x) => x.id === id)?.reactions ?? [])],
    channel: (id) => channels.get(id),
    waitForIdentify: (timeoutMs = 10_000) =>
      fake.waitFor(() => identifyCount > 0, timeoutMs, 'gateway IDENTIFY').then(() => undefined),
    async waitFor(fn, timeoutMs = 15_000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = fn();
        if (v !== undefined && v !== null && v !== false) return v;
        if (Date.now() > deadline)
          throw new Error(`fake discord: ${what} not reached within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const conn of sockets) conn.ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;

  function userObject(u: InjectOptions['author']): FakeUser {
    return {
      id: u.id,
      username: u.username,
      global_name: u.global_name ?? null,
      discriminator: '0',
      avatar: null,
      bot: u.bot ?? false,
    };
  }

  /** The bot's managed role object in GUILD_CREATE. */
  function botRoleObject(guildId: string): Record<string, unknown> {
    return {
      id: botRoles.get(guildId),
      name: bot.username,
      color: 0,
      hoist: false,
      position: 1,
      permissions: '1071698660929',
      managed: true,
      mentionable: true,
      flags: 0,
      tags: { bot_id: bot.id },
    };
  }

  /**
   * Role mentions and replies for an injected message: `mention_roles` (and `<@&id>` in the content), and for a
   * reply type 19 with `message_reference` and `referenced_message` (plus the replied-to author in `mentions` when
   * the reply pings). Also updates the stored copy's content.
   */
  function roleAndReplyFields(o: InjectOptions, payload: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let content = payload.content as string;
    for (const r of o.mentionRoles ?? []) if (!content.includes(`<@&${r}>`)) content = `<@&${r}> ${content}`;
    if (content !== payload.content) {
      out.content = content;
      const stored = messages.find((x) => x.id === payload.id);
      if (stored) {
        stored.content = content;
        stored.history = [content];
      }
    }
    if (o.mentionRoles) out.mention_roles = o.mentionRoles;
    if (o.replyTo) {
      const target = messages.find((x) => x.id === o.replyTo?.messageId);
      if (!target) throw new Error(`fake discord: no message ${o.replyTo.messageId} to reply to`);
      out.type = 19;
      out.message_reference = {
        type: 0,
        message_id: target.id,
        channel_id: target.channel_id,
        ...(target.guild_id ? { guild_id: target.guild_id } : {}),
      };
      out.referenced_message = wire(target);
      if (o.replyTo.ping !== false) {
        const mentions = payload.mentions as FakeUser[];
        if (!mentions.some((u) => u.id === target.author.id)) out.mentions = [...mentions, target.author];
      }
    }
    return out;
  }

  function wire(x: FakeMessage): Record<string, unknown> {
    return {
      id: x.id,
      channel_id: x.channel_id,
      ...(x.guild_id ? { guild_id: x.guild_id } : {}),
      author: x.author,
      content: x.content,
      timestamp: x.timestamp,
      edited_timestamp: x.edited_timestamp,
      tts: false,
      mention_everyone: false,
      // Read back from the content, as a history fetch returns them.
      mentions: x.content.includes(`<@${bot.id}>`) ? [bot] : [],
      mention_roles: [...x.content.matchAll(/<@&(\d+)>/g)].map((r) => r[1]),
      attachments: [],
      embeds: [],
      pinned: false,
      components: x.components ?? [],
      type: x.message_reference?.message_id ? 19 : 0,
      flags: x.flags,
      ...(x.nonce !== undefined ? { nonce: x.nonce } : {}),
      ...(x.message_reference ? { message_reference: { type: 0, ...x.message_reference } } : {}),
      ...(x.reactions && x.reactions.length > 0
        ? {
            reactions: x.reactions.map((name) => ({
              count: 1,
              me: true,
              emoji: { id: null, name },
            })),
          }
        : {}),
    };
  }

  // ---- edits, deletes, reactions, uploads, threads -------------------------------------------------------------

  /** REST routes of the chat extras; null when `path` is none of them. */
  function handleChatExtras(
    method: string,
    path: string,
    body: Record<string, unknown> | undefined,
  ): { status: number; payload?: unknown } | null {
    let m: RegExpExecArray | null;
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/.exec(path))) {
      if (method !== 'PUT' && method !== 'DELETE')
        return { status: 405, payload: { message: '405', code: 0 } };
      const message = messages.find((x) => x.channel_id === m?.[1] && x.id === m[2]);
      if (!message) return { status: 404, payload: { message: 'Unknown Message', code: 10008 } };
      const emoji = decodeURIComponent(m[3] ?? '');
      const own = (message.reactions ??= []);
      if (method === 'PUT' && !own.includes(emoji)) own.push(emoji);
      if (method === 'DELETE' && own.includes(emoji)) own.splice(own.indexOf(emoji), 1);
      return { status: 204 };
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/.exec(path)) && method === 'POST') {
      const parent = channels.get(m[1] ?? '');
      const message = messages.find((x) => x.channel_id === m?.[1] && x.id === m[2]);
      if (!parent || !message) return { status: 404, payload: { message: 'Unknown Message', code: 10008 } };
      if (channels.has(message.id))
        return {
          status: 400,
          payload: { message: 'A thread has already been created for this message', code: 160004 },
        };
      const name = typeof body?.name === 'string' ? body.name : '';
      if (name.length < 1 || name.length > 100)
        return { status: 400, payload: invalidForm('name', 'BASE_TYPE_BAD_LENGTH', 'Must be 1-100 long.') };
      const thread = threadObject(String(parent.guild_id), message.id, String(parent.id), name, bot.id);
      channels.set(message.id, thread);
      for (const conn of sockets)
        if (conn.identified) dispatch(conn, 'THREAD_CREATE', { ...thread, newly_created: true });
      return { status: 201, payload: thread };
    }
    return null;
  }

  function editUserMessage(
    messageId: string,
    content: string,
    opts: { mentionBot?: boolean } = {},
  ): Record<string, unknown> {
    const message = messages.find((x) => x.id === messageId);
    if (!message) throw new Error(`fake discord: no message ${messageId} to edit`);
    const text = opts.mentionBot && !content.includes(`<@${bot.id}>`) ? `<@${bot.id}> ${content}` : content;
    message.content = text;
    message.history.push(text);
    message.edited_timestamp = new Date().toISOString();
    const payload: Record<string, unknown> = {
      ...wire(message),
      mentions: text.includes(`<@${bot.id}>`) ? [bot] : [],
      ...(message.guild_id
        ? {
            member: {
              nick: null,
              roles: [],
              joined_at: message.timestamp,
              deaf: false,
              mute: false,
              flags: 0,
            },
          }
        : { channel_type: 1 }),
    };
    broadcast('MESSAGE_UPDATE', payload);
    return payload;
  }

  function deleteUserMessage(messageId: string): void {
    const i = messages.findIndex((x) => x.id === messageId);
    const message = messages[i];
    if (!message) throw new Error(`fake discord: no message ${messageId} to delete`);
    messages.splice(i, 1);
    broadcast('MESSAGE_DELETE', {
      id: message.id,
      channel_id: message.channel_id,
      ...(message.guild_id ? { guild_id: message.guild_id } : {}),
    });
  }

  function broadcast(t: string, d: unknown): void {
    let delivered = 0;
    for (const conn of sockets) {
      if (!conn.identified) continue;
      dispatch(conn, t, d);
      delivered++;
    }
    if (delivered === 0) throw new Error('fake discord: no identified gateway connection');
  }
}

function channelObject(guildId: string, id: string, name: string): Record<string, unknown> {
  return {
    id,
    type: 0,
    guild_id: guildId,
    name,
    position: 0,
    permission_overwrites: [],
    parent_id: null,
    nsfw: false,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
  };
}

function threadObject(
  guildId: string,
  id: string,
  parentId: string,
  name: string,
  ownerId: string,
): Record<string, unknown> {
  return {
    id,
    type: 11,
    guild_id: guildId,
    parent_id: parentId,
    owner_id: ownerId,
    name,
    last_message_id: null,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    flags: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
    },
  };
}

/** Discord's validation of message content: 400/50035 over 2000 characters, 400/50006 when nothing is sent. */
function contentProblem(content: string, body: Record<string, unknown>): Record<string, unknown> | null {
  if (content.length > MAX_CONTENT)
    return invalidForm('content', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_CONTENT} or fewer in length.`);
  const hasOther = Array.isArray(body.embeds) && body.embeds.length > 0;
  if (body.edit !== true && content.trim() === '' && !hasOther)
    return { message: 'Cannot send an empty message', code: 50006 };
  return null;
}

/** A multipart create: `payload_json` as the body, `files[n]` as text uploads. */
async function parseMultipart(
  raw: string,
  contentType: string,
): Promise<{ body: Record<string, unknown>; uploads: { name: string; content: string }[] }> {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  const json = form.get('payload_json');
  const body = typeof json === 'string' ? (JSON.parse(json) as Record<string, unknown>) : {};
  const uploads: { name: string; content: string }[] = [];
  for (const [key, value] of form.entries()) {
    if (/^files\[\d+\]$/.test(key) && typeof value !== 'string')
      uploads.push({ name: value.name, content: await value.text() });
  }
  return { body, uploads };
}

function invalidForm(field: string, code: string, message: string): Record<string, unknown> {
  return { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code, message }] } } };
}

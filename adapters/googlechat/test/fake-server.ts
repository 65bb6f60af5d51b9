/**
 * A fake Google on 127.0.0.1 for the Google Chat channel, speaking the real wire formats to the real client
 * libraries (`@googleapis/chat`, `google-auth-library`, `jose`):
 *
 * - Google Chat's side of an HTTP Chat app: {@link FakeGoogleChat.postEvent} POSTs an interaction event to the
 *   app's endpoint with `Authorization: Bearer <JWT>`, a token minted like Chat's (RS256, issuer
 *   `chat@system.gserviceaccount.com`, audience the project number) by {@link FakeGoogleChat.signToken};
 * - the key set those tokens verify with (`GET /jwks`, a JWK Set);
 * - the OAuth 2.0 token endpoint (`POST /token`, grant `urn:ietf:params:oauth:grant-type:jwt-bearer`): the
 *   assertion must be signed with the service account key of {@link FakeGoogleChat.credentialsFile} and ask for
 *   the `chat.bot` scope; it returns a bearer access token;
 * - the Chat REST API under `/v1/`: `spaces.messages.create` (client-assigned `messageId` in `client-…` form, 409
 *   ALREADY_EXISTS when it is taken, `thread.name` honoured with `messageReplyOption`, 400 for text over 4096
 *   characters), `spaces.messages.patch` (fields of `updateMask`) and `spaces.messages.get`; `media.download`
 *   (`GET /v1/media/{resourceName}?alt=media`: the bytes of a file put there with {@link FakeGoogleChat.addMedia},
 *   with its Content-Type and Content-Length; without `alt=media` the Media resource as JSON). Requests without a
 *   token the fake issued get 401 UNAUTHENTICATED. Errors use Google's JSON error format.
 *
 * A MESSAGE event posted through {@link FakeGoogleChat.postEvent} is kept as the user's message, so
 * `spaces.messages.get` finds it (its `sender`) as on Chat; {@link cardClickedEvent} builds the CARD_CLICKED event
 * of a click on a card button.
 *
 * Every API and token call is recorded in {@link FakeGoogleChat.calls}; {@link FakeGoogleChat.failNext} makes the
 * next N calls of a route fail, either before anything happens or after the write was applied (the response is
 * lost to the client: a retry must not post twice).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, exportJWK, exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import { readBody, sendJson } from '../../../test/fakes/http.ts';

/** A message as the fake keeps it (the Chat resource plus what happened to it). */
/** How long Chat waits for an HTTP app's answer to an interaction event, ms. */
export const CHAT_ANSWER_WAIT_MS = 30_000;

export interface FakeChatMessage {
  name: string;
  text?: string;
  cardsV2?: unknown[];
  thread: { name: string };
  space: { name: string };
  createTime: string;
  clientAssignedMessageId?: string;
  sender: { name: string; type: 'BOT' };
  /** Every state the message had, oldest first: the create, then each patch. */
  history: { text?: string; cardsV2?: unknown[] }[];
}

/** The routes {@link FakeGoogleChat.failNext} can fail. */
export type FakeRoute = 'create' | 'patch' | 'get' | 'token' | 'media';

/** One call as the fake saw it. */
export interface FakeCall {
  route: FakeRoute | 'unknown';
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown> | undefined;
  status: number;
}

/**
 * How a failed call fails: `error` answers `status` before anything happens; `after_write` applies the call
 * (creates or patches the message) and then answers `status`, as a response lost after the write.
 */
export type FakeFailure = { kind: 'error' | 'after_write'; status: number };

/** A Chat API Attachment resource, as it appears in a MESSAGE event. */
export interface FakeChatAttachment {
  name: string;
  contentName: string;
  contentType: string;
  source: 'UPLOADED_CONTENT' | 'DRIVE_FILE';
  attachmentDataRef?: { resourceName: string };
  driveDataRef?: { driveFileId: string };
  downloadUri?: string;
  thumbnailUri?: string;
}

/** A Drive file attachment (no bytes: the app is given a reference only). */
export function driveAttachment(o: {
  fileId: string;
  name: string;
  contentType: string;
}): FakeChatAttachment {
  return {
    name: `spaces/S/messages/M/attachments/${o.fileId}`,
    contentName: o.name,
    contentType: o.contentType,
    source: 'DRIVE_FILE',
    driveDataRef: { driveFileId: o.fileId },
  };
}

/** What {@link FakeGoogleChat.postEvent} can change about the token. */
export interface TokenOptions {
  audience?: string;
  issuer?: string;
  /** Seconds until expiry; negative for an expired token. Default 3600. */
  expiresInS?: number;
  /** Sign with a key outside the key set (a forged token). */
  foreignKey?: boolean;
  /** Extra claims (an ID token's `email`, `email_verified`). */
  claims?: Record<string, unknown>;
}

export interface FakeGoogleChat {
  /** Base URL (`http://127.0.0.1:port`). */
  url: string;
  /** GOOGLE_CHAT_API_URL. */
  apiUrl: string;
  /** GOOGLE_CHAT_TOKEN_URL. */
  tokenUrl: string;
  /** GOOGLE_CHAT_JWKS_URL. */
  jwksUrl: string;
  /** GOOGLE_CHAT_AUDIENCE (the "project number"). */
  projectNumber: string;
  /** GOOGLE_CHAT_CREDENTIALS_FILE: a service account key the token endpoint accepts. */
  credentialsFile: string;
  calls: FakeCall[];
  /** Messages created, by name. */
  messages: Map<string, FakeChatMessage>;
  /** Messages in `space` (`spaces/S`), in creation order. */
  messagesIn(space: string): FakeChatMessage[];
  /** A token like the ones Chat sends to the app. */
  signToken(opts?: TokenOptions): Promise<string>;
  /**
   * POSTs `event` to the app's endpoint as Chat does; `token` null sends no Authorization header, a string sends
   * it as is, options mint one. Like Chat, it waits {@link CHAT_ANSWER_WAIT_MS} for the answer: an app that did not
   * answer by then gets status 0 (Chat shows the user that the app is not responding).
   */
  postEvent(
    endpoint: string,
    event: unknown,
    token?: string | null | TokenOptions,
  ): Promise<{ status: number; body: string }>;
  /**
   * Puts a file the app may download with media.download, as if a user uploaded it to a message.
   * @returns the attachment as Chat puts it in `message.attachment[]` (source UPLOADED_CONTENT)
   */
  addMedia(file: { name: string; contentType: string; bytes: Uint8Array | string }): FakeChatAttachment;
  failNext(route: FakeRoute, failure: FakeFailure, times?: number): void;
  clearFailures(): void;
  /** Polls `fn` every 20 ms until it returns a value that is not undefined/false/null. */
  waitFor<T>(fn: () => T | undefined | null | false, timeoutMs?: number, what?: string): Promise<T>;
  close(): Promise<void>;
}

const CHAT_ISSUER = 'chat@system.gserviceaccount.com';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const CHAT_BOT_SCOPE = 'https://www.googleapis.com/auth/chat.bot';
const MAX_TEXT = 4096;

function googleError(res: ServerResponse, code: number, status: string, message: string): void {
  sendJson(res, code, { error: { code, message, status } });
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Starts the fake on an ephemeral port. */
export async function startFakeGoogleChat(): Promise<FakeGoogleChat> {
  const chatKeys = await generateKeyPair('RS256', { extractable: true });
  const foreignKeys = await generateKeyPair('RS256', { extractable: true });
  const saKeys = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...(await exportJWK(chatKeys.publicKey)), kid, alg: 'RS256', use: 'sig' };
  const projectNumber = String(100_000_000_000 + Math.floor(Math.random() * 1e9));
  const saEmail = 'kesoku-test@fake-project.iam.gserviceaccount.com';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-gchat-'));
  const credentialsFile = path.join(dir, 'service-account.json');

  const calls: FakeCall[] = [];
  const messages = new Map<string, FakeChatMessage>();
  /** Users' messages from posted MESSAGE events, by name (only `spaces.messages.get` reads them). */
  const userMessages = new Map<string, Record<string, unknown>>();
  const accessTokens = new Set<string>();
  const media = new Map<string, { contentType: string; bytes: Buffer }>();
  const failures = new Map<FakeRoute, { failure: FakeFailure; left: number }>();
  let threadCounter = 0;

  function takeFailure(route: FakeRoute): FakeFailure | null {
    const f = failures.get(route);
    if (!f || f.left <= 0) return null;
    f.left -= 1;
    if (f.left <= 0) failures.delete(route);
    return f.failure;
  }

  async function token(req: IncomingMessage, res: ServerResponse, call: FakeCall): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    call.body = Object.fromEntries(form);
    const failure = takeFailure('token');
    if (failure) return sendJson(res, failure.status, { error: 'internal_failure' });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return sendJson(res, 400, { error: 'unsupported_grant_type' });
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', saKeys.publicKey, {
        issuer: saEmail,
        audience: [GOOGLE_TOKEN_URL, tokenUrl],
      });
      if (
        !String(payload.scope ?? '')
          .split(' ')
          .includes(CHAT_BOT_SCOPE)
      )
        return sendJson(res, 400, { error: 'invalid_scope' });
    } catch (err) {
      return sendJson(res, 400, { error: 'invalid_grant', error_description: String(err) });
    }
    const access = `ya29.fake-${randomBytes(12).toString('hex')}`;
    accessTokens.add(access);
    sendJson(res, 200, { access_token: access, expires_in: 3599, token_type: 'Bearer' });
  }

  function resource(m: FakeChatMessage): Record<string, unknown> {
    const { history: _history, ...rest } = m;
    return rest;
  }

  async function chatApi(req: IncomingMessage, res: ServerResponse, url: URL, call: FakeCall): Promise<void> {
    const raw = await readBody(req);
    call.body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!auth || !accessTokens.has(auth)) return googleError(res, 401, 'UNAUTHENTICATED', 'bad credentials');
    if (req.method === 'GET' && url.pathname.startsWith('/v1/media/')) {
      call.route = 'media';
      const failure = takeFailure('media');
      if (failure)
        return googleError(res, failure.status, STATUS_NAMES[failure.status] ?? 'UNKNOWN', 'injected');
      const resourceName = decodeURIComponent(url.pathname.slice('/v1/media/'.length));
      const file = media.get(resourceName);
      if (!file) return googleError(res, 404, 'NOT_FOUND', `no media ${resourceName}`);
      if (url.searchParams.get('alt') !== 'media') return sendJson(res, 200, { resourceName });
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
      res.end(file.bytes);
      return;
    }
    const create = /^\/v1\/(spaces\/[^/]+)\/messages$/.exec(url.pathname);
    const one = /^\/v1\/(spaces\/[^/]+)\/messages\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && create?.[1]) {
      call.route = 'create';
      const space = create[1];
      const failure = takeFailure('create');
      if (failure?.kind === 'error')
        return googleError(res, failure.status, STATUS_NAMES[failure.status] ?? 'UNKNOWN', 'injected');
      const body = call.body ?? {};
      const messageId = url.searchParams.get('messageId');
      if (messageId !== null && !/^client-[a-z0-9-]{1,56}$/.test(messageId))
        return googleError(res, 400, 'INVALID_ARGUMENT', 'invalid messageId');
      const name = `${space}/messages/${messageId ?? randomBytes(8).toString('hex')}`;
      if (messages.has(name)) return googleError(res, 409, 'ALREADY_EXISTS', `${name} already exists`);
      const text = typeof body.text === 'string' ? body.text : undefined;
      const cardsV2 = Array.isArray(body.cardsV2) ? (body.cardsV2 as unknown[]) : undefined;
      if (text === undefined && cardsV2 === undefined)
        return googleError(res, 400, 'INVALID_ARGUMENT', 'message has no text or cards');
      if (text !== undefined && Array.from(text).length > MAX_TEXT)
        return googleError(res, 400, 'INVALID_ARGUMENT', 'text exceeds 4096 characters');
      const wanted = (body.thread as { name?: unknown } | undefined)?.name;
      const replyOption = url.searchParams.get('messageReplyOption');
      const thread =
        typeof wanted === 'string' && replyOption !== null && wanted.startsWith(`${space}/threads/`)
          ? wanted
          : `${space}/threads/t${++threadCounter}`;
      const m: FakeChatMessage = {
        name,
        ...(text !== undefined ? { text } : {}),
        ...(cardsV2 ? { cardsV2 } : {}),
        thread: { name: thread },
        space: { name: space },
        createTime: new Date().toISOString(),
        ...(messageId !== null ? { clientAssignedMessageId: messageId } : {}),
        sender: { name: 'users/app', type: 'BOT' },
        history: [{ ...(text !== undefined ? { text } : {}), ...(cardsV2 ? { cardsV2 } : {}) }],
      };
      messages.set(name, m);
      if (failure)
        return googleError(res, failure.status, STATUS_NAMES[failure.status] ?? 'UNKNOWN', 'injected');
      return sendJson(res, 200, resource(m));
    }
    if (one?.[1] && one[2]) {
      const name = `${one[1]}/messages/${one[2]}`;
      const m = messages.get(name);
      if (req.method === 'GET') {
        call.route = 'get';
        const failure = takeFailure('get');
        if (failure)
          return googleError(res, failure.status, STATUS_NAMES[failure.status] ?? 'UNKNOWN', 'injected');
        const fromUser = userMessages.get(name);
        if (!m && fromUser) return sendJson(res, 200, fromUser);
        return m ? sendJson(res, 200, resource(m)) : googleError(res, 404, 'NOT_FOUND', `${name} not found`);
      }
      if (req.method === 'PATCH') {
        call.route = 'patch';
        const failure = takeFailure('patch');
        if (failure?.kind === 'error')
          return googleError(res, failure.status, STATUS_NAMES[failure.status] ?? 'UNKNOWN', 'injected');
        if (!m) return googleError(res, 404, 'NOT_FOUND', `${name} not found`);
        const mask = (url.searchParams.get('updateMask') ?? '').split(',').map((s) => s.trim());
        const body = call.body ?? {};
        if (mask.includes('text') && typeof body.text === 'string') m.text = body.text;
        if (mask.includes('cardsV2') && Array.isArray(body.cardsV2)) m.cardsV2 = body.cardsV2 as unknown[];
        if (!mask.includes('text') && !mask.includes('cardsV2'))
          return googleError(res, 400, 'INVALID_ARGUMENT', 'updateMask names no updatable field');
        m.history.push({
          ...(m.text !== undefined ? { text: m.text } : {}),
          ...(m.cardsV2 ? { cardsV2: m.cardsV2 } : {}),
        });
        if (failure)
          return googleError(res, failure.status, STATUS_NAMES[failure.status] ?? 'UNKNOWN', 'injected');
        return sendJson(res, 200, resource(m));
      }
    }
    googleError(res, 404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const call: FakeCall = {
      route: 'unknown',
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      status: 0,
    };
    res.on('finish', () => (call.status = res.statusCode));
    const run = async () => {
      if (req.method === 'GET' && url.pathname === '/jwks') return sendJson(res, 200, { keys: [jwk] });
      if (req.method === 'POST' && url.pathname === '/token') {
        call.route = 'token';
        calls.push(call);
        return token(req, res, call);
      }
      if (url.pathname.startsWith('/v1/')) {
        calls.push(call);
        return chatApi(req, res, url, call);
      }
      sendJson(res, 404, { error: 'not found' });
    };
    run().catch((err: unknown) => {
      if (!res.headersSent) googleError(res, 500, 'INTERNAL', String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenUrl = `${base}/token`;

  fs.writeFileSync(
    credentialsFile,
    JSON.stringify({
      type: 'service_account',
      project_id: 'fake-project',
      private_key_id: 'fake-key',
      private_key: await exportPKCS8(saKeys.privateKey as CryptoKey),
      client_email: saEmail,
      client_id: '1',
      token_uri: tokenUrl,
    }),
    { mode: 0o600 },
  );

  const fake: FakeGoogleChat = {
    url: base,
    apiUrl: `${base}/`,
    tokenUrl,
    jwksUrl: `${base}/jwks`,
    projectNumber,
    credentialsFile,
    calls,
    messages,
    messagesIn: (space) => [...messages.values()].filter((m) => m.space.name === space),
    async signToken(opts = {}) {
      const now = Math.floor(Date.now() / 1000);
      const exp = now + (opts.expiresInS ?? 3600);
      return new SignJWT(opts.claims ?? {})
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(opts.issuer ?? CHAT_ISSUER)
        .setAudience(opts.audience ?? projectNumber)
        .setIssuedAt(Math.min(now, exp - 60))
        .setExpirationTime(exp)
        .sign(opts.foreignKey ? foreignKeys.privateKey : chatKeys.privateKey);
    },
    async postEvent(endpoint, event, tokenOpt = {}) {
      const posted = event as { type?: unknown; message?: { name?: unknown } };
      if (posted.type === 'MESSAGE' && typeof posted.message?.name === 'string')
        userMessages.set(posted.message.name, posted.message as Record<string, unknown>);
      const tokenValue =
        tokenOpt === null ? null : typeof tokenOpt === 'string' ? tokenOpt : await fake.signToken(tokenOpt);
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Google-Dynamite',
          ...(tokenValue !== null ? { authorization: `Bearer ${tokenValue}` } : {}),
        },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(CHAT_ANSWER_WAIT_MS),
      }).catch((err: unknown) => {
        if (err instanceof DOMException && err.name === 'TimeoutError') return null;
        throw err;
      });
      if (res === null) return { status: 0, body: `no answer within ${CHAT_ANSWER_WAIT_MS} ms` };
      return { status: res.status, body: await res.text() };
    },
    addMedia(file) {
      const resourceName = `ClxBQUFB${randomBytes(18).toString('base64url')}`;
      media.set(resourceName, {
        contentType: file.contentType,
        bytes: typeof file.bytes === 'string' ? Buffer.from(file.bytes) : Buffer.from(file.bytes),
      });
      return {
        name: `spaces/S/messages/M/attachments/${resourceName.slice(0, 16)}`,
        contentName: file.name,
        contentType: file.contentType,
        source: 'UPLOADED_CONTENT',
        attachmentDataRef: { resourceName },
        downloadUri: `https://chat.google.com/api/get_attachment_url?url_type=DOWNLOAD_URL&content_type=${encodeURIComponent(file.contentType)}`,
      };
    },
    failNext(route, failure, times = 1) {
      failures.set(route, { failure, left: times });
    },
    clearFailures: () => failures.clear(),
    async waitFor(fn, timeoutMs = 15_000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = fn();
        if (v !== undefined && v !== null && v !== false) return v;
        if (Date.now() > deadline)
          throw new Error(`fake google chat: ${what} not reached within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fake;
}

/** A MESSAGE event as Chat sends it to an HTTP app (space, thread, sender, text). */
export function messageEvent(o: {
  space: string;
  thread?: string;
  messageId: string;
  text: string;
  user?: { name: string; displayName: string };
  dm?: boolean;
  /** `message.attachment[]` ({@link FakeGoogleChat.addMedia}, {@link driveAttachment}). */
  attachments?: FakeChatAttachment[];
}): Record<string, unknown> {
  const user = o.user ?? { name: 'users/1001', displayName: 'Alice' };
  const space = {
    name: o.space,
    type: o.dm ? 'DM' : 'ROOM',
    spaceType: o.dm ? 'DIRECT_MESSAGE' : 'SPACE',
    ...(o.dm ? { singleUserBotDm: true } : {}),
  };
  const now = new Date().toISOString();
  return {
    type: 'MESSAGE',
    eventTime: now,
    space,
    user: { ...user, type: 'HUMAN' },
    message: {
      name: `${o.space}/messages/${o.messageId}`,
      sender: { ...user, type: 'HUMAN' },
      createTime: now,
      text: o.dm ? o.text : `@Kesoku ${o.text}`,
      argumentText: o.dm ? o.text : ` ${o.text}`,
      thread: { name: o.thread ?? `${o.space}/threads/${o.messageId}` },
      space,
      ...(o.attachments ? { attachment: o.attachments } : {}),
    },
  };
}

/**
 * A CARD_CLICKED event as Chat sends it to an HTTP app when `user` clicks the button of `message` whose
 * `onClick.action` is `{function, parameters}`: `action.actionMethodName` + `action.parameters` (the legacy form)
 * and `common.invokedFunction` + `common.parameters`.
 */
export function cardClickedEvent(o: {
  message: FakeChatMessage;
  user?: { name: string; displayName: string };
  function: string;
  parameters: Record<string, string>;
}): Record<string, unknown> {
  const user = o.user ?? { name: 'users/1001', displayName: 'Alice' };
  return {
    type: 'CARD_CLICKED',
    eventTime: new Date().toISOString(),
    space: { name: o.message.space.name, type: 'ROOM', spaceType: 'SPACE' },
    user: { ...user, type: 'HUMAN' },
    message: { name: o.message.name, thread: o.message.thread, space: o.message.space },
    action: {
      actionMethodName: o.function,
      parameters: Object.entries(o.parameters).map(([key, value]) => ({ key, value })),
    },
    common: { invokedFunction: o.function, parameters: o.parameters },
  };
}

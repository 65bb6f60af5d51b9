/**
 * The Chat REST API as Kesoku uses it: Google's `@googleapis/chat` client, authenticated as the app's service
 * account (`google-auth-library` JWT, scope `chat.bot`), every base URL configurable.
 *
 * Each message Kesoku creates carries a client-assigned id (ids.ts `clientMessageId`), so a create that is
 * repeated after its first attempt was applied (a lost response, a retried activity) meets 409 ALREADY_EXISTS
 * and is counted as posted; the message's name is then known from the id alone.
 */
import fs from 'node:fs';
import { chat, type chat_v1 } from '@googleapis/chat';
import { JWT } from 'google-auth-library';
import { SinkError, type SinkFailureKind } from '../../activities/sink.ts';
import { ConfigError } from '../../infra/config.ts';
import { GOOGLE_TOKEN_URL } from './config.ts';

/** The OAuth scope of a Chat app acting as itself. */
export const CHAT_BOT_SCOPE = 'https://www.googleapis.com/auth/chat.bot';

/** The Chat API client (`chat_v1.Chat`). */
export type ChatApi = chat_v1.Chat;
/** A Chat message resource. */
export type ChatMessage = chat_v1.Schema$Message;

/** Where the client connects, and as whom. */
export interface ChatApiOptions {
  /** Path of the service account key (JSON with `client_email` and `private_key`). */
  credentialsFile: string;
  /** The API root (`https://chat.googleapis.com/`). */
  apiUrl: string;
  /** The OAuth 2.0 token endpoint (`https://oauth2.googleapis.com/token`). */
  tokenUrl: string;
}

/**
 * Builds the client. The auth library posts its JWT bearer grant to Google's fixed token URL; a request
 * interceptor on the auth client's own transport sends exactly that request to `tokenUrl` instead.
 * @throws ConfigError when the key file cannot be read or lacks `client_email` / `private_key`
 */
export function createChatApi(o: ChatApiOptions): ChatApi {
  let key: { client_email?: unknown; private_key?: unknown };
  try {
    key = JSON.parse(fs.readFileSync(o.credentialsFile, 'utf8')) as typeof key;
  } catch (err) {
    throw new ConfigError(`GOOGLE_CHAT_CREDENTIALS_FILE: cannot read ${o.credentialsFile}: ${String(err)}`);
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string')
    throw new ConfigError(
      'GOOGLE_CHAT_CREDENTIALS_FILE: not a service account key (client_email, private_key)',
    );
  const auth = new JWT({ email: key.client_email, key: key.private_key, scopes: [CHAT_BOT_SCOPE] });
  if (o.tokenUrl !== GOOGLE_TOKEN_URL) {
    const tokenUrl = new URL(o.tokenUrl);
    auth.transporter.interceptors.request.add({
      resolved: async (config) => {
        if (config.url.href === GOOGLE_TOKEN_URL) config.url = new URL(tokenUrl);
        return config;
      },
    });
  }
  return chat({ version: 'v1', auth, rootUrl: o.apiUrl.endsWith('/') ? o.apiUrl : `${o.apiUrl}/` });
}

/** The HTTP status and Google's error status (`ALREADY_EXISTS`, …) of a failed call, when the API answered. */
export function apiErrorOf(err: unknown): { status?: number; reason?: string } {
  if (typeof err !== 'object' || err === null) return {};
  const e = err as { status?: unknown; response?: { status?: unknown; data?: unknown } };
  const status =
    typeof e.status === 'number'
      ? e.status
      : typeof e.response?.status === 'number'
        ? e.response.status
        : undefined;
  const data = e.response?.data as { error?: { status?: unknown } } | undefined;
  const reason = typeof data?.error?.status === 'string' ? data.error.status : undefined;
  return { status, reason };
}

/**
 * A failed call as the sink boundary's {@link SinkError}: `permanent` for 400, 403 and 404 (a space the app left,
 * a message Chat will never take), `transient` for anything else (network, 429, 5xx, token trouble).
 */
export class GoogleChatSendError extends SinkError {
  readonly status?: number;
  constructor(kind: SinkFailureKind, message: string, options: ErrorOptions & { status?: number } = {}) {
    super(kind, message, options);
    this.name = 'GoogleChatSendError';
    this.status = options.status;
  }
}

/** Wraps any error of a Chat call in a {@link GoogleChatSendError}. */
export function toSendError(err: unknown, what: string): GoogleChatSendError {
  if (err instanceof GoogleChatSendError) return err;
  const { status, reason } = apiErrorOf(err);
  const permanent = status === 400 || status === 403 || status === 404;
  return new GoogleChatSendError(
    permanent ? 'permanent' : 'transient',
    `${what} failed${status ? ` (HTTP ${status}${reason ? ` ${reason}` : ''})` : ''}: ${String(err)}`,
    { cause: err, status },
  );
}

/** What {@link createMessage} posts. */
export interface NewChatMessage {
  /** The space (`spaces/S`). */
  parent: string;
  /** The thread to reply in (`spaces/S/threads/T`), or null for the space itself. */
  thread: string | null;
  /** Client-assigned id (ids.ts `clientMessageId`). */
  messageId: string;
  text?: string;
  cardsV2?: chat_v1.Schema$CardWithId[];
  /** Bound on the call, ms. */
  timeoutMs: number;
}

/**
 * Creates a message (spaces.messages.create with `messageId`; in a thread with
 * REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD). 409 ALREADY_EXISTS means an earlier attempt created it.
 * @returns the message's resource name and whether this call created it
 * @throws GoogleChatSendError
 */
export async function createMessage(
  api: ChatApi,
  m: NewChatMessage,
): Promise<{ name: string; created: boolean; message: ChatMessage | null }> {
  try {
    const res = await api.spaces.messages.create(
      {
        parent: m.parent,
        messageId: m.messageId,
        ...(m.thread ? { messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD' } : {}),
        requestBody: {
          ...(m.text !== undefined ? { text: m.text } : {}),
          ...(m.cardsV2 ? { cardsV2: m.cardsV2 } : {}),
          ...(m.thread ? { thread: { name: m.thread } } : {}),
        },
      },
      { timeout: m.timeoutMs },
    );
    return { name: res.data.name ?? `${m.parent}/messages/${m.messageId}`, created: true, message: res.data };
  } catch (err) {
    if (apiErrorOf(err).status === 409)
      return { name: `${m.parent}/messages/${m.messageId}`, created: false, message: null };
    throw toSendError(err, `creating a message in ${m.parent}`);
  }
}

/**
 * Replaces a message's cards (spaces.messages.patch, updateMask `cardsV2`).
 * @throws GoogleChatSendError
 */
export async function updateCards(
  api: ChatApi,
  name: string,
  cardsV2: chat_v1.Schema$CardWithId[],
  timeoutMs: number,
): Promise<void> {
  try {
    await api.spaces.messages.patch(
      { name, updateMask: 'cardsV2', requestBody: { cardsV2 } },
      { timeout: timeoutMs },
    );
  } catch (err) {
    throw toSendError(err, `updating ${name}`);
  }
}

/**
 * Discord REST calls Kesoku makes (shared/DISCORD-NOTES.md "Calls the adapter makes"), on a plain
 * `@discordjs/rest` client: the worker's sink needs only this, never the gateway.
 *
 * Every message Kesoku posts goes through {@link sendText}: split into chunks of at most 2000 characters, each
 * posted with a nonce derived from a Kesoku key and the chunk index and `enforce_nonce: true`, so a retried
 * delivery gets Discord's earlier message back instead of posting twice; `allowed_mentions: {parse: []}` so
 * model text never pings anyone.
 */
import { createHash } from 'node:crypto';
import { DiscordAPIError, REST, Routes } from 'discord.js';
import { SinkError, type SinkFailureKind } from '../../activities/sink.ts';
import type { Logger } from '../../infra/logger.ts';
import { splitMessage } from './split.ts';

/** Discord's REST base without the version (what `rest.api` wants). */
export const DEFAULT_DISCORD_API = 'https://discord.com/api';

/** `DISCORD_API_URL` normalised for `rest.api`: no trailing slash, no `/v10`. */
export function discordApiBase(url: string | undefined): string {
  return (url ?? DEFAULT_DISCORD_API).replace(/\/+$/, '').replace(/\/v\d+$/, '');
}

/** The `rest` option of a discord.js Client (and of {@link createDiscordRest}). */
export function restOptions(apiUrl: string | undefined): { api: string; version: '10' } {
  return { api: discordApiBase(apiUrl), version: '10' };
}

/** A REST-only client for processes without the gateway (the worker's sink). */
export function createDiscordRest(opts: { token: string; apiUrl?: string }): REST {
  return new REST(restOptions(opts.apiUrl)).setToken(opts.token);
}

/**
 * A Discord nonce (≤ 25 characters) for chunk `index` of what Kesoku posts under `key` (a message id, or
 * `status:<turn id>`): stable across retries and processes, distinct across keys and chunks.
 */
export function nonceFor(key: string, index: number): string {
  return createHash('sha256').update(`${key}\u0000${index}`).digest('base64url').slice(0, 25);
}

/** Message flags: suppress link embeds (1 << 2) and the push/desktop notification (1 << 12). */
export const QUIET_FLAGS = (1 << 2) | (1 << 12);

/**
 * Why a REST call failed, as the sink boundary's {@link SinkError}: `permanent` = Discord refused it (a 4xx other
 * than 429: missing access or permission, unknown channel, invalid content), `transient` = anything else.
 */
export class DiscordSendError extends SinkError {
  /** Discord's JSON error code (e.g. 50013), when it sent one. */
  readonly code?: number | string;
  /** The HTTP status, when Discord answered. */
  readonly status?: number;
  constructor(
    kind: SinkFailureKind,
    message: string,
    options: ErrorOptions & { code?: number | string; status?: number } = {},
  ) {
    super(kind, message, options);
    this.name = 'DiscordSendError';
    this.code = options.code;
    this.status = options.status;
  }
}

/** True when Discord refused the request for good (4xx other than 429): retrying the same request is useless. */
export function isRejection(err: unknown): boolean {
  if (err instanceof DiscordSendError) return err.kind === 'permanent';
  return err instanceof DiscordAPIError && err.status >= 400 && err.status < 500 && err.status !== 429;
}

/**
 * True when Discord refused a reply for its reference only (e.g. 160002, no permission to read the history), so
 * the same content may still go out as a plain message. A refusal of the channel itself (403 missing access or
 * permissions, 404 unknown channel) is not one.
 */
function isReferenceRejection(err: unknown): boolean {
  return isRejection(err) && !(err instanceof DiscordSendError && (err.status === 403 || err.status === 404));
}

/** Wraps a REST failure into a {@link DiscordSendError} (raw text stays in `cause` for the logs). */
export function toSendError(err: unknown, what: string): DiscordSendError {
  if (err instanceof DiscordSendError) return err;
  if (err instanceof DiscordAPIError) {
    return new DiscordSendError(
      isRejection(err) ? 'permanent' : 'transient',
      `${what}: Discord answered ${err.status} (code ${String(err.code)})`,
      {
        cause: err,
        code: err.code,
        status: err.status,
      },
    );
  }
  return new DiscordSendError('transient', `${what}: ${err instanceof Error ? err.message : String(err)}`, {
    cause: err,
  });
}

/** The parts of a created/edited message Kesoku reads back. */
export interface PostedMessage {
  id: string;
  content: string;
}

interface CreateBody {
  content: string;
  nonce: string;
  enforce_nonce: true;
  allowed_mentions: { parse: never[]; replied_user?: boolean; users?: string[] };
  message_reference?: { message_id: string; channel_id: string; fail_if_not_exists: false };
  flags?: number;
  /** Message components (buttons), on the last chunk of a {@link sendText}. */
  components?: unknown[];
  /** With an uploaded file: its description (`id` is the index of `files[n]` in the multipart body). */
  attachments?: { id: number; filename: string }[];
}

/** A text file uploaded with a message (multipart `files[0]`). */
export interface UploadFile {
  name: string;
  /** The file's text (UTF-8). */
  data: string;
}

/**
 * `POST /channels/{id}/messages`. `signal` bounds the whole call, rate-limit waits included (live status writes
 * use it; replies wait as long as the activity allows). @throws DiscordSendError
 */
export async function createMessage(
  rest: REST,
  channelId: string,
  body: CreateBody,
  signal?: AbortSignal,
  file?: UploadFile,
): Promise<PostedMessage> {
  try {
    return (await bounded(
      rest.post(Routes.channelMessages(channelId), {
        body: file ? { ...body, attachments: [{ id: 0, filename: file.name }] } : body,
        ...(file
          ? {
              files: [
                { name: file.name, data: Buffer.from(file.data, 'utf8'), contentType: 'text/markdown' },
              ],
            }
          : {}),
        ...(signal ? { signal } : {}),
      }),
      signal,
    )) as PostedMessage;
  } catch (err) {
    throw toSendError(err, 'create message');
  }
}

/** `PATCH /channels/{id}/messages/{id}` with new content; `signal` as for {@link createMessage}. @throws DiscordSendError */
export async function editMessage(
  rest: REST,
  channelId: string,
  messageId: string,
  content: string,
  signal?: AbortSignal,
): Promise<PostedMessage> {
  try {
    return (await bounded(
      rest.patch(Routes.channelMessage(channelId, messageId), {
        body: { content, allowed_mentions: { parse: [] } },
        ...(signal ? { signal } : {}),
      }),
      signal,
    )) as PostedMessage;
  } catch (err) {
    throw toSendError(err, 'edit message');
  }
}

/**
 * Rejects when `signal` aborts, even while @discordjs/rest sleeps out a 429 (its wait ignores the signal). The
 * request itself then fails at its next attempt, which runs with the aborted signal, so nothing is posted late.
 */
function bounded<T>(request: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return request;
  request.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(`request aborted: ${String(signal.reason)}`));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    request.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (err: unknown) => (signal.removeEventListener('abort', onAbort), reject(err)),
    );
  });
}

/** `POST /channels/{id}/typing` (the indicator lasts about 10 s). @throws DiscordSendError */
export async function sendTyping(rest: REST, channelId: string): Promise<void> {
  try {
    await rest.post(Routes.channelTyping(channelId));
  } catch (err) {
    throw toSendError(err, 'typing');
  }
}

/**
 * Where {@link sendText} records the Discord message id of each chunk right after Discord created it, and looks
 * up the chunks an earlier attempt already posted (Postgres in production: db/deliveries.ts). Discord's nonce
 * then only covers the moment between create and record.
 */
export interface PostLedger {
  /** Discord message ids already posted under `key`, by chunk index. */
  listPosts(key: string): Promise<Map<number, string>>;
  recordPost(p: { key: string; chunk: number; channelId: string; platformMessageId: string }): Promise<void>;
}

/** What {@link sendText} posts, where, and under which nonce key. */
export interface SendTextInput {
  channelId: string;
  content: string;
  /** Kesoku key the nonces derive from (the Kesoku message id); also the ledger key. */
  nonceKey: string;
  /** Discord message id the first chunk replies to. */
  replyTo?: string | null;
  /** Ping the author of `replyTo` (final replies). Default false. */
  pingReplied?: boolean;
  flags?: number;
  /** Records posted chunks and skips those already recorded (see {@link PostLedger}). */
  ledger?: PostLedger;
  /** A file uploaded with the first chunk (a long reply sent as an attachment). */
  file?: UploadFile;
  /** Message components (e.g. the approval buttons), attached to the last chunk. */
  components?: unknown[];
  /** User ids whose `<@id>` mentions in the content may ping them (`allowed_mentions.users`); default none. */
  mentionUsers?: string[];
}

/**
 * Posts `content` as one or more messages (see the module comment). Chunks the ledger already holds are skipped.
 * The first chunk replies to `replyTo` with `fail_if_not_exists: false`; when Discord refuses the reference
 * itself (e.g. 160002, no permission to read history), that chunk is posted once more as a plain message — the
 * same nonce, so it still cannot double-post. A refusal of the channel (403, 404) is not retried.
 * @returns the posted messages, in order (for skipped chunks: the recorded id and the chunk's content)
 * @throws DiscordSendError when a chunk could not be posted (earlier chunks stay recorded; a retry skips them)
 */
export async function sendText(rest: REST, logger: Logger, input: SendTextInput): Promise<PostedMessage[]> {
  const chunks = splitMessage(input.content);
  if (chunks.length === 0) chunks.push('…');
  const already = (await input.ledger?.listPosts(input.nonceKey)) ?? new Map<number, string>();
  const posted: PostedMessage[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const known = already.get(i);
    if (known !== undefined) {
      posted.push({ id: known, content: chunk });
      continue;
    }
    const reference =
      i === 0 && input.replyTo
        ? { message_id: input.replyTo, channel_id: input.channelId, fail_if_not_exists: false as const }
        : undefined;
    const body: CreateBody = {
      content: chunk,
      nonce: nonceFor(input.nonceKey, i),
      enforce_nonce: true,
      allowed_mentions: {
        parse: [],
        ...(reference ? { replied_user: input.pingReplied ?? false } : {}),
        ...(input.mentionUsers?.length ? { users: input.mentionUsers } : {}),
      },
      ...(reference ? { message_reference: reference } : {}),
      ...(input.flags !== undefined ? { flags: input.flags } : {}),
      ...(input.components && i === chunks.length - 1 ? { components: input.components } : {}),
    };
    let created: PostedMessage;
    try {
      created = await createMessage(rest, input.channelId, body, undefined, i === 0 ? input.file : undefined);
    } catch (err) {
      if (!reference || !isReferenceRejection(err)) throw err;
      logger.warn(
        { channelId: input.channelId, nonceKey: input.nonceKey, err: String(err) },
        'discord refused the reply; sending it as a plain message',
      );
      const { message_reference: _ref, ...plain } = body;
      created = await createMessage(
        rest,
        input.channelId,
        {
          ...plain,
          allowed_mentions: {
            parse: [],
            ...(input.mentionUsers?.length ? { users: input.mentionUsers } : {}),
          },
        },
        undefined,
        i === 0 ? input.file : undefined,
      );
    }
    await input.ledger?.recordPost({
      key: input.nonceKey,
      chunk: i,
      channelId: input.channelId,
      platformMessageId: created.id,
    });
    posted.push(created);
  }
  return posted;
}

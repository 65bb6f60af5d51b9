/**
 * The submit path of `POST /v1/sessions/{id}/messages`: the inbound message of a request body, who may post to
 * the session, where it goes, the idempotency of a client-chosen message id, the attachment bytes stored on
 * disk before the session sees the message, and the update-with-start that hands it to the session workflow.
 */
import { randomUUID } from 'node:crypto';
import type { Attachment, Message } from '../domain/message.ts';
import { getMessage } from '../db/messages.ts';
import type { SessionRow } from '../db/sessions.ts';
import { MessageAttachments, removeEmptyMessageDir } from '../infra/attachments-store.ts';
import { SessionClientError } from '../infra/session-client.ts';
import { attachmentFileName } from '../infra/workspace.ts';
import type { InboundMessage, SessionAddress, SubmitResult } from '../workflows/definitions.ts';
import { API_CHATBOT, authorizeSubmit } from './access.ts';
import type { Principal } from './auth.ts';
import type { ResolvedDeps } from './deps.ts';
import { HttpProblem, MESSAGE_ID_IN_USE } from './problems.ts';
import { withTemporalDeadline } from './routes/common.ts';
import { API_LIMITS, API_SENDER, checkInbound, type PostMessageBody } from './schemas.ts';

/** A message the session took (or had taken under the same id): what the route answers with. */
export interface AcceptedMessage {
  inbound: InboundMessage;
  accepted: SubmitResult;
}

/**
 * Accepts a posted message for `sessionId` on behalf of `caller`.
 * @throws HttpProblem validation (400, the inbound rules; attachments), forbidden/not_found/too_many (access.ts
 *   authorizeSubmit), conflict (409: another channel, a message id of another session, a repeated id with other
 *   content or attachments); SessionClientError as SessionClient.submit (the workflow's `id_taken` is the check
 *   for a concurrent use of the id)
 */
export async function acceptMessage(
  d: ResolvedDeps,
  caller: Principal,
  sessionId: string,
  body: PostMessageBody,
): Promise<AcceptedMessage> {
  const inbound = toInbound(body);
  checkInbound(inbound);
  const existing = await authorizeSubmit(d.pool, caller, sessionId, {
    maxSessions: d.limits.sessionsPerPrincipal,
  });
  const address = addressFor(sessionId, existing, body.channel);
  // A client-chosen id is read once, before any file is stored or anything started: an id of another session
  // is refused, and a repeat in this session is an idempotent retry only with the same content.
  if (body.id !== undefined) rejectTakenId(sessionId, await getMessage(d.pool, inbound.id), inbound);
  // Files this request created (not ones a first post of the id left): removed again when the post is refused.
  const created: string[] = [];
  if (body.attachments?.some((a) => a.data !== undefined)) {
    inbound.attachments = await storeAttachments(d, sessionId, inbound.id, body.attachments, created);
  }
  const accepted = await withTemporalDeadline(d.sessions, d.temporalTimeoutMs, () =>
    d.sessions.submit(address, inbound),
  ).catch(async (err: unknown) => {
    if (created.length > 0 && isRefusal(err)) await removeRefusedFiles(d, sessionId, inbound.id, created);
    throw err;
  });
  if (accepted.duplicate) rejectChangedRepeat(sessionId, accepted.message, inbound, true);
  return { inbound, accepted };
}

/**
 * The check of a client-chosen message id against what is stored under it (ids are global).
 * @throws HttpProblem conflict (409, `message_id` extension) when the id belongs to another session (the same
 *   answer whether that session is the caller's or another principal's), or is this session's with other content
 */
function rejectTakenId(sessionId: string, stored: Message | null, inbound: InboundMessage): void {
  if (stored && stored.session_id !== sessionId)
    throw new HttpProblem('conflict', MESSAGE_ID_IN_USE, { extensions: { message_id: inbound.id } });
  rejectChangedRepeat(sessionId, stored, inbound, false);
}

/**
 * Where a submitted message goes: an existing session keeps its own chatbot and channel (a session never changes
 * channel); a new one is created on `channel` (default `api`) with channel id = the session id.
 * @throws HttpProblem conflict (409) when `channel` is given and is not the existing session's chatbot
 */
export function addressFor(
  sessionId: string,
  existing: SessionRow | null,
  channel: PostMessageBody['channel'],
): SessionAddress {
  if (!existing) return { sessionId, chatbotId: channel ?? API_CHATBOT, channelId: sessionId };
  if (channel !== undefined && channel !== existing.chatbot_id) {
    throw new HttpProblem(
      'conflict',
      `session ${sessionId} is on channel "${existing.chatbot_id}"; a session keeps the channel its first message chose`,
      { extensions: { field: 'channel' } },
    );
  }
  return { sessionId, chatbotId: existing.chatbot_id, channelId: existing.channel_id };
}

/**
 * An attachment list for comparing two submissions: `name`, `content_type`, `url`, plus (`staged`) `size` and
 * `path` as stored — before the files are stored only the fields the client chose can be compared.
 */
function attachmentKey(list: Attachment[] | undefined, staged: boolean): string {
  return JSON.stringify(
    (list ?? []).map((a) => [
      a.name,
      a.content_type ?? null,
      a.url ?? null,
      ...(staged ? [a.size ?? null, a.path ?? null] : []),
    ]),
  );
}

/**
 * Message ids are idempotency keys: a repeat is acknowledged only when it carries what the first one did.
 * @param stored the message stored under the id (null: none yet; one of another session is left to
 *   {@link rejectTakenId})
 * @param staged whether `inbound`'s attachments already carry the paths and sizes of their stored files
 * @throws HttpProblem conflict (409, `message_id` extension) when `stored` is in the session and its content or
 *   attachments differ from `inbound`'s
 */
function rejectChangedRepeat(
  sessionId: string,
  stored: Message | null,
  inbound: InboundMessage,
  staged: boolean,
): void {
  if (!stored || stored.session_id !== sessionId) return;
  const storedAttachments = (stored.metadata as { attachments?: Attachment[] } | null)?.attachments;
  const sameContent = stored.content === inbound.content;
  if (sameContent && attachmentKey(storedAttachments, staged) === attachmentKey(inbound.attachments, staged))
    return;
  throw new HttpProblem(
    'conflict',
    `message id ${inbound.id} was already used with different ${sameContent ? 'attachments' : 'content'}; a repeated id must carry the same message (use a new id for a new message)`,
    { extensions: { message_id: inbound.id } },
  );
}

/**
 * The inbound message for a request body: a new UUID when no id is given, sender "api" by default. Attachment
 * bytes (`data`) never go into the message; see {@link storeAttachments}.
 */
function toInbound(body: PostMessageBody): InboundMessage {
  return {
    id: body.id ?? randomUUID(),
    content: body.content,
    sender: body.sender ?? API_SENDER,
    receivedAt: new Date().toISOString(),
    ...(body.attachments ? { attachments: body.attachments.map(({ data: _bytes, ...a }) => a) } : {}),
  };
}

/**
 * Stores the attachments sent with `data` in the session's attachment directory,
 * `<dataDir>/attachments/<session>/<message id>/<n>-<name>` (infra/attachments-store.ts: outside the workspace,
 * bound read-only into the sandbox, never through a link), before the message is submitted, so the agent's
 * tools can open them and the model activity can read them. Writing the same message again (a repeated id)
 * finds the same files with the same bytes; other bytes under a repeated id are a 409 and never replace the
 * first message's files.
 * @param created receives the names of the files this call created (not those an earlier post of the id left)
 * @returns the attachment records for the message (name, content_type, size, path; `url` kept for references)
 * @throws HttpProblem validation when the server has no data directory, or a file exceeds the size limit;
 *   conflict when a file of this message id already holds other bytes
 */
async function storeAttachments(
  d: ResolvedDeps,
  sessionId: string,
  messageId: string,
  list: NonNullable<PostMessageBody['attachments']>,
  created: string[],
): Promise<Attachment[]> {
  const dataDir = d.dataDir;
  if (dataDir === undefined)
    throw new HttpProblem('validation', 'attachments.data: this server does not store attachment files', {
      extensions: { field: 'attachments' },
    });
  const files = list.map((a) => (a.data === undefined ? undefined : Buffer.from(a.data, 'base64')));
  for (const [i, bytes] of files.entries()) {
    if (bytes !== undefined && bytes.length > API_LIMITS.attachmentDataMaxBytes) {
      throw new HttpProblem(
        'validation',
        `attachments.${i}.data: over ${API_LIMITS.attachmentDataMaxBytes} bytes`,
        {
          extensions: { field: `attachments.${i}.data` },
        },
      );
    }
  }
  const store = await MessageAttachments.open(dataDir, sessionId, messageId, { create: true });
  try {
    const out: Attachment[] = [];
    for (const [i, a] of list.entries()) {
      const { data: _data, ...record } = a;
      const bytes = files[i];
      if (bytes === undefined) {
        out.push(record);
        continue;
      }
      const name = attachmentFileName(i, a.name);
      if (await placeOnce(store, name, bytes, messageId)) created.push(name);
      out.push({ ...record, size: bytes.length, path: store.pathOf(name) });
    }
    return out;
  } finally {
    await store.close();
  }
}

/**
 * Puts `bytes` under `name` unless it exists (linked into place from a new file, so concurrent requests of one
 * message id never replace each other's file).
 * @returns true when this call created the file, false when it was there with the same bytes
 * @throws HttpProblem conflict (409) when the file exists with other bytes
 */
async function placeOnce(
  store: MessageAttachments,
  name: string,
  bytes: Buffer,
  messageId: string,
): Promise<boolean> {
  const { created } = await store.write(name, bytes, { existing: 'keep' });
  if (created) return true;
  if (!bytes.equals(await store.read(name))) {
    throw new HttpProblem(
      'conflict',
      `message id ${messageId} was already used with different attachments; a repeated id must carry the same message (use a new id for a new message)`,
      { extensions: { message_id: messageId } },
    );
  }
  return false;
}

/**
 * True when `err` means the session definitely did not take the message (queue full, invalid, its id taken,
 * not stored). A Temporal that did not answer in time is not a refusal: the message may still be accepted.
 */
function isRefusal(err: unknown): boolean {
  if (err instanceof HttpProblem) return true;
  return (
    err instanceof SessionClientError &&
    (err.kind === 'queue_full' ||
      err.kind === 'invalid' ||
      err.kind === 'id_taken' ||
      err.kind === 'persistence')
  );
}

/**
 * Removes the attachment files a refused post created, and its message's attachment folder when that is then
 * empty. Nothing is removed when the session stored the message after all (a concurrent post of the same id
 * was accepted and refers to these files), or when it cannot be read. A file that cannot be removed is left.
 */
async function removeRefusedFiles(
  d: ResolvedDeps,
  sessionId: string,
  messageId: string,
  files: string[],
): Promise<void> {
  const stored = await getMessage(d.pool, messageId).catch(() => undefined);
  if (stored === undefined || stored?.session_id === sessionId || d.dataDir === undefined) return;
  try {
    const store = await MessageAttachments.open(d.dataDir, sessionId, messageId, { create: false });
    try {
      await Promise.all(files.map((f) => store.remove(f).catch(() => undefined)));
    } finally {
      await store.close();
    }
  } catch {
    return;
  }
  await removeEmptyMessageDir(d.dataDir, sessionId, messageId);
}

/**
 * `POST /v1/sessions/{sessionId}/messages` (submit, optionally wait for the turn) and
 * `GET /v1/sessions/{sessionId}/messages` (history or a delta after a revision).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Attachment, Message } from '../../domain/message.ts';
import { attachmentDirFor, safeFileName } from '../../infra/workspace.ts';
import { Router, type Request, type Response } from 'express';
import { getMessage } from '../../db/messages.ts';
import { listPendingApprovals, type PendingApprovalRow } from '../../db/approvals.ts';
import { SessionClientError } from '../../infra/session-client.ts';
import type { InboundMessage, SubmitResult } from '../../workflows/definitions.ts';
import type { SessionRow } from '../../db/sessions.ts';
import type { SessionAddress } from '../../workflows/definitions.ts';
import { API_CHATBOT, authorizeSubmit, callerOf, requireSessionRowFor } from '../access.ts';
import type { Logger } from '../../infra/logger.ts';
import type { ResolvedDeps } from '../app.ts';
import { contextOf } from '../context.ts';
import { readHistory } from '../history.ts';
import { HttpProblem, MESSAGE_ID_IN_USE, validationProblem } from '../problems.ts';
import {
  API_LIMITS,
  API_SENDER,
  checkInbound,
  intQuery,
  parseBody,
  postMessageSchema,
  requireJson,
  type PostMessageBody,
} from '../schemas.ts';
import { waitForTurnEnd } from '../turn-wait.ts';
import { checkSessionIdParam, withTemporalDeadline } from './common.ts';

/** REST sessions live on chatbot "api" (or "cli", chosen by the first message), channel = the session id. */
export { API_CHATBOT };

type SessionRequest = Request<{ sessionId: string }>;

/** Routes of the messages resource. Every Temporal call runs under `temporalTimeoutMs`. */
export function messagesRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  const bodySchema = postMessageSchema(d.waitMaxS);

  router.post('/v1/sessions/:sessionId/messages', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    requireJson(req);
    const body = parseBody(bodySchema, req.body);
    const inbound = toInbound(body);
    checkInbound(inbound);
    const existing = await authorizeSubmit(d.pool, callerOf(res), sessionId);
    const address = addressFor(sessionId, existing, body.channel);
    // A repeated id is an idempotent retry only with the same content: refuse another one before its
    // attachment files could replace the first message's (checked again after the submit for a concurrent use).
    if (body.id !== undefined)
      rejectChangedRepeat(sessionId, await getMessage(d.pool, inbound.id), inbound, false);
    // Files this request created (not ones a first post of the id left): removed again when the post is refused.
    const created: string[] = [];
    if (body.attachments?.some((a) => a.data !== undefined)) {
      inbound.attachments = await storeAttachments(d, sessionId, inbound.id, body.attachments, created);
    }
    const log = contextOf(res).log.child({ sessionId, messageId: inbound.id });
    const accepted = await submit(d, address, inbound, body.id !== undefined).catch(async (err: unknown) => {
      if (created.length > 0 && isRefusal(err)) await removeRefusedFiles(d, sessionId, inbound.id, created);
      throw err;
    });
    if (accepted.duplicate) rejectChangedRepeat(sessionId, accepted.message, inbound, true);
    log.info({ queuePosition: accepted.queue_position, duplicate: accepted.duplicate }, 'message accepted');
    if (!body.wait) {
      const { message, queue_position, duplicate } = accepted;
      res.status(202).json({ message, queue_position, duplicate });
      return;
    }
    await answerAfterWait(d, res, log, {
      sessionId,
      messageId: inbound.id,
      waitS: body.wait,
      duplicate: accepted.duplicate,
    });
  });

  router.get('/v1/sessions/:sessionId/messages', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    const after = intQuery(req.query.after_revision, 'after_revision', 0, Number.MAX_SAFE_INTEGER);
    const beforeSeq = intQuery(req.query.before_seq, 'before_seq', 1, Number.MAX_SAFE_INTEGER);
    if (after !== undefined && beforeSeq !== undefined)
      throw validationProblem(
        'before_seq',
        'pages back through the history; it cannot be used with after_revision',
      );
    const limit =
      intQuery(req.query.limit, 'limit', 1, API_LIMITS.messagesPageMax) ?? API_LIMITS.messagesPageDefault;
    const session = await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    const delta = await readHistory(d.pool, sessionId, session.revision, after, limit, { beforeSeq });
    res.status(200).json({ revision: delta.revision, messages: delta.messages, has_more: !delta.complete });
  });

  return router;
}

/** What {@link answerAfterWait} waits for: message `messageId`'s turn, for `waitS` seconds. */
export interface WaitTarget {
  sessionId: string;
  messageId: string;
  waitS: number;
  /** A tool call whose decision was just taken (not counted as waiting, see api/turn-wait.ts). */
  decidedCallId?: string;
  /** The post repeated an accepted message id: `duplicate` of the 200 answer. */
  duplicate?: boolean;
}

/**
 * Waits for a turn and answers the request (the `wait` of POST …/messages and of POST …/approval):
 * - `200 {message, reply, notices, duplicate?}` when the turn ended (`duplicate` for a message post);
 * - `202 {state: "waiting_for_approval", message, pending_approvals, detail}` as soon as the turn waits for a
 *   person's decision on a tool call (`detail` names the first call and the route that decides it);
 * - nothing when the client went away.
 * @throws HttpProblem unavailable (503) when the server shuts down; wait_timeout (504, `message_id` and the
 *   session's `pending_approvals`) when the time ran out
 */
export async function answerAfterWait(
  d: ResolvedDeps,
  res: Response,
  log: Logger,
  t: WaitTarget,
): Promise<void> {
  const { sessionId, messageId, waitS } = t;
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const end = await waitForTurnEnd({
    pool: d.pool,
    events: d.events,
    log,
    sessionId,
    messageId,
    timeoutMs: waitS * 1000,
    signal: gone.signal,
    pollMs: d.waitPollMs,
    ...(t.decidedCallId !== undefined ? { decidedCallId: t.decidedCallId } : {}),
  });
  if (gone.signal.aborted) return;
  if (end?.kind === 'ended') {
    res.status(200).json({
      message: end.message,
      reply: end.reply,
      notices: end.notices,
      ...(t.duplicate !== undefined ? { duplicate: t.duplicate } : {}),
    });
    return;
  }
  if (end?.kind === 'waiting_for_approval') {
    log.info({ callId: end.pending[0]?.call_id }, 'wait: the turn waits for a tool-call approval');
    res.status(202).json({
      state: 'waiting_for_approval',
      message: end.message,
      pending_approvals: end.pending,
      detail: `the turn is waiting${waitingFor(sessionId, end.pending)}; with "wait": N in the decision's body it answers like this route when the turn ends or waits again`,
    });
    return;
  }
  const extensions = { message_id: messageId };
  if (d.events.closed) {
    throw new HttpProblem('unavailable', 'the server is shutting down; the message stays accepted', {
      extensions,
      expected: true,
    });
  }
  const pending = await listPendingApprovals(d.pool, sessionId).catch(() => []);
  const waits = pending.length > 0 ? `: it is waiting${waitingFor(sessionId, pending)}` : '';
  const detail = `the turn did not end within ${waitS} s${waits}; the message stays accepted and will be answered`;
  throw new HttpProblem('wait_timeout', detail, {
    extensions: { ...extensions, pending_approvals: pending },
  });
}

/** How much of a tool call's subject a wait-timeout detail quotes, in characters. */
const SUBJECT_QUOTE_MAX = 80;

/**
 * The part of a wait detail naming what the session waits for: " for approval of <tool> `<subject>`…; decide
 * with POST …" for the first tool call waiting for approval ("" when none waits).
 */
function waitingFor(sessionId: string, pending: PendingApprovalRow[]): string {
  const first = pending[0];
  if (!first) return '';
  const subject =
    first.subject.length > SUBJECT_QUOTE_MAX
      ? `${first.subject.slice(0, SUBJECT_QUOTE_MAX)}…`
      : first.subject;
  const more = pending.length > 1 ? ` (and ${pending.length - 1} more, see pending_approvals)` : '';
  return (
    ` for approval of ${first.tool_name} \`${subject}\`${more}; decide with ` +
    `POST /v1/sessions/${sessionId}/tool-calls/${first.call_id}/approval {"decision":"approve"} (or "deny", or "always" to approve such calls for the rest of the session)`
  );
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
 * @param stored the message stored under the id (null: none yet; one of another session is left to the
 *   foreign-id check)
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
 * Writes the attachments sent with `data` into the session's workspace, `attachments/<message id>/<n>-<name>`,
 * before the message is submitted, so the agent's tools can open them and the model activity can read them.
 * Writing the same message again (a repeated id) finds the same files with the same bytes; other bytes under a
 * repeated id are a 409 and never replace the first message's files.
 * @param created receives the paths of the files this call created (not those an earlier post of the id left)
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
  const dir = attachmentDirFor(dataDir, sessionId, messageId);
  const out: Attachment[] = [];
  for (const [i, a] of list.entries()) {
    const { data, ...record } = a;
    if (data === undefined) {
      out.push(record);
      continue;
    }
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length > API_LIMITS.attachmentDataMaxBytes) {
      throw new HttpProblem(
        'validation',
        `attachments.${i}.data: over ${API_LIMITS.attachmentDataMaxBytes} bytes`,
        {
          extensions: { field: `attachments.${i}.data` },
        },
      );
    }
    const file = path.join(dir, `${i}-${safeFileName(a.name)}`);
    await fs.mkdir(dir, { recursive: true });
    if (await placeOnce(file, bytes, messageId)) created.push(file);
    out.push({ ...record, size: bytes.length, path: file });
  }
  return out;
}

/**
 * Puts `bytes` at `file` unless it exists: written to a temporary name, then hard-linked into place (atomic, and
 * refused when the name is taken), so concurrent requests of one message id never replace each other's file.
 * @returns true when this call created `file`, false when it was there with the same bytes
 * @throws HttpProblem conflict (409) when `file` exists with other bytes
 */
async function placeOnce(file: string, bytes: Buffer, messageId: string): Promise<boolean> {
  const temporary = `${file}.${randomUUID()}.part`;
  await fs.writeFile(temporary, bytes);
  try {
    await fs.link(temporary, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (!bytes.equals(await fs.readFile(file))) {
      throw new HttpProblem(
        'conflict',
        `message id ${messageId} was already used with different attachments; a repeated id must carry the same message (use a new id for a new message)`,
        { extensions: { message_id: messageId } },
      );
    }
    return false;
  } finally {
    await fs.rm(temporary, { force: true });
  }
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
  if (stored === undefined || stored?.session_id === sessionId) return;
  await Promise.all(files.map((f) => fs.rm(f, { force: true }).catch(() => undefined)));
  if (d.dataDir !== undefined)
    await fs.rmdir(attachmentDirFor(d.dataDir, sessionId, messageId)).catch(() => undefined);
}

/**
 * Submits through update-with-start. Message ids are global, so a client-chosen id of another session is a
 * 409, checked before anything is started and again when the workflow reports a storage failure (it reports
 * every one as `input_persistence`, so a concurrent use of the id is only visible in the database).
 * @throws HttpProblem conflict; SessionClientError as SessionClient.submit
 */
async function submit(
  d: ResolvedDeps,
  address: SessionAddress,
  inbound: InboundMessage,
  clientId: boolean,
): Promise<SubmitResult> {
  const { sessionId } = address;
  if (clientId) await rejectForeignId(d, sessionId, inbound.id);
  try {
    return await withTemporalDeadline(d.sessions, d.temporalTimeoutMs, () =>
      d.sessions.submit(address, inbound),
    );
  } catch (err) {
    if (err instanceof SessionClientError && err.kind === 'persistence') {
      await rejectForeignId(d, sessionId, inbound.id).catch((e: unknown) => {
        if (e instanceof HttpProblem) throw e;
      });
    }
    throw err;
  }
}

/**
 * @throws HttpProblem conflict (409, `message_id` extension) when message `id` belongs to another session; the
 *   answer is the same whether that session is the caller's or another principal's
 */
async function rejectForeignId(d: ResolvedDeps, sessionId: string, id: string): Promise<void> {
  const existing = await getMessage(d.pool, id);
  if (existing && existing.session_id !== sessionId) {
    throw new HttpProblem('conflict', MESSAGE_ID_IN_USE, { extensions: { message_id: id } });
  }
}

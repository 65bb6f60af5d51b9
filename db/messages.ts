/**
 * Message storage. Every write goes through {@link commit}: one transaction that bumps the session's history
 * revision, inserts messages idempotently (by id), applies status changes through the docs/message-model.md §4 state
 * machine (a conditional UPDATE; an illegal change is an `IllegalTransitionError`, never an overwrite), and
 * announces the new revision with NOTIFY when — and only when — the transaction commits.
 */
import type { NewMessage } from '../domain/factories.ts';
import type { Message, MessageMetadata, Status } from '../domain/message.ts';
import { findCompaction } from '../domain/clean-history.ts';
import { sortHistory } from '../domain/history.ts';
import {
  ALLOWED_TRANSITIONS,
  IllegalTransitionError,
  isAllowedTransition,
} from '../domain/status-machine.ts';
import { storableJson, storableText } from '../domain/storable-text.ts';
import type { Pool, PoolClient, Queryable } from './pool.ts';
import { withTransaction } from './pool.ts';
import { COMMIT_CHANNEL } from './notify.ts';

/** A requested status change. */
export interface StatusChange {
  id: string;
  to: Status;
  /** Extra metadata merged into the message's metadata in the same UPDATE. */
  metadata?: MessageMetadata;
}

/** Extra row written in the same transaction: the record of a committed model step (see db/migrations). */
export interface StepRecord {
  turnId: string;
  step: number;
  result: unknown;
  inputTokens: number;
  outputTokens: number;
  contextTokens: number;
}

export interface CommitInput {
  /**
   * The commit belongs to the turn of trigger `guardTurn` (a model step's output): it is refused with a
   * {@link StaleTurnError}, and nothing is written, when the trigger is no longer `processing` or a stop was
   * requested for it ({@link requestStop}). The trigger row is locked for the check, so a stop and a commit are
   * ordered: whichever commits first wins.
   */
  guardTurn?: string;
  /**
   * The commit stores a compaction built from the history whose latest compaction summary had this `seq` (0: none
   * yet; {@link compactionBaseOf}): it is refused with a {@link CompactionBaseMovedError}, and nothing is written,
   * when another compaction was committed since (docs/message-flow.md §7.1: a compression update is committed only
   * against the state it was built from). Checked under the session row's lock, so of two compactions built from
   * the same history exactly one commits.
   */
  compactionBase?: number;
  insert?: NewMessage[];
  transitions?: StatusChange[];
  step?: StepRecord;
  /**
   * Extra statements run in the same transaction after the messages changed (skipped when nothing changed),
   * e.g. counting a finished turn together with its final status.
   */
  alsoInTransaction?: (
    client: PoolClient,
    changes: { inserted: Message[]; updated: Message[] },
  ) => Promise<void>;
}

export interface CommitResult {
  /** The session revision after the commit (unchanged when nothing changed). */
  revision: number;
  /** Rows inserted by this call (ids already present are skipped and not listed). */
  inserted: Message[];
  /** Rows whose status changed in this call (idempotent re-applications are not listed). */
  updated: Message[];
  /** Rows the call asked for that already existed or already had the target status, as stored now. */
  unchanged: Message[];
}

const COLUMNS =
  'id, session_id, parent_id, chatbot_id, channel_id, sender, role, type, status, content, metadata, turn_id, step, seq, revision, received_at, created_at, updated_at';

type Row = Omit<Message, 'received_at' | 'created_at' | 'updated_at'> & {
  received_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** Maps a database row to the API/domain shape (ISO timestamps). */
export function toMessage(row: Row): Message {
  return {
    ...row,
    received_at: row.received_at ? row.received_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Statuses from which `to` may be reached, self included when that re-application is harmless. */
function sourcesOf(to: Status): Status[] {
  const out: Status[] = [];
  for (const [from, targets] of Object.entries(ALLOWED_TRANSITIONS) as [Status, readonly Status[]][]) {
    if (targets.includes(to)) out.push(from);
  }
  return out;
}

class NothingChanged extends Error {}

/**
 * Commits messages and status changes for one session atomically.
 * @throws IllegalTransitionError when a change is not allowed from the message's current status
 * @throws Error when a message or the session does not exist, or a message belongs to another session
 */
export async function commit(pool: Pool, sessionId: string, input: CommitInput): Promise<CommitResult> {
  try {
    return await withTransaction(pool, (client) => commitIn(client, sessionId, input));
  } catch (err) {
    if (err instanceof NothingChanged) {
      const unchanged = await getMessages(pool, [
        ...(input.insert ?? []).map((m) => m.id),
        ...(input.transitions ?? []).map((t) => t.id),
      ]);
      const r = await pool.query<{ revision: number }>('SELECT revision FROM sessions WHERE id = $1', [
        sessionId,
      ]);
      return { revision: r.rows[0]?.revision ?? 0, inserted: [], updated: [], unchanged };
    }
    throw err;
  }
}

/** A message id that is already stored for another session (message ids are global idempotency keys). */
export class MessageIdTakenError extends Error {
  readonly kind = 'id_taken' as const;
  readonly messageId: string;
  constructor(messageId: string) {
    super(`message id ${messageId} is already used in another session`);
    this.name = 'MessageIdTakenError';
    this.messageId = messageId;
  }
}

/** A commit for a turn that was stopped, interrupted or ended in the meantime (see {@link CommitInput.guardTurn}). */
export class StaleTurnError extends Error {
  readonly kind = 'stale_turn' as const;
  readonly turnId: string;
  constructor(turnId: string, why: string) {
    super(`turn ${turnId} is stale: ${why}`);
    this.name = 'StaleTurnError';
    this.turnId = turnId;
  }
}

/** A compaction built from a history another compaction has changed since (see {@link CommitInput.compactionBase}). */
export class CompactionBaseMovedError extends Error {
  readonly kind = 'compaction_base_moved' as const;
  /** `seq` of the latest summary the compaction was built after (0: none). */
  readonly expected: number;
  /** `seq` of the latest summary now stored (0: none). */
  readonly actual: number;
  constructor(sessionId: string, expected: number, actual: number) {
    super(`session ${sessionId} was compacted meanwhile (latest summary ${actual}, built after ${expected})`);
    this.name = 'CompactionBaseMovedError';
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * The version a compaction is built against: the `seq` of the latest live compaction summary among `history`
 * (0 when there is none). The same summary bounds what {@link loadModelHistory} reads.
 */
export function compactionBaseOf(history: readonly Message[]): number {
  return findCompaction(history)?.summary.seq ?? 0;
}

/** Rows that are compaction summaries still in force (a stale one was never delivered and bounds nothing). */
const LIVE_SUMMARY = `metadata ? 'compacted_through_seq' AND NOT (metadata @> '{"stale": true}')`;

/** `seq` of the latest live compaction summary of `sessionId`, 0 when there is none. */
async function storedCompactionBase(q: Queryable, sessionId: string): Promise<number> {
  const r = await q.query<{ seq: string }>(
    `SELECT seq FROM messages WHERE session_id = $1 AND ${LIVE_SUMMARY} ORDER BY seq DESC LIMIT 1`,
    [sessionId],
  );
  return Number(r.rows[0]?.seq ?? 0);
}

/**
 * Records that `/stop` or an interrupt asked the running turn of trigger `turnId` to end: from now on a commit
 * guarded by this turn is refused. @returns false when the trigger was not `processing`
 */
export async function requestStop(q: Queryable, sessionId: string, turnId: string): Promise<boolean> {
  const r = await q.query(
    `UPDATE messages SET metadata = coalesce(metadata, '{}'::jsonb) || '{"stop_requested": true}'::jsonb
      WHERE id = $1 AND session_id = $2 AND status = 'processing'`,
    [turnId, sessionId],
  );
  return (r.rowCount ?? 0) > 0;
}

async function checkTurnLive(client: PoolClient, sessionId: string, turnId: string): Promise<void> {
  const r = await client.query<{ status: string; stop: boolean | null }>(
    `SELECT status, (metadata->>'stop_requested')::boolean AS stop FROM messages WHERE id = $1 AND session_id = $2 FOR UPDATE`,
    [turnId, sessionId],
  );
  const row = r.rows[0];
  if (!row) throw new StaleTurnError(turnId, 'its trigger does not exist');
  if (row.status !== 'processing') throw new StaleTurnError(turnId, `its trigger is ${row.status}`);
  if (row.stop) throw new StaleTurnError(turnId, 'a stop was requested');
}

async function commitIn(client: PoolClient, sessionId: string, input: CommitInput): Promise<CommitResult> {
  if (input.guardTurn !== undefined) await checkTurnLive(client, sessionId, input.guardTurn);
  const rev = await client.query<{ revision: number }>(
    'UPDATE sessions SET revision = revision + 1, updated_at = now() WHERE id = $1 RETURNING revision',
    [sessionId],
  );
  const revision = rev.rows[0]?.revision;
  if (revision === undefined) throw new Error(`unknown session ${sessionId}`);
  // After the UPDATE above: the session row is locked, so a concurrent compaction's commit is either visible
  // here or waits for this one.
  if (input.compactionBase !== undefined) {
    const actual = await storedCompactionBase(client, sessionId);
    if (actual !== input.compactionBase)
      throw new CompactionBaseMovedError(sessionId, input.compactionBase, actual);
  }

  const inserted: Message[] = [];
  const unchanged: Message[] = [];
  for (const m of (input.insert ?? []).map(storableMessage)) {
    if (m.session_id !== sessionId)
      throw new Error(`message ${m.id} belongs to session ${m.session_id}, not ${sessionId}`);
    const r = await client.query<Row>(
      `INSERT INTO messages (id, session_id, parent_id, chatbot_id, channel_id, sender, role, type, status, content,
                             metadata, turn_id, step, revision, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        m.id,
        m.session_id,
        m.parent_id,
        m.chatbot_id,
        m.channel_id,
        m.sender,
        m.role,
        m.type,
        m.status,
        m.content,
        m.metadata === null ? null : JSON.stringify(m.metadata),
        m.turn_id,
        m.step,
        revision,
        m.received_at,
      ],
    );
    if (r.rows[0]) inserted.push(toMessage(r.rows[0]));
    else {
      const existing = await getMessage(client, m.id);
      if (existing && existing.session_id !== sessionId) {
        throw new MessageIdTakenError(m.id);
      }
      if (existing) unchanged.push(existing);
    }
  }

  const updated: Message[] = [];
  for (const t of input.transitions ?? []) {
    const r = await client.query<Row>(
      `UPDATE messages SET status = $3, revision = $4, updated_at = now(),
              metadata = CASE WHEN $5::jsonb IS NULL THEN metadata ELSE coalesce(metadata, '{}'::jsonb) || $5::jsonb END
        WHERE id = $1 AND session_id = $2 AND status = ANY($6::text[])
        RETURNING ${COLUMNS}`,
      [
        t.id,
        sessionId,
        t.to,
        revision,
        t.metadata ? JSON.stringify(storableJson(t.metadata).value) : null,
        sourcesOf(t.to),
      ],
    );
    if (r.rows[0]) {
      updated.push(toMessage(r.rows[0]));
      continue;
    }
    const current = await getMessage(client, t.id);
    if (!current || current.session_id !== sessionId)
      throw new Error(`unknown message ${t.id} in session ${sessionId}`);
    if (!isAllowedTransition(current.status, t.to))
      throw new IllegalTransitionError(t.id, current.status, t.to);
    unchanged.push(current);
  }

  if (input.step) {
    const s = input.step;
    const r = await client.query(
      `INSERT INTO turn_steps (turn_id, step, session_id, result, input_tokens, output_tokens, context_tokens)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [
        s.turnId,
        s.step,
        sessionId,
        JSON.stringify(storableJson(s.result).value),
        s.inputTokens,
        s.outputTokens,
        s.contextTokens,
      ],
    );
    if (r.rowCount === 0 && inserted.length === 0 && updated.length === 0) throw new NothingChanged();
  } else if (inserted.length === 0 && updated.length === 0) {
    throw new NothingChanged();
  }

  await input.alsoInTransaction?.(client, { inserted, updated });
  await client.query('SELECT pg_notify($1, $2)', [
    COMMIT_CHANNEL,
    JSON.stringify({ s: sessionId, r: revision }),
  ]);
  return { revision, inserted, updated, unchanged };
}

/**
 * A message made storable before it is written (see domain/storable-text.ts): NUL and unpaired surrogates in
 * its text fields and metadata strings are replaced, and the row is marked `metadata.text_replaced = true`.
 * Messages without such characters are returned as they are.
 */
export function storableMessage(m: NewMessage): NewMessage {
  const content = storableText(m.content);
  const sender = storableText(m.sender);
  const metadata = storableJson(m.metadata);
  if (content === m.content && sender === m.sender && !metadata.replaced) return m;
  return { ...m, content, sender, metadata: { ...(metadata.value ?? {}), text_replaced: true } };
}

/** One message by id, or null. */
export async function getMessage(q: Queryable, id: string): Promise<Message | null> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM messages WHERE id = $1`, [id]);
  return r.rows[0] ? toMessage(r.rows[0]) : null;
}

/** Messages by id, in the order of `ids` (missing ids are skipped). */
export async function getMessages(q: Queryable, ids: string[]): Promise<Message[]> {
  if (ids.length === 0) return [];
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM messages WHERE id = ANY($1::text[])`, [ids]);
  const byId = new Map(r.rows.map((row) => [row.id, toMessage(row)]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id) as Message] : []));
}

/**
 * A session's history in phased order (docs/message-model.md §5.1). With `afterRevision`, only messages committed after
 * that revision (new or changed). `limit` caps the rows read (newest kept when capping a full history). With
 * `beforeSeq` (ignored with `afterRevision`), only messages inserted before the one with that `seq`.
 */
export async function listSessionMessages(
  q: Queryable,
  sessionId: string,
  opts: { afterRevision?: number; limit?: number; beforeSeq?: number } = {},
): Promise<Message[]> {
  const limit = opts.limit ?? 10_000;
  const r =
    opts.afterRevision !== undefined
      ? await q.query<Row>(
          `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND revision > $2 ORDER BY revision, seq LIMIT $3`,
          [sessionId, opts.afterRevision, limit],
        )
      : await q.query<Row>(
          `SELECT * FROM (SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND ($3::bigint IS NULL OR seq < $3)
             ORDER BY seq DESC LIMIT $2) t ORDER BY seq`,
          [sessionId, limit, opts.beforeSeq ?? null],
        );
  return sortHistory(r.rows.map(toMessage));
}

/** Every message of one turn (trigger included), in phased order. */
export async function listTurnMessages(q: Queryable, turnId: string): Promise<Message[]> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM messages WHERE turn_id = $1 OR id = $1 ORDER BY seq`, [
    turnId,
  ]);
  return sortHistory(r.rows.map(toMessage));
}

/** Input messages of a session still waiting or running (`pending_agent`, `processing`), oldest first. */
export async function listOpenInputs(q: Queryable, sessionId: string): Promise<Message[]> {
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND status IN ('pending_agent', 'processing') ORDER BY seq`,
    [sessionId],
  );
  return r.rows.map(toMessage);
}

/** The committed record of a model step, if any. */
export async function getStep(
  q: Queryable,
  turnId: string,
  step: number,
): Promise<{ result: unknown; input_tokens: number; output_tokens: number; context_tokens: number } | null> {
  const r = await q.query(
    'SELECT result, input_tokens, output_tokens, context_tokens FROM turn_steps WHERE turn_id = $1 AND step = $2',
    [turnId, step],
  );
  return r.rows[0] ?? null;
}

/** Token totals of a turn's committed steps. */
export async function turnTokenTotals(
  q: Queryable,
  turnId: string,
): Promise<{ tokens: number; contextTokens: number }> {
  const r = await q.query<{ tokens: number; context_tokens: number }>(
    `SELECT coalesce(sum(input_tokens + output_tokens), 0)::int AS tokens,
            coalesce((array_agg(context_tokens ORDER BY step DESC))[1], 0)::int AS context_tokens
       FROM turn_steps WHERE turn_id = $1`,
    [turnId],
  );
  return { tokens: r.rows[0]?.tokens ?? 0, contextTokens: r.rows[0]?.context_tokens ?? 0 };
}

/**
 * The part of a session's history the model can still see: everything after the latest compaction summary's
 * `compacted_through_seq`, plus that compaction's prompt and summary (docs/message-model.md §5.2 with Kesoku's compaction).
 * Bounded by compaction, so a step's read does not grow with the session's age. Phased order.
 */
export async function loadModelHistory(q: Queryable, sessionId: string): Promise<Message[]> {
  const c = await q.query<{ turn_id: string; through: number }>(
    `SELECT turn_id, (metadata->>'compacted_through_seq')::bigint AS through FROM messages
      WHERE session_id = $1 AND ${LIVE_SUMMARY} ORDER BY seq DESC LIMIT 1`,
    [sessionId],
  );
  const latest = c.rows[0];
  const r = latest
    ? await q.query<Row>(
        `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND (seq > $2 OR turn_id = $3 OR id = $3) ORDER BY seq`,
        [sessionId, latest.through, latest.turn_id],
      )
    : await q.query<Row>(`SELECT ${COLUMNS} FROM messages WHERE session_id = $1 ORDER BY seq`, [sessionId]);
  return sortHistory(r.rows.map(toMessage));
}

/**
 * Marks the `pending` replies `ids` of session `sessionId` stale (`metadata.stale`, see MessageMetadata), at the
 * session's current revision: run inside the commit that ends their turn (`alsoInTransaction`). Their status
 * stays `pending` (the state machine has no way from `pending` but `delivered`).
 */
export async function markStale(q: Queryable, sessionId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE messages SET metadata = coalesce(metadata, '{}'::jsonb) || '{"stale": true}'::jsonb, updated_at = now(),
            revision = (SELECT revision FROM sessions WHERE id = $1)
      WHERE session_id = $1 AND id = ANY($2::text[]) AND status = 'pending'`,
    [sessionId, ids],
  );
}

/** How many tool calls a turn has made so far (its `tool_call` messages). */
export async function countTurnToolCalls(q: Queryable, turnId: string): Promise<number> {
  const r = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messages WHERE turn_id = $1 AND type = 'tool_call'`,
    [turnId],
  );
  return r.rows[0]?.n ?? 0;
}

/** The stored `tool_result` of tool call `toolCallMessageId`, if any (one per call, unique index). */
export async function findToolResult(q: Queryable, toolCallMessageId: string): Promise<Message | null> {
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM messages WHERE parent_id = $1 AND type = 'tool_result'`,
    [toolCallMessageId],
  );
  return r.rows[0] ? toMessage(r.rows[0]) : null;
}

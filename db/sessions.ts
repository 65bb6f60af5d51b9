/**
 * Session rows: title (with its source: default | auto | user), mode, locale, time zone, history revision, turn
 * count.
 */
import type { Queryable } from './pool.ts';
import { storableJson, storableText } from '../domain/storable-text.ts';

export type TitleSource = 'default' | 'auto' | 'user';

export interface SessionRow {
  id: string;
  chatbot_id: string;
  channel_id: string;
  title: string | null;
  title_source: TitleSource;
  mode: 'interrupt' | 'queue';
  locale: string;
  /** The session's own IANA zone (canonical), the default zone of its new schedules; null: none. */
  timezone: string | null;
  revision: number;
  turn_count: number;
  channel_context: unknown;
  created_at: string;
  updated_at: string;
}

/** A session with the live figures the API shows, derived from message statuses. */
export interface SessionView extends SessionRow {
  status: 'idle' | 'processing';
  queue_length: number;
}

const COLUMNS =
  'id, chatbot_id, channel_id, title, title_source, mode, locale, timezone, revision, turn_count, channel_context, created_at, updated_at';

type Row = Omit<SessionRow, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };
const toSession = (r: Row): SessionRow => ({
  ...r,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/**
 * Creates the session row unless it exists. The channel context is kept from the first message; `locale` is the
 * new session's locale (KESOKU_LOCALE; default `en`), an existing session keeps its own.
 */
export async function ensureSession(
  q: Queryable,
  s: { id: string; chatbotId: string; channelId: string; channelContext?: unknown; locale?: string },
): Promise<void> {
  await q.query(
    `INSERT INTO sessions (id, chatbot_id, channel_id, channel_context, locale) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
    [
      s.id,
      s.chatbotId,
      s.channelId,
      s.channelContext === undefined ? null : JSON.stringify(storableJson(s.channelContext).value),
      s.locale ?? 'en',
    ],
  );
}

/** Settings a session can be given before its first message (PATCH /v1/sessions/{id}). */
export interface InitialSessionSettings {
  /** A user title (title_source `user`), already checked by the title rule. */
  title?: string;
  mode?: 'interrupt' | 'queue';
  /** The session's locale; default `defaultLocale`. */
  locale?: string;
  /** The session's own tool-approval policy (null or absent: none). */
  approval?: 'off' | 'writes' | 'all' | null;
  /** The session's IANA zone, already canonical (domain/schedules.ts canonicalZone); null or absent: none. */
  timezone?: string | null;
}

/**
 * Creates the row of a session that has no message yet, with the settings the caller gave, in one statement
 * (nothing half-set is ever visible). The session workflow started by the first message reads mode and title
 * back from the row (restoreSession); locale and approval are read from the row whenever they apply.
 * @param defaultLocale the locale of a new session (KESOKU_LOCALE) when `settings.locale` is not given
 * @returns true when this call created the row, false when it existed already (nothing changed)
 */
export async function createSessionWithSettings(
  q: Queryable,
  s: { id: string; chatbotId: string; channelId: string; defaultLocale?: string },
  settings: InitialSessionSettings,
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO sessions (id, chatbot_id, channel_id, locale, title, title_source, mode, tool_approval, timezone)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $5::text IS NULL THEN 'default' ELSE 'user' END, $6, $7, $8)
     ON CONFLICT (id) DO NOTHING`,
    [
      s.id,
      s.chatbotId,
      s.channelId,
      settings.locale ?? s.defaultLocale ?? 'en',
      settings.title === undefined ? null : storableText(settings.title),
      settings.mode ?? 'interrupt',
      settings.approval ?? null,
      settings.timezone ?? null,
    ],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function getSession(q: Queryable, id: string): Promise<SessionRow | null> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1`, [id]);
  return r.rows[0] ? toSession(r.rows[0]) : null;
}

/** The session plus `status` (processing when an input message is being processed) and `queue_length`. */
export async function getSessionView(q: Queryable, id: string): Promise<SessionView | null> {
  const s = await getSession(q, id);
  if (!s) return null;
  const r = await q.query<{ processing: number; pending: number }>(
    `SELECT count(*) FILTER (WHERE status = 'processing')::int AS processing,
            count(*) FILTER (WHERE status = 'pending_agent')::int AS pending
       FROM messages WHERE session_id = $1 AND status IN ('pending_agent', 'processing')`,
    [id],
  );
  const row = r.rows[0] ?? { processing: 0, pending: 0 };
  return { ...s, status: row.processing > 0 ? 'processing' : 'idle', queue_length: row.pending };
}

/**
 * Sessions, most recently updated first. `cursor` is the opaque value from the previous page; `owner`, when
 * given, keeps only the sessions that API principal created (table `session_owners`).
 * @returns the page and the next cursor (null at the end)
 */
export async function listSessions(
  q: Queryable,
  opts: { limit: number; cursor?: string; owner?: string },
): Promise<{ sessions: SessionRow[]; next_cursor: string | null }> {
  let after: { t: string; id: string } | null = null;
  if (opts.cursor) {
    after = JSON.parse(Buffer.from(opts.cursor, 'base64url').toString('utf8')) as { t: string; id: string };
  }
  const where: string[] = [];
  const params: unknown[] = [];
  if (after) {
    params.push(after.t, after.id);
    where.push(`(updated_at, id) < ($1::timestamptz, $2)`);
  }
  if (opts.owner !== undefined) {
    params.push(opts.owner);
    where.push(`id IN (SELECT session_id FROM session_owners WHERE principal = $${params.length})`);
  }
  params.push(opts.limit + 1);
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM sessions ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const rows = r.rows.slice(0, opts.limit);
  const last = r.rows[opts.limit - 1];
  const next =
    r.rows.length > opts.limit && last
      ? Buffer.from(JSON.stringify({ t: last.updated_at.toISOString(), id: last.id })).toString('base64url')
      : null;
  return { sessions: rows.map(toSession), next_cursor: next };
}

/**
 * Sets an automatic title only while the title is still the default (docs/message-flow.md §12: a late title never
 * overwrites a user's). @returns true when the title was written
 */
export async function setAutoTitle(q: Queryable, id: string, title: string): Promise<boolean> {
  const r = await q.query(
    `UPDATE sessions SET title = $2, title_source = 'auto', updated_at = now() WHERE id = $1 AND title_source = 'default'`,
    [id, storableText(title)],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Sets a title chosen by the user; it wins over any automatic one. */
export async function setUserTitle(q: Queryable, id: string, title: string): Promise<void> {
  await q.query(`UPDATE sessions SET title = $2, title_source = 'user', updated_at = now() WHERE id = $1`, [
    id,
    storableText(title),
  ]);
}

export async function setMode(q: Queryable, id: string, mode: 'interrupt' | 'queue'): Promise<void> {
  await q.query(`UPDATE sessions SET mode = $2, updated_at = now() WHERE id = $1`, [id, mode]);
}

/**
 * Keeps the command updates a session run answered (`[{updateId, name, result}]`, JSON), for the next run to read
 * back with {@link readSeenCommands}. Replaces what was kept before. No-op for an unknown session.
 */
export async function keepSeenCommands(q: Queryable, id: string, commands: unknown[]): Promise<void> {
  await q.query(`UPDATE sessions SET seen_commands = $2 WHERE id = $1`, [id, JSON.stringify(commands)]);
}

/** The command updates kept by {@link keepSeenCommands}; `[]` when none were kept or the session is unknown. */
export async function readSeenCommands(q: Queryable, id: string): Promise<unknown[]> {
  const r = await q.query<{ seen_commands: unknown }>(`SELECT seen_commands FROM sessions WHERE id = $1`, [
    id,
  ]);
  const kept = r.rows[0]?.seen_commands;
  return Array.isArray(kept) ? kept : [];
}

/**
 * Sets the session's locale (the language of its notices, see domain/failures.ts). Takes effect for the next
 * notice; stored replies keep their text. @returns false when the session does not exist
 */
export async function setLocale(q: Queryable, id: string, locale: string): Promise<boolean> {
  const r = await q.query(`UPDATE sessions SET locale = $2, updated_at = now() WHERE id = $1`, [id, locale]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Sets the session's IANA zone (canonical; null clears it). It is the zone of schedules created from now on
 * without one (docs/schedules.md); existing schedules keep theirs. @returns false when the session does not exist
 */
export async function setTimezone(q: Queryable, id: string, zone: string | null): Promise<boolean> {
  const r = await q.query(`UPDATE sessions SET timezone = $2, updated_at = now() WHERE id = $1`, [id, zone]);
  return (r.rowCount ?? 0) > 0;
}

/** Counts a finished turn. @returns the new count (docs/message-model.md §3 `turn_metrics.session_turns`) */
export async function incrementTurnCount(q: Queryable, id: string): Promise<number> {
  const r = await q.query<{ turn_count: number }>(
    `UPDATE sessions SET turn_count = turn_count + 1 WHERE id = $1 RETURNING turn_count`,
    [id],
  );
  return r.rows[0]?.turn_count ?? 0;
}

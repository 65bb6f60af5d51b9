/**
 * Knowledge memory (migration 0030, docs/memory.md): entries scoped to a person key (domain/people.ts), searched
 * with Postgres full-text search (`to_tsvector('simple', …)`: no stemming and no stop words, so text in any
 * language matches word by word) plus a substring match for scripts written without spaces (Chinese, Japanese).
 *
 * Writes never lose an entry: `remember` inserts a new row (two sessions writing at once both keep theirs), an
 * edit names the revision it read and is refused when the entry moved on, and `forget` marks the row instead of
 * deleting it.
 */
import { randomBytes } from 'node:crypto';
import { sharedPerson, type PersonKey } from '../domain/people.ts';
import type { Queryable } from './pool.ts';

/** Longest entry, in characters (code points). */
export const MEMORY_MAX_CHARS = 2000;
/** Most live entries one person keeps; beyond it `remember` is refused until something is forgotten. */
export const MEMORY_MAX_ENTRIES = 2000;

/** A stored entry as the API and the tools show it. */
export interface MemoryEntry {
  id: string;
  text: string;
  author: string;
  /** Whether it is in a shared scope (domain/people.ts `sharedPerson`) rather than a person's own. */
  shared: boolean;
  session_id: string | null;
  source_message_id: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

interface Row extends Omit<MemoryEntry, 'shared' | 'created_at' | 'updated_at'> {
  person: PersonKey;
  created_at: Date;
  updated_at: Date;
}

const SHARED_PREFIX = sharedPerson('');
const COLUMNS = 'id, person, text, author, session_id, source_message_id, revision, created_at, updated_at';
const toEntry = ({ person, ...r }: Row): MemoryEntry => ({
  ...r,
  shared: person.startsWith(SHARED_PREFIX),
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** Why a memory write was refused. */
export type MemoryErrorKind = 'too_long' | 'empty' | 'full' | 'not_found' | 'conflict';

/** A refused memory write; the message is written for the model and for people. */
export class MemoryError extends Error {
  readonly kind: MemoryErrorKind;
  /** On a conflict: the entry as it is now. */
  readonly current?: MemoryEntry;
  constructor(kind: MemoryErrorKind, message: string, current?: MemoryEntry) {
    super(message);
    this.name = 'MemoryError';
    this.kind = kind;
    if (current) this.current = current;
  }
}

/** The text of an entry, trimmed. @throws MemoryError empty, too_long */
export function checkEntryText(text: string): string {
  const t = text.trim();
  if (t === '') throw new MemoryError('empty', 'the text to remember is empty');
  const n = [...t].length;
  if (n > MEMORY_MAX_CHARS)
    throw new MemoryError(
      'too_long',
      `the text is ${n} characters; one entry holds at most ${MEMORY_MAX_CHARS} — remember a shorter summary or split it`,
    );
  return t;
}

/**
 * Stores a new entry for `person`. A repeated `sourceCallId` (a retried tool call) returns the entry it wrote.
 * @throws MemoryError empty, too_long, full
 */
export async function rememberEntry(
  q: Queryable,
  e: {
    person: PersonKey;
    text: string;
    author: string;
    sessionId?: string | null;
    sourceMessageId?: string | null;
    sourceCallId?: string | null;
  },
): Promise<MemoryEntry> {
  const text = checkEntryText(e.text);
  const id = `m${randomBytes(6).toString('hex')}`;
  const r = await q.query<Row>(
    `INSERT INTO memory_entries (id, person, text, author, session_id, source_message_id, source_call_id)
     SELECT $1, $2, $3, $4, $5, $6, $7
      WHERE (SELECT count(*) FROM memory_entries WHERE person = $2 AND forgotten_at IS NULL) < $8
     ON CONFLICT (source_call_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      id,
      e.person,
      text,
      e.author,
      e.sessionId ?? null,
      e.sourceMessageId ?? null,
      e.sourceCallId ?? null,
      MEMORY_MAX_ENTRIES,
    ],
  );
  if (r.rows[0]) return toEntry(r.rows[0]);
  if (e.sourceCallId) {
    const prior = await q.query<Row>(`SELECT ${COLUMNS} FROM memory_entries WHERE source_call_id = $1`, [
      e.sourceCallId,
    ]);
    if (prior.rows[0]) return toEntry(prior.rows[0]);
  }
  throw new MemoryError(
    'full',
    `this person already keeps ${MEMORY_MAX_ENTRIES} entries; forget some before remembering more`,
  );
}

/**
 * Replaces the text of entry `id` of `persons`, only if it is still at `expectedRevision` (optimistic
 * concurrency); the revision goes up by one.
 * @throws MemoryError not_found (no such live entry of these persons), conflict (another write came first; carries
 *   the current entry), empty, too_long
 */
export async function reviseEntry(
  q: Queryable,
  e: { id: string; persons: readonly PersonKey[]; text: string; expectedRevision: number },
): Promise<MemoryEntry> {
  const text = checkEntryText(e.text);
  const r = await q.query<Row>(
    `UPDATE memory_entries SET text = $3, revision = revision + 1, updated_at = now()
      WHERE id = $1 AND person = ANY($2) AND forgotten_at IS NULL AND revision = $4
     RETURNING ${COLUMNS}`,
    [e.id, e.persons, text, e.expectedRevision],
  );
  if (r.rows[0]) return toEntry(r.rows[0]);
  const current = await getEntry(q, e.id, e.persons);
  if (!current) throw new MemoryError('not_found', `there is no memory entry ${e.id}`);
  throw new MemoryError(
    'conflict',
    `entry ${e.id} changed meanwhile (now at revision ${current.revision}, you edited revision ${e.expectedRevision}); ` +
      'read it again and decide',
    current,
  );
}

/** A live entry of `persons`, or null. */
export async function getEntry(
  q: Queryable,
  id: string,
  persons: readonly PersonKey[],
): Promise<MemoryEntry | null> {
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM memory_entries WHERE id = $1 AND person = ANY($2) AND forgotten_at IS NULL`,
    [id, persons],
  );
  return r.rows[0] ? toEntry(r.rows[0]) : null;
}

/**
 * Forgets entry `id` of `persons` (the row stays, marked with who forgot it and when).
 * @returns the forgotten entry, or null when `persons` have no such live entry (another person's entry is the
 *   same null as an unknown id)
 */
export async function forgetEntry(
  q: Queryable,
  e: { id: string; persons: readonly PersonKey[]; by: string },
): Promise<MemoryEntry | null> {
  const r = await q.query<Row>(
    `UPDATE memory_entries SET forgotten_at = now(), forgotten_by = $3, revision = revision + 1
      WHERE id = $1 AND person = ANY($2) AND forgotten_at IS NULL
     RETURNING ${COLUMNS}`,
    [e.id, e.persons, e.by],
  );
  return r.rows[0] ? toEntry(r.rows[0]) : null;
}

/** Most words of a query searched for. */
const MAX_QUERY_WORDS = 64;

/**
 * Live entries of `persons`: all of them newest first when `query` is empty, else those matching any word of
 * `query` (or containing it), best match first.
 * @param limit most entries returned (1-200)
 */
export async function searchEntries(
  q: Queryable,
  s: { persons: readonly PersonKey[]; query?: string; limit: number },
): Promise<MemoryEntry[]> {
  const limit = Math.max(1, Math.min(200, Math.floor(s.limit)));
  const query = (s.query ?? '').trim();
  if (query === '') {
    const r = await q.query<Row>(
      `SELECT ${COLUMNS} FROM memory_entries WHERE person = ANY($1) AND forgotten_at IS NULL
        ORDER BY updated_at DESC, id LIMIT $2`,
      [s.persons, limit],
    );
    return r.rows.map(toEntry);
  }
  // A substring match only for short queries (a word or a name typed without spaces), never a whole message.
  const like = [...query].length <= 40 ? `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  // One statement: the query's lexemes (the first 64, each quoted so no operator can be injected) OR-ed into a
  // tsquery, then the match.
  const r = await q.query<Row>(
    `WITH words AS (
       SELECT array(SELECT unnest(tsvector_to_array(to_tsvector('simple', $2)))
                     LIMIT ${MAX_QUERY_WORDS}) AS w
     ), tsq AS (
       SELECT CASE WHEN cardinality(w) = 0 THEN NULL ELSE to_tsquery('simple', array_to_string(array(
                SELECT '''' || replace(replace(x, E'\\\\', E'\\\\\\\\'), '''', '''''') || '''' FROM unnest(w) AS x
              ), ' | ')) END AS tsq
         FROM words
     )
     SELECT ${COLUMNS} FROM (
       SELECT m.*, CASE WHEN tsq.tsq IS NULL THEN 0 ELSE ts_rank(m.tsv, tsq.tsq) END AS rank
         FROM memory_entries m, tsq
        WHERE m.person = ANY($1) AND m.forgotten_at IS NULL
          AND ((tsq.tsq IS NOT NULL AND m.tsv @@ tsq.tsq) OR ($3::text IS NOT NULL AND m.text ILIKE $3))
     ) m ORDER BY rank DESC, updated_at DESC, id LIMIT $4`,
    [s.persons, query.slice(0, 4000), like, limit],
  );
  return r.rows.map(toEntry);
}

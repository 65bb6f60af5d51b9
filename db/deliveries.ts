/**
 * Delivery records in Postgres, shared by every worker (db/migrations/0005_delivery_records.sql):
 *
 * - the fallback send of a message its channel refused for good, claimed before it is attempted (so it happens
 *   at most once across retries and workers), and the recorded delivery failure, also merged into the message's
 *   metadata as `delivery_failure` so REST clients, the event stream and the Web UI see it;
 * - platform posts: the platform message id of each chunk posted under a key, recorded right after it was
 *   created, so a retry skips what is already posted;
 * - live statuses: a turn's rendered live status, continued by whichever worker runs the turn's next step;
 * - typing indicators: whether a channel should show "typing", with a generation per start.
 */
import type { Pool, Queryable } from './pool.ts';
import { withTransaction } from './pool.ts';
import { COMMIT_CHANNEL } from './notify.ts';

/** What happened to the one fallback send of a message. `unsupported`: the channel has no plain send. */
export type FallbackOutcome = 'sent' | 'failed' | 'unsupported';

/**
 * A recorded delivery failure (stored on the message as `metadata.delivery_failure`).
 * - `reason`: `refused` (the channel refused the message for good), `unreachable` (the channel refused it
 *   because it cannot reach the recipient at all for now, e.g. WeChat's 48-hour reply window is over),
 *   `retries_exhausted` (it kept failing until the last attempt), `no_sink` (this worker has no sink for the
 *   message's chatbot, e.g. no DISCORD_TOKEN);
 * - `fallback`: the fallback send's outcome, or null when none was attempted (no sink, recipient unreachable);
 * - `error`: a short operator-facing description (never shown to chat users); `at`: ISO time.
 */
export interface DeliveryFailure {
  reason: 'refused' | 'unreachable' | 'retries_exhausted' | 'no_sink';
  fallback: FallbackOutcome | null;
  error: string;
  at: string;
}

/** The delivery record of one message, or null when its delivery never needed one. */
export interface DeliveryRecord {
  fallbackClaimedAt: string | null;
  fallbackOutcome: FallbackOutcome | null;
  failure: DeliveryFailure | null;
}

export async function getDeliveryRecord(q: Queryable, messageId: string): Promise<DeliveryRecord | null> {
  const r = await q.query<{
    fallback_claimed_at: Date | null;
    fallback_outcome: FallbackOutcome | null;
    failure: DeliveryFailure | null;
  }>('SELECT fallback_claimed_at, fallback_outcome, failure FROM delivery_records WHERE message_id = $1', [
    messageId,
  ]);
  const row = r.rows[0];
  if (!row) return null;
  return {
    fallbackClaimedAt: row.fallback_claimed_at ? row.fallback_claimed_at.toISOString() : null,
    fallbackOutcome: row.fallback_outcome,
    failure: row.failure,
  };
}

/**
 * Claims the one fallback send of `messageId`. Committed before the send is attempted.
 * @returns true when this call claimed it (send now); false when an earlier attempt did (never send again)
 */
export async function claimFallback(q: Queryable, messageId: string): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO delivery_records (message_id, fallback_claimed_at) VALUES ($1, now())
     ON CONFLICT (message_id) DO UPDATE SET fallback_claimed_at = now(), updated_at = now()
       WHERE delivery_records.fallback_claimed_at IS NULL
     RETURNING message_id`,
    [messageId],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function setFallbackOutcome(
  q: Queryable,
  messageId: string,
  outcome: FallbackOutcome,
): Promise<void> {
  await q.query(
    'UPDATE delivery_records SET fallback_outcome = $2, updated_at = now() WHERE message_id = $1',
    [messageId, outcome],
  );
}

/**
 * Records that `messageId` could not be delivered: the delivery record, and `metadata.delivery_failure` on the
 * message in one transaction that bumps the session's history revision and announces it (like every history
 * change, so event-stream clients see it). The message's status is left as it is (`pending`): it was not
 * delivered. Idempotent: a second call keeps the first failure.
 */
export async function recordDeliveryFailure(
  pool: Pool,
  sessionId: string,
  messageId: string,
  failure: DeliveryFailure,
): Promise<DeliveryFailure> {
  return withTransaction(pool, async (client) => {
    const rec = await client.query<{ failure: DeliveryFailure }>(
      `INSERT INTO delivery_records (message_id, failure) VALUES ($1, $2)
       ON CONFLICT (message_id) DO UPDATE SET failure = coalesce(delivery_records.failure, EXCLUDED.failure), updated_at = now()
       RETURNING failure`,
      [messageId, JSON.stringify(failure)],
    );
    const stored = rec.rows[0]?.failure ?? failure;
    const rev = await client.query<{ revision: number }>(
      'UPDATE sessions SET revision = revision + 1, updated_at = now() WHERE id = $1 RETURNING revision',
      [sessionId],
    );
    const revision = rev.rows[0]?.revision;
    if (revision === undefined) throw new Error(`unknown session ${sessionId}`);
    await client.query(
      `UPDATE messages SET metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('delivery_failure', $3::jsonb),
              revision = $4, updated_at = now()
        WHERE id = $1 AND session_id = $2`,
      [messageId, sessionId, JSON.stringify(stored), revision],
    );
    await client.query('SELECT pg_notify($1, $2)', [
      COMMIT_CHANNEL,
      JSON.stringify({ s: sessionId, r: revision }),
    ]);
    return stored;
  });
}

/** Platform message ids already posted under `key`, by chunk index. */
export async function listPlatformPosts(q: Queryable, key: string): Promise<Map<number, string>> {
  const r = await q.query<{ chunk: number; platform_message_id: string }>(
    'SELECT chunk, platform_message_id FROM platform_posts WHERE key = $1',
    [key],
  );
  return new Map(r.rows.map((row) => [row.chunk, row.platform_message_id]));
}

/** Records the platform message posted for chunk `chunk` under `key` (the first record wins). */
export async function recordPlatformPost(
  q: Queryable,
  p: { key: string; chunk: number; channelId: string; platformMessageId: string },
): Promise<void> {
  await q.query(
    `INSERT INTO platform_posts (key, chunk, channel_id, platform_message_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [p.key, p.chunk, p.channelId, p.platformMessageId],
  );
}

/** A stored live status: the sink's own state (opaque here) and when the platform last got a write, epoch ms. */
export interface StoredLiveStatus {
  state: unknown;
  lastEditAt: number;
}

export async function loadLiveStatus(q: Queryable, turnId: string): Promise<StoredLiveStatus | null> {
  const r = await q.query<{ state: unknown; last_edit_at: Date | null }>(
    'SELECT state, last_edit_at FROM live_statuses WHERE turn_id = $1',
    [turnId],
  );
  const row = r.rows[0];
  return row ? { state: row.state, lastEditAt: row.last_edit_at ? row.last_edit_at.getTime() : 0 } : null;
}

export async function saveLiveStatus(
  q: Queryable,
  s: { turnId: string; sessionId: string; channelId: string; state: unknown; lastEditAt: number },
): Promise<void> {
  await q.query(
    `INSERT INTO live_statuses (turn_id, session_id, channel_id, state, last_edit_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (turn_id) DO UPDATE SET state = EXCLUDED.state, last_edit_at = EXCLUDED.last_edit_at, updated_at = now()`,
    [
      s.turnId,
      s.sessionId,
      s.channelId,
      JSON.stringify(s.state),
      s.lastEditAt > 0 ? new Date(s.lastEditAt) : null,
    ],
  );
}

/** Raised when a live status lock is not granted within the wait bound. */
export class LockTimeoutError extends Error {
  readonly kind = 'lock_timeout';
}

/**
 * Runs `fn` while holding the live status lock of `turnId`: a session-level advisory lock on one pooled
 * connection, which `fn` gets to read and write through (autocommit: what it records is committed at once, and
 * a status write needs one connection, not two). Serialises the status writes of one turn across workers, so an
 * older view never overwrites a newer one. A connection that breaks releases the lock with it.
 * @throws LockTimeoutError when the lock is not granted within `waitMs`
 */
export async function withLiveStatusLock<T>(
  pool: Pool,
  turnId: string,
  waitMs: number,
  fn: (q: Queryable) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken ??= err;
  };
  client.on('error', onError);
  const key = `kesoku:live-status:${turnId}`;
  let locked = false;
  try {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const r = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
        [key],
      );
      if (r.rows[0]?.ok) break;
      if (Date.now() >= deadline)
        throw new LockTimeoutError(`the live status of ${turnId} stayed locked for ${waitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    locked = true;
    return await fn(client);
  } finally {
    if (locked && !broken) {
      await client
        .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
        .catch((err: unknown) => {
          broken ??= err instanceof Error ? err : new Error(String(err));
        });
    }
    client.off('error', onError);
    client.release(broken);
  }
}

/** Marks typing wanted on `channelKey`. @returns the new generation (the caller's refresh loop checks it) */
export async function startTyping(q: Queryable, channelKey: string): Promise<number> {
  const r = await q.query<{ generation: number }>(
    `INSERT INTO typing_indicators (channel_key, active, generation) VALUES ($1, true, 1)
     ON CONFLICT (channel_key) DO UPDATE SET active = true, generation = typing_indicators.generation + 1, updated_at = now()
     RETURNING generation`,
    [channelKey],
  );
  return r.rows[0]?.generation ?? 0;
}

/** Marks typing no longer wanted on `channelKey` (whichever worker runs the refresh loop stops it). */
export async function stopTyping(q: Queryable, channelKey: string): Promise<void> {
  await q.query(
    'UPDATE typing_indicators SET active = false, updated_at = now() WHERE channel_key = $1 AND active',
    [channelKey],
  );
}

/** True while typing is still wanted on `channelKey` for the loop started as `generation`. */
export async function typingWanted(q: Queryable, channelKey: string, generation: number): Promise<boolean> {
  const r = await q.query<{ active: boolean; generation: number }>(
    'SELECT active, generation FROM typing_indicators WHERE channel_key = $1',
    [channelKey],
  );
  const row = r.rows[0];
  return row !== undefined && row.active && row.generation === generation;
}

/** The live status records of one turn, read and written while its lock is held. */
export interface LockedStatusStore {
  listPosts(key: string): Promise<Map<number, string>>;
  recordPost(p: { key: string; chunk: number; channelId: string; platformMessageId: string }): Promise<void>;
  loadLiveStatus(turnId: string): Promise<StoredLiveStatus | null>;
  saveLiveStatus(s: {
    turnId: string;
    sessionId: string;
    channelId: string;
    state: unknown;
    lastEditAt: number;
  }): Promise<void>;
}

/** The delivery records a sink needs, bound to one pool. */
export interface DeliveryStore {
  listPosts(key: string): Promise<Map<number, string>>;
  recordPost(p: { key: string; chunk: number; channelId: string; platformMessageId: string }): Promise<void>;
  /** Runs `fn` with the turn's live status lock held (see {@link withLiveStatusLock}). */
  withLiveStatusLock<T>(
    turnId: string,
    waitMs: number,
    fn: (locked: LockedStatusStore) => Promise<T>,
  ): Promise<T>;
  startTyping(channelKey: string): Promise<number>;
  stopTyping(channelKey: string): Promise<void>;
  typingWanted(channelKey: string, generation: number): Promise<boolean>;
}

function statusStoreOn(q: Queryable): LockedStatusStore {
  return {
    listPosts: (key) => listPlatformPosts(q, key),
    recordPost: (p) => recordPlatformPost(q, p),
    loadLiveStatus: (turnId) => loadLiveStatus(q, turnId),
    saveLiveStatus: (s) => saveLiveStatus(q, s),
  };
}

/** The Postgres {@link DeliveryStore}. */
export function createDeliveryStore(pool: Pool): DeliveryStore {
  return {
    listPosts: (key) => listPlatformPosts(pool, key),
    recordPost: (p) => recordPlatformPost(pool, p),
    withLiveStatusLock: (turnId, waitMs, fn) =>
      withLiveStatusLock(pool, turnId, waitMs, (q) => fn(statusStoreOn(q))),
    startTyping: (key) => startTyping(pool, key),
    stopTyping: (key) => stopTyping(pool, key),
    typingWanted: (key, generation) => typingWanted(pool, key, generation),
  };
}

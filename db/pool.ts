/**
 * Postgres access: one `pg` pool per process, and a transaction helper that every multi-statement write uses.
 */
import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: the pool itself or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// bigint columns (seq, revision) fit in a JS number for any realistic history; parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/**
 * Creates a pool. `max` is the connection cap (default 10). Idle clients close after 30 s.
 * Connection errors on idle clients are logged by the caller's `onError`, never thrown from an event handler.
 */
export function createPool(url: string, opts: { max?: number; onError?: (err: Error) => void } = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', (err) => opts.onError?.(err));
  return pool;
}

/**
 * Runs `fn` in a transaction (BEGIN … COMMIT, ROLLBACK on any error) on one pooled client.
 *
 * While the client is checked out the pool does not listen for its 'error' event, and `pg` emits one when
 * the connection drops (a Postgres restart), even in the middle of a query: without a listener that event
 * kills the process. So the client carries a listener for as long as we hold it; the pending query rejects
 * on its own, and a client whose connection broke is released with the error, so the pool discards it.
 * @throws whatever `fn` or Postgres throws, after the rollback
 */
export async function withTransaction<T>(pool: Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken ??= err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    if (!broken) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

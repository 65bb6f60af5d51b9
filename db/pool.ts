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
 * @throws whatever `fn` or Postgres throws, after the rollback
 */
export async function withTransaction<T>(pool: Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

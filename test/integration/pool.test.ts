/**
 * db/pool.ts on real Postgres: a transaction whose connection is killed (as a Postgres restart does) fails
 * with an error instead of killing the process, and the pool goes on with a fresh connection.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, withTransaction, type Pool } from '../../db/pool.ts';
import { collectUncaught } from '../support/uncaught.ts';

let pool: Pool;
let admin: Pool;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'), { max: 2 });
  admin = createPool(inject('databaseUrl'), { max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await admin?.end();
});

/** The uncaught exceptions thrown while `fn` runs and for 200 ms after. */
async function uncaughtDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const uncaught = collectUncaught();
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    uncaught.restore();
  }
  return uncaught.errors;
}

describe('withTransaction when Postgres drops the connection', () => {
  it('between two statements: the transaction rejects, nothing is thrown from an event, the pool recovers', async () => {
    let outcome: unknown;
    const uncaught = await uncaughtDuring(async () => {
      outcome = await withTransaction(pool, async (client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // Give the 'error' event time to arrive while no query is running on this client.
        await new Promise((r) => setTimeout(r, 300));
        await client.query('SELECT 1');
        return 'committed';
      }).catch((err: unknown) => err);
    });
    expect(uncaught).toEqual([]);
    expect(outcome).toBeInstanceOf(Error);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });

  it('in the middle of a statement: the statement rejects and the process lives', async () => {
    let outcome: unknown;
    const uncaught = await uncaughtDuring(async () => {
      outcome = await withTransaction(pool, async (client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const slow = client.query('SELECT pg_sleep(5)');
        slow.catch(() => undefined); // it may reject while we await the terminate below; awaited after
        await new Promise((r) => setTimeout(r, 100));
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await slow;
        return 'committed';
      }).catch((err: unknown) => err);
    });
    expect(uncaught).toEqual([]);
    expect(outcome).toBeInstanceOf(Error);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });
});

/**
 * Applies the versioned SQL migrations in db/migrations with node-pg-migrate. Idempotent: applied migrations
 * are recorded in `pgmigrations`; concurrent callers (worker and API starting together) wait on its advisory
 * lock instead of failing.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Migrates the database at `databaseUrl` up to the newest version.
 * @returns the names of the migrations applied by this call (empty when already up to date)
 */
export async function migrate(databaseUrl: string, logger?: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    advisoryLockMode: 'wait',
    log: () => undefined,
    logger: {
      debug: () => undefined,
      info: (msg: string) => logger?.debug({ migration: msg }, 'migration'),
      warn: (msg: string) => logger?.warn({ migration: msg }, 'migration'),
      error: (msg: string) => logger?.error({ migration: msg }, 'migration'),
    },
  });
  return applied.map((m) => m.name);
}

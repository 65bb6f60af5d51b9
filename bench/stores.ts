/**
 * The Temporal servers the bench runs against (`--temporal dev|cluster|both`):
 * - `dev`: `temporal server start-dev` (the CLI's single-process server) with its state in a SQLite file in WAL
 *   mode, as `npm start` runs it (`KESOKU_BENCH_TEMPORAL_DB=memory`: in memory);
 * - `cluster`: the multi-service server (frontend, history, matching and worker, one process each) on Postgres that
 *   the cluster test builds (infra/temporal-cluster.ts), with its databases on the bench's Postgres server;
 * - `TEMPORAL_ADDRESS` set: a server someone else runs (named by its address).
 */
import path from 'node:path';
import {
  cachedServerBinaries,
  startTemporalCluster,
  TEMPORAL_SERVER_VERSION,
} from '../infra/temporal-cluster.ts';
import {
  binaryVersion,
  freePort,
  resolveTemporalBinary,
  startDevServer,
  TemporalUnavailableError,
} from '../infra/temporal-server.ts';
import { childPids } from './probes.ts';

/** The stores `--temporal` names. */
export type StoreKind = 'dev' | 'cluster';

/** A running Temporal server of the bench. */
export interface TemporalStore {
  kind: StoreKind | 'external';
  /** How the report names the store, e.g. "dev server (temporal version 1.5.1 …), SQLite file (WAL)". */
  name: string;
  address: string;
  /** Its processes by name (e.g. `frontend`), to read their CPU time; empty for an external server. */
  pids(): Record<string, number>;
  /** Postgres databases holding its state (cluster only), to count its transactions. */
  databases: string[];
  stop(): Promise<void>;
}

/**
 * Starts the store `kind` under `dir`; with `TEMPORAL_ADDRESS` set, uses that server instead.
 * @throws TemporalUnavailableError when the binaries are missing (the message says how to install them)
 */
export async function startStore(
  kind: StoreKind,
  opts: { dir: string; postgresUrl: string; label: string },
): Promise<TemporalStore> {
  if (process.env.TEMPORAL_ADDRESS) {
    const address = process.env.TEMPORAL_ADDRESS;
    return {
      kind: 'external',
      name: `external server at ${address} (TEMPORAL_ADDRESS)`,
      address,
      pids: () => ({}),
      databases: [],
      stop: async () => undefined,
    };
  }
  return kind === 'dev' ? startDev(opts.dir) : startCluster(opts);
}

async function startDev(dir: string): Promise<TemporalStore> {
  const binary = await resolveTemporalBinary({ cliPath: process.env.KESOKU_TEMPORAL_CLI });
  if (!binary) throw new TemporalUnavailableError('no Temporal CLI (npm run temporal:install)');
  const memory = process.env.KESOKU_BENCH_TEMPORAL_DB === 'memory';
  const before = new Set(childPids(process.pid, /temporal/));
  const server = await startDevServer(
    binary.path,
    {
      port: await freePort(),
      uiPort: null,
      dbFilename: memory ? null : path.join(dir, 'temporal.db'),
      logFile: path.join(dir, 'temporal.log'),
    },
    binary.source,
  );
  const pid = childPids(process.pid, /temporal/).find((p) => !before.has(p));
  const version = binaryVersion(binary.path).replace(/\s+/g, ' ');
  return {
    kind: 'dev',
    name: `dev server (${version}), ${memory ? 'in memory' : 'SQLite file (WAL)'}`,
    address: server.address,
    pids: (): Record<string, number> => (pid ? { 'temporal dev server': pid } : {}),
    databases: [],
    stop: () => server.stop(),
  };
}

async function startCluster(opts: {
  dir: string;
  postgresUrl: string;
  label: string;
}): Promise<TemporalStore> {
  const binaries = cachedServerBinaries();
  if (!binaries)
    throw new TemporalUnavailableError(
      `no Temporal server ${TEMPORAL_SERVER_VERSION} binaries (npm run temporal:install -- --server)`,
    );
  const pg = new URL(opts.postgresUrl);
  const dbPrefix = `kesoku_bench_${opts.label}_${process.pid}`;
  const cluster = await startTemporalCluster({
    postgres: {
      host: pg.hostname,
      port: Number(pg.port || 5432),
      user: decodeURIComponent(pg.username),
      password: decodeURIComponent(pg.password) || undefined,
    },
    dbPrefix,
    dir: path.join(opts.dir, 'cluster'),
    binaries,
  });
  return {
    kind: 'cluster',
    name: `multi-service server ${TEMPORAL_SERVER_VERSION} on Postgres (frontend, history, matching, worker; 4 history shards)`,
    address: cluster.address,
    pids: () =>
      Object.fromEntries(
        Object.entries(cluster.services)
          .filter(([, c]) => c.pid !== undefined)
          .map(([s, c]) => [`temporal ${s}`, c.pid as number]),
      ),
    databases: [`${dbPrefix}_temporal`, `${dbPrefix}_visibility`],
    stop: () => cluster.stop(),
  };
}

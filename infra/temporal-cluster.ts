/**
 * A self-hosted, multi-service Temporal server on Postgres, as a production cluster runs it: the
 * `go.temporal.io/server` binary (frontend, history, matching and worker services, each its own process) with
 * persistence and visibility in two fresh Postgres databases whose schema `temporal-sql-tool` sets up.
 * `npm run test:cluster` and the short cluster test in `npm test` start one; `npm run temporal:install -- --server`
 * builds the binaries.
 *
 * Binaries: `go install go.temporal.io/server/cmd/server@v1.29.1` and `…/cmd/tools/sql@v1.29.1`, cached under
 * `~/.cache/kesoku/temporal-server/v1.29.1/{temporal-server,temporal-sql-tool}` (or `$XDG_CACHE_HOME`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { superviseChild } from './child-process.ts';
import { connectTemporal } from './temporal-connection.ts';
import { TemporalUnavailableError, isPortOpen, waitForTemporal } from './temporal-server.ts';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server/cmd/server';
const SQL_TOOL_MODULE = 'go.temporal.io/server/cmd/tools/sql';

/** The cache directory of the server binaries. */
export function serverCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'kesoku', 'temporal-server', TEMPORAL_SERVER_VERSION);
}

/** Paths of the cached binaries, or null when either is missing. */
export function cachedServerBinaries(): { server: string; sqlTool: string } | null {
  const dir = serverCacheDir();
  const server = path.join(dir, 'temporal-server');
  const sqlTool = path.join(dir, 'temporal-sql-tool');
  return fs.existsSync(server) && fs.existsSync(sqlTool) ? { server, sqlTool } : null;
}

/**
 * Builds both binaries with Go into the cache (a few minutes on first use), retrying a failed build (on a busy
 * machine `go` can fail to fork; the build cache keeps what was compiled).
 * @throws TemporalUnavailableError with Go's output when Go is missing or every attempt fails
 */
export function installServerBinaries(
  go = process.env.KESOKU_GO ?? (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go'),
): {
  server: string;
  sqlTool: string;
} {
  const cached = cachedServerBinaries();
  if (cached) return cached;
  const dir = serverCacheDir();
  fs.mkdirSync(dir, { recursive: true });
  const bin = fs.mkdtempSync(path.join(dir, 'build-'));
  let output = '';
  for (let attempt = 1; attempt <= 5; attempt++) {
    const r = spawnSync(
      go,
      [
        'install',
        `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`,
        `${SQL_TOOL_MODULE}@${TEMPORAL_SERVER_VERSION}`,
      ],
      {
        env: { ...process.env, GOBIN: bin, GOFLAGS: process.env.GOFLAGS ?? '-p=1 -buildvcs=false' },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`;
    if (r.status === 0) {
      fs.renameSync(path.join(bin, 'server'), path.join(dir, 'temporal-server'));
      fs.renameSync(path.join(bin, 'sql'), path.join(dir, 'temporal-sql-tool'));
      fs.rmSync(bin, { recursive: true, force: true });
      return cachedServerBinaries()!;
    }
  }
  fs.rmSync(bin, { recursive: true, force: true });
  throw new TemporalUnavailableError(
    `building the Temporal server failed (go install ${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}):\n${output.slice(-4000)}`,
  );
}

export interface ClusterOptions {
  /** Postgres server; databases `<prefix>_temporal` and `<prefix>_visibility` are created fresh on it. */
  postgres: { host: string; port: number; user: string; password?: string };
  dbPrefix: string;
  /** Where config and logs go. */
  dir: string;
  binaries: { server: string; sqlTool: string };
  /**
   * Serve the frontend over TLS: PEM files of its certificate and key, and of the CA that signed it (the
   * services' own connections to the frontend check it, for `serverName`, default `localhost`). Internode
   * traffic stays plaintext on loopback.
   */
  tls?: { certFile: string; keyFile: string; caFile: string; serverName?: string };
}

export interface TemporalCluster {
  address: string;
  namespace: string;
  /** One process per service. */
  services: Record<string, ChildProcess>;
  /** Stops every service and drops the databases. */
  stop(): Promise<void>;
}

type RegisterRequest = Parameters<
  Awaited<ReturnType<typeof connectTemporal>>['workflowService']['registerNamespace']
>[0];

const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;

const taken = new Set<number>();
/** A free port below 32768: the server stores membership ports in a Postgres smallint. */
async function lowPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.has(port) && !(await isPortOpen(port))) {
      taken.add(port);
      return port;
    }
  }
}

function sqlTool(opts: ClusterOptions, db: string, args: string[]): void {
  const p = opts.postgres;
  const r = spawnSync(
    opts.binaries.sqlTool,
    [
      '--plugin',
      'postgres12',
      '--ep',
      p.host,
      '--port',
      String(p.port),
      '--user',
      p.user,
      ...(p.password ? ['--password', p.password] : []),
      '--db',
      db,
      ...args,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0)
    throw new TemporalUnavailableError(
      `temporal-sql-tool ${args.join(' ')} on ${db} failed:\n${r.stdout}${r.stderr}`,
    );
}

/** Creates the two databases and applies the schema embedded in temporal-sql-tool. */
export function setupSchema(opts: ClusterOptions): { main: string; visibility: string } {
  const main = `${opts.dbPrefix}_temporal`;
  const visibility = `${opts.dbPrefix}_visibility`;
  for (const [db, schema] of [
    [main, 'postgresql/v12/temporal'],
    [visibility, 'postgresql/v12/visibility'],
  ] as const) {
    sqlTool(opts, db, ['drop-database', '--force']);
    sqlTool(opts, db, ['create-database']);
    sqlTool(opts, db, ['setup-schema', '-v', '0.0']);
    sqlTool(opts, db, ['update-schema', '--schema-name', schema]);
  }
  return { main, visibility };
}

/**
 * Sets up the schema, starts the four services as separate processes, and registers namespace `default`.
 * @throws TemporalUnavailableError when the schema setup fails or the frontend does not answer in 120 s
 */
export async function startTemporalCluster(opts: ClusterOptions): Promise<TemporalCluster> {
  const dbs = setupSchema(opts);
  const ports = Object.fromEntries(
    await Promise.all(
      SERVICES.map(async (s) => [s, { grpc: await lowPort(), membership: await lowPort() }] as const),
    ),
  );
  const httpPort = await lowPort();
  const p = opts.postgres;
  const store = (db: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: db,
      connectAddr: `${p.host}:${p.port}`,
      connectProtocol: 'tcp',
      user: p.user,
      password: p.password ?? '',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: 4,
      datastores: { default: store(dbs.main, 10), visibility: store(dbs.visibility, 4) },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      ...(opts.tls
        ? {
            tls: {
              frontend: {
                server: { certFile: opts.tls.certFile, keyFile: opts.tls.keyFile, requireClientAuth: false },
                client: { serverName: opts.tls.serverName ?? 'localhost', rootCaFiles: [opts.tls.caFile] },
              },
            },
          }
        : {}),
    },
    services: Object.fromEntries(
      SERVICES.map((s) => [
        s,
        {
          rpc: {
            grpcPort: ports[s]!.grpc,
            membershipPort: ports[s]!.membership,
            bindOnLocalHost: true,
            ...(s === 'frontend' ? { httpPort } : {}),
          },
        },
      ]),
    ),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend!.grpc}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: {
      filepath: path.join(import.meta.dirname, 'temporal-dynamicconfig.yaml'),
      pollInterval: '10s',
    },
  };
  fs.mkdirSync(path.join(opts.dir, 'config'), { recursive: true });
  // JSON is YAML: the server's loader reads it as its YAML config file.
  fs.writeFileSync(path.join(opts.dir, 'config', 'development.yaml'), JSON.stringify(config, null, 2));

  const services: Record<string, ChildProcess> = {};
  const stops: (() => Promise<void>)[] = [];
  for (const s of SERVICES) {
    const log = fs.openSync(path.join(opts.dir, `${s}.log`), 'a');
    const child = spawn(
      opts.binaries.server,
      [
        '--root',
        opts.dir,
        '--config',
        'config',
        '--env',
        'development',
        '--allow-no-auth',
        'start',
        '--service',
        s,
      ],
      {
        stdio: ['ignore', log, log],
        detached: true,
      },
    );
    fs.closeSync(log);
    services[s] = child;
    const supervised = superviseChild(child);
    stops.push(() => supervised.stop('SIGTERM'));
    // One at a time: services starting together on fresh databases race to write the cluster metadata, and
    // the loser exits ("failed to initialize current cluster metadata").
    const deadline = Date.now() + 60_000;
    while (!(await isPortOpen(ports[s]!.grpc)) && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 200));
  }
  const address = `127.0.0.1:${ports.frontend!.grpc}`;
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  const tls = opts.tls
    ? {
        serverRootCACertificate: fs.readFileSync(opts.tls.caFile),
        serverNameOverride: opts.tls.serverName ?? 'localhost',
      }
    : undefined;
  try {
    await waitForTemporal(address, 120_000, services.frontend, tls ? { tls } : {});
    const connection = await connectTemporal({ address, ...(tls ? { tls } : {}) });
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          // protobufjs takes a plain number for an int64 field; the generated typing asks for a Long.
          const seconds = 86_400 as unknown as NonNullable<
            RegisterRequest['workflowExecutionRetentionPeriod']
          >['seconds'];
          await connection.workflowService.registerNamespace({
            namespace: 'default',
            workflowExecutionRetentionPeriod: { seconds },
          });
          break;
        } catch (err) {
          if ((err as { code?: number }).code === 6 /* ALREADY_EXISTS */) break;
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      // The namespace registry refreshes every few seconds: wait until the frontend knows `default`.
      for (;;) {
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      await connection.close();
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    address,
    namespace: 'default',
    services,
    async stop() {
      await stop();
      sqlTool(opts, dbs.main, ['drop-database', '--force']);
      sqlTool(opts, dbs.visibility, ['drop-database', '--force']);
    },
  };
}

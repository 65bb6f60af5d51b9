/**
 * The infrastructure every Kesoku process shares: Temporal and Postgres resolved (embedded under `npm start`,
 * external otherwise), migrations applied, the pg pool, the Temporal client with the payload codec, the
 * `SessionClient`, and the codec endpoint's token. Also the task queue every process uses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, type Connection } from '@temporalio/client';
import { capabilitiesOf } from '../adapters/registry.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { ConfigError, type Config } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import { useMetricsPool } from '../infra/metrics.ts';
import { AesGcmPayloadCodec, resolvePayloadKeys } from '../infra/payload-codec.ts';
import { resolvePostgres, type PostgresServer } from '../infra/postgres-server.ts';
import { ensurePrivateDir, readOrCreateSecret, tightenFileMode } from '../infra/private-files.ts';
import { SessionClient } from '../infra/session-client.ts';
import { connectTemporal } from '../infra/temporal-connection.ts';
import {
  connectionSettingsOf,
  describeTemporalSettings,
  resolveTemporalSettings,
  type TemporalConnectionSettings,
} from '../infra/temporal-envconfig.ts';
import {
  TemporalUnavailableError,
  resolveTemporalServer,
  type TemporalServer,
} from '../infra/temporal-server.ts';
import { temporalTlsProblem } from '../infra/temporal-tls-probe.ts';

/** The task queue every Kesoku process uses (tests use their own via KESOKU_TASK_QUEUE). */
export function taskQueueOf(): string {
  return process.env.KESOKU_TASK_QUEUE || 'kesoku';
}

/** Temporal + Postgres as resolved for this process, plus the shared pg pool and Temporal client. */
export interface Infrastructure {
  temporal: TemporalServer;
  postgres: PostgresServer;
  pool: Pool;
  connection: Connection;
  /** TLS, API key and headers for further connections to `temporal` (a worker's NativeConnection). */
  temporalConnection: TemporalConnectionSettings;
  client: Client;
  sessions: SessionClient;
  /** Encrypts every Temporal payload of this process (infra/payload-codec.ts); the worker uses it too. */
  payloadCodec: AesGcmPayloadCodec;
  /** The token of the API's codec endpoint for the Temporal Web UI; null when none is configured. */
  codecToken: string | null;
  stop(): Promise<void>;
}

/** The file in the data dir holding the codec endpoint's token (created by `npm start`). */
export const CODEC_TOKEN_FILE = 'codec-token';

/**
 * The codec token: `KESOKU_CODEC_TOKEN`, else `<data dir>/codec-token`, created (0600) when `create` is set.
 * @returns null when neither exists and `create` is false
 */
export function resolveCodecToken(cfg: Config, create: boolean): string | null {
  if (cfg.KESOKU_CODEC_TOKEN) return cfg.KESOKU_CODEC_TOKEN;
  const file = path.join(cfg.KESOKU_DATA_DIR, CODEC_TOKEN_FILE);
  if (!create && !fs.existsSync(file)) return null;
  return readOrCreateSecret(cfg.KESOKU_DATA_DIR, CODEC_TOKEN_FILE, () => randomBytes(32).toString('hex'))
    .value;
}

/**
 * The API's codec endpoint, `http://<api>/codec`, which the `npm start` Web UI proxy forwards the UI's codec
 * requests to with the token as a header (infra/web-ui-proxy.ts); null when the API is off.
 */
export function codecEndpointUrl(cfg: Config): string | null {
  if (cfg.KESOKU_API_PORT === 0) return null;
  const h = cfg.KESOKU_API_HOST;
  const host =
    !h || h === '0.0.0.0' || h === '::' || h === 'localhost' || h.startsWith('127.')
      ? '127.0.0.1'
      : h.includes(':')
        ? `[${h}]`
        : h;
  return `http://${host}:${cfg.KESOKU_API_PORT}/codec`;
}

/**
 * Resolves Temporal and Postgres. With `embedded` true (npm start), missing addresses start embedded servers
 * under the data dir; otherwise `DATABASE_URL` and a Temporal address are required. Temporal's address, namespace,
 * TLS and API key come from Temporal's environment configuration (infra/temporal-envconfig.ts).
 * @throws ConfigError naming the missing variable; TemporalUnavailableError / PostgresUnavailableError
 */
export async function startInfrastructure(
  cfg: Config,
  logger: Logger,
  embedded: boolean,
): Promise<Infrastructure> {
  const temporalSettings = resolveTemporalSettings();
  if (!embedded) {
    const missing = [
      !cfg.DATABASE_URL && 'DATABASE_URL',
      !temporalSettings.address && 'TEMPORAL_ADDRESS (or a profile in the Temporal config file)',
    ].filter(Boolean);
    if (missing.length > 0) {
      throw new ConfigError(
        `set ${missing.join(' and ')} (or run everything with \`npm start\`, which starts embedded servers)`,
      );
    }
  }
  // Everything this process and its children (Temporal's SQLite file, Postgres, workspaces) create under the
  // data dir is readable by this user only.
  process.umask(0o077);
  ensurePrivateDir(cfg.KESOKU_DATA_DIR);
  const keys = resolvePayloadKeys({
    env: cfg.KESOKU_PAYLOAD_KEYS,
    dataDir: cfg.KESOKU_DATA_DIR,
    create: embedded,
  });
  if (keys.source === 'created') logger.info({ file: keys.file }, 'created a payload encryption key');
  const payloadCodec = new AesGcmPayloadCodec(keys.keys, {
    acceptPlaintext: cfg.KESOKU_CODEC_ACCEPT_PLAINTEXT,
  });
  if (cfg.KESOKU_CODEC_ACCEPT_PLAINTEXT)
    logger.warn(
      'KESOKU_CODEC_ACCEPT_PLAINTEXT=true: unencrypted Temporal payloads are accepted, so anyone who reaches ' +
        'Temporal can drive a session without the payload keys; unset it once the old histories are done',
    );
  const codecToken = resolveCodecToken(cfg, embedded);
  const codecUrl = codecEndpointUrl(cfg);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.reverse())
      await s().catch((err) => logger.warn({ err: String(err) }, 'stop failed'));
  };
  try {
    const [temporal, postgres] = await Promise.all([
      resolveTemporalServer({
        address: temporalSettings.address,
        namespace: temporalSettings.namespace,
        cliPath: cfg.KESOKU_TEMPORAL_CLI,
        port: cfg.KESOKU_TEMPORAL_PORT,
        uiPort: cfg.KESOKU_TEMPORAL_UI_PORT,
        dbFilename: path.join(cfg.KESOKU_DATA_DIR, 'temporal.db'),
        logFile: path.join(cfg.KESOKU_DATA_DIR, 'temporal.log'),
        ...(codecToken && codecUrl ? { codec: { url: codecUrl, token: codecToken } } : {}),
        logger,
      }).then((t) => {
        stops.push(() => t.stop());
        return t;
      }),
      resolvePostgres({
        databaseUrl: cfg.DATABASE_URL,
        dataDir: cfg.KESOKU_DATA_DIR,
        port: cfg.KESOKU_POSTGRES_PORT,
        logger,
      }).then((p) => {
        stops.push(() => p.stop());
        return p;
      }),
    ]);
    // The dev server's SQLite files ignore the umask (created 0644); the 0700 data dir already hides them.
    for (const f of ['temporal.db', 'temporal.db-wal', 'temporal.db-shm', 'temporal.log']) {
      const file = path.join(cfg.KESOKU_DATA_DIR, f);
      if (fs.existsSync(file)) tightenFileMode(file);
    }
    const applied = await migrate(postgres.url, logger);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
    let closing = false;
    const pool = createPool(postgres.url, {
      max: cfg.KESOKU_DB_POOL_MAX,
      onError: (err) =>
        (closing ? logger.debug : logger.warn).call(logger, { err: err.message }, 'idle pg client error'),
    });
    stops.push(() => pool.end());
    useMetricsPool(pool);
    // Runs first on stop (stops run in reverse): from here on, connections dropping is expected.
    stops.push(async () => {
      closing = true;
    });
    // A server this process started is plaintext on loopback; an external one gets the configured TLS and key.
    const temporalConnection = temporal.source === 'external' ? connectionSettingsOf(temporalSettings) : {};
    if (temporal.source === 'external')
      logger.info(describeTemporalSettings(temporalSettings), 'using an external Temporal');
    const connection = await connectTemporal({ address: temporal.address, ...temporalConnection }).catch(
      async (err: unknown) => {
        // gRPC says only "Failed to connect before the deadline"; a TLS handshake tells a TLS problem apart.
        const problem = await temporalTlsProblem(temporal.address, temporalConnection.tls);
        throw problem ? new TemporalUnavailableError(problem) : err;
      },
    );
    stops.push(() => connection.close());
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      dataConverter: { payloadCodecs: [payloadCodec] },
    });
    const sessions = new SessionClient({
      client,
      taskQueue: taskQueueOf(),
      continueAsNewAfterTurns: cfg.KESOKU_CONTINUE_AS_NEW_TURNS,
      continueAsNewAfterEvents: cfg.KESOKU_CONTINUE_AS_NEW_EVENTS,
      modelRequestTimeoutMs: cfg.KESOKU_LLM_TIMEOUT_MS,
      idleEndS: cfg.KESOKU_SESSION_IDLE_S,
      capabilities: capabilitiesOf,
    });
    return {
      temporal,
      postgres,
      pool,
      connection,
      temporalConnection,
      client,
      sessions,
      payloadCodec,
      codecToken,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The parts a Kesoku process can run — Temporal worker, API, chat channels (./channel-services.ts) — each as a
 * service with `stop()`, and the resolution of Temporal and Postgres they share. `npm start` (bin/start.ts) runs
 * them all in one process; `npm run worker` (bin/worker.ts), `npm run api` (bin/api.ts) and
 * `npm run channels` (bin/channels.ts) run one each.
 */
import { noteSdkLog } from '../infra/workflow-health.ts';
import { capabilitiesOf } from '../adapters/registry.ts';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { connectTemporal } from '../infra/temporal-connection.ts';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { ChannelSink } from '../activities/delivery.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { requireLlmConfig, type Config, ConfigError } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import { resolvePostgres, type PostgresServer } from '../infra/postgres-server.ts';
import { killStartedChildren } from '../infra/child-process.ts';
import { SessionClient } from '../infra/session-client.ts';
import {
  TemporalUnavailableError,
  resolveTemporalServer,
  type TemporalServer,
} from '../infra/temporal-server.ts';
import { temporalTlsProblem } from '../infra/temporal-tls-probe.ts';
import {
  connectionSettingsOf,
  describeTemporalSettings,
  resolveTemporalSettings,
  type TemporalConnectionSettings,
} from '../infra/temporal-envconfig.ts';
import type { LlmConfig } from '../activities/llm/provider.ts';
import { approvalSettingsFrom, createKesokuWorker } from './build-worker.ts';
import { jobLimitsFrom } from '../infra/jobs.ts';
import { ensureSearchAttributes } from '../infra/temporal-search-attributes.ts';
import { AesGcmPayloadCodec, resolvePayloadKeys } from '../infra/payload-codec.ts';
import { ensurePrivateDir, readOrCreateSecret, tightenFileMode } from '../infra/private-files.ts';
import { randomBytes } from 'node:crypto';
import type { ComponentHealth } from '../infra/health.ts';
import { activityMetricsInterceptor, startMetricsServer, useMetricsPool } from '../infra/metrics.ts';
import { freePort } from '../infra/temporal-server.ts';
import { sandboxSettingsFrom } from '../activities/tools/sandbox-settings.ts';
import { loadMcpConfig } from '../activities/mcp/config.ts';

export { sandboxSettingsFrom };

/**
 * Activity failure types that are an expected outcome, not a fault: `StaleTurnError` is a step whose commit was
 * refused because the user stopped or interrupted the turn (db/messages.ts guardTurn). The SDK logs them as
 * "Activity failed" at WARN with the stack; Kesoku logs them at INFO with the type and message only.
 */
export const EXPECTED_ACTIVITY_FAILURE_TYPES: ReadonlySet<string> = new Set(['StaleTurnError']);

/**
 * How one Temporal SDK log entry is written: the pino method and fields. An `error` in the metadata becomes
 * pino's `err` (message and stack), but an "Activity failed" of an {@link EXPECTED_ACTIVITY_FAILURE_TYPES} type
 * is written at info as `failure: {type, message}` (no stack).
 * @param level the SDK's level name (TRACE, DEBUG, INFO, WARN, ERROR)
 */
export function sdkLogLine(
  level: string,
  message: string,
  meta: Record<string, unknown>,
): { method: 'trace' | 'debug' | 'info' | 'warn' | 'error'; fields: Record<string, unknown> } {
  // An activity's task token is an opaque credential-like blob of no use to a reader.
  const { error, taskToken: _taskToken, ...rest } = meta;
  // By name, not instanceof: the SDK may load its own copy of @temporalio/common.
  const failure =
    error instanceof Error && error.name === 'ApplicationFailure' ? (error as ApplicationFailure) : null;
  if (message === 'Activity failed' && failure && EXPECTED_ACTIVITY_FAILURE_TYPES.has(failure.type ?? '')) {
    return { method: 'info', fields: { ...rest, failure: { type: failure.type, message: failure.message } } };
  }
  const fields = error === undefined ? rest : { ...rest, err: error };
  const method =
    level === 'TRACE'
      ? 'trace'
      : level === 'DEBUG'
        ? 'debug'
        : level === 'INFO'
          ? 'info'
          : level === 'WARN'
            ? 'warn'
            : 'error';
  return { method, fields };
}

/**
 * Routes the Temporal SDK's own logs (worker state, activity failures, workflow `log` calls such as "turn
 * failed") into `logger` as JSON lines under `temporal: true`, at WARN unless Kesoku logs at info/debug/trace.
 * An `error` in the entry's metadata becomes pino's `err` (message and stack). Call once, before the first
 * connection.
 */
export function installTemporalLogging(
  level: string,
  logger: Logger,
  opts: { prometheusBindAddress?: string } = {},
): void {
  const sdkLevel = level === 'debug' || level === 'trace' ? 'DEBUG' : level === 'info' ? 'INFO' : 'WARN';
  const sdk = logger.child({ temporal: true });
  const write = new DefaultLogger(sdkLevel, (entry) => {
    const meta = (entry.meta ?? {}) as Record<string, unknown>;
    if (noteSdkLog(entry.message, meta)) {
      // A session stuck until an operator acts: an error, with where to look.
      sdk.error(
        {
          ...meta,
          nondeterminism: true,
          recovery: 'docs/operations.md "A session stuck on a nondeterminism error"',
        },
        'workflow task failed with a nondeterminism error; the run is stuck',
      );
      return;
    }
    const line = sdkLogLine(entry.level, entry.message, meta);
    sdk[line.method](line.fields, entry.message);
  });
  try {
    // Core (Rust) logs are forwarded to the same logger instead of being printed to the console.
    Runtime.install({
      logger: write,
      telemetryOptions: {
        logging: { filter: { core: sdkLevel, other: 'ERROR' }, forward: {} },
        // The SDK runtime's own Prometheus exporter (worker and task-queue series), re-served on /metrics.
        ...(opts.prometheusBindAddress
          ? {
              metrics: {
                prometheus: {
                  bindAddress: opts.prometheusBindAddress,
                  countersTotalSuffix: true,
                  unitSuffix: true,
                  useSecondsForDurations: true,
                },
              },
            }
          : {}),
      },
    });
  } catch {
    // Already installed.
  }
}

/** The task queue every Kesoku process uses (tests use their own via KESOKU_TASK_QUEUE). */
export function taskQueueOf(): string {
  return process.env.KESOKU_TASK_QUEUE || 'kesoku';
}

export interface Service {
  name: string;
  stop(): Promise<void>;
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

/** The model settings, or null with a warning naming what is missing (turns then fail with a clear notice). */
export function llmOrWarn(cfg: Config, logger: Logger): LlmConfig | null {
  try {
    return requireLlmConfig(cfg);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // One line for a person at a terminal, the JSON log line for everyone else.
    if (process.stderr.isTTY) process.stderr.write(`kesoku: warning: ${err.message}\n`);
    else logger.warn(err.message);
    return null;
  }
}

/**
 * What a stopping worker waits for, for the person who pressed Ctrl-C: null when nothing runs.
 * @param running activities in flight (tool commands, model calls, writes)
 * @param drainS seconds they are given before they are cancelled (KESOKU_WORKER_DRAIN_S)
 */
export function drainNotice(running: number, drainS: number): string | null {
  if (running <= 0) return null;
  const what =
    running === 1
      ? '1 running tool command or model call'
      : `${running} running tool commands or model calls`;
  return `waiting for ${what} to finish (up to ${drainS} s); press Ctrl-C again to exit now`;
}

/**
 * Runs a worker on the `kesoku` task queue until stopped.
 * @param opts.onDrain told, when the worker stops while activities run, what it waits for ({@link drainNotice});
 *   default: an info log line
 */
export async function startWorkerService(
  cfg: Config,
  infra: Infrastructure,
  logger: Logger,
  sinks: Record<string, ChannelSink> = {},
  opts: { onDrain?: (notice: string) => void } = {},
): Promise<Service> {
  // Session workflows set Kesoku's search attributes when they start: make sure the namespace has them before
  // polling, or stop here with the command to add them (never a rejected start per message).
  await ensureSearchAttributes({ connection: infra.connection, namespace: infra.temporal.namespace, logger });
  const connection = await NativeConnection.connect({
    address: infra.temporal.address,
    ...infra.temporalConnection,
  });
  // Tool runs get connections of their own: a busy tool queue never holds those of model steps and writes.
  const toolPool = createPool(infra.postgres.url, {
    max: Math.min(cfg.KESOKU_DB_POOL_MAX, cfg.KESOKU_WORKER_TOOL_SLOTS),
    onError: (err) => logger.debug({ err: err.message }, 'idle pg client error (tool pool)'),
  });
  const worker = await createKesokuWorker({
    connection,
    namespace: infra.temporal.namespace,
    taskQueue: taskQueueOf(),
    pool: infra.pool,
    toolPool,
    activitySlots: cfg.KESOKU_WORKER_ACTIVITY_SLOTS,
    toolSlots: cfg.KESOKU_WORKER_TOOL_SLOTS,
    logger,
    llm: llmOrWarn(cfg, logger),
    dataDir: cfg.KESOKU_DATA_DIR,
    maxSteps: cfg.KESOKU_MAX_STEPS,
    compactTokens: cfg.KESOKU_COMPACT_TOKENS,
    shellTimeoutMs: cfg.KESOKU_SHELL_TIMEOUT_S * 1000,
    jobLimits: jobLimitsFrom(cfg),
    defaultLocale: cfg.KESOKU_LOCALE,
    maxCachedSessions: cfg.KESOKU_WORKER_CACHED_SESSIONS,
    dataConverter: { payloadCodecs: [infra.payloadCodec] },
    drainS: cfg.KESOKU_WORKER_DRAIN_S,
    heartbeatThrottleMs: cfg.KESOKU_WORKER_HEARTBEAT_THROTTLE_MS,
    sandbox: sandboxSettingsFrom(cfg),
    approvals: approvalSettingsFrom(cfg),
    mcp: { config: loadMcpConfig(cfg.KESOKU_MCP_CONFIG), maxListed: cfg.KESOKU_MCP_MAX_TOOLS },
    sessions: infra.sessions,
    ...(cfg.KESOKU_TIMEZONE ? { defaultZone: cfg.KESOKU_TIMEZONE } : {}),
    ...(cfg.KESOKU_SKILLS_DIR ? { skillsDir: cfg.KESOKU_SKILLS_DIR } : {}),
    sinks,
    activityInterceptors: [activityMetricsInterceptor],
    ...(cfg.KESOKU_WORKER_BUILD_ID
      ? { deployment: { name: cfg.KESOKU_WORKER_DEPLOYMENT, buildId: cfg.KESOKU_WORKER_BUILD_ID } }
      : {}),
  });
  const running = worker.run();
  running.catch((err) => logger.error({ err: String(err) }, 'worker stopped with an error'));
  logger.info(
    {
      taskQueue: taskQueueOf(),
      deployment: cfg.KESOKU_WORKER_BUILD_ID
        ? `${cfg.KESOKU_WORKER_DEPLOYMENT}.${cfg.KESOKU_WORKER_BUILD_ID}`
        : 'unversioned',
    },
    'worker running',
  );
  return {
    name: 'worker',
    async stop() {
      // The SDK's own signal handling (Runtime `shutdownSignals`) may have begun the shutdown already on the
      // same SIGINT/SIGTERM: the activities still running are worth a notice in either case.
      const state = worker.getState();
      if (state === 'RUNNING' || state === 'STOPPING' || state === 'DRAINING') {
        const notice = drainNotice(
          worker.getStatus().numInFlightNonLocalActivities,
          cfg.KESOKU_WORKER_DRAIN_S,
        );
        if (notice) (opts.onDrain ?? ((text: string) => logger.info(text)))(notice);
      }
      if (state === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await toolPool.end().catch(() => undefined);
      await connection.close();
    },
  };
}

/**
 * A loopback address for the Temporal SDK runtime's Prometheus exporter when this process serves metrics
 * (`KESOKU_METRICS_PORT` set), else undefined. Call before {@link installTemporalLogging}.
 */
export async function coreMetricsAddress(cfg: Config): Promise<string | undefined> {
  return cfg.KESOKU_METRICS_PORT === undefined ? undefined : `127.0.0.1:${await freePort()}`;
}

/**
 * Serves `/metrics` and `/healthz` on `KESOKU_METRICS_HOST:KESOKU_METRICS_PORT` (see infra/metrics.ts), or
 * returns null when `KESOKU_METRICS_PORT` is unset.
 */
export async function startMetricsService(
  cfg: Config,
  logger: Logger,
  opts: { coreMetricsAddress?: string; health?: () => Promise<ComponentHealth> } = {},
): Promise<(Service & { url: string }) | null> {
  if (cfg.KESOKU_METRICS_PORT === undefined) return null;
  const server = await startMetricsServer({
    host: cfg.KESOKU_METRICS_HOST,
    port: cfg.KESOKU_METRICS_PORT,
    logger,
    coreMetricsUrl: opts.coreMetricsAddress ? `http://${opts.coreMetricsAddress}/metrics` : undefined,
    health: opts.health,
  });
  logger.info({ url: `${server.url}/metrics` }, 'metrics endpoint listening');
  return { name: 'metrics', url: server.url, stop: () => server.close() };
}

/** Stops services in reverse order, then the infrastructure; never throws. */
export async function stopAll(
  services: Service[],
  infra: Infrastructure | null,
  logger: Logger,
): Promise<void> {
  for (const s of [...services].reverse()) {
    await s.stop().catch((err) => logger.warn({ service: s.name, err: String(err) }, 'stop failed'));
  }
  await infra?.stop();
}

/**
 * A second signal within this many ms of the first is the same request delivered twice: under `npm run`, a
 * terminal's Ctrl-C reaches the process group and npm forwards it to its child as well.
 */
const DUPLICATE_SIGNAL_MS = 1000;

/**
 * Runs `main` and wires SIGINT/SIGTERM to a graceful stop (a second signal, a second or more after the first,
 * forces exit). Start-up errors print one clear line and exit 1.
 */
export function runProcess(name: string, logger: Logger, main: () => Promise<() => Promise<void>>): void {
  let stopping = false;
  let firstSignalAt = 0;
  let startup: Promise<() => Promise<void>> = new Promise(() => undefined);
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping && Date.now() - firstSignalAt < DUPLICATE_SIGNAL_MS) return;
    if (stopping) {
      process.stderr.write(`kesoku: ${signal} again, exiting now\n`);
      killStartedChildren();
      process.exit(130);
    }
    stopping = true;
    firstSignalAt = Date.now();
    process.stderr.write(`kesoku: ${signal}: stopping ${name}…\n`);
    // A signal during start-up waits for start-up to finish, so every child started so far is stopped too.
    void startup.then(
      async (stop) => {
        await stop();
        process.stderr.write(`kesoku: ${name} stopped\n`);
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  startup = main();
  startup.catch((err: unknown) => {
    // An expected refusal (configuration, a port in use, another instance) is the one line below; anything
    // else is a fault, logged with its stack as well.
    if (!isStartupRefusal(err)) logger.error({ err }, `${name} could not start`);
    exitStartupFailure(name, err);
  });
}

/**
 * True for errors that refuse a start for a reason the message fully explains, those with a `kind`
 * (ConfigError's `config`, `already-running`, `temporal_unavailable`, `postgres_unavailable`): no stack.
 */
export function isStartupRefusal(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return typeof (err as { kind?: unknown }).kind === 'string';
}

/** The line a failed start prints: `kesoku: <name> could not start: <message>`, newline-terminated. */
export function startupFailureLine(name: string, err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).trimEnd();
  return `kesoku: ${name} could not start: ${message}\n`;
}

function exitStartupFailure(name: string, err: unknown): never {
  process.stderr.write(startupFailureLine(name, err));
  process.exit(1);
}

/**
 * Runs an entry point's preparation before {@link runProcess} (reading the configuration, creating the logger,
 * checks that need no server) and returns its result. A throw prints {@link startupFailureLine} and exits 1,
 * never an uncaught stack trace; a fault that is not a {@link isStartupRefusal} keeps its stack on stderr.
 */
export function prepareOrExit<T>(name: string, prepare: () => T): T {
  try {
    return prepare();
  } catch (err) {
    if (!isStartupRefusal(err)) process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    exitStartupFailure(name, err);
  }
}

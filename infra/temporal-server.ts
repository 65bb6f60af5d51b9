/**
 * Finding or starting a Temporal server, in this order (docs/architecture.md "Configuration"):
 *
 *   1. `TEMPORAL_ADDRESS`            — use it, start nothing;
 *   2. `KESOKU_TEMPORAL_CLI`         — an explicit path to a `temporal` binary;
 *   3. `temporal` on PATH;
 *   4. a cached build of `github.com/temporalio/cli/cmd/temporal@v1.5.1` (built with `go install` when Go is
 *      present; cached by version under `~/.cache/kesoku/temporal-cli/<version>/`, reused by every run);
 *   5. the Temporal SDK's own download (needs the internet);
 *   6. otherwise a `TemporalUnavailableError` saying exactly what to install or set.
 *
 * A started dev server keeps its state in `--db-filename` (under the data dir), serves the Web UI, and has
 * Kesoku's search attributes registered. `npm start` and the test suite both go through this module.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connectTemporal } from './temporal-connection.ts';
import type { ConnectionOptions } from '@temporalio/client';
import type { Logger } from './logger.ts';
import { SEARCH_ATTRIBUTE_NAMES } from '../workflows/definitions.ts';
import { superviseChild } from './child-process.ts';

/** The CLI release built from the Go module proxy: the newest one without a `replace` directive. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

export class TemporalUnavailableError extends Error {
  readonly kind = 'temporal_unavailable';
}

/** Where a resolved binary came from. */
export type BinarySource = 'env' | 'path' | 'cache' | 'built';

export interface TemporalServer {
  /** host:port of the frontend gRPC service. */
  address: string;
  namespace: string;
  /** Web UI URL, when this process started a server with the UI. */
  uiUrl?: string;
  source: 'external' | BinarySource | 'sdk-download';
  /** Stops the server this process started (SIGTERM, then SIGKILL after 10 s); a no-op for external ones. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** `TEMPORAL_ADDRESS`; when set nothing is started. */
  address?: string;
  namespace?: string;
  /** `KESOKU_TEMPORAL_CLI`. */
  cliPath?: string;
  /** gRPC port of a started server. */
  port: number;
  /** Web UI port; `null` runs headless. */
  uiPort: number | null;
  /** SQLite file for persistence; `null` keeps state in memory. */
  dbFilename: string | null;
  /** Where the server's own log goes; defaults to discarding it. */
  logFile?: string;
  logger?: Logger;
  /** Build the CLI with Go when no binary is found (default true). */
  allowBuild?: boolean;
  /** Fall back to the SDK's download (default true). */
  allowDownload?: boolean;
  /** The Web UI's codec endpoint (`--ui-codec-endpoint`), so the UI shows decrypted payloads. */
  codecEndpoint?: string;
}

/** The cache directory for built CLI binaries (`$XDG_CACHE_HOME` or `~/.cache`, then `kesoku/temporal-cli`). */
export function cliCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'kesoku', 'temporal-cli', TEMPORAL_CLI_VERSION);
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function whichSync(cmd: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function findGo(): string | null {
  return whichSync('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
}

/**
 * Resolves a `temporal` binary (steps 2–4 above) without starting it.
 * @returns the path and where it came from, or null when none is available and building is not possible
 * @throws TemporalUnavailableError when `cliPath` is set but not executable, or a Go build fails
 */
export async function resolveTemporalBinary(
  opts: { cliPath?: string; allowBuild?: boolean; logger?: Logger } = {},
): Promise<{ path: string; source: BinarySource } | null> {
  if (opts.cliPath) {
    if (!isExecutable(opts.cliPath)) {
      throw new TemporalUnavailableError(`KESOKU_TEMPORAL_CLI=${opts.cliPath} is not an executable file`);
    }
    return { path: opts.cliPath, source: 'env' };
  }
  const onPath = whichSync('temporal');
  if (onPath) return { path: onPath, source: 'path' };
  const cached = path.join(cliCacheDir(), 'temporal');
  if (isExecutable(cached)) return { path: cached, source: 'cache' };
  if (opts.allowBuild === false) return null;
  const go = findGo();
  if (!go) return null;
  return { path: await buildTemporalCli(go, opts.logger), source: 'built' };
}

/**
 * Builds the Temporal CLI with `go install <module>@<version>` into the cache directory. Concurrent builds each
 * write to their own temporary directory and rename into place, so a half-written binary is never used.
 * @returns the cached binary's path
 * @throws TemporalUnavailableError with Go's output when the build fails
 */
export async function buildTemporalCli(go: string, logger?: Logger): Promise<string> {
  const dir = cliCacheDir();
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, 'temporal');
  const tmpBin = fs.mkdtempSync(path.join(dir, 'build-'));
  const started = Date.now();
  logger?.info(
    { module: `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}` },
    'building the Temporal CLI with Go (first run only, takes a few minutes)',
  );
  process.stderr.write(
    `kesoku: building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go (first run only; takes a few minutes)…\n`,
  );
  const out = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(go, ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: { ...process.env, GOBIN: tmpBin, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code, output }));
    child.on('error', (err) => resolve({ code: -1, output: String(err) }));
  });
  const built = path.join(tmpBin, 'temporal');
  if (out.code !== 0 || !isExecutable(built)) {
    fs.rmSync(tmpBin, { recursive: true, force: true });
    throw new TemporalUnavailableError(
      `building the Temporal CLI failed (go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}):\n${out.output.slice(-4000)}`,
    );
  }
  fs.renameSync(built, target);
  fs.rmSync(tmpBin, { recursive: true, force: true });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  logger?.info({ seconds, path: target }, 'Temporal CLI built');
  process.stderr.write(`kesoku: Temporal CLI built in ${seconds}s -> ${target}\n`);
  return target;
}

/** True when something accepts TCP connections on host:port. */
export function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Waits until the frontend at `address` answers a gRPC call (over TLS with `connection.tls`).
 * @throws TemporalUnavailableError after `timeoutMs`
 */
export async function waitForTemporal(
  address: string,
  timeoutMs: number,
  child?: ChildProcess,
  connection: Pick<ConnectionOptions, 'tls'> = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      throw new TemporalUnavailableError(
        `the Temporal dev server exited with code ${child.exitCode} during start-up`,
      );
    }
    try {
      const conn = await connectTemporal({ address, connectTimeout: 1000, ...connection });
      try {
        await conn.workflowService.getSystemInfo({});
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new TemporalUnavailableError(
    `Temporal at ${address} did not answer within ${timeoutMs} ms: ${String(lastError)}`,
  );
}

/** The `temporal server start-dev` arguments for Kesoku. */
export function devServerArgs(
  opts: Pick<StartOptions, 'port' | 'uiPort' | 'dbFilename' | 'namespace' | 'codecEndpoint'> & {
    /** Register Kesoku's search attributes at start (default true; tests of the worker's own registration turn it off). */
    searchAttributes?: boolean;
  },
): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--log-level',
    'warn',
  ];
  if (opts.uiPort === null) args.push('--headless');
  else {
    args.push('--ui-port', String(opts.uiPort));
    if (opts.codecEndpoint) args.push('--ui-codec-endpoint', opts.codecEndpoint);
  }
  if (opts.dbFilename) {
    // WAL with synchronous=NORMAL: no fsync per write (the default journal costs several ms on every state
    // change); the file stays consistent, and a power cut can lose at most the last moments.
    args.push(
      '--db-filename',
      opts.dbFilename,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  }
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  if (opts.searchAttributes !== false)
    for (const name of SEARCH_ATTRIBUTE_NAMES) args.push('--search-attribute', `${name}=Keyword`);
  args.push('--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true');
  args.push('--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true');
  // Eager activity dispatch: a worker that schedules an activity on its own task queue gets the task back in
  // the workflow-task response, saving a matching round trip per activity (about 10 ms per turn step here).
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  return args;
}

/**
 * Starts `temporal server start-dev` from `binary` and waits until it answers.
 * The child gets its own process group, so a terminal's Ctrl-C reaches only Kesoku, which then stops its
 * parts in order (worker drained before the server goes); a forced exit kills it (killStartedChildren).
 */
export async function startDevServer(
  binary: string,
  opts: Omit<StartOptions, 'address' | 'cliPath'> & { searchAttributes?: boolean },
  source: BinarySource,
): Promise<TemporalServer> {
  if (await isPortOpen(opts.port)) {
    throw new TemporalUnavailableError(
      `port ${opts.port} is already in use (a Temporal server left running?). ` +
        `Use it with TEMPORAL_ADDRESS=127.0.0.1:${opts.port}, stop it, or pick another port with KESOKU_TEMPORAL_PORT.`,
    );
  }
  if (opts.dbFilename) fs.mkdirSync(path.dirname(opts.dbFilename), { recursive: true });
  const logFd = opts.logFile ? fs.openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(binary, devServerArgs(opts), { stdio: ['ignore', logFd, logFd], detached: true });
  if (typeof logFd === 'number') fs.closeSync(logFd);
  const supervised = superviseChild(child);
  const address = `127.0.0.1:${opts.port}`;
  try {
    await waitForTemporal(address, 60_000, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  opts.logger?.info({ address, binary, source }, 'Temporal dev server started');
  return {
    address,
    namespace: opts.namespace ?? 'default',
    uiUrl: opts.uiPort === null ? undefined : `http://127.0.0.1:${opts.uiPort}`,
    source,
    stop: () => supervised.stop('SIGTERM'),
  };
}

/**
 * Resolves a Temporal server in the documented order and, unless an address was given, starts one.
 * @throws TemporalUnavailableError saying what to install or set when nothing works
 */
export async function resolveTemporalServer(opts: StartOptions): Promise<TemporalServer> {
  const namespace = opts.namespace ?? 'default';
  if (opts.address) {
    return { address: opts.address, namespace, source: 'external', stop: async () => undefined };
  }
  const binary = await resolveTemporalBinary(opts);
  if (binary) return startDevServer(binary.path, { ...opts, namespace }, binary.source);
  if (opts.allowDownload !== false) {
    try {
      return await startDownloadedServer({ ...opts, namespace });
    } catch (err) {
      opts.logger?.warn({ err: String(err) }, 'the Temporal SDK could not download a dev server');
    }
  }
  throw new TemporalUnavailableError(
    'no Temporal server: set TEMPORAL_ADDRESS to a running server, or KESOKU_TEMPORAL_CLI to a `temporal` binary, ' +
      `or put \`temporal\` on PATH, or install Go (https://go.dev/dl) so Kesoku can build ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}, ` +
      'or go online so the Temporal SDK can download the dev server.',
  );
}

/** Step 5: the SDK's cached download of the dev server (online machines only). */
async function startDownloadedServer(opts: StartOptions): Promise<TemporalServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const { defineSearchAttributeKey, SearchAttributeType } = await import('@temporalio/common');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: opts.port,
      ui: opts.uiPort !== null,
      uiPort: opts.uiPort ?? undefined,
      dbFilename: opts.dbFilename ?? undefined,
      namespace: opts.namespace,
      searchAttributes: SEARCH_ATTRIBUTE_NAMES.map((n) =>
        defineSearchAttributeKey(n, SearchAttributeType.KEYWORD),
      ),
    },
  });
  return {
    address: `127.0.0.1:${opts.port}`,
    namespace: opts.namespace ?? 'default',
    uiUrl: opts.uiPort === null ? undefined : `http://127.0.0.1:${opts.uiPort}`,
    source: 'sdk-download',
    stop: () => env.teardown(),
  };
}

/** Synchronous check used by `.ci/run` diagnostics: the version a binary reports. */
export function binaryVersion(binary: string): string {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return (r.stdout || r.stderr).trim();
}

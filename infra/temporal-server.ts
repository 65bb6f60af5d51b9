/**
 * Finding or starting a Temporal server, in this order (docs/architecture.md "Configuration"):
 *
 *   1. `TEMPORAL_ADDRESS`            — use it, start nothing;
 *   2. `KESOKU_TEMPORAL_CLI`         — an explicit path to a `temporal` binary;
 *   3. `temporal` on PATH;
 *   4. the cached CLI v1.5.1 under `~/.cache/kesoku/temporal-cli/<version>/`, reused by every run;
 *   5. the release's prebuilt archive, downloaded into that cache (online machines; fails within seconds
 *      offline);
 *   6. a build of `github.com/temporalio/cli/cmd/temporal@v1.5.1` with `go install` when Go is present (minutes,
 *      once), into the same cache;
 *   7. otherwise a `TemporalUnavailableError` saying exactly what to install or set.
 *
 * A started dev server keeps its state in `--db-filename` (under the data dir), serves the Web UI, and has
 * Kesoku's search attributes registered; its pid is recorded beside that file (`temporal.pid`), so a server
 * left running by a Kesoku that was killed is recognised and stopped by the next start. Long steps report
 * through infra/progress.ts. `npm start` and the test suite both go through this module.
 *
 * Nothing a started server serves over HTTP answers a page in the operator's browser: the Web UI listens on a
 * hidden loopback address behind Kesoku's Host- and Origin-checking proxy (infra/web-ui-proxy.ts), which serves it
 * on `127.0.0.1:<uiPort>`; the frontend's HTTP API gets a fixed port whose only accepted Host headers are its
 * loopback names (`frontend.httpAllowedHosts`). The server and `go install` get an allowlisted environment
 * (infra/child-env.ts), not this process's secrets.
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
import { createProgress, hasProgress, progress, type Progress } from './progress.ts';
import { isRecordedProcess, readPidFile, removePidFile, stopProcess, writePidFile } from './pid-files.ts';
import { GO_BUILD_ENV, childEnv } from './child-env.ts';
import { loopbackHosts } from './loopback.ts';
import {
  CODEC_PROXY_PATH,
  hiddenLoopbackAddress,
  startWebUiProxy,
  type CodecTarget,
  type ListenAddress,
} from './web-ui-proxy.ts';

/** The CLI release built from the Go module proxy: the newest one without a `replace` directive. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

export class TemporalUnavailableError extends Error {
  readonly kind = 'temporal_unavailable';
}

/** Where a resolved binary came from. */
export type BinarySource = 'env' | 'path' | 'cache' | 'downloaded' | 'built';

export interface TemporalServer {
  /** host:port of the frontend gRPC service. */
  address: string;
  namespace: string;
  /** Web UI URL (Kesoku's proxy), when this process started a server with the UI. */
  uiUrl?: string;
  /** Where the dev server's own UI listens, behind the proxy (a hidden loopback address). */
  uiUpstream?: ListenAddress;
  /** Port of the frontend's HTTP API of a dev server this process started. */
  httpPort?: number;
  /** Process id of a dev server this process started. */
  pid?: number;
  source: 'external' | BinarySource;
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
  /** Try the release's prebuilt archive before building (default true). */
  allowDownload?: boolean;
  /**
   * The Kesoku API's codec endpoint, so the UI shows decrypted payloads: the UI's proxy serves it same-origin
   * (infra/web-ui-proxy.ts) with the token as a header.
   */
  codec?: CodecTarget;
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
  opts: { cliPath?: string; allowBuild?: boolean; allowDownload?: boolean; logger?: Logger } = {},
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
  const report = hasProgress() ? progress() : createProgress();
  if (opts.allowDownload !== false) {
    const downloaded = await downloadTemporalCli(report, opts.logger);
    if (downloaded) return { path: downloaded, source: 'downloaded' };
  }
  if (opts.allowBuild === false) return null;
  const go = findGo();
  if (!go) return null;
  return { path: await buildTemporalCli(go, opts.logger, report), source: 'built' };
}

/** The release archive's base URL (`KESOKU_TEMPORAL_DOWNLOAD_URL` replaces it, e.g. with a mirror). */
export function temporalDownloadBase(): string {
  return (
    process.env.KESOKU_TEMPORAL_DOWNLOAD_URL?.trim() || 'https://github.com/temporalio/cli/releases/download'
  ).replace(/\/+$/, '');
}

/**
 * Downloads the release's prebuilt CLI archive (`temporal_cli_<v>_<os>_<arch>.tar.gz`) into the cache, checks
 * it against the release's checksums file when one is published, and unpacks the binary with `tar`. Gives up
 * quietly (null) when the release cannot be reached — offline machines fail at once on the name lookup or
 * within 10 s — so the caller can build instead.
 * @returns the cached binary's path, or null when it could not be downloaded
 * @throws TemporalUnavailableError when the archive does not match its published checksum
 */
export async function downloadTemporalCli(report: Progress, logger?: Logger): Promise<string | null> {
  const os_ = { linux: 'linux', darwin: 'darwin' }[process.platform as string];
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  if (!os_ || !arch) return null;
  const version = TEMPORAL_CLI_VERSION.replace(/^v/, '');
  const name = `temporal_cli_${version}_${os_}_${arch}.tar.gz`;
  const base = `${temporalDownloadBase()}/${TEMPORAL_CLI_VERSION}`;
  const step = report.step('Temporal CLI', `downloading ${TEMPORAL_CLI_VERSION} (${name})`);
  const fetchWithin = (url: string, ms: number) => fetch(url, { signal: AbortSignal.timeout(ms) });
  let archive: Buffer;
  try {
    const res = await fetchWithin(`${base}/${name}`, 10_000);
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    const total = Number(res.headers.get('content-length') ?? 0);
    const chunks: Buffer[] = [];
    let got = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(Buffer.from(chunk));
      got += chunk.length;
      const mb = (n: number) => (n / 1048576).toFixed(1);
      step.update(`downloading ${TEMPORAL_CLI_VERSION}: ${mb(got)}${total ? ` of ${mb(total)}` : ''} MB`);
    }
    archive = Buffer.concat(chunks);
  } catch (err) {
    const reason =
      err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    step.fail(`no download (${reason}); building it instead`);
    logger?.info({ reason }, 'the Temporal CLI could not be downloaded');
    return null;
  }
  const { createHash } = await import('node:crypto');
  const sha256 = createHash('sha256').update(archive).digest('hex');
  for (const sums of [
    `temporal_cli_${version}_checksums.txt`,
    `cli_${version}_checksums.txt`,
    'checksums.txt',
  ]) {
    const res = await fetchWithin(`${base}/${sums}`, 10_000).catch(() => null);
    if (!res?.ok) continue;
    const line = (await res.text()).split('\n').find((l) => l.trim().endsWith(` ${name}`));
    if (!line) continue;
    if (line.trim().split(/\s+/)[0] !== sha256) {
      step.fail('checksum mismatch');
      throw new TemporalUnavailableError(
        `the downloaded ${name} does not match its published sha256 (${sums}); not using it`,
      );
    }
    break;
  }
  const dir = cliCacheDir();
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, 'download-'));
  try {
    fs.writeFileSync(path.join(tmp, name), archive);
    const untar = spawnSync('tar', ['-xzf', name, 'temporal'], { cwd: tmp, encoding: 'utf8' });
    const binary = path.join(tmp, 'temporal');
    if (untar.status !== 0 || !isExecutable(binary)) {
      step.fail(`could not unpack ${name}: ${(untar.stderr || String(untar.error ?? '')).trim()}`);
      return null;
    }
    const target = path.join(dir, 'temporal');
    fs.renameSync(binary, target);
    step.done(`downloaded -> ${target}`);
    return target;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Builds the Temporal CLI with `go install -v <module>@<version>` into the cache directory, reporting Go's
 * phases (modules downloaded, packages compiled) on `report`. Concurrent builds each write to their own
 * temporary directory and rename into place, so a half-written binary is never used.
 * @returns the cached binary's path
 * @throws TemporalUnavailableError with Go's output when the build fails
 */
export async function buildTemporalCli(
  go: string,
  logger?: Logger,
  report: Progress = createProgress(),
): Promise<string> {
  const dir = cliCacheDir();
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, 'temporal');
  const tmpBin = fs.mkdtempSync(path.join(dir, 'build-'));
  logger?.info(
    { module: `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}` },
    'building the Temporal CLI with Go (first run only, takes a few minutes)',
  );
  const step = report.step(
    'Temporal CLI',
    `building ${TEMPORAL_CLI_VERSION} with Go (first run only; a few minutes)`,
  );
  const out = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(go, ['install', '-v', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: childEnv(GO_BUILD_ENV, { GOBIN: tmpBin, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let modules = 0;
    let packages = 0;
    let partial = '';
    const onData = (d: Buffer) => {
      const text = d.toString();
      output = (output + text).slice(-64_000);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines.map((x) => x.trim()).filter(Boolean)) {
        if (l.startsWith('go: downloading ')) {
          modules++;
          step.update(`downloading Go modules (${modules}): ${l.slice('go: downloading '.length)}`);
        } else if (!l.startsWith('go: ') && !l.includes(' ')) {
          packages++;
          step.update(`compiling (${packages} packages): ${l}`);
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => resolve({ code, output }));
    child.on('error', (err) => resolve({ code: -1, output: String(err) }));
  });
  const built = path.join(tmpBin, 'temporal');
  if (out.code !== 0 || !isExecutable(built)) {
    fs.rmSync(tmpBin, { recursive: true, force: true });
    step.fail('go install failed');
    throw new TemporalUnavailableError(
      `building the Temporal CLI failed (go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}):\n${out.output.slice(-4000)}`,
    );
  }
  fs.renameSync(built, target);
  fs.rmSync(tmpBin, { recursive: true, force: true });
  logger?.info({ path: target }, 'Temporal CLI built');
  step.done(`built -> ${target}`);
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
  opts: Pick<StartOptions, 'port' | 'uiPort' | 'dbFilename' | 'namespace'> & {
    /** The UI's codec endpoint (`--ui-codec-endpoint`). */
    codecEndpoint?: string;
    /** Register Kesoku's search attributes at start (default true; tests of the worker's own registration turn it off). */
    searchAttributes?: boolean;
    /** The UI's listen address (`--ui-ip`); default the frontend's, 127.0.0.1. */
    uiIp?: string;
    /** The frontend HTTP API's port, which then accepts only its loopback Host names; default a random port. */
    httpPort?: number;
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
    if (opts.uiIp) args.push('--ui-ip', opts.uiIp);
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
  if (opts.httpPort !== undefined) {
    args.push('--http-port', String(opts.httpPort));
    args.push(
      '--dynamic-config-value',
      `frontend.httpAllowedHosts=${JSON.stringify(loopbackHosts(opts.httpPort))}`,
    );
  }
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
  const pidFile = opts.dbFilename ? devServerPidFile(opts.dbFilename) : null;
  if (pidFile) await stopLeftoverDevServer(pidFile, opts.dbFilename as string, opts.logger);
  if (await isPortOpen(opts.port)) {
    throw new TemporalUnavailableError(
      `port ${opts.port} is already in use (a Temporal server left running?). ` +
        `Use it with TEMPORAL_ADDRESS=127.0.0.1:${opts.port}, stop it, or pick another port with KESOKU_TEMPORAL_PORT.`,
    );
  }
  if (opts.dbFilename) fs.mkdirSync(path.dirname(opts.dbFilename), { recursive: true });
  const ui = opts.uiPort === null ? null : await guardedUi(opts.uiPort, opts.codec, opts.logger);
  const httpPort = await freePort();
  const logFd = opts.logFile ? fs.openSync(opts.logFile, 'a') : 'ignore';
  const args = devServerArgs({
    ...opts,
    ...(ui ? { uiIp: ui.upstream.host, uiPort: ui.upstream.port } : {}),
    ...(ui && opts.codec ? { codecEndpoint: `${ui.proxy.url}${CODEC_PROXY_PATH}` } : {}),
    httpPort,
  });
  const child = spawn(binary, args, { stdio: ['ignore', logFd, logFd], detached: true, env: childEnv() });
  if (typeof logFd === 'number') fs.closeSync(logFd);
  const supervised = superviseChild(child);
  const address = `127.0.0.1:${opts.port}`;
  const step = progress().step('Temporal', `starting the dev server on ${address}`);
  if (pidFile && child.pid)
    writePidFile(pidFile, { pid: child.pid, port: opts.port, dbFilename: opts.dbFilename });
  const forget = () => {
    if (pidFile && child.pid) removePidFile(pidFile, child.pid);
  };
  void supervised.exited.then(forget);
  try {
    await waitForTemporal(address, 60_000, child);
  } catch (err) {
    step.fail();
    child.kill('SIGKILL');
    await ui?.proxy.close();
    throw err;
  }
  step.done(`ready on ${address}`);
  opts.logger?.info({ address, binary, source }, 'Temporal dev server started');
  return {
    address,
    namespace: opts.namespace ?? 'default',
    ...(ui ? { uiUrl: ui.proxy.url, uiUpstream: ui.upstream } : {}),
    httpPort,
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    source,
    stop: async () => {
      await ui?.proxy.close();
      await supervised.stop('SIGTERM');
      forget();
    },
  };
}

/** The pid file of the dev server that keeps its state in `dbFilename`: `temporal.pid` beside it. */
export function devServerPidFile(dbFilename: string): string {
  return path.join(path.dirname(dbFilename), 'temporal.pid');
}

/**
 * The dev server a killed Kesoku left running on `dbFilename`, if any: its pid file names a live process that
 * is the one recorded (infra/pid-files.ts), or one whose command line names that file.
 * @returns its pid, or null
 */
export function leftoverDevServer(dbFilename: string): number | null {
  const record = readPidFile(devServerPidFile(dbFilename));
  if (!record) return null;
  return isRecordedProcess(record, ['--db-filename', dbFilename]) ? record.pid : null;
}

/**
 * Stops the dev server a killed Kesoku left on `dbFilename` (SIGTERM to its process group, SIGKILL after 15 s)
 * and removes a stale pid file. Only the caller's own data dir is looked at, and only once its instance lock is
 * held (no live Kesoku uses it).
 */
async function stopLeftoverDevServer(pidFile: string, dbFilename: string, logger?: Logger): Promise<void> {
  const pid = leftoverDevServer(dbFilename);
  if (pid === null) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  const step = progress().step(
    'Temporal',
    `stopping the dev server a stopped Kesoku left running (pid ${pid})`,
  );
  const ms = await stopProcess(pid, 'SIGTERM');
  fs.rmSync(pidFile, { force: true });
  logger?.info({ pid, ms }, 'stopped a leftover Temporal dev server');
  step.done(`stopped the leftover dev server (pid ${pid})`);
}

/**
 * The Web UI's hidden address and the proxy serving it on `127.0.0.1:<port>` (infra/web-ui-proxy.ts).
 * @throws TemporalUnavailableError when the port is taken
 */
async function guardedUi(port: number, codec: CodecTarget | undefined, logger?: Logger) {
  const upstream = await hiddenLoopbackAddress();
  try {
    const proxy = await startWebUiProxy({
      port,
      upstream,
      ...(codec ? { codec } : {}),
      ...(logger ? { logger } : {}),
    });
    return { upstream, proxy };
  } catch (err) {
    throw new TemporalUnavailableError(
      `the Temporal Web UI port ${port} on 127.0.0.1 is not free (${String(err)}); pick another with KESOKU_TEMPORAL_UI_PORT`,
    );
  }
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
  throw new TemporalUnavailableError(
    'no Temporal server: set TEMPORAL_ADDRESS to a running server, or KESOKU_TEMPORAL_CLI to a `temporal` binary, ' +
      '`brew install temporal` (macOS) or put `temporal` on PATH, ' +
      `or install Go (https://go.dev/dl) so Kesoku can build ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} ` +
      '(the prebuilt download needs the internet).',
  );
}

/** Synchronous check used by `.ci/run` diagnostics: the version a binary reports. */
export function binaryVersion(binary: string): string {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return (r.stdout || r.stderr).trim();
}

/**
 * The sandbox of `run_shell_command`: each command runs inside bubblewrap (bwrap) with
 * - its own PID, IPC and UTS namespaces (and, unless the network is on, its own empty network namespace), so it
 *   sees neither the worker's processes nor their environment in /proc;
 * - the whole filesystem read-only, with the session's workspace read-write, a private /tmp, and the data dir
 *   (every other workspace, Temporal's and Postgres's files), Kesoku's own directory and the worker's home
 *   hidden under empty tmpfs mounts; the directories inside those mounts on the way to the workspace can be
 *   passed through (so the workspace works by its absolute path) but not listed;
 * - a cleared environment: PATH, HOME (= the workspace), LANG, TERM and the names listed in KESOKU_TOOL_ENV
 *   (less the chat channels' secrets, which shell.ts removes before);
 * - per-process limits (prlimit): CPU seconds, data memory, processes/threads and file size;
 * - `--die-with-parent`, so a command never outlives the worker, and one process group, so a timeout or a
 *   cancel kills all of it.
 * When the worker runs as root, commands run as an unprivileged user (KESOKU_SANDBOX_UID): the kernel does not
 * apply a process limit to root.
 *
 * Without a working bwrap, `auto` warns loudly at start-up and runs commands as before (scrubbed environment,
 * limits without the process count); `required` refuses to start.
 */
import { execFile } from 'node:child_process';
import { chown, lchown, mkdir, readdir } from 'node:fs/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ATTACHMENTS_FOLDER } from '../../infra/workspace.ts';

const run = promisify(execFile);

/** The operator's sandbox settings (from KESOKU_SANDBOX*, KESOKU_TOOL_ENV). */
export interface SandboxSettings {
  /** `auto`: bwrap when it works, else a warning; `required`: refuse to start without it; `off`: never. */
  mode: 'auto' | 'required' | 'off';
  /** `off`: the command gets an empty network namespace (loopback only, nothing listening); `on`: the host's. */
  network: 'off' | 'on';
  /** Extra environment variable names passed through from the worker. */
  toolEnv: string[];
  /** CPU seconds per process (SIGXCPU, then SIGKILL 5 s later). */
  cpuS: number;
  /** Data memory per process, in MiB (RLIMIT_DATA: heap and private mappings; allocation fails above it). */
  memoryMb: number;
  /** Processes and threads of one command together (RLIMIT_NPROC, counted in the command's user namespace). */
  processes: number;
  /** Largest file a process may write, in MiB (SIGXFSZ above it). */
  fileMb: number;
  /** User and group id commands run as when the worker runs as root. */
  uid: number;
  /** Directories hidden from commands (the data dir, Kesoku's directory, the worker's home). */
  hide: string[];
}

/** The sandbox a worker runs its commands in, once probed at start-up. */
export interface Sandbox {
  settings: SandboxSettings;
  /** `bwrap`: commands run sandboxed; `none`: scrubbed environment only (mode off, or bwrap unavailable). */
  kind: 'bwrap' | 'none';
  bwrapPath?: string;
  prlimitPath?: string;
  setprivPath?: string;
  /** Why commands are not sandboxed (kind `none`). */
  reason?: string;
  /**
   * False when bwrap is older than 0.5, which has no `--perms`: the directories on the way to the workspace are
   * then created 0755 (listable) and /tmp is writable only by a worker that is not root. Absent means true.
   */
  bwrapPerms?: boolean;
}

/** Thrown at start-up when KESOKU_SANDBOX=required and bubblewrap cannot run. */
export class SandboxUnavailableError extends Error {
  readonly kind = 'sandbox_unavailable';
}

/** Kesoku's own directory (the repository or install root), hidden from commands. */
export const APP_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Settings with the documented defaults. */
export function defaultSandboxSettings(
  dataDir: string,
  over: Partial<SandboxSettings> = {},
): SandboxSettings {
  return {
    mode: 'auto',
    network: 'off',
    toolEnv: [],
    cpuS: 1800,
    memoryMb: 4096,
    processes: 512,
    fileMb: 1024,
    uid: 65534,
    hide: [dataDir, APP_ROOT, os.homedir()],
    ...over,
  };
}

function findOnPath(name: string): string | undefined {
  for (const dir of [
    '/usr/bin',
    '/bin',
    '/usr/local/bin',
    '/usr/sbin',
    '/sbin',
    ...(process.env.PATH ?? '').split(':'),
  ]) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Finds bwrap (and prlimit, setpriv) and runs one trial command in the sandbox this host would use.
 * @throws {SandboxUnavailableError} mode `required` and the trial failed
 */
export async function prepareSandbox(settings: SandboxSettings): Promise<Sandbox> {
  const prlimitPath = findOnPath('prlimit');
  const setprivPath = findOnPath('setpriv');
  const unsandboxed = (reason: string): Sandbox => {
    if (settings.mode === 'required') {
      throw new SandboxUnavailableError(
        `KESOKU_SANDBOX=required, but ${reason}. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) ` +
          'and allow unprivileged user namespaces, or set KESOKU_SANDBOX=auto to run tool commands unsandboxed',
      );
    }
    return { settings, kind: 'none', reason, ...(prlimitPath ? { prlimitPath } : {}) };
  };
  if (settings.mode === 'off')
    return { settings, kind: 'none', reason: 'KESOKU_SANDBOX=off', ...(prlimitPath ? { prlimitPath } : {}) };
  if (process.platform !== 'linux')
    return unsandboxed(`bubblewrap needs Linux (this is ${process.platform})`);
  const bwrapPath = findOnPath('bwrap');
  if (!bwrapPath) return unsandboxed('bubblewrap (bwrap) is not installed');
  if (!prlimitPath) return unsandboxed('prlimit (util-linux) is not installed, so no limits can be set');
  if (isRoot() && !setprivPath)
    return unsandboxed('setpriv (util-linux) is not installed, so commands cannot leave root');
  const sandbox: Sandbox = {
    settings,
    kind: 'bwrap',
    bwrapPath,
    prlimitPath,
    ...(setprivPath ? { setprivPath } : {}),
    bwrapPerms: await bwrapHasPerms(bwrapPath),
  };
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-sandbox-probe-'));
  try {
    if (isRoot()) await chown(probeDir, settings.uid, settings.uid);
    const plan = sandboxPlan(sandbox, 'echo ok > probe && cat probe', probeDir, {});
    const { stdout } = await run(plan.file, plan.args, { env: plan.env, timeout: 10_000, ...plan.ids });
    if (stdout.trim() !== 'ok')
      return unsandboxed(`a trial command in bubblewrap printed ${JSON.stringify(stdout.slice(0, 80))}`);
    return sandbox;
  } catch (err) {
    const detail = ((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n')[0];
    return unsandboxed(`bubblewrap cannot run here (${detail}); user namespaces may be disabled`);
  } finally {
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

/** Whether this bwrap understands `--perms` (0.5.0 and later); an unreadable version counts as new enough. */
async function bwrapHasPerms(bwrapPath: string): Promise<boolean> {
  try {
    const { stdout } = await run(bwrapPath, ['--version'], { timeout: 10_000 });
    const m = /(\d+)\.(\d+)/.exec(stdout);
    return !m || Number(m[1]) > 0 || Number(m[2]) >= 5;
  } catch {
    return true;
  }
}

/** The one-line start-up warning for a worker whose commands are not sandboxed, or null when they are. */
export function sandboxWarning(sandbox: Sandbox): string | null {
  if (sandbox.kind === 'bwrap') return null;
  return (
    `WARNING: tool commands run WITHOUT a sandbox (${sandbox.reason}): they run as this worker's user and can read ` +
    "its files, other sessions' workspaces and the data dir, and reach local services. Install bubblewrap " +
    '(apt-get install bubblewrap) or set KESOKU_SANDBOX=required to refuse to start without it.'
  );
}

/** The environment a sandboxed command gets: PATH, HOME (= workspace), LANG, TERM and KESOKU_TOOL_ENV names. */
export function sandboxEnvironment(
  settings: SandboxSettings,
  workspaceDir: string,
  from: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: from.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: workspaceDir,
  };
  if (from.LANG) env.LANG = from.LANG;
  env.TERM = from.TERM ?? 'dumb';
  for (const name of settings.toolEnv) {
    const v = from[name];
    if (v !== undefined) env[name] = v;
  }
  return env;
}

/** How to spawn one command: program, arguments, environment, and the user/group to spawn it as. */
export interface SpawnPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  ids: { uid?: number; gid?: number };
}

/** Limits as `prlimit` arguments; the process count only inside a sandbox (outside, it would count all the user's processes). */
function limitArgs(s: SandboxSettings, withProcesses: boolean): string[] {
  const mib = 1024 * 1024;
  return [
    `--cpu=${s.cpuS}:${s.cpuS + 5}`,
    `--data=${s.memoryMb * mib}`,
    `--fsize=${s.fileMb * mib}`,
    ...(withProcesses ? [`--nproc=${s.processes}`] : []),
    '--',
  ];
}

/**
 * The spawn of `/bin/sh -c command` in `workspaceDir` for this sandbox. Unsandboxed, the environment is
 * `fallbackEnv` (the scrubbed one) and only CPU, memory and file size are limited (when prlimit exists).
 */
export function sandboxPlan(
  sandbox: Sandbox,
  command: string,
  workspaceDir: string,
  fallbackEnv: Record<string, string>,
  from: NodeJS.ProcessEnv = process.env,
): SpawnPlan {
  const s = sandbox.settings;
  if (sandbox.kind === 'none') {
    if (sandbox.prlimitPath) {
      return {
        file: sandbox.prlimitPath,
        args: [...limitArgs(s, false), '/bin/sh', '-c', command],
        env: fallbackEnv,
        ids: {},
      };
    }
    return { file: '/bin/sh', args: ['-c', command], env: fallbackEnv, ids: {} };
  }
  const env = sandboxEnvironment(s, workspaceDir, from);
  const args = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'kesoku-sandbox',
  ];
  if (s.network === 'off') args.push('--unshare-net');
  const perms = sandbox.bwrapPerms !== false;
  // /tmp world-writable like the host's: bwrap makes a tmpfs 0755 for its owner, and as root that is not the
  // command's user.
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...(perms ? ['--perms', '1777'] : []));
  args.push('--tmpfs', '/tmp');
  // Shallow paths first, so a deeper hidden path (the data dir inside Kesoku's directory) is mounted inside.
  const realWorkspace = fs.realpathSync(workspaceDir);
  // Real paths: bwrap cannot mount over a path that goes through a symbolic link (/var/run -> /run). /tmp is a
  // fresh tmpfs already (a worker whose home is /tmp).
  const hidden = [...new Set([...s.hide, '/run/postgresql'].filter(safeIsDir).map((p) => fs.realpathSync(p)))]
    .filter((p) => p !== '/' && p !== '/tmp' && !isInside(realWorkspace, p))
    .sort((a, b) => a.length - b.length);
  // The workspace's ancestors inside a fresh tmpfs (a hidden directory or /tmp) exist only in the sandbox.
  // bwrap would create them 0700 for itself (as root: untraversable by the command's user, so `$PWD` and
  // absolute paths fail); they are made first, and the hidden mounts on the way, mode 0111: anyone may pass
  // through, nobody (not even their owner, the command's uid in a user namespace) may list them.
  const tmpfsMounts = ['/tmp'];
  const made = new Set<string>();
  const makeDirsTo = (target: string) => {
    const dirs: string[] = [];
    for (
      let dir = path.dirname(target);
      dir !== '/' && !made.has(dir) && !tmpfsMounts.includes(dir);
      dir = path.dirname(dir)
    ) {
      if (isInside(dir, realWorkspace) && tmpfsMounts.some((m) => isInside(m, dir))) dirs.unshift(dir);
    }
    // Shallow first: bwrap would create a missing parent with its own mode.
    for (const dir of dirs) {
      made.add(dir);
      args.push(...(perms ? ['--perms', '0111'] : []), '--dir', dir);
    }
  };
  for (const p of hidden) {
    makeDirsTo(p);
    const passage = perms && isInside(p, realWorkspace);
    args.push(...(passage ? ['--perms', '0111'] : []), '--tmpfs', p);
    tmpfsMounts.push(p);
  }
  makeDirsTo(realWorkspace);
  args.push('--bind', realWorkspace, realWorkspace, '--chdir', realWorkspace, '--clearenv');
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--');
  // As root, leave root before anything runs: the kernel ignores the process limit for root.
  if (isRoot() && sandbox.setprivPath) {
    args.push(
      sandbox.setprivPath,
      `--reuid=${s.uid}`,
      `--regid=${s.uid}`,
      '--clear-groups',
      '--no-new-privs',
    );
  }
  args.push(sandbox.prlimitPath ?? 'prlimit', ...limitArgs(s, true), '/bin/sh', '-c', command);
  // bwrap itself starts from the same environment, so nothing secret is in its /proc/<pid>/environ either.
  return { file: sandbox.bwrapPath ?? 'bwrap', args, env, ids: {} };
}

/** True when `dir` is `ancestor` or lies below it (a hidden directory must never cover the workspace itself). */
function isInside(ancestor: string, dir: string): boolean {
  const rel = path.relative(ancestor, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function safeIsDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Prepares the workspace for a sandboxed command: created, and owned by the sandbox user when the worker runs
 * as root (so the command can write there).
 */
export async function prepareWorkspace(sandbox: Sandbox | undefined, workspaceDir: string): Promise<void> {
  await mkdir(workspaceDir, { recursive: true });
  if (sandbox?.kind === 'bwrap' && isRoot()) {
    await chown(workspaceDir, sandbox.settings.uid, sandbox.settings.uid);
    // Attachments are written into the workspace by the API or a chat adapter (as root, mode 0700 under Kesoku's
    // umask): hand them to the sandbox user too, so a command can open what the user sent.
    await chownTree(path.join(workspaceDir, ATTACHMENTS_FOLDER), sandbox.settings.uid);
  }
}

/** Gives `dir` and everything under it (links themselves, never their targets) to `uid`; a missing dir is fine. */
async function chownTree(dir: string, uid: number): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  await lchown(dir, uid, uid);
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await chownTree(p, uid);
    else await lchown(p, uid, uid);
  }
}

/** Exit statuses and signals that mean a sandbox limit stopped a process, with the line the model reads. */
export function limitExplanation(
  sandbox: Sandbox | undefined,
  run: { exitCode: number | null; signal: string | null; stderr: string },
): string | undefined {
  if (!sandbox) return undefined;
  const s = sandbox.settings;
  // A shell reports a child killed by signal N as exit status 128 + N (SIGXCPU 24, SIGXFSZ 25).
  if (run.signal === 'SIGXFSZ' || run.exitCode === 128 + 25) {
    return `a process was stopped by the sandbox: it exceeded the file size limit of ${s.fileMb} MiB per file`;
  }
  if (run.signal === 'SIGXCPU' || run.exitCode === 128 + 24) {
    return `a process was stopped by the sandbox: it used more than the CPU time limit of ${s.cpuS} s`;
  }
  // EAGAIN from fork/clone at the process limit, as shells and libc report it.
  if (
    sandbox.kind === 'bwrap' &&
    /Cannot fork|fork: (retry: )?Resource temporarily unavailable|can't fork/i.test(run.stderr)
  ) {
    return `processes could not be started: the sandbox allows ${s.processes} processes and threads per command`;
  }
  return undefined;
}

/**
 * The sandbox every tool runs in (docs/sandbox.md): shell commands, and `read_file`/`write_file` too, run inside
 * bubblewrap (bwrap), each time in a fresh sandbox:
 * - an empty root (`--tmpfs /`, then read-only) holding only the system directories commands need, read-only:
 *   /usr, the merged-usr links or directories /bin /lib /lib64 /sbin (/lib32 /libx32 where they exist), /etc,
 *   and the operator's KESOKU_SANDBOX_PATHS; no /run, /var/run, /home, /root, /srv, /mnt, /media and no host
 *   socket; every configured key or token file (and Kesoku's own directory, the data dir, the worker's home)
 *   hidden where it would otherwise show;
 * - `--proc /proc` (its own PID namespace: only the command's processes), `--dev /dev`, a private /tmp and
 *   /dev/shm of bounded size, the session's workspace read-write, the session's attachments read-only;
 * - its own PID, IPC, UTS and (unless KESOKU_SANDBOX_NETWORK=on) network namespaces, `--new-session`,
 *   `--die-with-parent`, a seccomp filter (seccomp.ts) refusing namespaces, mounts, tracing, BPF, keyrings and
 *   the like, and, for a worker that is not root, `--disable-userns` in its own user namespace;
 * - the environment an allowlist: PATH, HOME (= the workspace), LANG, TERM and KESOKU_TOOL_ENV names less the
 *   chat channels' secrets;
 * - limits: a cgroup per command for memory and processes where the host offers one (cgroup.ts), and per
 *   process CPU time, data size, file size and process count (prlimit).
 * When the worker runs as root, each session's commands run as their own unprivileged uid from
 * KESOKU_SANDBOX_UID (a range), so per-uid limits and file ownership keep sessions apart.
 *
 * Modes (KESOKU_SANDBOX): `auto` (default) sandboxes when bwrap works and otherwise refuses every tool call
 * with an error naming the fix; `required` refuses to start without it; `off` is the operator's explicit
 * choice to run tools unsandboxed (warned at start and shown in /healthz): commands then run as the worker's
 * user with the same environment allowlist and limits, and the file tools open every path component without
 * following links (infra/safe-fs.ts).
 */
import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureSessionAttachmentsDir } from '../../infra/attachments-store.ts';
import { SafeDir, walkTree } from '../../infra/safe-fs.ts';
import { setSandboxHealth, type SandboxHealth } from '../../infra/sandbox-health.ts';
import { ATTACHMENTS_FOLDER, attachmentsDirOfWorkspace } from '../../infra/workspace.ts';
import {
  commandCgroupName,
  createCommandCgroup,
  JOIN_SCRIPT,
  probeCgroups,
  removeStaleCgroups,
  type CgroupParents,
  type CgroupReport,
  type CommandCgroup,
} from './cgroup.ts';
import { ToolExecutionError } from './errors.ts';
import { seccompProgram } from './seccomp.ts';

const run = promisify(execFile);

/** The operator's sandbox settings (KESOKU_SANDBOX*, KESOKU_TOOL_ENV, KESOKU_WORKSPACE_QUOTA_MB …). */
export interface SandboxSettings {
  /** `auto`: bwrap when it works, else tools refused; `required`: refuse to start without it; `off`: never. */
  mode: 'auto' | 'required' | 'off';
  /** `off`: the command gets an empty network namespace (loopback only, nothing listening); `on`: the host's. */
  network: 'off' | 'on';
  /** Extra environment variable names passed through from the worker. */
  toolEnv: string[];
  /** CPU seconds per process (SIGXCPU, then SIGKILL 5 s later). */
  cpuS: number;
  /**
   * Memory of one command in MiB: with a cgroup, all its processes together (the kernel kills one when they
   * reach it); always also each process's data size (RLIMIT_DATA: allocation fails above it).
   */
  memoryMb: number;
  /** Processes and threads of one command together (cgroup pids.max, and RLIMIT_NPROC per uid). */
  processes: number;
  /** Largest file a process may write, in MiB (SIGXFSZ above it). */
  fileMb: number;
  /**
   * User and group ids commands run as when the worker runs as root: each session gets one of `first`…`last`
   * (a hash of its id); a single uid when they are equal.
   */
  uids: { first: number; last: number };
  /** The data dir (workspaces, attachments, tool output); hidden from commands except their own parts. */
  dataDir: string;
  /** Directories and files never visible to commands (the data dir, Kesoku's directory, home, key files). */
  hide: string[];
  /** Extra read-only paths in the sandbox (KESOKU_SANDBOX_PATHS, e.g. /opt or /nix). */
  extraPaths: string[];
  /** KESOKU_SANDBOX_CGROUP: `auto`, `off` or a delegated cgroup v2 directory. */
  cgroup: string;
  /** Largest workspace in MiB before commands and writes are refused (KESOKU_WORKSPACE_QUOTA_MB); 0: none. */
  workspaceQuotaMb: number;
  /** Days full tool output and attachments are kept (KESOKU_RETENTION_DAYS); 0: forever. */
  retentionDays: number;
}

/** The sandbox a worker runs its tools in, once probed at start-up. */
export interface Sandbox {
  settings: SandboxSettings;
  /**
   * `bwrap`: tools run sandboxed; `off`: the operator turned the sandbox off (tools run unsandboxed);
   * `unavailable`: no working sandbox in mode `auto` (every tool call is refused, see {@link sandboxRefusal}).
   */
  kind: 'bwrap' | 'off' | 'unavailable';
  bwrapPath?: string;
  prlimitPath?: string;
  setprivPath?: string;
  /** Why tools are not sandboxed (kinds `off` and `unavailable`). */
  reason?: string;
  /**
   * False when bwrap is older than 0.5, which has no `--perms`: the directories on the way to the workspace are
   * then created 0755 (listable) and /tmp is writable only by a worker that is not root. Absent means true.
   */
  bwrapPerms?: boolean;
  /** The seccomp program's file (passed as fd 3 to bwrap); absent on an architecture without a filter. */
  seccompFile?: string;
  /** Where per-command cgroups are made; absent: only per-process limits (see `cgroupReason`). */
  cgroups?: CgroupParents;
  cgroupReason?: string;
}

/** Thrown at start-up when KESOKU_SANDBOX=required and bubblewrap cannot run. */
export class SandboxUnavailableError extends Error {
  readonly kind = 'sandbox_unavailable';
}

/** Kesoku's own directory (the repository or install root), hidden from commands. */
export const APP_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The default uid range for sessions of a root worker: unused by distributions and systemd's ranges. */
export const DEFAULT_SANDBOX_UIDS = { first: 1_879_048_192, last: 1_879_048_192 + 65_535 };

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
    uids: DEFAULT_SANDBOX_UIDS,
    dataDir,
    hide: [dataDir, APP_ROOT, os.homedir()],
    extraPaths: [],
    cgroup: 'auto',
    workspaceQuotaMb: 10_240,
    retentionDays: 30,
    ...over,
  };
}

/**
 * Variables that name files holding keys, tokens or passwords, besides every variable ending in `_FILE` (which
 * covers the chat channels' credential files and KESOKU_API_TOKENS_FILE).
 * Each existing path they name is hidden from commands.
 */
export const SECRET_FILE_VARIABLES = [
  'GOOGLE_APPLICATION_CREDENTIALS',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'PGPASSFILE',
  'PGSSLKEY',
  'SSL_CERT_KEY',
] as const;

/**
 * Every configured secret file, in one place: the paths named by {@link SECRET_FILE_VARIABLES} and by any
 * variable ending in `_FILE`, and the `.env` files next to Kesoku and in the working directory. Relative paths
 * are taken from `cwd`. (The data dir's own secrets, payload keys, codec token and Postgres password, are hidden
 * with the data dir.)
 */
export function secretPathsFrom(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string[] {
  const names = new Set<string>([
    ...SECRET_FILE_VARIABLES,
    ...Object.keys(env).filter((n) => n.endsWith('_FILE')),
  ]);
  const out = new Set<string>();
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) out.add(path.resolve(cwd, value));
  }
  for (const dir of [APP_ROOT, cwd]) for (const f of ['.env', '.env.local']) out.add(path.join(dir, f));
  return [...out];
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

/** The fixes to name when no sandbox can run. */
const FIX =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow unprivileged user namespaces ' +
  '(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0 or ' +
  'an AppArmor profile for bwrap), or set KESOKU_SANDBOX=off to run tools without a sandbox knowingly';

/**
 * Finds bwrap (and prlimit, setpriv), writes the seccomp program, finds the cgroups, and runs one trial
 * command in the sandbox this host would use. Also starts the retention sweep of the data dir.
 * @throws {SandboxUnavailableError} mode `required` and the trial failed
 */
export async function prepareSandbox(settings: SandboxSettings): Promise<Sandbox> {
  const prlimitPath = findOnPath('prlimit');
  const setprivPath = findOnPath('setpriv');
  const cg = probeCgroups(settings.cgroup);
  const limits = 'kind' in cg ? { cgroups: cg } : { cgroupReason: cg.reason };
  if ('kind' in cg) removeStaleCgroups(cg);
  const base = { settings, ...(prlimitPath ? { prlimitPath } : {}), ...limits };
  const unsandboxed = (reason: string): Sandbox => {
    if (settings.mode === 'required') {
      throw new SandboxUnavailableError(`KESOKU_SANDBOX=required, but ${reason}. To fix it, ${FIX}`);
    }
    return { ...base, kind: 'unavailable', reason };
  };
  if (settings.mode === 'off') return { ...base, kind: 'off', reason: 'KESOKU_SANDBOX=off' };
  if (process.platform !== 'linux')
    return unsandboxed(`bubblewrap needs Linux (this is ${process.platform})`);
  const bwrapPath = findOnPath('bwrap');
  if (!bwrapPath) return unsandboxed('bubblewrap (bwrap) is not installed');
  if (!prlimitPath) return unsandboxed('prlimit (util-linux) is not installed, so no limits can be set');
  if (isRoot() && !setprivPath)
    return unsandboxed('setpriv (util-linux) is not installed, so commands cannot leave root');
  const program = seccompProgram();
  let seccompFile: string | undefined;
  try {
    if (program !== null) seccompFile = writeSeccompFile(settings.dataDir, program);
  } catch (err) {
    return unsandboxed(
      `the seccomp filter could not be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  const sandbox: Sandbox = {
    ...base,
    kind: 'bwrap',
    bwrapPath,
    ...(setprivPath ? { setprivPath } : {}),
    bwrapPerms: await bwrapHasPerms(bwrapPath),
    ...(seccompFile ? { seccompFile } : {}),
  };
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-sandbox-probe-'));
  try {
    await prepareWorkspace(sandbox, probeDir);
    const result = await runCollected(sandbox, ['/bin/sh', '-c', 'echo ok > probe && cat probe'], probeDir, {
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 10_000,
    });
    if (result.stdout.toString().trim() !== 'ok') {
      const detail = (result.stderr.toString().trim().split('\n')[0] ?? '') || `exit ${result.exitCode}`;
      return unsandboxed(`bubblewrap cannot run here (${detail}); user namespaces may be disabled`);
    }
    return sandbox;
  } catch (err) {
    return unsandboxed(`bubblewrap cannot run here (${(err as Error).message.split('\n')[0]})`);
  } finally {
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

/** Writes the seccomp program to `<dataDir>/sandbox/seccomp.bpf` (private, replaced atomically). */
function writeSeccompFile(dataDir: string, program: Buffer): string {
  const dir = path.join(dataDir, 'sandbox');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'seccomp.bpf');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, program, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
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

/** The one-line start-up warning for a worker whose tools are not sandboxed, or null when they are. */
export function sandboxWarning(sandbox: Sandbox): string | null {
  if (sandbox.kind === 'off')
    return (
      "WARNING: KESOKU_SANDBOX=off: tool commands and file tools run WITHOUT a sandbox, as this worker's user: " +
      "they can read its files, other sessions' workspaces and the data dir, and reach local services."
    );
  if (sandbox.kind === 'unavailable')
    return (
      `WARNING: no sandbox (${sandbox.reason}): every shell and file tool call is refused until it works. ` +
      `To fix it, ${FIX}.`
    );
  return null;
}

/** Records `sandbox` as this process's worker's sandbox, for /healthz (infra/sandbox-health.ts). */
export function reportSandbox(sandbox: Sandbox): void {
  setSandboxHealth(sandboxHealth(sandbox));
}

/** What /healthz shows about `sandbox`. */
export function sandboxHealth(sandbox: Sandbox): SandboxHealth {
  return {
    mode: sandbox.settings.mode,
    state: sandbox.kind,
    ...(sandbox.reason ? { reason: sandbox.reason } : {}),
    seccomp: sandbox.kind === 'bwrap' && sandbox.seccompFile !== undefined,
    limits: sandbox.cgroups ? `cgroup ${sandbox.cgroups.kind}` : 'rlimit',
    network: sandbox.settings.network,
  };
}

/**
 * The tool error for a call refused because no sandbox works (kind `unavailable`), naming the fix; undefined
 * when tools may run.
 */
export function sandboxRefusal(sandbox: Sandbox | undefined): ToolExecutionError | undefined {
  if (sandbox === undefined)
    return new ToolExecutionError(
      'tools are not available: this worker was started without a sandbox setting',
    );
  if (sandbox.kind !== 'unavailable') return undefined;
  return new ToolExecutionError(
    `tools are refused on this host because no sandbox can run (${sandbox.reason}). The operator can ${FIX}.`,
  );
}

/**
 * The environment a tool gets, in every mode: PATH, HOME (= workspace), LANG, TERM and the KESOKU_TOOL_ENV
 * names, less `secretNames` (the chat channels' secrets, never passed whatever KESOKU_TOOL_ENV says).
 */
export function sandboxEnvironment(
  settings: SandboxSettings,
  workspaceDir: string,
  from: NodeJS.ProcessEnv,
  secretNames: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: from.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: workspaceDir,
  };
  if (from.LANG) env.LANG = from.LANG;
  env.TERM = from.TERM ?? 'dumb';
  for (const name of settings.toolEnv) {
    const v = from[name];
    if (v !== undefined && !secretNames.includes(name)) env[name] = v;
  }
  return env;
}

/** The uid (and gid) a session's tools run as under a root worker: one of the configured range, by workspace. */
export function sandboxUid(settings: SandboxSettings, workspaceDir: string): number {
  const { first, last } = settings.uids;
  if (last <= first) return first;
  const digest = createHash('sha256')
    .update(path.basename(path.resolve(workspaceDir)))
    .digest();
  return first + (digest.readUInt32BE(0) % (last - first + 1));
}

/** The uid tools of this workspace run as: the session's uid under a root worker, else the worker's own. */
export function toolUid(sandbox: Sandbox, workspaceDir: string): number {
  if (sandbox.kind === 'bwrap' && isRoot()) return sandboxUid(sandbox.settings, workspaceDir);
  return process.getuid?.() ?? 0;
}

/** How to spawn one tool run: program, arguments and environment. */
export interface SpawnPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** The directory to spawn in (the workspace without a sandbox; `/` for bwrap, which changes into it). */
  cwd: string;
  /** The seccomp program to pass as file descriptor 3. */
  seccompFile?: string;
}

/** Limits as `prlimit` arguments. */
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

/** Directories of the host's root that make up the sandbox's system: bound read-only, or their links copied. */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Size of the sandbox's private /tmp and /dev/shm, in MiB: the command's memory, at most 4 GiB. */
const tmpSizeMb = (s: SandboxSettings) => Math.min(s.memoryMb, 4096);

/**
 * The spawn of `argv` (e.g. `['/bin/sh', '-c', command]`) in `workspaceDir` for this sandbox, with `env` (from
 * {@link sandboxEnvironment}). Without a sandbox (kind `off`): `prlimit … argv` in the workspace.
 * @throws {ToolExecutionError} kind `unavailable` (see {@link sandboxRefusal})
 */
export function sandboxPlan(
  sandbox: Sandbox,
  argv: string[],
  workspaceDir: string,
  env: Record<string, string>,
): SpawnPlan {
  const refusal = sandboxRefusal(sandbox);
  if (refusal) throw refusal;
  const s = sandbox.settings;
  if (sandbox.kind === 'off') {
    if (sandbox.prlimitPath)
      return {
        file: sandbox.prlimitPath,
        args: [...limitArgs(s, false), ...argv],
        env,
        cwd: workspaceDir,
      };
    return { file: argv[0]!, args: argv.slice(1), env, cwd: workspaceDir };
  }
  const perms = sandbox.bwrapPerms !== false;
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'kesoku-sandbox',
  ];
  // A worker that is not root gets its own user namespace, where bwrap can forbid nested ones. A root worker's
  // bwrap cannot (its user namespace would map the command to host root); the seccomp filter refuses them.
  if (!isRoot()) args.push('--unshare-user', '--disable-userns');
  if (s.network === 'off') args.push('--unshare-net');

  // Mount table of the sandbox, to know which directories exist: tmpfs mounts start empty (what lies on the
  // way to a later mount must be made), binds show the host's directories.
  const mounts: { at: string; tmpfs: boolean }[] = [{ at: '/', tmpfs: true }];
  const mountAt = (at: string, tmpfs: boolean) => mounts.push({ at, tmpfs });
  const made = new Set<string>();
  /** Makes the missing directories above `target` in tmpfs mounts: passable (0111), not listable. */
  const makeDirsTo = (target: string) => {
    const dirs: string[] = [];
    for (let dir = path.dirname(target); dir !== '/'; dir = path.dirname(dir)) dirs.unshift(dir);
    for (const dir of dirs) {
      if (made.has(dir) || mounts.some((m) => m.at === dir)) continue;
      const holder = deepestMount(mounts, dir);
      if (!holder.tmpfs) continue;
      made.add(dir);
      args.push(...(perms ? ['--perms', '0111'] : []), '--dir', dir);
    }
  };
  args.push('--tmpfs', '/');
  const extra = s.extraPaths.filter((p) => path.isAbsolute(p) && p !== '/');
  for (const p of [...SYSTEM_PATHS, ...extra]) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink() && path.dirname(p) === '/') {
      args.push('--symlink', fs.readlinkSync(p), p);
    } else {
      const real = fs.realpathSync(p);
      makeDirsTo(p);
      args.push('--ro-bind', real, p);
      mountAt(p, false);
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  mountAt('/proc', false);
  mountAt('/dev', false);
  const tmpBytes = String(tmpSizeMb(s) * 1024 * 1024);
  args.push(...(perms ? ['--perms', '1777'] : []), '--size', tmpBytes, '--tmpfs', '/dev/shm');
  // /tmp world-writable like the host's: bwrap makes a tmpfs 0755 for its owner, and as root that is not the
  // command's user.
  args.push(...(perms ? ['--perms', '1777'] : []), '--size', tmpBytes, '--tmpfs', '/tmp');
  mountAt('/tmp', true);
  args.push('--dir', '/var', '--symlink', '../tmp', '/var/tmp');

  const realWorkspace = fs.realpathSync(workspaceDir);
  const attachments = attachmentsDirOfWorkspace(realWorkspace);
  const realAttachments = attachments && safeIsDir(attachments) ? fs.realpathSync(attachments) : undefined;
  // Hidden paths that the system binds would show (a secret file in /etc, Kesoku installed under /usr …):
  // a directory gets an empty tmpfs, a file /dev/null. Shallow first, so deeper ones land inside.
  const shown = (p: string) => !deepestMount(mounts, p).tmpfs;
  const hidden = [...new Set(s.hide.filter((p) => path.isAbsolute(p)).map(realOrSelf))]
    .filter((p) => p !== '/' && shown(p) && !isInside(realWorkspace, p) && pathExists(p))
    .sort((a, b) => a.length - b.length);
  for (const p of hidden) {
    if (safeIsDir(p)) {
      makeDirsTo(p);
      const passage =
        perms && (isInside(p, realWorkspace) || (realAttachments && isInside(p, realAttachments)));
      args.push(...(passage ? ['--perms', '0111'] : []), '--tmpfs', p);
      mountAt(p, true);
    } else {
      args.push('--ro-bind', '/dev/null', p);
    }
  }
  makeDirsTo(realWorkspace);
  args.push('--bind', realWorkspace, realWorkspace);
  mountAt(realWorkspace, false);
  if (realAttachments) {
    makeDirsTo(realAttachments);
    args.push('--ro-bind', realAttachments, realAttachments);
    mountAt(realAttachments, false);
  }
  args.push('--remount-ro', '/');
  if (sandbox.seccompFile) args.push('--seccomp', '3');
  args.push('--chdir', realWorkspace, '--clearenv');
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--');
  // As root, leave root before anything runs: the kernel ignores the process limit for root.
  if (isRoot() && sandbox.setprivPath) {
    const uid = sandboxUid(s, workspaceDir);
    args.push(sandbox.setprivPath, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs');
  }
  args.push(sandbox.prlimitPath ?? 'prlimit', ...limitArgs(s, true), ...argv);
  // bwrap itself starts from the same environment, so nothing secret is in its /proc/<pid>/environ either.
  return {
    file: sandbox.bwrapPath ?? 'bwrap',
    args,
    env,
    cwd: '/',
    ...(sandbox.seccompFile ? { seccompFile: sandbox.seccompFile } : {}),
  };
}

function deepestMount(mounts: { at: string; tmpfs: boolean }[], p: string): { at: string; tmpfs: boolean } {
  let best = mounts[0]!;
  for (const m of mounts) if (isInside(m.at, p) && m.at.length >= best.at.length) best = m;
  return best;
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function pathExists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** True when `dir` is `ancestor` or lies below it. */
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

/** A spawned tool run: the child, and `finished` once it closed (with what its cgroup saw). */
export interface SandboxedRun {
  child: ChildProcess;
  /** Resolves after the child closed and its cgroup was emptied and removed. Never rejects. */
  finished: Promise<CgroupReport | undefined>;
}

/**
 * A fresh cgroup `name` with the sandbox's memory and process limits, or null when the host has no cgroups.
 * @throws {ToolExecutionError} it could not be made (a limit the sandbox promised would not hold)
 */
function commandCgroupOf(sandbox: Sandbox, name: string): CommandCgroup | null {
  if (!sandbox.cgroups) return null;
  try {
    return createCommandCgroup(sandbox.cgroups, name, {
      memoryMb: sandbox.settings.memoryMb,
      processes: sandbox.settings.processes,
    });
  } catch (err) {
    throw new ToolExecutionError(`the command's cgroup could not be made: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Spawns `plan` as its own process group (detached), inside a fresh per-command cgroup when the host has them
 * (entered by a small shell before anything of the tool runs), with the seccomp program on fd 3.
 * @param stdin `pipe` to write to the tool's stdin, else it is empty
 * @throws {ToolExecutionError} the cgroup could not be made, or the spawn failed
 */
export function spawnSandboxed(
  sandbox: Sandbox,
  plan: SpawnPlan,
  stdin: 'pipe' | 'ignore' = 'ignore',
): SandboxedRun {
  const cgroup = commandCgroupOf(sandbox, commandCgroupName()) ?? undefined;
  let fd: number | undefined;
  try {
    if (plan.seccompFile) fd = fs.openSync(plan.seccompFile, 'r');
    const stdio: StdioOptions = [stdin, 'pipe', 'pipe', ...(fd !== undefined ? [fd] : [])];
    const [file, args] = cgroup
      ? ['/bin/sh', ['-c', JOIN_SCRIPT, 'kesoku-cgroup', ...cgroup.procsFiles, '--', plan.file, ...plan.args]]
      : [plan.file, plan.args];
    const child = spawn(file, args, { cwd: plan.cwd, env: plan.env, detached: true, stdio });
    const finished = new Promise<CgroupReport | undefined>((resolve) => {
      const done = () => void (cgroup ? cgroup.finish().then(resolve) : resolve(undefined));
      child.once('close', done);
      child.once('error', () => {
        if (child.pid === undefined) done();
      });
    });
    return { child, finished };
  } catch (err) {
    void cgroup?.finish();
    throw new ToolExecutionError(`could not start the tool: ${(err as Error).message}`, { cause: err });
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The host-side wrapper of a detached command (a background job's): `sh -c DETACHED_WRAPPER kesoku-job
 * <procs file>... -- <program> <args>...`. It enters the cgroups (exit status 125 when it cannot, before the
 * program starts), runs the program with fd 4 closed, and then writes the program's exit status to fd 4 (the
 * exit file the worker opened). It does not `exec`: bubblewrap's `--die-with-parent` then ties the sandbox to this
 * shell, which leads its own session, instead of to the worker, so the command outlives a killed worker and
 * killing this shell's process group still ends all of it.
 */
const DETACHED_WRAPPER =
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "kesoku: could not enter the command\'s cgroup" >&2; ' +
  'echo 125 >&4; exit 125; }; shift; done; shift; "$@" 4>&-; echo $? >&4';

/** The open files a detached command writes: its stdout and stderr, and the wrapper's exit status. */
export interface DetachedFds {
  stdout: number;
  stderr: number;
  exit: number;
}

/**
 * Spawns `plan` detached from the worker (see {@link DETACHED_WRAPPER}): its own session and process group
 * (pgid = the returned pid), stdin empty, stdout and stderr to `fds`, no pipe to the worker, inside the cgroup
 * `cgroupName` when the host has cgroups (kept after the worker is gone; the caller finishes it once the
 * command ended). The caller may close `fds` once this returns.
 * @returns the wrapper's pid and the cgroup (null without cgroups)
 * @throws {ToolExecutionError} the cgroup could not be made, or the spawn failed
 */
export function spawnDetached(
  sandbox: Sandbox,
  plan: SpawnPlan,
  fds: DetachedFds,
  cgroupName: string,
): { pid: number; cgroup: CommandCgroup | null } {
  const cgroup = commandCgroupOf(sandbox, cgroupName);
  let seccomp: number | undefined;
  try {
    if (plan.seccompFile) seccomp = fs.openSync(plan.seccompFile, 'r');
    const stdio: StdioOptions = ['ignore', fds.stdout, fds.stderr, seccomp ?? 'ignore', fds.exit];
    const args = [
      '-c',
      DETACHED_WRAPPER,
      'kesoku-job',
      ...(cgroup?.procsFiles ?? []),
      '--',
      plan.file,
      ...plan.args,
    ];
    const child = spawn('/bin/sh', args, { cwd: plan.cwd, env: plan.env, detached: true, stdio });
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new Error('no process was started');
    child.unref();
    return { pid: child.pid, cgroup };
  } catch (err) {
    void cgroup?.finish();
    throw new ToolExecutionError(`could not start the tool: ${(err as Error).message}`, { cause: err });
  } finally {
    if (seccomp !== undefined) fs.closeSync(seccomp);
  }
}

/** What {@link runCollected} gives back. */
export interface CollectedRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  cgroup?: CgroupReport;
}

/**
 * Runs `argv` in the sandbox in `workspaceDir` to the end, collecting its output (at most `maxOutput` bytes of
 * stdout, default 2 MiB; stderr 64 KiB), with `input` on stdin. Used for the sandbox probe and the file tools.
 * @throws {ToolExecutionError} kind `unavailable`, or the run could not start
 */
export async function runCollected(
  sandbox: Sandbox,
  argv: string[],
  workspaceDir: string,
  opts: {
    env: Record<string, string>;
    input?: Buffer;
    timeoutMs: number;
    maxOutput?: number;
    signal?: AbortSignal;
  },
): Promise<CollectedRun> {
  const plan = sandboxPlan(sandbox, argv, workspaceDir, opts.env);
  const { child, finished } = spawnSandboxed(sandbox, plan, opts.input ? 'pipe' : 'ignore');
  const maxOut = opts.maxOutput ?? 2 * 1024 * 1024;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  child.stdout?.on('data', (b: Buffer) => {
    if (outBytes < maxOut) out.push(b.subarray(0, maxOut - outBytes));
    outBytes += b.length;
  });
  child.stderr?.on('data', (b: Buffer) => {
    if (errBytes < 65536) err.push(b.subarray(0, 65536 - errBytes));
    errBytes += b.length;
  });
  if (opts.input && child.stdin) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input);
  }
  let timedOut = false;
  const kill = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, opts.timeoutMs);
  opts.signal?.addEventListener('abort', kill, { once: true });
  try {
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
      (resolve, reject) => {
        child.once('error', (e) => {
          if (child.pid === undefined)
            reject(new ToolExecutionError(`could not start the tool: ${e.message}`, { cause: e }));
        });
        child.once('close', (code, sig) => resolve([code, sig]));
      },
    );
    const cgroup = await finished;
    return {
      exitCode,
      signal,
      stdout: Buffer.concat(out),
      stderr: Buffer.concat(err),
      timedOut,
      ...(cgroup ? { cgroup } : {}),
    };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', kill);
  }
}

/**
 * Prepares the workspace for a tool run, never following a link the sandbox could have planted:
 * - created (the last component with one `mkdir`, opened without following links), and, under a root worker,
 *   owned by the session's uid; files a previous uid owned are handed over (a walk that never follows links and
 *   leaves hard-linked files alone);
 * - the session's attachment directory exists (so it can be bound) and the workspace holds the link
 *   `attachments` to it, made when missing (an `attachments` directory from before is renamed
 *   `attachments.old`); whatever a command put there instead is left as it is and never followed.
 * @throws {ToolExecutionError} when the workspace cannot be made or opened (e.g. a link in its place)
 */
export async function prepareWorkspace(sandbox: Sandbox, workspaceDir: string): Promise<void> {
  const ws = path.resolve(workspaceDir);
  try {
    fs.mkdirSync(path.dirname(ws), { recursive: true });
    const parent = await SafeDir.open(path.dirname(ws));
    let dir: SafeDir;
    try {
      dir = await parent.makeDir(path.basename(ws), 0o700);
    } finally {
      await parent.close();
    }
    try {
      const uid = toolUid(sandbox, ws);
      const st = await dir.stat();
      if (isRoot() && st.uid !== uid) {
        await dir.chown(uid, uid);
        if (st.uid !== 0) await handOver(dir, st.uid, uid);
      }
      const attachments = attachmentsDirOfWorkspace(ws);
      if (attachments !== undefined) {
        await ensureSessionAttachmentsDir(
          path.dirname(path.dirname(attachments)),
          path.basename(attachments),
        );
        // The real path: the sandbox binds the attachments there, and the link must resolve inside it.
        await linkAttachments(dir, fs.realpathSync(attachments), uid);
      }
    } finally {
      await dir.close();
    }
  } catch (err) {
    if (err instanceof ToolExecutionError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    throw new ToolExecutionError(`the workspace could not be prepared (${code})`, { cause: err });
  }
}

/** Gives what `from` owns in the workspace to `to`, never following links, never a hard-linked file. */
async function handOver(dir: SafeDir, from: number, to: number): Promise<void> {
  await walkTree(dir, async (e) => {
    if (e.stat.uid !== from) return;
    if (!e.stat.isDirectory() && e.stat.nlink > 1) return;
    await e.dir.lchown(e.name, to, to).catch(() => undefined);
  });
}

async function linkAttachments(dir: SafeDir, target: string, uid: number): Promise<void> {
  const st = await dir.lstat(ATTACHMENTS_FOLDER);
  if (st?.isDirectory()) {
    let name = `${ATTACHMENTS_FOLDER}.old`;
    for (let i = 2; (await dir.lstat(name)) !== null; i++) name = `${ATTACHMENTS_FOLDER}.old${i}`;
    await dir.rename(ATTACHMENTS_FOLDER, name);
  } else if (st !== null) {
    return;
  }
  try {
    await dir.symlink(target, ATTACHMENTS_FOLDER);
    if (isRoot()) await dir.lchown(ATTACHMENTS_FOLDER, uid, uid);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Exit statuses, signals and cgroup counts that mean a sandbox limit stopped a process, with the line the model reads. */
export function limitExplanation(
  sandbox: Sandbox | undefined,
  run: { exitCode: number | null; signal: string | null; stderr: string; cgroup?: CgroupReport },
): string | undefined {
  if (!sandbox) return undefined;
  const s = sandbox.settings;
  if (run.cgroup && run.cgroup.oomKills > 0) {
    return `a process was killed by the sandbox: the command reached its memory limit of ${s.memoryMb} MiB`;
  }
  // A shell reports a child killed by signal N as exit status 128 + N (SIGXCPU 24, SIGXFSZ 25).
  if (run.signal === 'SIGXFSZ' || run.exitCode === 128 + 25) {
    return `a process was stopped by the sandbox: it exceeded the file size limit of ${s.fileMb} MiB per file`;
  }
  if (run.signal === 'SIGXCPU' || run.exitCode === 128 + 24) {
    return `a process was stopped by the sandbox: it used more than the CPU time limit of ${s.cpuS} s`;
  }
  // EAGAIN from fork/clone at the process limit, as shells and libc report it.
  if (
    (run.cgroup && run.cgroup.pidsLimitHits > 0) ||
    (sandbox.kind === 'bwrap' &&
      /Cannot fork|fork: (retry: )?Resource temporarily unavailable|can't fork/i.test(run.stderr))
  ) {
    return `processes could not be started: the sandbox allows ${s.processes} processes and threads per command`;
  }
  return undefined;
}

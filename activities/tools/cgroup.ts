/**
 * Per-command memory and process limits that hold whoever the command runs as (root included): each command
 * gets its own cgroup with a memory limit (all its processes together, swap included where the kernel accounts
 * it) and a process limit (`pids.max`), joined before anything of the command runs and removed when it ends
 * (killing what is left in it).
 *
 * Where cgroups come from (docs/sandbox.md "Limits"):
 * - cgroup v2 (one unified hierarchy): a directory delegated to Kesoku, `KESOKU_SANDBOX_CGROUP=<path>`, or by
 *   default the parent of the worker's own cgroup when it is writable and has the memory and pids controllers
 *   (systemd `Delegate=yes` with `DelegateSubgroup=`, or a container started with its cgroup writable). The
 *   kernel forbids controllers on a cgroup that holds processes, so the worker's own cgroup is never used.
 * - cgroup v1 (separate memory and pids hierarchies): the worker's own cgroup in each, when writable (root).
 * Without either, the per-process limits (prlimit) are all there is; the probe says why.
 */
import fs from 'node:fs';
import path from 'node:path';

/** How the worker limits commands. */
export type CgroupKind = 'v2' | 'v1';

/** The cgroup parents commands are created under, once probed. */
export interface CgroupParents {
  kind: CgroupKind;
  /** v2: the one parent; v1: the memory hierarchy's parent. */
  memory: string;
  /** v2: same as `memory`; v1: the pids hierarchy's parent. */
  pids: string;
}

/** What a command's cgroup saw, read when it ended. */
export interface CgroupReport {
  /** Processes the kernel killed because the command reached its memory limit. */
  oomKills: number;
  /** Times a fork failed at the process limit. */
  pidsLimitHits: number;
}

/** One command's cgroup: join it (its `cgroup.procs` files), then `finish` once the command ended. */
export interface CommandCgroup {
  /** The `cgroup.procs` files a process writes its pid to, to enter the cgroup (one for v2, two for v1). */
  procsFiles: string[];
  /** Kills whatever is still inside, reads the report, removes the cgroup. Never throws. */
  finish(): Promise<CgroupReport>;
}

const MIB = 1024 * 1024;

function write(file: string, value: string): void {
  fs.writeFileSync(file, value);
}

function readInt(file: string, key?: string): number {
  try {
    const text = fs.readFileSync(file, 'utf8');
    if (key === undefined) return Number(text.trim()) || 0;
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The mount points of the cgroup hierarchies, from /proc/self/mountinfo. */
function cgroupMounts(): { v2?: string; v1: Record<string, string> } {
  const out: { v2?: string; v1: Record<string, string> } = { v1: {} };
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const mountPoint = left.split(' ')[4];
    const [fstype, , options] = right.split(' ');
    if (!mountPoint) continue;
    if (fstype === 'cgroup2') out.v2 ??= mountPoint;
    else if (fstype === 'cgroup' && options) {
      for (const opt of options.split(','))
        if (opt === 'memory' || opt === 'pids') out.v1[opt] ??= mountPoint;
    }
  }
  return out;
}

/** This process's cgroup paths, from /proc/self/cgroup: `v2` and one per v1 controller. */
function ownCgroups(): { v2?: string; v1: Record<string, string> } {
  const out: { v2?: string; v1: Record<string, string> } = { v1: {} };
  let text = '';
  try {
    text = fs.readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') out.v2 = m[3];
    for (const c of m[2]!.split(',')) if (c === 'memory' || c === 'pids') out.v1[c] = m[3]!;
  }
  return out;
}

/** Creates, limits and removes a trial cgroup under `parents`; throws what went wrong. */
function trial(parents: CgroupParents): void {
  const cg = createCommandCgroup(parents, `kesoku-probe-${process.pid}`, { memoryMb: 64, processes: 8 });
  void cg.finish();
}

/**
 * Finds where this worker can create per-command cgroups. `setting` is KESOKU_SANDBOX_CGROUP: `auto`, `off`,
 * or a cgroup v2 directory delegated to Kesoku.
 * @returns the parents, or the reason there are none (for the start-up log and /healthz)
 */
export function probeCgroups(setting: string): CgroupParents | { reason: string } {
  if (setting === 'off') return { reason: 'KESOKU_SANDBOX_CGROUP=off' };
  if (process.platform !== 'linux') return { reason: `cgroups need Linux (this is ${process.platform})` };
  const mounts = cgroupMounts();
  const own = ownCgroups();
  const candidates: CgroupParents[] = [];
  const problems: string[] = [];
  if (setting !== 'auto') {
    candidates.push({ kind: 'v2', memory: setting, pids: setting });
  } else {
    if (mounts.v2 && own.v2 !== undefined && own.v2 !== '/') {
      const parent = path.join(mounts.v2, path.dirname(own.v2));
      candidates.push({ kind: 'v2', memory: parent, pids: parent });
    } else if (mounts.v2) {
      problems.push(
        'cgroup v2: this process is in the root of its cgroup tree, which has no parent to delegate',
      );
    }
    const mem = mounts.v1.memory;
    const pids = mounts.v1.pids;
    if (mem && pids && own.v1.memory !== undefined && own.v1.pids !== undefined)
      candidates.push({
        kind: 'v1',
        memory: path.join(mem, own.v1.memory),
        pids: path.join(pids, own.v1.pids),
      });
  }
  for (const c of candidates) {
    try {
      if (c.kind === 'v2') enableV2Controllers(c.memory);
      trial(c);
      return c;
    } catch (err) {
      problems.push(`cgroup ${c.kind} under ${c.memory}: ${(err as Error).message}`);
    }
  }
  if (candidates.length === 0 && problems.length === 0)
    problems.push('no cgroup hierarchy with memory and pids');
  return { reason: problems.join('; ') };
}

/** Makes sure `dir`'s children get the memory and pids controllers (cgroup v2). */
function enableV2Controllers(dir: string): void {
  const available = fs.readFileSync(path.join(dir, 'cgroup.controllers'), 'utf8').split(/\s+/);
  for (const c of ['memory', 'pids'])
    if (!available.includes(c)) throw new Error(`the ${c} controller is not delegated here`);
  const enabled = fs.readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
  const missing = ['memory', 'pids'].filter((c) => !enabled.includes(c));
  if (missing.length > 0)
    write(path.join(dir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
}

let counter = 0;

/** A fresh name for one command's cgroup (this worker's pid and a counter). */
export function commandCgroupName(): string {
  counter += 1;
  return `kesoku-${process.pid}-${counter}`;
}

/**
 * Creates cgroup `name` under `parents` with the limits: `memoryMb` MiB for all processes together (swap
 * included where accounted), at most `processes` processes and threads.
 * @throws when a directory or limit cannot be written (the caller refuses the command: a limit it promised
 *   would not hold)
 */
export function createCommandCgroup(
  parents: CgroupParents,
  name: string,
  limits: { memoryMb: number; processes: number },
): CommandCgroup {
  const bytes = String(limits.memoryMb * MIB);
  const dirs = cgroupDirs(parents, name);
  try {
    for (const d of dirs) fs.mkdirSync(d);
    if (parents.kind === 'v2') {
      const d = dirs[0]!;
      write(path.join(d, 'memory.max'), bytes);
      if (fs.existsSync(path.join(d, 'memory.swap.max'))) write(path.join(d, 'memory.swap.max'), '0');
      write(path.join(d, 'pids.max'), String(limits.processes));
    } else {
      const [mem, pids] = dirs as [string, string];
      write(path.join(mem, 'memory.limit_in_bytes'), bytes);
      const memsw = path.join(mem, 'memory.memsw.limit_in_bytes');
      if (fs.existsSync(memsw)) write(memsw, bytes);
      write(path.join(pids, 'pids.max'), String(limits.processes));
    }
  } catch (err) {
    for (const d of dirs) removeCgroup(d);
    throw err;
  }
  return commandCgroupAt(parents.kind, dirs);
}

/** The directories of cgroup `name` under `parents` (one for v2; memory then pids for v1). */
function cgroupDirs(parents: CgroupParents, name: string): string[] {
  return parents.kind === 'v2'
    ? [path.join(parents.memory, name)]
    : [path.join(parents.memory, name), path.join(parents.pids, name)];
}

/**
 * The cgroup `name` an earlier worker of this host made under `parents` (a background job's, which outlives the
 * worker that made it), to report on and remove once its command ended; null when it does not exist there.
 */
export function existingCommandCgroup(parents: CgroupParents, name: string): CommandCgroup | null {
  const dirs = cgroupDirs(parents, name);
  return dirs.every((d) => fs.existsSync(d)) ? commandCgroupAt(parents.kind, dirs) : null;
}

/** The cgroup name of a background job's command: never taken for a dead worker's leftover (removeStaleCgroups). */
export function jobCgroupName(jobId: string): string {
  return `kesoku-job-${jobId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

function commandCgroupAt(kind: CgroupKind, dirs: string[]): CommandCgroup {
  let finished: Promise<CgroupReport> | undefined;
  return {
    procsFiles: dirs.map((d) => path.join(d, 'cgroup.procs')),
    finish: () =>
      (finished ??= (async () => {
        const report: CgroupReport =
          kind === 'v2'
            ? {
                oomKills: readInt(path.join(dirs[0]!, 'memory.events'), 'oom_kill'),
                pidsLimitHits: readInt(path.join(dirs[0]!, 'pids.events'), 'max'),
              }
            : {
                oomKills: readInt(path.join(dirs[0]!, 'memory.oom_control'), 'oom_kill'),
                pidsLimitHits: readInt(path.join(dirs[1]!, 'pids.events'), 'max'),
              };
        for (const d of dirs) await emptyAndRemove(d, kind);
        return report;
      })()),
  };
}

/** Kills every process left in cgroup `dir` and removes it (tries for about a second). */
async function emptyAndRemove(dir: string, kind: CgroupKind): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if (removeCgroup(dir)) return;
    if (kind === 'v2' && fs.existsSync(path.join(dir, 'cgroup.kill'))) {
      try {
        write(path.join(dir, 'cgroup.kill'), '1');
      } catch {
        // fall back to signalling each process
      }
    }
    let pids: string[] = [];
    try {
      pids = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Removes an empty cgroup directory; true when it is gone. */
function removeCgroup(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Removes cgroups an earlier worker on this host left behind (`kesoku-<pid>-<n>` whose pid is gone), so they
 * do not pile up after crashes. Never throws.
 */
export function removeStaleCgroups(parents: CgroupParents): void {
  for (const parent of new Set([parents.memory, parents.pids])) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^kesoku-(\d+)-\d+$|^kesoku-probe-(\d+)$/.exec(name);
      if (!m) continue;
      const pid = Number(m[1] ?? m[2]);
      if (pid === process.pid || isAlive(pid)) continue;
      void emptyAndRemove(path.join(parent, name), parents.kind);
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The shell script that enters the cgroups named by its first arguments and then runs the rest: `sh -c
 * JOIN_SCRIPT kesoku-cgroup <procs file>... -- <program> <args>...`. It fails with exit status 125 and a
 * message when a cgroup cannot be entered, before the program starts.
 */
export const JOIN_SCRIPT =
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "kesoku: could not enter the command\'s cgroup" >&2; exit 125; }; shift; done; shift; exec "$@"';

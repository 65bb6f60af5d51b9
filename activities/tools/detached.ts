/**
 * Commands that outlive the worker that started them (background jobs, docs/tools.md "Background jobs"): spawned
 * detached in the sandbox (sandbox.ts `spawnDetached`), their stdout, stderr and exit status going to files in the
 * worker-private tool-output directory, so that any worker of the same host can watch the command to its end —
 * the one that started it, or a retry of its activity after that worker was lost (it adopts the running command
 * instead of running it again).
 *
 * The files are never in the workspace (which the command controls) but in the data dir, which the sandbox hides;
 * they are opened without following links all the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ToolExecutionError } from './errors.ts';
import { jobCgroupName, existingCommandCgroup, type CgroupReport, type CommandCgroup } from './cgroup.ts';
import { processStartTicks, spawnedProcessState, workerHostId, type SpawnedProcess } from './runs.ts';
import {
  prepareWorkspace,
  sandboxEnvironment,
  sandboxPlan,
  sandboxRefusal,
  spawnDetached,
  type Sandbox,
} from './sandbox.ts';
import { KILL_GRACE_MS } from './shell.ts';
import { utf8CutForward } from './utf8.ts';
import { JOBS_FOLDER, checkWorkspaceQuota, forgetUsage, sweepSessionFiles } from './workspace-limits.ts';

/** Where one detached command's output and exit status go. */
export interface DetachedFiles {
  stdout: string;
  stderr: string;
  /** Holds the command's exit status (a decimal number and a newline) once the wrapper saw it end. */
  exit: string;
  /** The spawned process (JSON of a `SpawnedProcess`), written right after the spawn. */
  process: string;
}

/** The files of detached command `id` under `outputDir` (the session's tool-output directory): `jobs/<id>.*`. */
export function detachedFiles(outputDir: string, id: string): DetachedFiles {
  const stem = path.join(outputDir, JOBS_FOLDER, id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_'));
  return {
    stdout: `${stem}.stdout`,
    stderr: `${stem}.stderr`,
    exit: `${stem}.exit`,
    process: `${stem}.process`,
  };
}

/** What {@link startDetached} needs. */
export interface DetachedContext {
  /** The session's workspace, where the command runs. */
  workspaceDir: string;
  /** The session's tool-output directory (in the data dir, hidden from commands). */
  outputDir: string;
  /** Names the files and the cgroup (the job id). */
  id: string;
  sandbox: Sandbox | undefined;
  /** Environment the allowlist takes its values from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Variables never passed to the command (shell.ts `ShellContext.secretNames`). */
  secretNames?: readonly string[];
}

const WRITE_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW;

/**
 * Starts `/bin/sh -c command` detached in the session's sandbox, like a foreground command (workspace prepared,
 * quota checked, same environment and limits) but writing to {@link detachedFiles} instead of pipes.
 * @returns the spawned process group (its leader is the host-side wrapper shell)
 * @throws {ToolExecutionError} no sandbox can run, the workspace could not be prepared, the files could not be
 *   opened (a link in their place), or the spawn failed; {ToolInputError} the workspace is over its quota
 */
export async function startDetached(command: string, ctx: DetachedContext): Promise<SpawnedProcess> {
  const refusal = sandboxRefusal(ctx.sandbox);
  if (refusal) throw refusal;
  const sandbox = ctx.sandbox!;
  await prepareWorkspace(sandbox, ctx.workspaceDir);
  try {
    await checkWorkspaceQuota(sandbox, ctx.workspaceDir);
  } finally {
    forgetUsage(ctx.workspaceDir);
  }
  sweepSessionFiles(sandbox, ctx.workspaceDir, ctx.outputDir);
  const files = detachedFiles(ctx.outputDir, ctx.id);
  const opened: number[] = [];
  try {
    fs.mkdirSync(path.dirname(files.exit), { recursive: true, mode: 0o700 });
    for (const f of [files.stdout, files.stderr, files.exit]) opened.push(fs.openSync(f, WRITE_FLAGS, 0o600));
  } catch (err) {
    for (const fd of opened) fs.closeSync(fd);
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    throw new ToolExecutionError(`the job's output files could not be opened (${code})`, { cause: err });
  }
  try {
    const env = sandboxEnvironment(
      sandbox.settings,
      ctx.workspaceDir,
      ctx.env ?? process.env,
      ctx.secretNames,
    );
    const plan = sandboxPlan(sandbox, ['/bin/sh', '-c', command], ctx.workspaceDir, env);
    const [stdout, stderr, exit] = opened as [number, number, number];
    const { pid } = spawnDetached(sandbox, plan, { stdout, stderr, exit }, jobCgroupName(ctx.id));
    const spawned = { hostId: workerHostId(), pid, pgid: pid, startTicks: processStartTicks(pid) };
    writeProcessFile(files.process, spawned);
    return spawned;
  } finally {
    for (const fd of opened) fs.closeSync(fd);
  }
}

/**
 * Keeps the spawned process beside the output at once (before the caller's database write), so a retry can still
 * find a command whose worker died between the spawn and that write. Best effort: the caller records it too.
 */
function writeProcessFile(file: string, spawned: SpawnedProcess): void {
  try {
    const fd = fs.openSync(file, WRITE_FLAGS, 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(spawned));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // The database row is the record; this file only narrows the window before it.
  }
}

/** The process {@link startDetached} wrote beside the output, or null when there is none (or it is unreadable). */
export function readDetachedProcess(files: DetachedFiles): SpawnedProcess | null {
  try {
    const p = JSON.parse(readTail(files.process, 4096).text) as Partial<SpawnedProcess>;
    if (typeof p.hostId !== 'string' || !Number.isInteger(p.pid) || !Number.isInteger(p.pgid)) return null;
    return {
      hostId: p.hostId,
      pid: p.pid!,
      pgid: p.pgid!,
      startTicks: typeof p.startTicks === 'number' ? p.startTicks : null,
    };
  } catch {
    return null;
  }
}

/** How a detached command ended, read from its files. Output tails are at most `tailBytes` bytes each. */
export interface DetachedOutput {
  /** The exit status the wrapper wrote; null when it wrote none (the wrapper was killed). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Bytes each stream wrote in total. */
  stdoutBytes: number;
  stderrBytes: number;
}

/**
 * Reads the exit status and the last `tailBytes` of stdout and stderr (cut on a UTF-8 character boundary),
 * opening nothing through a link. A missing or unreadable file reads as empty.
 */
export function readDetachedOutput(files: DetachedFiles, tailBytes: number): DetachedOutput {
  const status = readTail(files.exit, 32).text.trim();
  const out = readTail(files.stdout, tailBytes);
  const err = readTail(files.stderr, tailBytes);
  return {
    exitCode: /^\d+$/.test(status) ? Number(status) : null,
    stdout: out.text,
    stderr: err.text,
    stdoutBytes: out.size,
    stderrBytes: err.size,
  };
}

/** True when the wrapper has written the command's exit status. */
export function hasExitStatus(files: DetachedFiles): boolean {
  return readDetachedOutput(files, 0).exitCode !== null;
}

function readTail(file: string, maxBytes: number): { text: string; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return { text: '', size: 0 };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { text: '', size: 0 };
    const want = Math.min(maxBytes, st.size);
    const buf = Buffer.alloc(want);
    const got = want > 0 ? fs.readSync(fd, buf, 0, want, st.size - want) : 0;
    const bytes = buf.subarray(0, got);
    const start = st.size > want ? utf8CutForward(bytes, 0) : 0;
    return { text: bytes.subarray(start).toString('utf8'), size: st.size };
  } catch {
    return { text: '', size: 0 };
  } finally {
    fs.closeSync(fd);
  }
}

/** The cgroup of detached command `id` on this host, when the sandbox has cgroups and it exists. */
export function detachedCgroup(sandbox: Sandbox | undefined, id: string): CommandCgroup | null {
  return sandbox?.cgroups ? existingCommandCgroup(sandbox.cgroups, jobCgroupName(id)) : null;
}

/** Ends what is left in the command's cgroup and removes it; the report, or undefined without a cgroup. */
export async function finishDetachedCgroup(
  sandbox: Sandbox | undefined,
  id: string,
): Promise<CgroupReport | undefined> {
  return (await detachedCgroup(sandbox, id)?.finish()) ?? undefined;
}

/** What {@link superviseDetached} watches and how. Times are epoch ms, durations ms. */
export interface SuperviseOptions {
  spawned: SpawnedProcess;
  /** When the command's time is up (the job's start plus its timeout). */
  deadline: number;
  /** Aborted when the activity is cancelled. */
  signal: AbortSignal;
  /**
   * Asked once `signal` aborted: true kills the process group (a kill by request); false leaves the command
   * running (the worker shuts down: another attempt adopts it).
   */
  killOnAbort: () => boolean;
  /** Called at every poll (the activity's heartbeat). */
  beat: () => void;
  /** Time between polls; default 250. */
  pollMs?: number;
  /** Time between SIGTERM and SIGKILL at the deadline; default {@link KILL_GRACE_MS}. */
  killGraceMs?: number;
}

/**
 * How the watch ended: `exited` (the process group leader is gone: read the files), `timed_out` (the deadline
 * came first: the group got SIGTERM, then SIGKILL), `killed` (aborted and killed: SIGKILL to the group), `left`
 * (aborted, and the command runs on).
 */
export type SupervisedEnd = 'exited' | 'timed_out' | 'killed' | 'left';

/**
 * Watches a detached command until it ends, polling its process group leader (a child of this worker or of an
 * earlier one, so there is no exit event to wait for), enforcing the deadline and honouring cancellation.
 * Only a leader still provably the recorded process (runs.ts `spawnedProcessState`) is ever signalled.
 */
export async function superviseDetached(o: SuperviseOptions): Promise<SupervisedEnd> {
  const pollMs = o.pollMs ?? 250;
  const running = () => spawnedProcessState(o.spawned) === 'running';
  const signalGroup = (sig: NodeJS.Signals) => {
    if (!running()) return;
    try {
      process.kill(-o.spawned.pgid, sig);
    } catch {
      // gone meanwhile
    }
  };
  const waitGone = async (ms: number) => {
    for (const until = Date.now() + ms; running() && Date.now() < until;) await sleep(50);
  };
  for (;;) {
    o.beat();
    if (!running()) return 'exited';
    if (o.signal.aborted) {
      if (!o.killOnAbort()) return 'left';
      signalGroup('SIGKILL');
      await waitGone(2000);
      return 'killed';
    }
    if (Date.now() >= o.deadline) {
      signalGroup('SIGTERM');
      await waitGone(o.killGraceMs ?? KILL_GRACE_MS);
      signalGroup('SIGKILL');
      await waitGone(2000);
      return 'timed_out';
    }
    await sleep(Math.min(pollMs, Math.max(1, o.deadline - Date.now())), o.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

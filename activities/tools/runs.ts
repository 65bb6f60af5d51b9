/**
 * The at-most-once record of tool runs: a `tool_runs` row is written before a command is spawned, gets the
 * spawned process group once it exists, and keeps the result before the tool_result message is committed.
 * A retried tool activity reads it to decide whether the command may run (never started), must not run again
 * (started, no result: the earlier worker stopped mid-run) or only needs its stored result committed.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import type { Queryable } from '../../db/pool.ts';
import { storableJson } from '../../domain/storable-text.ts';
import type { ToolResult } from './tool.ts';
import { processStartTicks } from '../../infra/process-start.ts';

export { processStartTicks };

/** What a finished run leaves behind: the model-facing result plus whether it counts as a success. */
export interface StoredToolOutcome {
  result: ToolResult;
  ok: boolean;
}

/** The process a run spawned, as the host that spawned it sees it. */
export interface SpawnedProcess {
  /** Host id ({@link workerHostId}) of the worker that spawned it. */
  hostId: string;
  /** Pid of the process group leader (the shell, or bubblewrap when sandboxed). */
  pid: number;
  /** Its process group id (equal to `pid`: the leader runs detached). */
  pgid: number;
  /** Its start time in clock ticks since boot (field 22 of /proc/<pid>/stat); null when unreadable. */
  startTicks: number | null;
}

/** One `tool_runs` row. */
export interface ToolRunRow {
  toolCallMessageId: string;
  toolName: string;
  hostId: string;
  process: SpawnedProcess | null;
  attempt: number;
  status: 'started' | 'finished' | 'interrupted';
  outcome: StoredToolOutcome | null;
}

let hostIdCache: string | undefined;

/**
 * This machine as seen by process ids: the host name, the kernel's boot id (pids of an earlier boot mean
 * nothing) and the worker's pid namespace (a restarted container keeps host name and boot id but numbers its
 * pids afresh in a new namespace). Two workers with the same id can signal each other's processes.
 */
export function workerHostId(): string {
  if (hostIdCache !== undefined) return hostIdCache;
  let boot = 'unknown-boot';
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Not Linux: the host name alone.
  }
  let pidNamespace = 'unknown-pidns';
  try {
    pidNamespace = readlinkSync('/proc/self/ns/pid');
  } catch {
    // No /proc/self/ns: the boot id alone.
  }
  hostIdCache = `${os.hostname()}/${boot}/${pidNamespace}`;
  return hostIdCache;
}

/** How a leftover process group was dealt with, for the interrupted result and the log. */
export type LeftoverOutcome =
  'none-recorded' | 'already-gone' | 'unverifiable' | 'killed' | 'other-host' | 'not-permitted';

/** What /proc/<pid>/stat says of a live process: start time and process group. */
interface ProcStat {
  /** Start time in clock ticks since boot (field 22). */
  startTicks: number;
  /** Process group id (field 5). */
  pgid: number;
  /** State letter (field 3): `Z` for a zombie, which has ended and waits to be reaped. */
  state: string;
}

function procStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields after it follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]);
    const pgid = Number(fields[2]);
    const state = fields[0] ?? '?';
    return Number.isFinite(startTicks) && Number.isFinite(pgid) ? { startTicks, pgid, state } : null;
  } catch {
    return null;
  }
}

/**
 * Kills the process group an earlier attempt left running, only when it is provably the one Kesoku spawned:
 * recorded on this host (host name, boot id and pid namespace), its leader alive with the recorded start time
 * and still leading the recorded group. Anything less is left alone: a gone leader, a different start time or
 * another group give `already-gone` (the recorded process no longer exists), an unrecorded start time gives
 * `unverifiable`. Nothing is signalled then: a pid or group number alone may since belong to an
 * unrelated process. SIGKILL, to the whole group.
 */
export function killLeftover(spawned: SpawnedProcess | null): LeftoverOutcome {
  if (spawned === null) return 'none-recorded';
  if (spawned.hostId !== workerHostId()) return 'other-host';
  if (spawned.startTicks === null) return 'unverifiable';
  const now = procStat(spawned.pid);
  if (now === null || now.startTicks !== spawned.startTicks || now.pgid !== spawned.pgid)
    return 'already-gone';
  try {
    process.kill(-spawned.pgid, 'SIGKILL');
    return 'killed';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'not-permitted' : 'already-gone';
  }
}

/**
 * Whether the process an earlier attempt spawned still runs, seen from this worker: `running` only when it was
 * recorded on this host with its start time and its leader is alive (not a zombie) with that start time, leading
 * the recorded group; `gone` when it was recorded here and no longer runs; `other-host` and `unverifiable`
 * (no start time recorded) when this worker cannot tell.
 */
export function spawnedProcessState(
  spawned: SpawnedProcess,
): 'running' | 'gone' | 'other-host' | 'unverifiable' {
  if (spawned.hostId !== workerHostId()) return 'other-host';
  if (spawned.startTicks === null) return 'unverifiable';
  const now = procStat(spawned.pid);
  if (now === null || now.state === 'Z') return 'gone';
  return now.startTicks === spawned.startTicks && now.pgid === spawned.pgid ? 'running' : 'gone';
}

interface RawRow {
  tool_call_message_id: string;
  tool_name: string;
  host_id: string;
  pid: number | null;
  pgid: number | null;
  proc_start_ticks: string | null;
  attempt: number;
  status: ToolRunRow['status'];
  result: StoredToolOutcome | null;
}

function fromRow(r: RawRow): ToolRunRow {
  return {
    toolCallMessageId: r.tool_call_message_id,
    toolName: r.tool_name,
    hostId: r.host_id,
    process:
      r.pid !== null && r.pgid !== null
        ? {
            hostId: r.host_id,
            pid: r.pid,
            pgid: r.pgid,
            startTicks: r.proc_start_ticks === null ? null : Number(r.proc_start_ticks),
          }
        : null,
    attempt: r.attempt,
    status: r.status,
    outcome: r.result,
  };
}

/** The run recorded for a tool call, or null when none started. */
export async function getToolRun(db: Queryable, toolCallMessageId: string): Promise<ToolRunRow | null> {
  const res = await db.query<RawRow>(`SELECT * FROM tool_runs WHERE tool_call_message_id = $1`, [
    toolCallMessageId,
  ]);
  return res.rows[0] ? fromRow(res.rows[0]) : null;
}

/**
 * Records that a run of the tool call starts now on this host (before anything is spawned).
 * @returns true when this call created the row; false when a run was already recorded (nothing changed)
 */
export async function recordRunStarted(
  db: Queryable,
  run: { toolCallMessageId: string; sessionId: string; toolName: string; attempt: number },
): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO tool_runs (tool_call_message_id, session_id, tool_name, host_id, attempt, status)
     VALUES ($1, $2, $3, $4, $5, 'started') ON CONFLICT (tool_call_message_id) DO NOTHING`,
    [run.toolCallMessageId, run.sessionId, run.toolName, workerHostId(), run.attempt],
  );
  return res.rowCount === 1;
}

/** Marks a re-runnable tool (read_file) as started again by `attempt` on this host. */
export async function recordRunRestarted(
  db: Queryable,
  toolCallMessageId: string,
  attempt: number,
): Promise<void> {
  await db.query(
    `UPDATE tool_runs SET attempt = $2, host_id = $3, pid = NULL, pgid = NULL, proc_start_ticks = NULL
      WHERE tool_call_message_id = $1 AND status = 'started'`,
    [toolCallMessageId, attempt, workerHostId()],
  );
}

/** Records the process group a run spawned. */
export async function recordRunProcess(
  db: Queryable,
  toolCallMessageId: string,
  spawned: SpawnedProcess,
): Promise<void> {
  await db.query(
    `UPDATE tool_runs SET pid = $2, pgid = $3, proc_start_ticks = $4, host_id = $5 WHERE tool_call_message_id = $1`,
    [toolCallMessageId, spawned.pid, spawned.pgid, spawned.startTicks, spawned.hostId],
  );
}

/**
 * Keeps a run's outcome (`finished`, or `interrupted` for the result that says the command was not re-run).
 * A row that already holds an outcome keeps it.
 */
export async function recordRunOutcome(
  db: Queryable,
  toolCallMessageId: string,
  status: 'finished' | 'interrupted',
  outcome: StoredToolOutcome,
): Promise<void> {
  await db.query(
    `UPDATE tool_runs SET status = $2, result = $3, finished_at = now()
      WHERE tool_call_message_id = $1 AND result IS NULL`,
    // Postgres refuses \u0000 in jsonb: a command's output may hold any bytes (the tool_result row gets the same
    // replacement when it is committed).
    [toolCallMessageId, status, JSON.stringify(storableJson(outcome).value)],
  );
}

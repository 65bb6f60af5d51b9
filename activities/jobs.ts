/**
 * The background job activities (workflows/background-job.ts, docs/tools.md "Background jobs"):
 *
 * - `runBackgroundJob` runs the job's command once, in the session's workspace and sandbox like a foreground
 *   `run_shell_command` (activities/tools/shell.ts), but detached from the worker (activities/tools/detached.ts):
 *   stdout, stderr and exit status go to files in the worker-private tool-output directory, and the activity
 *   polls the process group, heartbeating, until it ends, its timeout (from the job's start) passes, or it is
 *   killed. Before spawning it claims the spawn in the job's row for its attempt; a retry (the worker was lost)
 *   finds the claim taken and never runs the command again: on the same host it adopts the command when it still
 *   runs (and watches it the same way), or records the end its exit file holds; otherwise the job ends `lost`.
 * - `endBackgroundJob` records an end the workflow decided (killed by request, lost), once, first killing what
 *   still runs of the job on this host.
 * - `wakeSessionForJob` puts the seed's background alert into the session (docs/message-model.md §3
 *   "后台唤醒警报"), message id derived from the job id, so a retry finds the first.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Pool } from '../db/pool.ts';
import { claimJobSpawn, endJob, getJob, recordJobProcess, type JobRow } from '../db/jobs.ts';
import { JOB_OUTPUT_TAIL_BYTES, jobAlertMessageId, jobReport, type JobEnd } from '../domain/jobs.ts';
import { SENDERS } from '../domain/message.ts';
import type { Logger } from '../infra/logger.ts';
import type { SessionClient } from '../infra/session-client.ts';
import { SessionClientError } from '../infra/session-client.ts';
import { sessionDirName, sessionWorkspaceDir } from '../infra/workspace.ts';
import type { JobActivities } from '../workflows/activity-contracts.ts';
import type { SessionAddress } from '../workflows/definitions.ts';
import { isToolError } from './tools/errors.ts';
import type { CgroupReport } from './tools/cgroup.ts';
import {
  detachedFiles,
  finishDetachedCgroup,
  hasExitStatus,
  readDetachedOutput,
  readDetachedProcess,
  startDetached,
  superviseDetached,
  type DetachedFiles,
} from './tools/detached.ts';
import { killLeftover, spawnedProcessState, workerHostId, type SpawnedProcess } from './tools/runs.ts';
import { limitExplanation, type Sandbox } from './tools/sandbox.ts';
import { summarizeShellRun } from './tools/shell.ts';

export interface JobDeps {
  pool: Pool;
  logger: Logger;
  /** Root of workspaces and tool output, as the tool activity's. */
  dataDir: string;
  sandbox?: Sandbox;
  /** Variables never passed to a command (see shell.ts `ShellContext.secretNames`). */
  secretNames?: readonly string[];
  /** How alerts are submitted to sessions. */
  sessions: SessionClient;
  /** Interval between heartbeats while a command runs, in ms. Default 1000. */
  heartbeatIntervalMs?: number;
}

export function createJobActivities(deps: JobDeps): JobActivities {
  return {
    runBackgroundJob: (input) => runBackgroundJob(deps, input.jobId),
    async endBackgroundJob({ jobId, end }) {
      // Killed while no attempt ran (between retries), or given up: what may still run on this host is ended.
      const job = await getJob(deps.pool, jobId);
      if (job?.state === 'running' && job.pid !== null && job.hostId === workerHostId()) {
        killLeftover({ hostId: job.hostId, pid: job.pid, pgid: job.pid, startTicks: job.procStartTicks });
        await finishDetachedCgroup(deps.sandbox, jobId);
      }
      const row = await endJob(deps.pool, jobId, end);
      if (!row) throw unknownJob(jobId);
      return endOf(row);
    },
    wakeSessionForJob: (input) => wakeSession(deps, input.jobId, input.address),
  };
}

async function runBackgroundJob(deps: JobDeps, jobId: string): Promise<JobEnd> {
  const ctx = Context.current();
  const job = await getJob(deps.pool, jobId);
  if (!job) throw unknownJob(jobId);
  if (job.state !== 'running') return endOf(job);
  const log = { sessionId: job.sessionId, jobId, attempt: ctx.info.attempt };
  const files = detachedFiles(jobOutputDir(deps.dataDir, job.sessionId), jobId);

  let spawned: SpawnedProcess;
  if (await claimJobSpawn(deps.pool, jobId, ctx.info.attempt, workerHostId())) {
    try {
      spawned = await startDetached(job.command, {
        workspaceDir: sessionWorkspaceDir(deps.dataDir, job.sessionId),
        outputDir: jobOutputDir(deps.dataDir, job.sessionId),
        id: jobId,
        sandbox: deps.sandbox,
        ...(deps.secretNames ? { secretNames: deps.secretNames } : {}),
      });
    } catch (err) {
      const message = isToolError(err) ? err.message : 'the command could not run on the host';
      deps.logger.warn({ ...log, err: String(err) }, 'background job could not run');
      return await record(deps, jobId, {
        state: 'failed',
        exitCode: null,
        outputTail: '',
        summary: `error: ${message}`.slice(0, 200),
      });
    }
    try {
      await retried(() => recordJobProcess(deps.pool, jobId, spawned.pid, spawned.startTicks));
    } catch (err) {
      // Unrecorded, no later attempt could find it: it must not run on unwatched.
      killLeftover(spawned);
      await finishDetachedCgroup(deps.sandbox, jobId);
      throw err;
    }
  } else {
    // An earlier attempt spawned the command and its worker was lost: never run it again, but watch it to its
    // end when it still runs on this host, or read how it ended.
    const fresh = (await getJob(deps.pool, jobId)) ?? job;
    // The row's record, else the file the spawn wrote (its worker died before the row was written).
    const earlier: SpawnedProcess | null =
      fresh.pid !== null && fresh.hostId !== null
        ? { hostId: fresh.hostId, pid: fresh.pid, pgid: fresh.pid, startTicks: fresh.procStartTicks }
        : readDetachedProcess(files);
    const state = earlier ? spawnedProcessState(earlier) : 'none-recorded';
    if (earlier && state === 'running') {
      deps.logger.info({ ...log, pid: earlier.pid }, 'background job adopted from a lost attempt');
      spawned = earlier;
    } else if (earlier && state === 'gone' && hasExitStatus(files)) {
      deps.logger.info({ ...log }, 'background job ended while its worker was lost; recording its end');
      return await recordExit(deps, job, files, await finishDetachedCgroup(deps.sandbox, jobId));
    } else {
      const leftover = earlier ? killLeftover(earlier) : 'none-recorded';
      if (fresh.hostId === workerHostId()) await finishDetachedCgroup(deps.sandbox, jobId);
      deps.logger.warn(
        { ...log, state, leftover },
        'background job started by a lost attempt; not run again',
      );
      return await record(deps, jobId, {
        state: 'lost',
        exitCode: null,
        outputTail: '',
        summary:
          state === 'other-host'
            ? `lost: its worker on another host stopped while it ran (attempt ${fresh.attempt ?? '?'}); not run again`
            : `lost: its worker stopped while it ran (attempt ${fresh.attempt ?? '?'}); not run again`,
      });
    }
  }

  const how = await superviseDetached({
    spawned,
    deadline: Date.parse(job.startedAt) + job.timeoutS * 1000,
    signal: ctx.cancellationSignal,
    // A worker that shuts down leaves the command running: the next attempt adopts it.
    killOnAbort: () => ctx.cancellationDetails?.workerShutdown !== true,
    beat: () => ctx.heartbeat({ jobId }),
    pollMs: deps.heartbeatIntervalMs ?? 250,
  });
  if (how === 'left') {
    deps.logger.info(log, 'worker shutting down: background job left running for the next attempt');
    throw ApplicationFailure.retryable('the worker shut down; the job runs on', 'job_worker_shutdown');
  }
  const cgroup = await finishDetachedCgroup(deps.sandbox, jobId);
  if (how === 'killed') throw new CancelledFailure('background job killed');
  if (how === 'timed_out') {
    const out = readDetachedOutput(files, JOB_OUTPUT_TAIL_BYTES);
    return await record(deps, jobId, {
      state: 'timed_out',
      exitCode: null,
      outputTail: tailLayout(out.stdout, out.stderr),
      summary: `timed out after ${job.timeoutS}s`,
    });
  }
  return await recordExit(deps, job, files, cgroup);
}

/** Records the end a detached command's files tell: its exit status and output tails. */
async function recordExit(
  deps: JobDeps,
  job: JobRow,
  files: DetachedFiles,
  cgroup: CgroupReport | undefined,
): Promise<JobEnd> {
  const out = readDetachedOutput(files, JOB_OUTPUT_TAIL_BYTES);
  const durationMs = Date.now() - Date.parse(job.startedAt);
  const limit = limitExplanation(deps.sandbox, {
    exitCode: out.exitCode,
    signal: null,
    stderr: out.stderr,
    ...(cgroup ? { cgroup } : {}),
  });
  const truncated = out.stdoutBytes > JOB_OUTPUT_TAIL_BYTES || out.stderrBytes > JOB_OUTPUT_TAIL_BYTES;
  const summary =
    out.exitCode === null
      ? 'ended without an exit status (its process group was killed from outside Kesoku)'
      : (limit ??
        summarizeShellRun({
          exitCode: out.exitCode,
          signal: null,
          timedOut: false,
          durationMs,
          timeoutMs: job.timeoutS * 1000,
          stdout: out.stdout,
          stderr: out.stderr,
        }));
  return await record(deps, job.id, {
    state: out.exitCode === 0 ? 'succeeded' : 'failed',
    exitCode: out.exitCode,
    outputTail: tailLayout(out.stdout, out.stderr),
    summary: summary + (truncated ? ` (full output: ${path.dirname(files.stdout)})` : ''),
  });
}

/** A job's tool-output directory (in the data dir: commands never see it). */
function jobOutputDir(dataDir: string, sessionId: string): string {
  return path.join(dataDir, 'tool-output', sessionDirName(sessionId));
}

/** Runs a short database write, retried for a few seconds (a Postgres blip must not orphan a running command). */
async function retried<T>(write: () => Promise<T>): Promise<T> {
  for (let wait = 250; ; wait *= 2) {
    try {
      return await write();
    } catch (err) {
      if (wait > 4000) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Records an end (the first one wins) and answers the end as stored. */
async function record(deps: JobDeps, jobId: string, end: JobEnd): Promise<JobEnd> {
  for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
    try {
      const row = await endJob(deps.pool, jobId, end);
      if (!row) throw unknownJob(jobId);
      return endOf(row);
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      // The command has run: keep trying (the heartbeat stopped, so not for longer than the heartbeat timeout
      // allows; a retry of the activity would then report the job lost, never run it again).
      if (wait >= 5000) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** The end stored in `row`. */
function endOf(row: JobRow): JobEnd {
  if (row.state === 'running') throw new Error(`job ${row.id} has not ended`);
  return {
    state: row.state,
    exitCode: row.exitCode,
    outputTail: row.outputTail ?? '',
    summary: row.summary ?? row.state,
  };
}

/** Output tails in the tool_result layout (docs/message-model.md §6.1). */
function tailLayout(stdout: string, stderr: string): string {
  return `=== STDOUT ===\n${stdout.replace(/\n$/, '')}\n=== STDERR ===\n${stderr}`;
}

async function wakeSession(
  deps: JobDeps,
  jobId: string,
  address: SessionAddress,
): Promise<{ messageId: string }> {
  const job = await getJob(deps.pool, jobId);
  if (!job) throw unknownJob(jobId);
  const id = jobAlertMessageId(jobId);
  const end = job.state === 'running' ? null : endOf(job);
  try {
    await deps.sessions.submit(address, {
      id,
      kind: 'background_alert',
      jobId,
      sender: SENDERS.system,
      content: jobReport({
        command: job.command,
        ...(end ?? { state: 'lost', exitCode: null, outputTail: '', summary: 'lost' }),
      }),
      receivedAt: job.endedAt ?? new Date().toISOString(),
    });
  } catch (err) {
    if (err instanceof SessionClientError && (err.kind === 'invalid' || err.kind === 'id_taken')) {
      deps.logger.error({ jobId, err: err.message }, 'background alert refused by the session');
      throw ApplicationFailure.nonRetryable(err.message, 'job_alert_refused');
    }
    // Queue full, Temporal or Postgres down: retried until the session takes it.
    throw err;
  }
  return { messageId: id };
}

function unknownJob(jobId: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`unknown background job ${jobId}`, 'job_unknown');
}

/**
 * The background job activities (workflows/background-job.ts, docs/tools.md "Background jobs"):
 *
 * - `runBackgroundJob` runs the job's command once, in the session's workspace and sandbox like a foreground
 *   `run_shell_command` (activities/tools/shell.ts), heartbeating while it runs. Before spawning it claims the
 *   spawn in the job's row for its attempt; a retry (the worker was lost) finds the claim taken, kills the process
 *   group the lost attempt left when it can reach it (same host, same process), and ends the job `lost` — the
 *   command never runs twice.
 * - `endBackgroundJob` records an end the workflow decided (killed by request, lost), once.
 * - `wakeSessionForJob` puts the seed's background alert into the session (docs/message-model.md §3
 *   "后台唤醒警报"), message id derived from the job id, so a retry finds the first.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Pool } from '../db/pool.ts';
import { claimJobSpawn, endJob, getJob, recordJobProcess, type JobRow } from '../db/jobs.ts';
import {
  JOB_OUTPUT_TAIL_BYTES,
  jobAlertMessageId,
  jobReport,
  type JobEnd,
  type JobEndState,
} from '../domain/jobs.ts';
import { SENDERS } from '../domain/message.ts';
import type { Logger } from '../infra/logger.ts';
import type { SessionClient } from '../infra/session-client.ts';
import { SessionClientError } from '../infra/session-client.ts';
import { sessionDirName, sessionWorkspaceDir } from '../infra/workspace.ts';
import type { SessionAddress } from '../workflows/definitions.ts';
import { isToolError } from './tools/errors.ts';
import { killLeftover, processStartTicks, workerHostId } from './tools/runs.ts';
import type { Sandbox } from './tools/sandbox.ts';
import { runShellCommand, type ShellResult } from './tools/shell.ts';

/** The activities of a background job's workflow. */
export interface JobActivities {
  /**
   * Runs the job's command (at most once per job) and records how it ended.
   * @returns the recorded end
   * @throws ApplicationFailure `job_unknown` (non-retryable) when the job has no row; CancelledFailure when the
   *   workflow killed it (the command's process group has been killed; the workflow records `killed`)
   */
  runBackgroundJob(input: { jobId: string }): Promise<JobEnd>;
  /** Records an end decided by the workflow; a job that ended before keeps its end. @returns the recorded end */
  endBackgroundJob(input: { jobId: string; end: JobEnd }): Promise<JobEnd>;
  /**
   * Submits the job's alert to its session (update-with-start: a session whose run ended is started again).
   * Idempotent: the alert's id is derived from the job id.
   * @throws a retryable failure while the session cannot take it (queue full, Temporal down), so the alert is
   *   never dropped; `job_unknown` (non-retryable) when the job is gone (its session was deleted)
   */
  wakeSessionForJob(input: { jobId: string; address: SessionAddress }): Promise<{ messageId: string }>;
}

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

  if (!(await claimJobSpawn(deps.pool, jobId, ctx.info.attempt, workerHostId()))) {
    // An earlier attempt spawned the command and its worker was lost: never run it again.
    const fresh = (await getJob(deps.pool, jobId)) ?? job;
    const leftover =
      fresh.pid !== null && fresh.hostId !== null
        ? killLeftover({
            hostId: fresh.hostId,
            pid: fresh.pid,
            pgid: fresh.pid,
            startTicks: fresh.procStartTicks,
          })
        : 'none-recorded';
    deps.logger.warn({ ...log, leftover }, 'background job started by a lost attempt; not run again');
    return await record(deps, jobId, {
      state: 'lost',
      exitCode: null,
      outputTail: '',
      summary: `lost: its worker stopped while it ran (attempt ${fresh.attempt ?? '?'}); not run again`,
    });
  }

  const beat = setInterval(() => ctx.heartbeat({ jobId }), deps.heartbeatIntervalMs ?? 1000);
  let run: ShellResult;
  try {
    run = await runShellCommand(
      { command: job.command, timeout_s: job.timeoutS },
      {
        workspaceDir: sessionWorkspaceDir(deps.dataDir, job.sessionId),
        signal: ctx.cancellationSignal,
        defaultTimeoutMs: job.timeoutS * 1000,
        maxModelOutputBytes: 2 * JOB_OUTPUT_TAIL_BYTES,
        maxStoredOutputBytes: 8 * 1024 * 1024,
        outputDir: path.join(deps.dataDir, 'tool-output', sessionDirName(job.sessionId)),
        callId: jobId,
        sandbox: deps.sandbox,
        ...(deps.secretNames ? { secretNames: deps.secretNames } : {}),
        onSpawn: (pid) => {
          recordJobProcess(deps.pool, jobId, pid, processStartTicks(pid)).catch((err: unknown) =>
            deps.logger.warn({ ...log, err: String(err) }, 'background job process not recorded'),
          );
        },
      },
    );
  } catch (err) {
    if (ctx.cancellationSignal.aborted) {
      const shutdown = ctx.cancellationDetails?.workerShutdown === true;
      if (shutdown)
        return await record(deps, jobId, {
          state: 'lost',
          exitCode: null,
          outputTail: '',
          summary: 'lost: its worker shut down before it finished; its processes were killed',
        });
      // Killed on request: the workflow records `killed`.
      throw new CancelledFailure('background job killed');
    }
    const message = isToolError(err) ? err.message : 'the command could not run on the host';
    deps.logger.warn({ ...log, err: String(err) }, 'background job could not run');
    return await record(deps, jobId, {
      state: 'failed',
      exitCode: null,
      outputTail: '',
      summary: `error: ${message}`.slice(0, 200),
    });
  } finally {
    clearInterval(beat);
  }
  const state: JobEndState = run.timedOut ? 'timed_out' : run.exitCode === 0 ? 'succeeded' : 'failed';
  return await record(deps, jobId, {
    state,
    exitCode: run.exitCode,
    outputTail: tailOf(run),
    summary: run.summary + (run.fullOutputPath ? ` (full output: ${run.fullOutputPath})` : ''),
  });
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

/** The last {@link JOB_OUTPUT_TAIL_BYTES} bytes of each stream, in the tool_result layout. */
function tailOf(run: ShellResult): string {
  const tail = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    return b.length <= JOB_OUTPUT_TAIL_BYTES
      ? s
      : b.subarray(b.length - JOB_OUTPUT_TAIL_BYTES).toString('utf8');
  };
  return `=== STDOUT ===\n${tail(run.stdout).replace(/\n$/, '')}\n=== STDERR ===\n${tail(run.stderr)}`;
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

/**
 * The `background_jobs` table (db/migrations/0060_background_jobs.sql): one row per background job, written
 * before its workflow starts, given the spawned process before the command runs, and ended exactly once.
 */
import type { JobEnd, JobEndState, JobState } from '../domain/jobs.ts';
import { storableText } from '../domain/storable-text.ts';
import type { Pool, Queryable } from './pool.ts';
import { withTransaction } from './pool.ts';

/** One job as the API and the chat commands show it. Times are ISO 8601. */
export interface JobRow {
  id: string;
  sessionId: string;
  toolCallMessageId: string;
  command: string;
  /** The job's timeout, in seconds. */
  timeoutS: number;
  state: JobState;
  exitCode: number | null;
  /** One line saying how it ended; null while running. */
  summary: string | null;
  outputTail: string | null;
  startedAt: string;
  endedAt: string | null;
  /** The activity attempt that spawned the command and the process (null before the spawn). */
  attempt: number | null;
  hostId: string | null;
  pid: number | null;
  procStartTicks: number | null;
  killRequestedAt: string | null;
}

interface RawJob {
  id: string;
  session_id: string;
  tool_call_message_id: string;
  command: string;
  timeout_s: number;
  state: JobState;
  exit_code: number | null;
  summary: string | null;
  output_tail: string | null;
  started_at: Date;
  ended_at: Date | null;
  attempt: number | null;
  host_id: string | null;
  pid: number | null;
  proc_start_ticks: number | null;
  kill_requested_at: Date | null;
}

function fromRow(r: RawJob): JobRow {
  return {
    id: r.id,
    sessionId: r.session_id,
    toolCallMessageId: r.tool_call_message_id,
    command: r.command,
    timeoutS: r.timeout_s,
    state: r.state,
    exitCode: r.exit_code,
    summary: r.summary,
    outputTail: r.output_tail,
    startedAt: r.started_at.toISOString(),
    endedAt: r.ended_at?.toISOString() ?? null,
    attempt: r.attempt,
    hostId: r.host_id,
    pid: r.pid,
    procStartTicks: r.proc_start_ticks === null ? null : Number(r.proc_start_ticks),
    killRequestedAt: r.kill_requested_at?.toISOString() ?? null,
  };
}

/** What {@link insertJob} did: `created`, `exists` (this tool call's job was recorded before), or `full`. */
export type InsertJobOutcome =
  { outcome: 'created' | 'exists'; job: JobRow } | { outcome: 'full'; running: number };

/**
 * Records a new running job unless the session already runs `maxRunning` jobs. Serialised per session (an
 * advisory lock in the transaction), so two calls in parallel cannot both take the last slot. Idempotent per
 * tool call: the job recorded for it before is answered (`exists`), whatever the cap.
 */
export async function insertJob(
  pool: Pool,
  job: { id: string; sessionId: string; toolCallMessageId: string; command: string; timeoutS: number },
  maxRunning: number,
): Promise<InsertJobOutcome> {
  return withTransaction(pool, async (db) => {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('background_jobs:' || $1))`, [job.sessionId]);
    const prior = await db.query<RawJob>(`SELECT * FROM background_jobs WHERE tool_call_message_id = $1`, [
      job.toolCallMessageId,
    ]);
    if (prior.rows[0]) return { outcome: 'exists', job: fromRow(prior.rows[0]) };
    const running = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM background_jobs WHERE session_id = $1 AND state = 'running'`,
      [job.sessionId],
    );
    const n = running.rows[0]?.n ?? 0;
    if (n >= maxRunning) return { outcome: 'full', running: n };
    const res = await db.query<RawJob>(
      `INSERT INTO background_jobs (id, session_id, tool_call_message_id, command, timeout_s)
       VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [job.id, job.sessionId, job.toolCallMessageId, job.command, job.timeoutS],
    );
    return { outcome: 'created', job: fromRow(res.rows[0]!) };
  });
}

/** The job, or null when unknown. */
export async function getJob(db: Queryable, jobId: string): Promise<JobRow | null> {
  const res = await db.query<RawJob>(`SELECT * FROM background_jobs WHERE id = $1`, [jobId]);
  return res.rows[0] ? fromRow(res.rows[0]) : null;
}

/** A session's jobs, newest first, at most `limit` (default 100). */
export async function listJobs(db: Queryable, sessionId: string, limit = 100): Promise<JobRow[]> {
  const res = await db.query<RawJob>(
    `SELECT * FROM background_jobs WHERE session_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2`,
    [sessionId, limit],
  );
  return res.rows.map(fromRow);
}

/**
 * Claims the spawn of a job's command for `attempt`: only the first attempt to ask gets it (the row had no
 * attempt yet), so the command runs at most once however often the activity is retried.
 * @returns true when this attempt may spawn the command
 */
export async function claimJobSpawn(
  db: Queryable,
  jobId: string,
  attempt: number,
  hostId: string,
): Promise<boolean> {
  const res = await db.query(
    `UPDATE background_jobs SET attempt = $2, host_id = $3
      WHERE id = $1 AND attempt IS NULL AND state = 'running'`,
    [jobId, attempt, hostId],
  );
  return res.rowCount === 1;
}

/** Records the process group the job's command runs in (its leader's pid and start time). */
export async function recordJobProcess(
  db: Queryable,
  jobId: string,
  pid: number,
  startTicks: number | null,
): Promise<void> {
  await db.query(`UPDATE background_jobs SET pid = $2, proc_start_ticks = $3 WHERE id = $1`, [
    jobId,
    pid,
    startTicks,
  ]);
}

/** Marks that a kill was asked for (the end state then says `killed`). @returns the job, null when unknown */
export async function requestJobKill(db: Queryable, jobId: string): Promise<JobRow | null> {
  const res = await db.query<RawJob>(
    `UPDATE background_jobs SET kill_requested_at = coalesce(kill_requested_at, now())
      WHERE id = $1 RETURNING *`,
    [jobId],
  );
  return res.rows[0] ? fromRow(res.rows[0]) : null;
}

/**
 * Ends a running job, once: a job that already ended keeps its first end.
 * @returns the job as stored afterwards (null when unknown)
 */
export async function endJob(db: Queryable, jobId: string, end: JobEnd): Promise<JobRow | null> {
  const tail = storableText(end.outputTail);
  await db.query(
    `UPDATE background_jobs SET state = $2, exit_code = $3, output_tail = $4, summary = $5, ended_at = now()
      WHERE id = $1 AND state = 'running'`,
    [jobId, end.state satisfies JobEndState, end.exitCode, tail, storableText(end.summary)],
  );
  return getJob(db, jobId);
}

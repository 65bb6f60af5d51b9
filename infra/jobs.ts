/**
 * Background jobs from the outside (docs/tools.md "Background jobs"): starting one for a `run_shell_command` call
 * with `background: true` (the tool activity), listing a session's jobs and killing one (REST, chat commands).
 * The job itself runs in its own workflow (workflows/background-job.ts).
 */
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { getJob, insertJob, listJobs, requestJobKill, type JobRow } from '../db/jobs.ts';
import type { Pool } from '../db/pool.ts';
import { isJobEnded, jobWorkflowId, type JobState } from '../domain/jobs.ts';
import { MAX_SHELL_TIMEOUT_S } from '../domain/tool-limits.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { killJobUpdate, type BackgroundJobInput } from '../workflows/background-job.ts';

/** Limits of background jobs (KESOKU_JOB_TIMEOUT_S, KESOKU_JOB_MAX_TIMEOUT_S, KESOKU_JOBS_PER_SESSION). */
export interface JobLimits {
  /** Timeout of a job when the model gives no `timeout_s`, in seconds. */
  defaultTimeoutS: number;
  /** The longest timeout a job may have, in seconds (`timeout_s` is lowered to it). */
  maxTimeoutS: number;
  /** Jobs a session may have running at once. */
  maxRunningPerSession: number;
}

/** The configuration's defaults (infra/config.ts): 1 h, the shell command maximum, 4 running per session. */
export const DEFAULT_JOB_LIMITS: JobLimits = {
  defaultTimeoutS: 3600,
  maxTimeoutS: MAX_SHELL_TIMEOUT_S,
  maxRunningPerSession: 4,
};

/** The background job limits from the configuration. */
export function jobLimitsFrom(
  cfg: Pick<Config, 'KESOKU_JOB_TIMEOUT_S' | 'KESOKU_JOBS_PER_SESSION'>,
): JobLimits {
  return {
    defaultTimeoutS: cfg.KESOKU_JOB_TIMEOUT_S,
    maxTimeoutS: MAX_SHELL_TIMEOUT_S,
    maxRunningPerSession: cfg.KESOKU_JOBS_PER_SESSION,
  };
}

/** What went wrong with a job request: `not_found` (404), `not_running` (409), `too_many` (429). */
export class JobError extends Error {
  readonly kind: 'not_found' | 'not_running' | 'too_many';
  /** The job's state for `not_running`. */
  readonly state?: JobState;
  constructor(kind: JobError['kind'], message: string, state?: JobState) {
    super(message);
    this.name = 'JobError';
    this.kind = kind;
    if (state) this.state = state;
  }
}

/** A job as the REST API answers it (snake_case, times ISO 8601). */
export interface JobView {
  id: string;
  session_id: string;
  command: string;
  state: JobState;
  exit_code: number | null;
  summary: string | null;
  timeout_s: number;
  started_at: string;
  ended_at: string | null;
  output_tail: string | null;
}

export function toJobView(j: JobRow): JobView {
  return {
    id: j.id,
    session_id: j.sessionId,
    command: j.command,
    state: j.state,
    exit_code: j.exitCode,
    summary: j.summary,
    timeout_s: j.timeoutS,
    started_at: j.startedAt,
    ended_at: j.endedAt,
    output_tail: j.outputTail,
  };
}

/** The job id of a tool call: `job_` and 16 hex digits of its SHA-256, so a retried start finds the first. */
export function jobIdFor(toolCallMessageId: string): string {
  return `job_${createHash('sha256').update(toolCallMessageId).digest('hex').slice(0, 16)}`;
}

/** What the tool activity asks for when the model runs a command in the background. */
export interface JobStartRequest {
  sessionId: string;
  toolCallMessageId: string;
  chatbotId: string;
  channelId: string;
  command: string;
  /** The model's `timeout_s`, if any. */
  timeoutS?: number;
}

/** The sentence the model, the REST API and chat get when a session has as many running jobs as it may. */
export function tooManyJobsMessage(max: number): string {
  return `too many background jobs running: a session may run at most ${max} at once; wait for one to finish or kill one`;
}

export class BackgroundJobs {
  private readonly client: Client;
  private readonly pool: Pool;
  private readonly taskQueue: string;
  private readonly limits: JobLimits;
  private readonly logger: Logger | undefined;

  /** `limits` matter only to {@link start}; the API (list, kill) passes none and gets the defaults. */
  constructor(opts: { client: Client; pool: Pool; taskQueue: string; limits?: JobLimits; logger?: Logger }) {
    this.client = opts.client;
    this.pool = opts.pool;
    this.taskQueue = opts.taskQueue;
    this.limits = opts.limits ?? DEFAULT_JOB_LIMITS;
    this.logger = opts.logger;
  }

  /**
   * Records the job and starts its workflow; idempotent per tool call (a retry answers the same job).
   * @returns the job as recorded
   * @throws {JobError} `too_many` when the session already runs as many jobs as it may (nothing started)
   */
  async start(req: JobStartRequest): Promise<JobRow> {
    const id = jobIdFor(req.toolCallMessageId);
    const timeoutS = Math.min(req.timeoutS ?? this.limits.defaultTimeoutS, this.limits.maxTimeoutS);
    const r = await insertJob(
      this.pool,
      {
        id,
        sessionId: req.sessionId,
        toolCallMessageId: req.toolCallMessageId,
        command: req.command,
        timeoutS,
      },
      this.limits.maxRunningPerSession,
    );
    if (r.outcome === 'full')
      throw new JobError('too_many', tooManyJobsMessage(this.limits.maxRunningPerSession));
    const input: BackgroundJobInput = {
      jobId: id,
      sessionId: req.sessionId,
      chatbotId: req.chatbotId,
      channelId: req.channelId,
      timeoutS: r.job.timeoutS,
    };
    try {
      await this.client.workflow.start('backgroundJobWorkflow', {
        workflowId: jobWorkflowId(id),
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        staticSummary: `background job ${id} of session ${req.sessionId}`,
      });
    } catch (err) {
      // Started by an earlier attempt of the same call.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    this.logger?.info({ sessionId: req.sessionId, jobId: id }, 'background job started');
    return r.job;
  }

  /** The session's jobs, newest first (at most 100). */
  async list(sessionId: string): Promise<JobRow[]> {
    return listJobs(this.pool, sessionId);
  }

  /** The job, if it belongs to the session. @throws {JobError} `not_found` */
  async get(sessionId: string, jobId: string): Promise<JobRow> {
    const job = await getJob(this.pool, jobId);
    if (!job || job.sessionId !== sessionId)
      throw new JobError('not_found', `no background job ${jobId} in this session`);
    return job;
  }

  /**
   * Kills a running job: its process group gets SIGKILL and the job ends `killed` (its alert follows).
   * Answers once the job has ended.
   * @returns the job as stored afterwards
   * @throws {JobError} `not_found` (unknown here), `not_running` (it had ended; `state` says how)
   */
  async kill(sessionId: string, jobId: string): Promise<JobRow> {
    const job = await this.get(sessionId, jobId);
    if (isJobEnded(job.state))
      throw new JobError(
        'not_running',
        `background job ${jobId} is not running: it ended ${job.state}`,
        job.state,
      );
    await requestJobKill(this.pool, jobId);
    try {
      await this.client.workflow.getHandle(jobWorkflowId(jobId)).executeUpdate(killJobUpdate);
    } catch (err) {
      // The workflow ended meanwhile (or is gone): the row says how the job ended.
      if (!(err instanceof WorkflowNotFoundError)) {
        const after = await getJob(this.pool, jobId);
        if (after && isJobEnded(after.state))
          throw new JobError(
            'not_running',
            `background job ${jobId} is not running: it ended ${after.state}`,
            after.state,
          );
        throw err;
      }
    }
    const after = await this.get(sessionId, jobId);
    return after;
  }
}

/**
 * Background jobs (docs/tools.md "Background jobs"): their states, the ids derived from them and the report the
 * background alert carries (docs/message-model.md §3 "后台唤醒警报").
 *
 * Pure module: importable by workflow code.
 */

/** States of a background job; every one but `running` is final. */
export const JOB_STATES = ['running', 'succeeded', 'failed', 'timed_out', 'killed', 'lost'] as const;
export type JobState = (typeof JOB_STATES)[number];
export type JobEndState = Exclude<JobState, 'running'>;

/** True for the states a job ends in. */
export function isJobEnded(state: JobState): state is JobEndState {
  return state !== 'running';
}

/** Bytes of each of stdout and stderr the alert and the REST answer keep (the end of each stream). */
export const JOB_OUTPUT_TAIL_BYTES = 2048;

/** Job ids: `job_` and 16 hex digits (derived from the tool call, so a retried start finds the first). */
export const JOB_ID_PATTERN = /^job_[0-9a-f]{16}$/;

/** The workflow id of a job's workflow. */
export function jobWorkflowId(jobId: string): string {
  return `job:${jobId}`;
}

/**
 * The message id of a job's background alert: derived from the job id, so a retried wake-up finds the alert the
 * first attempt stored (and the session acknowledges it instead of queueing it again).
 */
export function jobAlertMessageId(jobId: string): string {
  return `${jobId}-alert`;
}

/** How a job ended, as its activity reports it. */
export interface JobEnd {
  state: JobEndState;
  /** The shell's exit code; null when it was killed, timed out or lost. */
  exitCode: number | null;
  /** The end of stdout and stderr, `=== STDOUT ===\n…\n=== STDERR ===\n…`; empty when nothing ran or is known. */
  outputTail: string;
  /** One line saying why: `exit 0 in 5.0s`, `timed out after 30s`, `killed by request`, … */
  summary: string;
}

/**
 * The report under the alert's first line: state, exit code and summary, the command, and the output tail.
 * E.g. `State: succeeded (exit 0)\nCommand: sleep 5 && echo done\n=== STDOUT ===\ndone\n=== STDERR ===\n`.
 */
export function jobReport(job: { command: string } & JobEnd): string {
  const exit = job.exitCode === null ? '' : ` (exit ${job.exitCode})`;
  const lines = [`State: ${job.state}${exit}: ${job.summary}`, `Command: ${job.command}`];
  if (job.outputTail !== '') lines.push(job.outputTail);
  return lines.join('\n');
}

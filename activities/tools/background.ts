/**
 * `run_shell_command` with `background: true`: the tool call records a background job and starts its workflow
 * (infra/jobs.ts), then answers at once with the job id. Starting is idempotent per tool call, so a retried tool
 * activity may start it again and finds the same job (see {@link startsBackgroundJob}).
 */
import { JobError, type BackgroundJobs } from '../../infra/jobs.ts';
import { ToolInputError } from './errors.ts';
import type { BackgroundJobStarter } from './registry.ts';

/** The starter for one tool call: what the tool activity puts in the tool context. */
export function backgroundStarter(
  jobs: BackgroundJobs,
  call: { sessionId: string; toolCallMessageId: string; chatbotId: string; channelId: string },
): BackgroundJobStarter {
  return async ({ command, timeoutS }) => {
    try {
      const job = await jobs.start({ ...call, command, ...(timeoutS !== undefined ? { timeoutS } : {}) });
      return {
        content:
          `Background job ${job.id} started (timeout ${job.timeoutS}s): ${command}\n` +
          `It runs on its own. When it ends you get a "[System Alert] Background Job ${job.id} finished." ` +
          'message with its state, exit code and output tail; do not wait or poll for it.',
        summary: `background job ${job.id} started`,
      };
    } catch (err) {
      if (err instanceof JobError) throw new ToolInputError(err.message);
      throw err;
    }
  };
}

/**
 * True when a tool call only starts a background job: starting is idempotent, so a retry after a lost worker runs
 * it again instead of reporting the call interrupted. The job's own command runs at most once (activities/jobs.ts).
 */
export function startsBackgroundJob(toolName: string, args: unknown): boolean {
  let parsed = args;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed) as unknown;
    } catch {
      return false;
    }
  }
  return (
    toolName === 'run_shell_command' &&
    typeof parsed === 'object' &&
    parsed !== null &&
    (parsed as { background?: unknown }).background === true
  );
}

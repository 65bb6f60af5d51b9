/**
 * One background job (docs/tools.md "Background jobs"): the workflow `job:<jobId>` that the tool activity starts
 * for a `run_shell_command` call with `background: true`. It runs the command in one heartbeating activity on the
 * tool task queue (which spawns it at most once, whatever the retries, and whose retry adopts the command a lost
 * worker left running), then wakes the session with the seed's background alert
 * (docs/message-model.md §3 "后台唤醒警报"), whose message id is derived from the job id so the session takes it
 * once. `killJob` cancels the command (its process group is killed) and answers once the job has ended.
 */
import * as wf from '@temporalio/workflow';
import type { JobActivities } from './activity-contracts.ts';
import type { JobEnd, JobEndState } from '../domain/jobs.ts';
import { TOOL_HEARTBEAT_TIMEOUT_S } from '../domain/tool-limits.ts';
import { toolTaskQueueOf } from './definitions.ts';

/** The input the tool activity starts a job's workflow with. */
export interface BackgroundJobInput {
  jobId: string;
  sessionId: string;
  /** Where the session lives (the tool call's chatbot and channel), for the alert. */
  chatbotId: string;
  channelId: string;
  /** The job's timeout, in seconds (the command is killed after it and the job ends `timed_out`). */
  timeoutS: number;
}

/** Kills a running job's command; answers the state the job ended in (`killed`, or what it ended as before). */
export const killJobUpdate = wf.defineUpdate<{ state: JobEndState }>('killJob');

/** Time given to the job's activity beyond the command's timeout, to kill it and record the end, in seconds. */
export const JOB_END_MARGIN_S = 60;

/**
 * Patch (docs/patches.md): the command's activity runs on the tool task queue (the tool worker's own slots), so
 * a long job never holds a session-queue slot. Runs without the marker keep it on the workflow's queue.
 */
export const JOB_ON_TOOL_QUEUE_PATCH = 'job-on-tool-queue';

/** Writes of the job (end records, the alert): short, retried for a long time (a Postgres or Temporal outage). */
const jobWrites = wf.proxyActivities<Pick<JobActivities, 'endBackgroundJob' | 'wakeSessionForJob'>>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: ['job_unknown', 'job_alert_refused'],
  },
});

export async function backgroundJobWorkflow(input: BackgroundJobInput): Promise<JobEnd> {
  const onToolQueue = wf.patched(JOB_ON_TOOL_QUEUE_PATCH);
  const runs = wf.proxyActivities<Pick<JobActivities, 'runBackgroundJob'>>({
    ...(onToolQueue ? { taskQueue: toolTaskQueueOf(wf.workflowInfo().taskQueue) } : {}),
    startToCloseTimeout: `${input.timeoutS + JOB_END_MARGIN_S} seconds`,
    heartbeatTimeout: `${TOOL_HEARTBEAT_TIMEOUT_S} seconds`,
    cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    // A retry never runs the command again (the activity's spawn claim): it adopts the command still running on
    // its host, records the end it left, or ends the job `lost`.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
  });
  const command = new wf.CancellationScope();
  let end: JobEnd | undefined;
  wf.setHandler(killJobUpdate, async () => {
    command.cancel();
    await wf.condition(() => end !== undefined);
    return { state: end!.state };
  });

  try {
    end = await command.run(() => runs.runBackgroundJob({ jobId: input.jobId }));
  } catch (err) {
    // Killed on request, or every attempt failed: the end is recorded once (a recorded end is kept).
    const state: JobEndState = wf.isCancellation(err) ? 'killed' : 'lost';
    const summary = state === 'killed' ? 'killed by request' : `lost: ${String(err).slice(0, 200)}`;
    end = await wf.CancellationScope.nonCancellable(() =>
      jobWrites.endBackgroundJob({
        jobId: input.jobId,
        end: { state, exitCode: null, outputTail: '', summary },
      }),
    );
  }
  try {
    await wf.CancellationScope.nonCancellable(() =>
      jobWrites.wakeSessionForJob({
        jobId: input.jobId,
        address: { sessionId: input.sessionId, chatbotId: input.chatbotId, channelId: input.channelId },
      }),
    );
  } catch (err) {
    // Only a refusal for good (the job or its session is gone, the alert is invalid) ends up here.
    wf.log.error('background alert not delivered to the session', { jobId: input.jobId, error: String(err) });
  }
  await wf.condition(wf.allHandlersFinished);
  return end;
}

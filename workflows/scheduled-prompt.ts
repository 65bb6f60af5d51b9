/**
 * One tick of a scheduled prompt: the workflow a Temporal Schedule starts (its id is the schedule's workflow id
 * with the action time appended by Temporal). It hands the tick's scheduled time to the firing activity, which
 * puts the prompt into the session; the message id derived from that time makes a retried action, or a second
 * start of the same tick, find what the first did.
 */
import * as wf from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { ScheduleFireResult } from './activity-contracts.ts';
import { scheduleFiring } from './activity-options.ts';

/** Set by Temporal on every workflow a schedule starts: the action's scheduled time (a trigger: its time). */
const SA_SCHEDULED_START = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** The input a schedule's action carries. */
export interface ScheduledPromptInput {
  sessionId: string;
  scheduleId: string;
}

export async function scheduledPromptWorkflow(input: ScheduledPromptInput): Promise<ScheduleFireResult> {
  const info = wf.workflowInfo();
  // Workflow start time as the fallback keeps the id stable on replay (a start outside a schedule, e.g. a test).
  const scheduledAt = info.typedSearchAttributes.get(SA_SCHEDULED_START) ?? info.startTime;
  return await scheduleFiring.fireScheduledPrompt({
    sessionId: input.sessionId,
    scheduleId: input.scheduleId,
    scheduledAt: scheduledAt.toISOString(),
  });
}

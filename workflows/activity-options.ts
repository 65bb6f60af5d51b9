/**
 * Every activity the workflows call, with its options, named by what it is for. Workflow code takes its
 * activity proxies from here and nowhere else.
 *
 * Local activities are used only for short database writes the turn itself waits on, and for deliveries to
 * inline sinks (a database write); handlers use normal activities (local activities in concurrently running
 * handlers made the SDK core fail workflow tasks). Every retry here is bounded: a write or a delivery that
 * keeps failing ends with an error the session records, never a wedged session.
 */
import * as wf from '@temporalio/workflow';
import type {
  ApprovalActivities,
  DeliveryActivities,
  ModelActivities,
  PersistenceActivities,
  ScheduleActivities,
  ToolActivities,
} from './activity-contracts.ts';
import {
  DEFAULT_MODEL_STEP_LIMITS,
  MODEL_HEARTBEAT_TIMEOUT_MS,
  type ModelStepLimits,
} from '../domain/model-limits.ts';
import { TOOL_ACTIVITY_TIMEOUT_S, TOOL_HEARTBEAT_TIMEOUT_S } from '../domain/tool-limits.ts';
import { toolTaskQueueOf } from './definitions.ts';

/** Error types that a retry cannot fix: a status change the state machine forbids, an unknown row. */
const DETERMINISTIC_WRITE_ERRORS = [
  'IllegalTransitionError',
  'StaleTurnError',
  'turn_persistence:unknown_turn',
];

const MODEL_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 10,
  // StaleTurnError: the step's commit was refused because the turn was stopped (db/messages.ts guardTurn).
  nonRetryableErrorTypes: [
    'provider:auth',
    'provider:bad_request',
    'provider:context_overflow',
    'agent_creation',
    'StaleTurnError',
  ],
};

/**
 * Model calls of a turn (one step, or a manual compaction), with the time limits the model settings give
 * (domain/model-limits.ts): the activity ends a call itself before its attempt times out, and the step is
 * bounded as a whole. Database outages get up to 10 attempts within that bound; the activity itself stops
 * retrying provider failures after its own attempts.
 */
export function modelCalls(limits: ModelStepLimits = DEFAULT_MODEL_STEP_LIMITS) {
  return wf.proxyActivities<ModelActivities>({
    startToCloseTimeout: limits.attemptMs,
    scheduleToCloseTimeout: limits.totalMs,
    heartbeatTimeout: MODEL_HEARTBEAT_TIMEOUT_MS,
    cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: MODEL_RETRY,
  });
}

/**
 * Title generation (the title child workflow). A title call is one short completion: no heartbeat timeout (the
 * activity sends none), two minutes per attempt, three attempts.
 */
export const titleGeneration = wf.proxyActivities<Pick<ModelActivities, 'generateTitle'>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * Tool runs, on the tool task queue beside the session's own ({@link toolTaskQueueOf}): their own worker slots.
 * Timeouts come from domain/tool-limits.ts, so a command's own timeout always ends first. Call inside workflow
 * code (it reads the workflow's task queue).
 */
export function toolRuns() {
  return wf.proxyActivities<ToolActivities>({
    taskQueue: toolTaskQueueOf(wf.workflowInfo().taskQueue),
    startToCloseTimeout: `${TOOL_ACTIVITY_TIMEOUT_S} seconds`,
    heartbeatTimeout: `${TOOL_HEARTBEAT_TIMEOUT_S} seconds`,
    cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 10,
    },
  });
}

/**
 * Approval records and refused-call results (workflows/approvals.ts): short database writes, retried for about
 * five minutes (a Postgres restart) like the turn's own writes.
 */
export const approvalWrites = wf.proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 14,
    nonRetryableErrorTypes: DETERMINISTIC_WRITE_ERRORS,
  },
});

/**
 * Writes of the turn itself (claim, supersede, finish, restore): local activities, retried for about five
 * minutes (a Postgres restart), never for errors a retry cannot fix.
 */
export const turnWrites = wf.proxyLocalActivities<PersistenceActivities>({
  startToCloseTimeout: '10 seconds',
  localRetryThreshold: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 14,
    nonRetryableErrorTypes: DETERMINISTIC_WRITE_ERRORS,
  },
});

/**
 * Writes of update and signal handlers (accept a message, store a setting): retried quickly and briefly,
 * because a caller waits for the update's answer (a 503 is better than a long hang).
 */
export const handlerWrites = wf.proxyActivities<PersistenceActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: DETERMINISTIC_WRITE_ERRORS,
  },
});

const REPLY_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 25,
};

/** Delivery of a final reply to a platform sink: about ten minutes of retries, then the turn fails (`delivery`). */
export const replyDelivery = wf.proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: REPLY_RETRY,
});

/** Delivery of a final reply to an inline sink (a database write). */
export const inlineReplyDelivery = wf.proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: REPLY_RETRY,
});

const NOTICE_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 8,
};

/**
 * Notices (stop, interruption, crash, queue full, partial answers): about three minutes of retries; a channel
 * that refuses for good ends the attempt, the session records it and moves on.
 */
export const notices = wf.proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: NOTICE_RETRY,
});

/** Notices to inline sinks from the turn loop (never from handlers, which use {@link notices}). */
export const inlineNotices = wf.proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: NOTICE_RETRY,
});

/** Live progress and typing indicators: best effort, three quick attempts. */
export const progress = wf.proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * The tick of a scheduled prompt, as a local activity: it runs inside the tick workflow's first task, so a worker
 * killed while firing loses only that task, which another worker takes after the short task timeout the schedule
 * gives these workflows (infra/schedules.ts) — well inside the shortest interval, so the next tick is not skipped.
 * Retried without an attempt bound (a full queue or an outage must delay the prompt, never drop it): the activity
 * itself turns a tick older than the catch-up window into `missed`.
 */
export const scheduleFiring = wf.proxyLocalActivities<ScheduleActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    nonRetryableErrorTypes: ['schedule_rejected'],
  },
});

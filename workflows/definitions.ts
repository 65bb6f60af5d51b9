/**
 * The session workflow's public surface: task queue, workflow ids, search attributes, signals, updates,
 * queries and the shapes they carry. Workflows, workers, the API and adapters all import this one module.
 * Validation and the session-setting rules live in domain/ (inbound.ts, session-settings.ts).
 *
 * Pure module (only `@temporalio/workflow` definitions): safe in the workflow bundle.
 */
import * as wf from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Message } from '../domain/message.ts';
import type { InboundMessage } from '../domain/inbound.ts';
import type { SessionMode, TitleSource } from '../domain/session-settings.ts';
import type { ApprovalDecision } from '../domain/tool-approval.ts';
import type { ModelStepLimits } from '../domain/model-limits.ts';

export type { InboundMessage } from '../domain/inbound.ts';
export type { SessionMode, TitleSource } from '../domain/session-settings.ts';

export const TASK_QUEUE = 'kesoku';

/**
 * The task queue of tool runs beside a session's task queue: tools have their own queue and worker slots, so
 * long commands never take the slots model steps, deliveries and writes of other sessions need.
 */
export const toolTaskQueueOf = (taskQueue: string): string => `${taskQueue}-tools`;

/** Custom search attributes (all Keyword). They carry ids and states only, never message content. */
export const SEARCH_ATTRIBUTE_NAMES = ['KesokuChatbotId', 'KesokuChannelId', 'KesokuSessionStatus'] as const;
export const SA_CHATBOT = defineSearchAttributeKey('KesokuChatbotId', SearchAttributeType.KEYWORD);
export const SA_CHANNEL = defineSearchAttributeKey('KesokuChannelId', SearchAttributeType.KEYWORD);
export const SA_SESSION_STATUS = defineSearchAttributeKey('KesokuSessionStatus', SearchAttributeType.KEYWORD);

export function sessionWorkflowId(sessionId: string): string {
  return `session:${sessionId}`;
}
export function titleWorkflowId(sessionId: string): string {
  return `title:${sessionId}`;
}

/** Where a session lives: the chatbot (`api`, `discord`, …) and the channel within it. */
export interface SessionAddress {
  sessionId: string;
  chatbotId: string;
  channelId: string;
}

/** What `submitMessage` returns: the stored message and how many turns are ahead of it. */
export interface SubmitResult {
  message: Message;
  queue_position: number;
  /** True when this id had been accepted before (nothing new was queued). */
  duplicate: boolean;
}

/**
 * Workflow input; also what continue-as-new carries. A run started without `queue` (the first run, or one
 * after a run ended by terminate, reset, failure or timeout) reads its settings and open inputs from Postgres.
 */
export interface SessionWorkflowInput extends SessionAddress {
  mode?: SessionMode;
  /** Queued trigger message ids, oldest first. */
  queue?: QueueItem[];
  /** Recently accepted message ids, for de-duplication across continue-as-new (bounded). */
  seenIds?: string[];
  title?: string | null;
  titleSource?: TitleSource;
  /** Title workflows started so far while the session had no title (bounded, see workflows/session-state.ts). */
  titleAttempts?: number;
  turnCount?: number;
  /** The `/stop` count so far: queued items admitted before the latest stop are not run. */
  stopGeneration?: number;
  /** The channel renders thoughts and tool calls live (set by the session client from the chatbot). */
  liveProgress?: boolean;
  /** The channel's delivery is a database write (set by the session client from the chatbot). */
  inlineDelivery?: boolean;
  /** Turns per run before continue-as-new when the server has not suggested it earlier. */
  continueAsNewAfterTurns?: number;
  /**
   * History events after which a run continues-as-new at the next turn boundary (KESOKU_CONTINUE_AS_NEW_EVENTS):
   * it bounds what a worker replays for a session it does not cache, e.g. its first turn after a restart. Absent:
   * no bound in this run (runs started before it existed); their next run gets {@link DEFAULT_CONTINUE_AS_NEW_EVENTS}.
   */
  continueAsNewAfterEvents?: number;
  /** Time limits of model steps, from the model settings (domain/model-limits.ts); absent: the defaults'. */
  modelLimits?: ModelStepLimits;
  /** Tool calls waiting for approval when the previous run continued-as-new (see {@link SuspendedTurn}). */
  pendingApprovals?: PendingApproval[];
  /** The turn the previous run left waiting for approval; this run resumes it before anything queued. */
  suspendedTurn?: SuspendedTurn;
  /**
   * Decisions that arrived for {@link pendingApprovals} while the previous run was ending (after its turn was
   * suspended): this run's desk takes them as if they had just arrived, so none is lost or counted as a denial.
   */
  pendingDecisions?: CarriedDecision[];
  /**
   * Seconds a run waits idle (no queued work) before it ends, so that the session's next run starts on the
   * current build with a fresh history (KESOKU_SESSION_IDLE_S). Absent: {@link DEFAULT_SESSION_IDLE_S}.
   */
  idleEndS?: number;
  /** An `upgrade` signal reached the previous run: this one ends as soon as it is idle. */
  upgradeRequested?: boolean;
  /** Recent command update ids (`stop`, `compact`, …) and their answers, to answer a retry across runs the same. */
  seenCommands?: SeenCommand[];
}

/** Default of {@link SessionWorkflowInput.continueAsNewAfterEvents} for a run that continues one without it. */
export const DEFAULT_CONTINUE_AS_NEW_EVENTS = 1000;

/** Default of {@link SessionWorkflowInput.idleEndS}: one day. */
export const DEFAULT_SESSION_IDLE_S = 86_400;

/** A decision taken by the update `decideApproval` and not yet applied by the turn (see pendingDecisions). */
export interface CarriedDecision {
  callId: string;
  decision: ApprovalDecision;
  by: string;
}

/** A command update already answered in this session: its update id, the update's name and its answer. */
export interface SeenCommand {
  updateId: string;
  name: string;
  result: unknown;
}

/** A tool call waiting for a person's decision (workflows/approvals.ts). */
export interface PendingApproval {
  /** The tool_call message's id. */
  callId: string;
  turnId: string;
  /** The tool's name, e.g. `run_shell_command`. */
  name: string;
  /** What is asked about: the command, `write_file <path>`, … */
  subject: string;
  /** ISO 8601: when the wait ends as `timed_out` (counts as denied). */
  expiresAt: string;
}

/** A turn carried across continue-as-new while it waited for approval; it resumes at `step`. */
export interface SuspendedTurn {
  item: QueueItem;
  step: number;
  /** Workflow time (ms since the epoch) when the turn started, for its metrics. */
  turnStartedAt: number;
  /** Empty-reply nudges the turn has used. */
  nudges: number;
}

/**
 * `decideApproval` argument. Runnable from the Temporal Web UI with the JSON
 * `{"callId": "<tool_call message id>", "decision": "approve", "by": "ops:alice"}`.
 */
export interface ApprovalDecisionInput {
  callId: string;
  decision: ApprovalDecision;
  /** Who decided (a principal or platform user id); recorded in `metadata.approval.by`. */
  by?: string;
}

export interface QueueItem {
  messageId: string;
  /**
   * `cron`: a scheduled prompt; `alert`: a background job's alert (docs/message-model.md §3 "后台唤醒警报"). Both
   * run as user turns that wait behind the running turn: they never interrupt one and are never superseded.
   */
  kind: 'user' | 'compaction' | 'cron' | 'alert';
  /** The stop generation when the item was admitted; absent means 0. */
  gen?: number;
  /** The sender's platform id ({@link InboundMessage.senderId}); absent for senders without one. */
  senderId?: string;
}

/** Something that went wrong outside a turn's own failure path, kept for the `state` query and the Web UI. */
export interface SessionProblem {
  what:
    | 'signal'
    | 'restore'
    | 'supersede'
    | 'finish_turn'
    | 'notice_delivery'
    | 'stop_record'
    | 'keep_seen_commands';
  messageId: string | null;
  /** The error, shortened to 300 characters. */
  error: string;
  /** ISO 8601 workflow time. */
  at: string;
}

/** Query `state` answer. */
export interface SessionState {
  sessionId: string;
  status: 'idle' | 'processing';
  mode: SessionMode;
  currentTurn: { messageId: string; step: number; activity: string } | null;
  queueLength: number;
  title: string | null;
  titleSource: TitleSource;
  turnCount: number;
  /** The newest problems (at most 10): failed notices and turn-end writes the session moved on from. */
  recentProblems: SessionProblem[];
  /** Tool calls waiting for a person's decision. */
  pendingApprovals: PendingApproval[];
}

/**
 * What `editQueuedMessage` / `withdrawQueuedMessage` did: `edited` / `withdrawn`; `started` when the message is
 * no longer queued (its turn took it, or it ended): nothing changed; `unknown` when this session has not seen the
 * id (never submitted, or too long ago).
 */
export interface QueuedChangeResult {
  outcome: 'edited' | 'withdrawn' | 'started' | 'unknown';
}

/** `editQueuedMessage` input: the new content of a queued message (same rules as an inbound message's). */
export interface QueuedEdit {
  messageId: string;
  content: string;
}

export const submitMessageUpdate = wf.defineUpdate<SubmitResult, [InboundMessage]>('submitMessage');
/**
 * Refused in new runs (logged, nothing stored): messages arrive by {@link submitMessageUpdate}. Runs started
 * before the refusal still admit it, so their histories replay.
 */
export const userMessageSignal = wf.defineSignal<[InboundMessage]>('userMessage');
export const stopSignal = wf.defineSignal('stop');
export const stopUpdate = wf.defineUpdate<{ stopped: boolean }>('stop');
export const compactUpdate = wf.defineUpdate<{ queued: boolean; message_id: string }>('compact');
export const setTitleUpdate = wf.defineUpdate<{ title: string }, [string]>('setTitle');
export const setModeUpdate = wf.defineUpdate<{ mode: SessionMode }, [SessionMode]>('setMode');
/** Replaces the content of a queued message before its turn starts (its sender edited it). */
export const editQueuedMessageUpdate = wf.defineUpdate<QueuedChangeResult, [QueuedEdit]>('editQueuedMessage');
/** Takes a queued message out of the queue before its turn starts (its sender deleted it). */
export const withdrawQueuedMessageUpdate = wf.defineUpdate<QueuedChangeResult, [string]>(
  'withdrawQueuedMessage',
);
export const stateQuery = wf.defineQuery<SessionState>('state');
/**
 * A person's decision on a tool call waiting for approval. The validator refuses a call that is not waiting
 * (unknown, or decided already) with failure type `approval_not_pending`. Returns once the decision is taken; the
 * turn records it on the tool_call message and goes on.
 */
export const decideApprovalUpdate = wf.defineUpdate<ApprovalDecisionResult, [ApprovalDecisionInput]>(
  'decideApproval',
);

/**
 * The answer of `decideApproval`: the decision taken, and `settling`, every call of the session decided but
 * not yet recorded by its turn (this one included; absent in answers of older builds).
 */
export interface ApprovalDecisionResult {
  callId: string;
  decision: ApprovalDecision;
  settling?: string[];
}
/**
 * Asks the session's run to end as soon as it is idle (a turn waiting for approval is carried across
 * continue-as-new first): the session's next run starts on the deployment's current build, with a fresh history.
 * Sent in batch after a deploy or a rollback (docs/operations.md); harmless at any time.
 */
export const upgradeSignal = wf.defineSignal('upgrade');
/** Sent by the title child workflow when it committed a title, so `state` and the Web UI summary follow. */
export const titleChangedSignal = wf.defineSignal<[string]>('titleChanged');

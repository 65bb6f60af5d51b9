/**
 * The activity contracts the workflows call: names, inputs and (small) results. The workflows own them (the caller
 * owns the port); each activity factory in activities/ (`createXActivities(deps)`) implements one interface here.
 * Workflow code imports this file with `import type` only.
 *
 * Results carry ids, never transcripts: the conversation itself lives in Postgres (docs/architecture.md "Session = one
 * long-running workflow").
 */
import type { Message } from '../domain/message.ts';
import type { TurnFailureKind } from '../domain/failures.ts';
import type { InboundMessage } from '../domain/inbound.ts';
import type { JobEnd } from '../domain/jobs.ts';
import type { SessionMode, TitleSource } from '../domain/session-settings.ts';
import type { QueueItem, SeenCommand, SessionAddress } from './definitions.ts';

/** How a turn ended, for {@link PersistenceActivities.finishTurn}. */
export type TurnOutcome =
  | { outcome: 'processed' }
  | { outcome: 'interrupted'; reason: 'stop' | 'interrupt' | 'restart' }
  | { outcome: 'error'; kind: TurnFailureKind; detail?: string };

export interface PersistenceActivities {
  /**
   * Stores an inbound message as `pending_agent` (creating the session row on first contact). Idempotent by
   * message id. @returns the stored message and whether this call created it
   * @throws ApplicationFailure type `id_taken` (non-retryable) when the id is taken by another session
   */
  acceptInbound(input: {
    address: SessionAddress;
    message: InboundMessage;
  }): Promise<{ message: Message; created: boolean }>;
  /**
   * Stores an inbound message that could not be queued: the message ends `error` and a queue-full notice is
   * created. @returns the notice's id (null when the message had been handled before)
   */
  rejectInbound(input: {
    address: SessionAddress;
    message: InboundMessage;
    capacity: number;
  }): Promise<{ noticeId: string | null }>;
  /** Stores the manual compaction prompt (docs/message-model.md §3 "手动压缩提问") as `pending_agent`. */
  createCompactionPrompt(input: {
    address: SessionAddress;
    id: string;
    receivedAt: string;
  }): Promise<{ message: Message }>;
  /**
   * Claims a queued trigger: `pending_agent → processing` (docs/message-model.md §4.1). Re-claiming a message already
   * `processing` (a retried activity) succeeds. @returns false when the message already ended
   */
  claimTurn(input: {
    sessionId: string;
    messageId: string;
  }): Promise<{ claimed: boolean; kind: 'user' | 'compaction' }>;
  /** Marks queued triggers that a newer message superseded (interrupt mode) as `interrupted`. */
  supersede(input: { sessionId: string; messageIds: string[] }): Promise<void>;
  /**
   * Ends a turn in one transaction: tool calls left without a result become `interrupted` (their result is
   * built in memory when history is cleaned, never stored), the trigger gets its final status, the notice to
   * deliver is stored (stop/interrupt notification or crash notice), and the turn is counted. Idempotent.
   * @returns the notice's id when one must be delivered, and the ids of the turn's partial answers still
   *   `pending` (assistant text rows with metadata `{partial: true}`, stored by an interrupted model step),
   *   which the workflow delivers before the notice
   * @throws ApplicationFailure `turn_persistence:unknown_turn` (non-retryable) for an unknown session or turn
   */
  finishTurn(input: {
    sessionId: string;
    turnId: string;
    result: TurnOutcome;
  }): Promise<{ noticeId: string | null; partialIds: string[]; turnCount: number }>;
  /**
   * Reads a session back for a run that started without carried state: its settings and turn count, its
   * `pending_agent` inputs (oldest first, to queue again), and its inputs left `processing` by an earlier run,
   * which are finished `interrupted` (reason `restart`) here. @returns `found: false` for a session with no row
   */
  restoreSession(input: { sessionId: string }): Promise<{
    found: boolean;
    mode: SessionMode;
    title: string | null;
    titleSource: TitleSource;
    turnCount: number;
    queue: QueueItem[];
    /** Notices (and partial answers) of the turns finished here, to deliver in order. */
    noticeIds: string[];
    /** The command updates an earlier run kept when it ended ({@link keepSeenCommands}), oldest first. */
    seenCommands?: SeenCommand[];
  }>;
  /**
   * Keeps the command updates (`stop`, `compact`) a run answered when it ends without continue-as-new, so the
   * next run, which starts from Postgres, answers a repeated update id the same instead of running it again.
   */
  keepSeenCommands(input: { sessionId: string; commands: SeenCommand[] }): Promise<void>;
  /**
   * Records that `/stop` or an interrupt asked turn `turnId` to end, so that a model step of that turn which
   * finishes later cannot commit (its commit is guarded, see db/messages.ts `guardTurn`).
   */
  requestStop(input: { sessionId: string; turnId: string }): Promise<{ marked: boolean }>;
  /**
   * Replaces the content of a queued (`pending_agent`) message its sender edited on the platform, and sets
   * `metadata.edited_at`. @returns `edited: false` when a turn had already claimed it (nothing changed)
   */
  editQueuedInput(input: {
    sessionId: string;
    messageId: string;
    content: string;
    editedAt: string;
  }): Promise<{ edited: boolean }>;
  /**
   * Withdraws a queued message its sender deleted on the platform: `pending_agent → interrupted` with metadata
   * `withdrawn: true` (no notice: the message is gone). Idempotent.
   */
  withdrawQueuedInput(input: { sessionId: string; messageId: string }): Promise<{ withdrawn: boolean }>;
  /** Persists session settings changed through the workflow (`setTitle`, `setMode`). */
  updateSession(input: { sessionId: string; title?: string; mode?: SessionMode }): Promise<void>;
}

/** The result of one model step (docs/message-model.md §3 rows "智能体思维链", "工具调用指令", "智能体最终回复"). */
export type StepOutcome = (
  | { kind: 'final'; replyId: string; finished?: { turnCount: number } }
  | { kind: 'skipped' }
  | {
      kind: 'tool_calls';
      thoughtId?: string;
      calls: { messageId: string; toolCallId: string; name: string }[];
      /**
       * The approval check of the step's calls, set when the step judged them as it stored them and none waits
       * for a person (each `not_required`, or `approved` by a pattern, its record stored with the call): the
       * workflow then runs them without activity `requestApprovals`. Absent: that activity checks them.
       */
      approvals?: { calls: ApprovalCheck[]; timeoutS: number };
    }
  | { kind: 'empty'; nudgeId: string | null }
) & {
  /** Notifications written while preparing the step (automatic compaction) that the workflow delivers. */
  noticeIds?: string[];
};

export interface ModelActivities {
  /**
   * One model step of a turn: prepares the input (the one preparation path, with automatic compaction; with
   * `recovery` it compacts first — overflow recovery), calls the model with streaming, and commits the step's
   * messages. Idempotent per (turnId, step): a retry that finds the step committed returns it.
   * @throws ApplicationFailure `provider:<detail>` (see domain/failures.ts), `context_preparation`, `turn_persistence`
   */
  runModelStep(input: {
    sessionId: string;
    turnId: string;
    step: number;
    recovery: boolean;
    turnStartedAt: number;
    /** False once the turn's nudges are used up: an empty answer is then reported without a nudge. */
    canNudge: boolean;
    /**
     * Claim the trigger first (`pending_agent → processing`, docs/message-model.md §4.1) in this activity instead of a separate
     * one. A trigger that already ended yields `{kind: 'skipped'}`.
     */
    claim?: boolean;
    /**
     * The session's sink is inline (a database write): a final reply is committed already delivered, with the
     * trigger `processed` and the turn counted, in the step's own transaction (`final.finished`).
     */
    completeInline?: boolean;
  }): Promise<StepOutcome>;
  /** Runs a manual compaction turn (`/compact`). @returns the summary reply's id, to deliver */
  compactSession(input: {
    sessionId: string;
    turnId: string;
    turnStartedAt: number;
  }): Promise<{ replyId: string }>;
  /** Generates a title and commits it only while the title is still the default. */
  generateTitle(input: { sessionId: string }): Promise<{ title: string | null; committed: boolean }>;
}

export interface ToolActivities {
  /**
   * Runs the tool call stored as message `toolCallMessageId` and stores its `tool_result`. Idempotent per
   * tool call: a stored result is returned without running the tool again. Cancellable (kills the process group).
   */
  runToolCall(input: {
    sessionId: string;
    turnId: string;
    toolCallMessageId: string;
  }): Promise<{ resultId: string; ok: boolean; summary: string }>;
}

export interface DeliveryActivities {
  /**
   * Delivers a `pending` message to its session's channel sink and marks it `delivered` (docs/message-model.md §4.2).
   * Idempotent: an already delivered message is not sent again. On a client-acknowledged channel (`cli`) the
   * message stays `pending` until its client printed it.
   *
   * `endsTurn`: the id of the turn whose final reply this is. The transaction that marks the reply `delivered`
   * then also ends the turn as an inline completion does (§4.1-§4.2): the trigger `processing → processed`, its
   * tool calls left without a result `interrupted`, the session's turn counted; then the channel's typing
   * indicator is ended (as `signalActivity` with `active: false`).
   * @returns `delivered`: whether this call marked it; `turnCount`: with `endsTurn`, once the reply is `delivered`
   *   and the turn `processed` (by this call or an earlier attempt), the session's turn count; absent when the
   *   turn is still to be ended (a client-acknowledged channel, a turn that had ended otherwise)
   */
  deliverMessage(input: {
    sessionId: string;
    messageId: string;
    endsTurn?: string;
  }): Promise<{ delivered: boolean; turnCount?: number }>;
  /** Presents intermediate messages (thought/tool_call/tool_result) on channels that render them live. */
  presentProgress(input: { sessionId: string; messageIds: string[] }): Promise<void>;
  /** Tells the channel that a turn started or ended (typing indicators). Best effort. */
  signalActivity(input: { sessionId: string; active: boolean }): Promise<void>;
}

/** A tool call of a step as the approval check sees it. `callId` is the tool_call message's id. */
export interface ApprovalCheck {
  callId: string;
  name: string;
  /** What is asked about (domain/tool-approval.ts approvalSubject). */
  subject: string;
  /**
   * `not_required`: the policy does not ask; `pending`: waiting for a person; the others: decided already
   * (a pattern approved it, or an earlier run of this step recorded a decision).
   */
  state: 'not_required' | 'pending' | 'approved' | 'denied' | 'timed_out' | 'cancelled';
  /** ISO 8601: when a pending approval times out. */
  expiresAt?: string;
}

export interface ApprovalActivities {
  /**
   * Decides which of a step's tool calls need a person (policy, session override, patterns) and records
   * `metadata.approval` (pending, or approved by a pattern) on their tool_call messages; announces each new
   * pending one (event `approval_requested`). Idempotent: a call that already has a record keeps it.
   */
  requestApprovals(input: {
    sessionId: string;
    turnId: string;
    step: number;
    callIds: string[];
  }): Promise<{ calls: ApprovalCheck[]; timeoutS: number }>;
  /**
   * Records the end of a pending approval (approved, denied, timed out, cancelled) on the tool_call message; an
   * `always` also adds `addPattern` to the session's approve patterns. A record that is no longer pending is
   * kept (idempotent). @returns whether this call changed it
   */
  recordApproval(input: {
    sessionId: string;
    callId: string;
    state: 'approved' | 'denied' | 'timed_out' | 'cancelled';
    by: string;
    decision?: 'approve' | 'deny' | 'always';
    pattern?: string;
    addPattern?: string;
  }): Promise<{ changed: boolean }>;
  /**
   * Stores the tool_result of a call that was denied or timed out (it was not run), saying so to the model.
   * Idempotent (the result id is the one the tool activity would use).
   */
  refuseToolCall(input: {
    sessionId: string;
    turnId: string;
    callId: string;
    why: 'denied' | 'timed_out';
    timeoutS: number;
  }): Promise<{ resultId: string; ok: boolean; summary: string }>;
}

/** What one tick of a scheduled prompt did (activities/schedules.ts). */
export interface ScheduleFireResult {
  /**
   * `fired`: the session holds the cron prompt (this call or an earlier attempt put it in); `missed`: the tick is
   * later than the catch-up window; `gone`: the schedule was deleted (its Temporal Schedule is removed too).
   */
  outcome: 'fired' | 'missed' | 'gone';
  /** The cron prompt's message id (also its turn's id); absent when `gone`. */
  messageId?: string;
}

export interface ScheduleActivities {
  /**
   * Puts one tick's prompt into its session as the seed's cron message (user/text, sender `Cronjob`,
   * `metadata.is_cronjob`), starting the session workflow if needed, and records the run. Idempotent per
   * (schedule, scheduled time): the message id is derived from the scheduled time.
   * @param scheduledAt ISO 8601: the tick's scheduled time
   * @throws a retryable failure while the session cannot take it (queue full, Temporal or Postgres down), so
   *   the prompt is never dropped; `schedule_rejected` (non-retryable) when the session refuses it for good
   */
  fireScheduledPrompt(input: {
    sessionId: string;
    scheduleId: string;
    scheduledAt: string;
  }): Promise<ScheduleFireResult>;
}

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

/**
 * The activity contracts the workflows call: names, inputs and (small) results. Workflow code imports this file
 * with `import type` only; each activity factory (`createXActivities(deps)`) implements one interface here.
 *
 * Results carry ids, never transcripts: the conversation itself lives in Postgres (DESIGN.md "Session = one
 * long-running workflow").
 */
import type { Message } from '../domain/message.ts';
import type { TurnFailureKind } from '../domain/failures.ts';
import type { InboundMessage, SessionAddress, SessionMode } from '../workflows/definitions.ts';

/** How a turn ended, for {@link PersistenceActivities.finishTurn}. */
export type TurnOutcome =
  | { outcome: 'processed' }
  | { outcome: 'interrupted'; reason: 'stop' | 'interrupt' }
  | { outcome: 'error'; kind: TurnFailureKind; detail?: string };

export interface PersistenceActivities {
  /**
   * Stores an inbound message as `pending_agent` (creating the session row on first contact). Idempotent by
   * message id. @returns the stored message and whether this call created it
   * @throws ApplicationFailure type `input_persistence` when the id is taken by another session
   */
  acceptInbound(input: { address: SessionAddress; message: InboundMessage }): Promise<{ message: Message; created: boolean }>;
  /**
   * Stores an inbound message that could not be queued: the message ends `error` and a queue-full notice is
   * created. @returns the notice's id (null when the message had been handled before)
   */
  rejectInbound(input: { address: SessionAddress; message: InboundMessage; capacity: number }): Promise<{ noticeId: string | null }>;
  /** Stores the manual compaction prompt (seed 1 §3 "手动压缩提问") as `pending_agent`. */
  createCompactionPrompt(input: { address: SessionAddress; id: string; receivedAt: string }): Promise<{ message: Message }>;
  /**
   * Claims a queued trigger: `pending_agent → processing` (seed 1 §4.1). Re-claiming a message already
   * `processing` (a retried activity) succeeds. @returns false when the message already ended
   */
  claimTurn(input: { sessionId: string; messageId: string }): Promise<{ claimed: boolean; kind: 'user' | 'compaction' }>;
  /** Marks queued triggers that a newer message superseded (interrupt mode) as `interrupted`. */
  supersede(input: { sessionId: string; messageIds: string[] }): Promise<void>;
  /**
   * Ends a turn in one transaction: synthetic results for dangling tool calls (seed 1 §4.4), the trigger's
   * final status, the notice to deliver (stop/interrupt notification or crash notice), and the turn count.
   * Idempotent. @returns the notice's id when one must be delivered
   */
  finishTurn(input: { sessionId: string; turnId: string; result: TurnOutcome }): Promise<{ noticeId: string | null; turnCount: number }>;
  /** Persists session settings changed through the workflow (`setTitle`, `setMode`). */
  updateSession(input: { sessionId: string; title?: string; mode?: SessionMode }): Promise<void>;
}

/** The result of one model step (seed 1 §3 rows "智能体思维链", "工具调用指令", "智能体最终回复"). */
export type StepOutcome = (
  | { kind: 'final'; replyId: string; finished?: { turnCount: number } }
  | { kind: 'skipped' }
  | { kind: 'tool_calls'; thoughtId?: string; calls: { messageId: string; toolCallId: string; name: string }[] }
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
     * Claim the trigger first (`pending_agent → processing`, seed 1 §4.1) in this activity instead of a separate
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
  compactSession(input: { sessionId: string; turnId: string; turnStartedAt: number }): Promise<{ replyId: string }>;
  /** Generates a title and commits it only while the title is still the default. */
  generateTitle(input: { sessionId: string }): Promise<{ title: string | null; committed: boolean }>;
}

export interface ToolActivities {
  /**
   * Runs the tool call stored as message `toolCallMessageId` and stores its `tool_result`. Idempotent per
   * tool call: a stored result is returned without running the tool again. Cancellable (kills the process group).
   */
  runToolCall(input: { sessionId: string; turnId: string; toolCallMessageId: string }): Promise<{ resultId: string; ok: boolean; summary: string }>;
}

export interface DeliveryActivities {
  /**
   * Delivers a `pending` message to its session's channel sink and marks it `delivered` (seed 1 §4.2).
   * Idempotent: an already delivered message is not sent again.
   */
  deliverMessage(input: { sessionId: string; messageId: string }): Promise<{ delivered: boolean }>;
  /** Presents intermediate messages (thought/tool_call/tool_result) on channels that render them live. */
  presentProgress(input: { sessionId: string; messageIds: string[] }): Promise<void>;
  /** Tells the channel that a turn started or ended (typing indicators). Best effort. */
  signalActivity(input: { sessionId: string; active: boolean }): Promise<void>;
}

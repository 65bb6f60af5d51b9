/**
 * What the session (workflows/session-state.ts and its two parts, session-admission.ts and session-turns.ts)
 * needs from Temporal, as an interface: the workflow passes the real thing (workflows/session.ts
 * `temporalPorts`), unit tests pass fakes (session-state.test.ts).
 */
import type { PersistenceActivities, TurnOutcome } from './activity-contracts.ts';
import type { WorkflowFailureType } from '../domain/failures.ts';
import type { SessionProblem } from './definitions.ts';
import type { TurnEnd, TurnInput } from './turn.ts';

/** A running piece of work that can be cancelled (a Temporal CancellationScope in the workflow). */
export interface Cancellable<T> {
  cancel(): void;
  readonly result: Promise<T>;
}

/** What the session needs from Temporal; the workflow passes the real thing, unit tests pass fakes. */
export interface SessionPorts {
  /** Writes of handlers (normal activities). */
  handlerWrites: Pick<
    PersistenceActivities,
    | 'acceptInbound'
    | 'rejectInbound'
    | 'createCompactionPrompt'
    | 'updateSession'
    | 'requestStop'
    | 'editQueuedInput'
    | 'withdrawQueuedInput'
  >;
  /** Writes of the turn loop (local activities). */
  turnWrites: Pick<PersistenceActivities, 'supersede' | 'finishTurn' | 'restoreSession' | 'keepSeenCommands'>;
  /** Delivers a notice; `fromHandler` picks a normal activity (handlers never run local activities). */
  deliverNotice(messageId: string, fromHandler: boolean): Promise<void>;
  /** Runs `fn` in a new cancellation scope. */
  cancellable<T>(fn: () => Promise<T>): Cancellable<T>;
  /** Runs `fn` shielded from cancellation. */
  nonCancellable<T>(fn: () => Promise<T>): Promise<T>;
  isCancellation(err: unknown): boolean;
  /** The outcome of a turn that failed with `err` (its failure kind), logged for the operator. */
  failureOutcome(err: unknown, turnId: string): Extract<TurnOutcome, { outcome: 'error' }>;
  runTurn(input: TurnInput): Promise<TurnEnd>;
  /** Ends the live channel's typing indicator after a turn. */
  endTyping(): Promise<void>;
  /** Waits `ms` of workflow time (a durable timer). */
  sleep(ms: number): Promise<void>;
  /**
   * Whether a change that alters the command sequence is on in this run (Temporal `patched()`): false only when
   * replaying a history recorded before it.
   */
  patched(changeId: string): boolean;
  /** Counts a {@link SessionProblem} for alerting (the worker's metrics), besides the log line. */
  countProblem(what: SessionProblem['what']): void;
  /** Shows the session's status (search attribute, when it changed) and the Web UI's current details. */
  show(status: 'idle' | 'processing', details: string): void;
  /** A failure with a {@link WorkflowFailureType}, as the update's caller receives it. */
  fail(type: WorkflowFailureType, message: string): Error;
  uuid(): string;
  now(): Date;
  log: {
    info(msg: string, attrs?: object): void;
    warn(msg: string, attrs?: object): void;
    error(msg: string, attrs?: object): void;
  };
}

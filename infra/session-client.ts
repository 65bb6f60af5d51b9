/**
 * The client side of the session workflow, shared by the REST API and chat adapters: submit a message with
 * update-with-start (the first message creates the session), stop, compact, rename, change mode, read state.
 * Temporal's errors are mapped to {@link SessionClientError} kinds the HTTP layer and adapters present.
 */
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  SA_CHANNEL,
  SA_CHATBOT,
  SA_SESSION_STATUS,
  compactUpdate,
  setModeUpdate,
  setTitleUpdate,
  sessionWorkflowId,
  stateQuery,
  stopUpdate,
  submitMessageUpdate,
  type InboundMessage,
  type SessionAddress,
  type SessionMode,
  type SessionState,
  type SubmitResult,
} from '../workflows/definitions.ts';
import { sessionWorkflow } from '../workflows/session.ts';

export type SessionClientErrorKind = 'invalid' | 'queue_full' | 'not_found' | 'unavailable' | 'persistence';

/** A failed session operation, with a kind the API maps to a status code (400, 429, 404, 503). */
export class SessionClientError extends Error {
  readonly kind: SessionClientErrorKind;
  constructor(kind: SessionClientErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SessionClientError';
    this.kind = kind;
  }
}

export interface SessionClientOptions {
  client: Client;
  taskQueue: string;
  /** Turns per workflow run before continue-as-new (KESOKU_CONTINUE_AS_NEW_TURNS). */
  continueAsNewAfterTurns?: number;
}

/**
 * Options of a command update. `updateId`: Temporal runs an update whose id it already knows (in the same workflow
 * run) only once and answers the first result again, so a caller that may repeat a command (a chat message
 * delivered twice) passes an id derived from the platform message. Without it the SDK picks a random id.
 */
export interface UpdateOptions {
  updateId?: string;
}

const updateIdOf = (opts: UpdateOptions): { updateId?: string } =>
  opts.updateId === undefined ? {} : { updateId: opts.updateId };

export class SessionClient {
  readonly client: Client;
  readonly taskQueue: string;
  private readonly canAfter?: number;

  constructor(opts: SessionClientOptions) {
    this.client = opts.client;
    this.taskQueue = opts.taskQueue;
    this.canAfter = opts.continueAsNewAfterTurns;
  }

  /**
   * Submits a message; starts the session workflow if it is not running (update-with-start, conflict policy
   * USE_EXISTING). De-duplication by message id is the workflow's (it answers a repeat with the stored message
   * as it is now, `duplicate: true`), so update ids are left to the SDK.
   * @throws SessionClientError invalid | queue_full | persistence | unavailable
   */
  async submit(address: SessionAddress, message: InboundMessage): Promise<SubmitResult> {
    const start = new WithStartWorkflowOperation(sessionWorkflow, {
      workflowId: sessionWorkflowId(address.sessionId),
      taskQueue: this.taskQueue,
      args: [{ ...address, continueAsNewAfterTurns: this.canAfter }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `session ${address.sessionId} (${address.chatbotId})`,
      staticDetails: `Kesoku chat session \`${address.sessionId}\` on ${address.chatbotId}, channel \`${address.channelId}\`.`,
      typedSearchAttributes: [
        { key: SA_CHATBOT, value: address.chatbotId },
        { key: SA_CHANNEL, value: address.channelId },
        { key: SA_SESSION_STATUS, value: 'idle' },
      ],
    });
    return this.wrap(() =>
      this.client.workflow.executeUpdateWithStart(submitMessageUpdate, {
        args: [message],
        startWorkflowOperation: start,
      }),
    );
  }

  /** Cancels the running turn. @returns whether a turn was running */
  async stop(sessionId: string, opts: UpdateOptions = {}): Promise<{ stopped: boolean }> {
    return this.wrap(() => this.handle(sessionId).executeUpdate(stopUpdate, updateIdOf(opts)));
  }

  async compact(sessionId: string, opts: UpdateOptions = {}): Promise<{ queued: boolean; message_id: string }> {
    return this.wrap(() => this.handle(sessionId).executeUpdate(compactUpdate, updateIdOf(opts)));
  }

  async setTitle(sessionId: string, title: string, opts: UpdateOptions = {}): Promise<{ title: string }> {
    return this.wrap(() => this.handle(sessionId).executeUpdate(setTitleUpdate, { args: [title], ...updateIdOf(opts) }));
  }

  async setMode(sessionId: string, mode: SessionMode, opts: UpdateOptions = {}): Promise<{ mode: SessionMode }> {
    return this.wrap(() => this.handle(sessionId).executeUpdate(setModeUpdate, { args: [mode], ...updateIdOf(opts) }));
  }

  async state(sessionId: string): Promise<SessionState> {
    return this.wrap(() => this.handle(sessionId).query(stateQuery));
  }

  handle(sessionId: string) {
    return this.client.workflow.getHandle<typeof sessionWorkflow>(sessionWorkflowId(sessionId));
  }

  private async wrap<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toSessionClientError(err);
    }
  }
}

/** Maps a Temporal client error to a {@link SessionClientError}. */
export function toSessionClientError(err: unknown): SessionClientError {
  if (err instanceof SessionClientError) return err;
  if (err instanceof WorkflowNotFoundError) return new SessionClientError('not_found', 'unknown session', { cause: err });
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure) {
      if (cause.type === 'queue_full') return new SessionClientError('queue_full', cause.message, { cause: err });
      if (cause.type === 'invalid_message') return new SessionClientError('invalid', cause.message, { cause: err });
      if (cause.type?.startsWith('input_persistence')) return new SessionClientError('persistence', cause.message, { cause: err });
    }
    return new SessionClientError('invalid', cause instanceof Error ? cause.message : 'the update was rejected', { cause: err });
  }
  const text = String((err as Error)?.message ?? err);
  if (/not found/i.test(text) && /workflow/i.test(text)) return new SessionClientError('not_found', 'unknown session', { cause: err });
  return new SessionClientError('unavailable', 'Temporal did not answer', { cause: err });
}

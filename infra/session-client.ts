/**
 * The client side of the session workflow, shared by the REST API and chat adapters: submit a message with
 * update-with-start (the first message creates the session), stop, compact, rename, change mode, read state.
 * Given a session's address (its row exists), stop, compact, rename and mode also use update-with-start, so they
 * work on a session whose workflow run ended (terminated, reset, failed): the new run restores the session from
 * Postgres. Temporal's errors are mapped to {@link SessionClientError} kinds by failure type, never by text.
 */
import { modelStepLimits, type ModelStepLimits } from '../domain/model-limits.ts';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/common';
import { apiOnlyCapabilities, type CapabilitiesLookup } from '../domain/channels.ts';
import { asWorkflowFailureType } from '../domain/failures.ts';
import {
  DEFAULT_CONTINUE_AS_NEW_EVENTS,
  SA_CHANNEL,
  SA_CHATBOT,
  SA_SESSION_STATUS,
  compactUpdate,
  editQueuedMessageUpdate,
  decideApprovalUpdate,
  setModeUpdate,
  setTitleUpdate,
  sessionWorkflowId,
  stateQuery,
  stopUpdate,
  submitMessageUpdate,
  withdrawQueuedMessageUpdate,
  type ApprovalDecisionInput,
  type ApprovalDecisionResult,
  type InboundMessage,
  type QueuedChangeResult,
  type SessionAddress,
  type SessionMode,
  type SessionState,
  type SessionWorkflowInput,
  type SubmitResult,
} from '../workflows/definitions.ts';
import { sessionWorkflow } from '../workflows/session.ts';

export type SessionClientErrorKind =
  'invalid' | 'queue_full' | 'id_taken' | 'not_found' | 'unavailable' | 'persistence' | 'not_pending';

/**
 * A failed session operation, with a kind the API maps to a status code (400, 429, 409, 404, 503);
 * `not_pending`: a decision for a tool call that is not waiting for approval (409).
 */
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
  /** History events per workflow run before continue-as-new (KESOKU_CONTINUE_AS_NEW_EVENTS). */
  continueAsNewAfterEvents?: number;
  /** The model's inactivity timeout in ms (KESOKU_LLM_TIMEOUT_MS): new runs get model-step limits from it. */
  modelRequestTimeoutMs?: number;
  /**
   * Seconds a session run waits idle before it ends, so the next runs on the current build (KESOKU_SESSION_IDLE_S).
   * Undefined: the workflow's default (one day).
   */
  idleEndS?: number;
  /**
   * The capabilities of each chatbot, handed to new session workflows in their input. Processes pass the
   * channel registry's (adapters/registry.ts `capabilitiesOf`); the default knows only the REST API (`api`),
   * so a chat channel's sessions would get no live progress.
   */
  capabilities?: CapabilitiesLookup;
}

/**
 * Options of a command update. `updateId`: Temporal runs an update whose id it already knows (in the same workflow
 * run; the session workflow carries the ids of `stop` and `compact` across continue-as-new) only once and answers
 * the first result again, so a caller that may repeat a command (a chat message
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
  private readonly canEvents?: number;
  private readonly modelLimits?: ModelStepLimits;
  private readonly idleS?: number;
  private readonly capabilities: CapabilitiesLookup;

  constructor(opts: SessionClientOptions) {
    this.client = opts.client;
    this.taskQueue = opts.taskQueue;
    this.canAfter = opts.continueAsNewAfterTurns;
    this.canEvents = opts.continueAsNewAfterEvents;
    if (opts.modelRequestTimeoutMs !== undefined)
      this.modelLimits = modelStepLimits(opts.modelRequestTimeoutMs);
    this.idleS = opts.idleEndS;
    this.capabilities = opts.capabilities ?? apiOnlyCapabilities;
  }

  /**
   * Submits a message; starts the session workflow if it is not running (update-with-start, conflict policy
   * USE_EXISTING). De-duplication by message id is the workflow's (it answers a repeat with the stored message
   * as it is now, `duplicate: true`), so update ids are left to the SDK.
   * @throws SessionClientError invalid | queue_full | id_taken | persistence | unavailable
   */
  async submit(address: SessionAddress, message: InboundMessage): Promise<SubmitResult> {
    return this.wrap(() =>
      this.client.workflow.executeUpdateWithStart(submitMessageUpdate, {
        args: [message],
        startWorkflowOperation: this.startOperation(address),
      }),
    );
  }

  /**
   * Cancels the running turn; messages admitted before the stop are not run.
   * @returns whether anything was running or waiting
   */
  async stop(session: string | SessionAddress, opts: UpdateOptions = {}): Promise<{ stopped: boolean }> {
    return this.wrap(() => this.update(session, stopUpdate, [], opts));
  }

  async compact(
    session: string | SessionAddress,
    opts: UpdateOptions = {},
  ): Promise<{ queued: boolean; message_id: string }> {
    return this.wrap(() => this.update(session, compactUpdate, [], opts));
  }

  async setTitle(
    session: string | SessionAddress,
    title: string,
    opts: UpdateOptions = {},
  ): Promise<{ title: string }> {
    return this.wrap(() => this.update(session, setTitleUpdate, [title], opts));
  }

  async setMode(
    session: string | SessionAddress,
    mode: SessionMode,
    opts: UpdateOptions = {},
  ): Promise<{ mode: SessionMode }> {
    return this.wrap(() => this.update(session, setModeUpdate, [mode], opts));
  }

  /**
   * Replaces the content of a message still queued in the session (its sender edited it on the platform); a
   * message whose turn started is not changed (`started`). Never starts a workflow.
   * @throws SessionClientError not_found (no running session) | invalid | persistence | unavailable
   */
  async editQueued(
    sessionId: string,
    messageId: string,
    content: string,
    opts: UpdateOptions = {},
  ): Promise<QueuedChangeResult> {
    return this.wrap(() => this.update(sessionId, editQueuedMessageUpdate, [{ messageId, content }], opts));
  }

  /**
   * Withdraws a message still queued in the session (its sender deleted it on the platform): it ends
   * `interrupted` without running; a message whose turn started is not changed (`started`). Never starts a workflow.
   * @throws SessionClientError not_found (no running session) | persistence | unavailable
   */
  async withdrawQueued(
    sessionId: string,
    messageId: string,
    opts: UpdateOptions = {},
  ): Promise<QueuedChangeResult> {
    return this.wrap(() => this.update(sessionId, withdrawQueuedMessageUpdate, [messageId], opts));
  }

  /**
   * A person's decision on a tool call waiting for approval (update `decideApproval`). By session id only: a
   * session whose run ended has nothing waiting.
   * @throws SessionClientError not_pending (the call is not waiting: unknown or decided) | invalid | not_found | unavailable
   */
  async decideApproval(
    sessionId: string,
    decision: ApprovalDecisionInput,
    opts: UpdateOptions = {},
  ): Promise<ApprovalDecisionResult> {
    return this.wrap(() => this.update(sessionId, decideApprovalUpdate, [decision], opts));
  }

  async state(sessionId: string): Promise<SessionState> {
    return this.wrap(() => this.handle(sessionId).query(stateQuery));
  }

  /**
   * Starts the session's workflow unless a run is open (it then restores from Postgres: infra/session-recovery.ts).
   * @throws SessionClientError unavailable
   */
  async start(address: SessionAddress): Promise<void> {
    const op = this.startOperation(address);
    await this.wrap(() => this.client.workflow.start(sessionWorkflow, op.options));
  }

  /**
   * The workflow's input for a new run: the address, the channel's capabilities, the continue-as-new bound and
   * the model-step limits.
   */
  workflowInput(address: SessionAddress): SessionWorkflowInput {
    const { sessionId, chatbotId, channelId } = address;
    return {
      sessionId,
      chatbotId,
      channelId,
      ...this.capabilities(chatbotId),
      continueAsNewAfterTurns: this.canAfter,
      continueAsNewAfterEvents: this.canEvents ?? DEFAULT_CONTINUE_AS_NEW_EVENTS,
      ...(this.modelLimits ? { modelLimits: this.modelLimits } : {}),
      ...(this.idleS === undefined ? {} : { idleEndS: this.idleS }),
    };
  }

  private startOperation(address: SessionAddress) {
    return new WithStartWorkflowOperation(sessionWorkflow, {
      workflowId: sessionWorkflowId(address.sessionId),
      taskQueue: this.taskQueue,
      args: [this.workflowInput(address)],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `session ${address.sessionId} (${address.chatbotId})`,
      staticDetails: `Kesoku chat session \`${address.sessionId}\` on ${address.chatbotId}, channel \`${address.channelId}\`.`,
      typedSearchAttributes: [
        { key: SA_CHATBOT, value: address.chatbotId },
        { key: SA_CHANNEL, value: address.channelId },
        { key: SA_SESSION_STATUS, value: 'idle' },
      ],
    });
  }

  /** A plain update by session id, or update-with-start when the address is known (the session row exists). */
  private async update<R, A extends unknown[]>(
    session: string | SessionAddress,
    def: UpdateDefinition<R, A>,
    args: A,
    opts: UpdateOptions = {},
  ): Promise<R> {
    // The SDK's overloads split on whether an update takes arguments; the callers above pass matching args.
    const anyDef = def as unknown as UpdateDefinition<R, [unknown]>;
    const options = { args: args as unknown as [unknown], ...updateIdOf(opts) };
    if (typeof session === 'string') return this.handle(session).executeUpdate(anyDef, options);
    return this.client.workflow.executeUpdateWithStart(anyDef, {
      ...options,
      startWorkflowOperation: this.startOperation(session),
    });
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

/**
 * Maps a Temporal client error to a {@link SessionClientError}: an update failure by its ApplicationFailure
 * type (domain/failures.ts WORKFLOW_FAILURE_TYPES); any other update failure (an activity that could not write,
 * an update aborted by the server) is `unavailable`, never the caller's fault.
 */
export function toSessionClientError(err: unknown): SessionClientError {
  if (err instanceof SessionClientError) return err;
  if (err instanceof WorkflowNotFoundError)
    return new SessionClientError('not_found', 'unknown session', { cause: err });
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause;
    const type = cause instanceof ApplicationFailure ? asWorkflowFailureType(cause.type) : null;
    const message = cause instanceof Error ? cause.message : 'the update failed';
    switch (type) {
      case 'queue_full':
        return new SessionClientError('queue_full', message, { cause: err });
      case 'invalid_message':
        return new SessionClientError('invalid', message, { cause: err });
      case 'id_taken':
        return new SessionClientError('id_taken', message, { cause: err });
      case 'input_persistence':
        return new SessionClientError('persistence', message, { cause: err });
      case 'approval_not_pending':
        return new SessionClientError('not_pending', message, { cause: err });
      case null:
        return new SessionClientError('unavailable', 'the session could not complete the request', {
          cause: err,
        });
    }
  }
  if (isNotFound(err)) return new SessionClientError('not_found', 'unknown session', { cause: err });
  return new SessionClientError('unavailable', 'Temporal did not answer', { cause: err });
}

/** gRPC NOT_FOUND (code 5) from the service client, e.g. an update to a workflow that has no open run. */
function isNotFound(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 5) return true;
  }
  return false;
}

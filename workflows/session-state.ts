/**
 * The session's state and every operation on it, as a plain class: the handlers in workflows/session.ts
 * delegate here, and the workflow body only loops and continues-as-new. Temporal is reached through
 * {@link SessionPorts}, so the rules can be unit-tested with fakes (session-state.test.ts beside it).
 *
 * Rules kept here:
 * - Admission: a slot is reserved synchronously (capacity counts reserved slots), the message is stored, then
 *   queued; de-duplication by message id survives continue-as-new (a bounded set of recent ids is carried).
 * - Stop is an ordering point: every message admitted before a `/stop` (queued, or still being stored) is not
 *   run — it ends `interrupted` — and the running turn is cancelled.
 * - Interrupt mode: a new user message cancels the running user turn, and only the newest queued user message
 *   runs (older ones end `interrupted`). In a shared channel (messages carry `senderId`) both apply per sender:
 *   one person's message never interrupts or supersedes another person's.
 * - No handler ever throws anything but the typed update failures of domain/failures.ts, and a signal handler
 *   throws nothing: a Temporal failure escaping a handler would fail the whole session workflow.
 * - Cleanup is bounded: a notice or turn-end write that fails for good is recorded in {@link recentProblems}
 *   (visible in the `state` query and the Web UI's current details) and the queue moves on.
 */
import type { PersistenceActivities, TurnOutcome } from './activity-contracts.ts';
import { LIMITS, inboundProblem, type InboundMessage } from '../domain/inbound.ts';
import {
  DEFAULT_SESSION_MODE,
  isSessionMode,
  titleProblem,
  type SessionMode,
  type TitleSource,
} from '../domain/session-settings.ts';
import type { WorkflowFailureType } from '../domain/failures.ts';
import type { ModelStepLimits } from '../domain/model-limits.ts';
import type {
  ApprovalDecisionInput,
  ApprovalDecisionResult,
  QueueItem,
  QueuedChangeResult,
  QueuedEdit,
  SessionAddress,
  SessionProblem,
  SessionState,
  SessionWorkflowInput,
  SubmitResult,
  SeenCommand,
  SuspendedTurn,
} from './definitions.ts';
import { SessionQueue, interruptsTurnOf } from './session-queue.ts';
import { ApprovalDesk, TurnSuspended } from './approval-desk.ts';
import { SIDE_WORK_PATCH, type TurnEnd, type TurnInput } from './turn.ts';

/** How many recent problems the `state` query shows. */
export const MAX_RECENT_PROBLEMS = 10;

/** How many answered command update ids continue-as-new carries. */
export const SEEN_COMMANDS_LIMIT = 100;

/**
 * The patch that keeps answered command update ids across a run that ends idle (kept in Postgres, read back by the
 * next run's restore, which a command update waits for). Asked only when there is something to keep or a command
 * arrives during a restore, so other histories carry no marker.
 */
export const SEEN_COMMANDS_PATCH = 'seen-commands-kept';

/** Title workflows a session starts at most while it has no title (each is a model call). */
export const TITLE_ATTEMPTS_LIMIT = 3;

/**
 * The patch that bounds title attempts by {@link TITLE_ATTEMPTS_LIMIT}. Asked only when the bound is reached, so
 * other histories carry no marker.
 */
export const TITLE_ATTEMPTS_PATCH = 'title-attempts-bounded';

/** Longest wait between two attempts of a failed restore, in ms (attempts back off from 5 s). */
export const RESTORE_RETRY_MAX_MS = 300_000;

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

/** The running turn. */
interface CurrentTurn {
  item: QueueItem;
  step: number;
  activity: string;
  stopReason?: 'stop' | 'interrupt';
  cancel(): void;
}

export class SessionManager {
  readonly address: SessionAddress;
  readonly queue: SessionQueue;
  mode: SessionMode;
  title: string | null;
  titleSource: TitleSource;
  /** Title workflows started while the session had no title, carried across continue-as-new. */
  private titleAttempts: number;
  turnCount: number;
  /** Increases with every `/stop`; an item admitted at a lower value is not run. */
  stopGeneration: number;
  readonly liveProgress: boolean;
  readonly inlineDelivery: boolean;
  readonly modelLimits: ModelStepLimits | undefined;
  /** True while the session's settings and open inputs are being read back from Postgres. */
  restoring: boolean;
  recentProblems: SessionProblem[] = [];
  current: CurrentTurn | null = null;
  /** Tool calls waiting for a person's decision (workflows/approvals.ts). */
  readonly approvals: ApprovalDesk;
  /** The turn suspended while it waited for approval, to carry into the next run (set by {@link runTurn}). */
  suspended: SuspendedTurn | null = null;
  private readonly reservedAt = new Map<string, number>();
  /** Command updates answered (update id to answer), carried across continue-as-new (bounded). */
  private readonly seenCommands = new Map<string, SeenCommand>();
  /** Settles when {@link restore} has finished (at once for a run started with carried state). */
  private readonly restored: Promise<void>;
  private markRestored: () => void = () => undefined;
  /** Counts answers added to {@link seenCommands}; {@link keptSeen} is its value at the last keep. */
  private seenVersion = 0;
  private keptSeen = -1;
  /** The last turn's typing-off, running beside the next turn (see SIDE_WORK_PATCH); settled before the run ends. */
  private typingOff: Promise<void> | null = null;

  private readonly ports: SessionPorts;

  constructor(input: SessionWorkflowInput, ports: SessionPorts) {
    this.ports = ports;
    this.address = { sessionId: input.sessionId, chatbotId: input.chatbotId, channelId: input.channelId };
    this.queue = new SessionQueue(input.queue ?? [], input.seenIds ?? [], LIMITS.queueCapacity);
    this.mode = input.mode ?? DEFAULT_SESSION_MODE;
    this.title = input.title ?? null;
    this.titleSource = input.titleSource ?? (this.title ? 'auto' : 'default');
    this.titleAttempts = input.titleAttempts ?? 0;
    this.turnCount = input.turnCount ?? 0;
    this.stopGeneration = input.stopGeneration ?? 0;
    this.liveProgress = input.liveProgress ?? false;
    this.inlineDelivery = input.inlineDelivery ?? false;
    this.modelLimits = input.modelLimits;
    this.approvals = new ApprovalDesk(input.pendingApprovals ?? [], input.pendingDecisions ?? []);
    for (const c of input.seenCommands ?? []) this.seenCommands.set(c.updateId, c);
    // A run started with no carried queue (the first run, or one after a terminate/reset/failure) reads its
    // state back from Postgres before it runs anything.
    this.restoring = input.queue === undefined;
    this.restored = this.restoring
      ? new Promise<void>((resolve) => (this.markRestored = resolve))
      : Promise.resolve();
  }

  // ---- admission -------------------------------------------------------------------------------------------

  /** `submitMessage` validator: shape and capacity (duplicates pass, they answer with the stored message). */
  validateSubmit(msg: InboundMessage): void {
    const problem = inboundProblem(msg);
    if (problem) throw this.ports.fail('invalid_message', `invalid message: ${problem}`);
    if (!this.queue.isSeen(msg.id) && !this.queue.hasRoom()) throw this.queueFull();
  }

  /** `submitMessage`: stores and queues a message. @throws the update failures `id_taken`, `input_persistence` */
  async submit(msg: InboundMessage): Promise<SubmitResult> {
    if (this.queue.isSeen(msg.id)) {
      const stored = await this.store(msg, false);
      return {
        message: stored.message,
        queue_position: this.queuePosition(this.queue.positionOf(msg.id)),
        duplicate: true,
      };
    }
    this.reserve(msg.id);
    const stored = await this.store(msg, true);
    return this.admitStored(msg.id, stored, msg.senderId, queueKindOf(msg));
  }

  /** `userMessage` signal in runs that refuse it: logged, nothing stored or queued. */
  refuseSignal(msg: InboundMessage): void {
    const id = typeof (msg as Partial<InboundMessage> | null)?.id === 'string' ? msg.id : null;
    this.ports.log.warn('userMessage signal refused: messages arrive by the submitMessage update', {
      messageId: id,
    });
  }

  /**
   * `userMessage` signal in runs started before it was refused (their histories replay): like {@link submit},
   * but every failure is logged, never thrown.
   */
  async receiveSignal(msg: InboundMessage): Promise<void> {
    try {
      const problem = inboundProblem(msg);
      if (problem !== null)
        return this.ports.log.warn('userMessage signal ignored: invalid payload', { problem });
      if (this.queue.isSeen(msg.id)) return;
      if (!this.queue.hasRoom()) return await this.rejectQueueFull(msg);
      this.reserve(msg.id);
      this.admitStored(msg.id, await this.store(msg, true), msg.senderId, queueKindOf(msg));
    } catch (err) {
      this.record('signal', msg?.id ?? null, err);
    }
  }

  private async rejectQueueFull(msg: InboundMessage): Promise<void> {
    this.queue.markSeen(msg.id);
    const { noticeId } = await this.ports.handlerWrites.rejectInbound({
      address: this.address,
      message: msg,
      capacity: LIMITS.queueCapacity,
    });
    if (noticeId) await this.deliverNotice(noticeId, true);
  }

  private reserve(id: string): void {
    this.queue.reserve(id);
    this.reservedAt.set(id, this.stopGeneration);
  }

  /** Stores an inbound message; on failure gives its slot back and throws a typed update failure. */
  private async store(msg: InboundMessage, reserved: boolean) {
    try {
      return await this.ports.handlerWrites.acceptInbound({ address: this.address, message: msg });
    } catch (err) {
      if (reserved) {
        this.queue.release(msg.id);
        this.reservedAt.delete(msg.id);
      }
      if (failureTypeIn(err) === 'id_taken')
        throw this.ports.fail('id_taken', 'this message id is already used by another session');
      throw this.ports.fail('input_persistence', 'the message could not be stored; nothing was queued');
    }
  }

  private admitStored(
    id: string,
    stored: Awaited<ReturnType<PersistenceActivities['acceptInbound']>>,
    senderId: string | undefined,
    kind: 'user' | 'cron' | 'alert' = 'user',
  ): SubmitResult {
    const gen = this.reservedAt.get(id) ?? this.stopGeneration;
    this.reservedAt.delete(id);
    const index = this.queue.commit(id, stored.message.status === 'pending_agent', kind, gen, senderId);
    // A new user message interrupts a running user turn of the same sender (interrupt mode); compaction and
    // scheduled (cron) turns run to the end, a cron prompt or a background alert never interrupts and waits
    // behind the running turn, and in a shared channel other people's messages wait in the queue.
    if (
      index !== null &&
      kind === 'user' &&
      this.mode === 'interrupt' &&
      this.current?.item.kind === 'user' &&
      this.current.item.messageId !== id &&
      interruptsTurnOf(this.current.item.senderId, senderId)
    ) {
      this.cancelTurn('interrupt');
    }
    return { message: stored.message, queue_position: this.queuePosition(index), duplicate: !stored.created };
  }

  /** Turns ahead of a queued item: the running one counts unless it is being stopped. */
  private queuePosition(index: number | null): number {
    if (index === null) return 0;
    return index + (this.current && !this.current.stopReason ? 1 : 0);
  }

  private queueFull(): Error {
    return this.ports.fail(
      'queue_full',
      `queue full: the session already holds ${LIMITS.queueCapacity} messages`,
    );
  }

  // ---- changes to queued messages ----------------------------------------------------------------------------

  /** `editQueuedMessage` validator: the new content follows the inbound rules (domain/inbound.ts). */
  validateEdit(edit: QueuedEdit): void {
    const problem =
      typeof edit !== 'object' || edit === null || typeof edit.messageId !== 'string'
        ? 'messageId must be a string'
        : inboundProblem({
            id: edit.messageId,
            content: edit.content,
            sender: '-',
            receivedAt: '1970-01-01',
          });
    if (problem) throw this.ports.fail('invalid_message', `invalid edit: ${problem}`);
  }

  /**
   * `editQueuedMessage`: replaces the stored content of a queued message, which its turn will read. A message a
   * turn already took (or that ended) is not changed (`started`).
   * @throws the update failure `input_persistence` when the edit could not be stored
   */
  async editQueued(edit: QueuedEdit): Promise<QueuedChangeResult> {
    if (!this.queue.isSeen(edit.messageId)) return { outcome: 'unknown' };
    if (this.queue.positionOf(edit.messageId) === null) return { outcome: 'started' };
    try {
      const { edited } = await this.ports.handlerWrites.editQueuedInput({
        sessionId: this.address.sessionId,
        messageId: edit.messageId,
        content: edit.content,
        editedAt: this.ports.now().toISOString(),
      });
      // The write is conditional on `pending_agent`: a claim that came first wins.
      return { outcome: edited ? 'edited' : 'started' };
    } catch {
      throw this.ports.fail('input_persistence', 'the edit could not be stored; the message is unchanged');
    }
  }

  /**
   * `withdrawQueuedMessage`: takes a queued message out of the queue (at once, so no turn can take it) and ends
   * it `interrupted` (`withdrawn`). When the write fails the message goes back to its place.
   * @throws the update failure `input_persistence` when the withdrawal could not be stored
   */
  async withdrawQueued(messageId: string): Promise<QueuedChangeResult> {
    if (typeof messageId !== 'string' || !this.queue.isSeen(messageId)) return { outcome: 'unknown' };
    const index = this.queue.positionOf(messageId);
    const item = this.queue.remove(messageId);
    if (index === null || item === null) return { outcome: 'started' };
    try {
      await this.ports.handlerWrites.withdrawQueuedInput({ sessionId: this.address.sessionId, messageId });
      this.showBusy();
      return { outcome: 'withdrawn' };
    } catch {
      this.queue.insertAt(index, item);
      throw this.ports.fail(
        'input_persistence',
        'the withdrawal could not be stored; the message stays queued',
      );
    }
  }

  // ---- commands --------------------------------------------------------------------------------------------

  /**
   * `/stop`: cancels the running turn, and every message admitted so far (queued or still being stored) will
   * end `interrupted` instead of running. @returns whether anything was running or waiting
   */
  stop(): { stopped: boolean } {
    const waiting = this.queue.length + this.reservedAt.size > 0;
    this.stopGeneration++;
    const running = this.cancelTurn('stop');
    return { stopped: running || waiting };
  }

  /**
   * Cancels the running turn and records the stop in Postgres, so that a model step finishing after it cannot
   * commit its answer (the stale-commit guard). The record is best effort: a failure is recorded, never thrown.
   */
  private cancelTurn(reason: 'stop' | 'interrupt'): boolean {
    const c = this.current;
    if (!c) return false;
    const first = c.stopReason === undefined;
    c.stopReason ??= reason;
    c.cancel();
    // A compaction turn's stop is recorded too: its summary commit is guarded like a model step's.
    if (first && (c.item.kind !== 'compaction' || this.ports.patched('stop-record-compaction'))) {
      const turnId = c.item.messageId;
      void this.ports.handlerWrites
        .requestStop({ sessionId: this.address.sessionId, turnId })
        .catch((err) => this.record('stop_record', turnId, err));
    }
    return true;
  }

  /** `compact` validator. */
  validateCompact(): void {
    if (!this.queue.hasRoom()) throw this.queueFull();
  }

  /** `compact`: stores and queues a manual compaction prompt. */
  async compact(): Promise<{ queued: boolean; message_id: string }> {
    const id = `compact-${this.ports.uuid()}`;
    this.reserve(id);
    try {
      const { message } = await this.ports.handlerWrites.createCompactionPrompt({
        address: this.address,
        id,
        receivedAt: this.ports.now().toISOString(),
      });
      this.queue.commit(message.id, true, 'compaction', this.reservedAt.get(id) ?? this.stopGeneration);
      this.reservedAt.delete(id);
      return { queued: true, message_id: message.id };
    } catch {
      this.queue.release(id);
      this.reservedAt.delete(id);
      throw this.ports.fail('input_persistence', 'the compaction request could not be stored');
    }
  }

  /** `setTitle` validator. */
  validateTitle(title: string): void {
    const problem = titleProblem(title);
    if (problem) throw this.ports.fail('invalid_message', problem);
  }

  /** `setTitle`: a user title wins over any automatic one, for good. */
  async setTitle(newTitle: string): Promise<{ title: string }> {
    const title = newTitle.trim();
    await this.settingWrite({ title });
    this.title = title;
    this.titleSource = 'user';
    this.showIdle();
    return { title };
  }

  /** `setMode` validator. */
  validateMode(mode: unknown): void {
    if (!isSessionMode(mode)) throw this.ports.fail('invalid_message', 'mode must be "interrupt" or "queue"');
  }

  async setMode(mode: SessionMode): Promise<{ mode: SessionMode }> {
    await this.settingWrite({ mode });
    this.mode = mode;
    this.showIdle();
    return { mode };
  }

  private async settingWrite(change: { title?: string; mode?: SessionMode }): Promise<void> {
    try {
      await this.ports.handlerWrites.updateSession({ sessionId: this.address.sessionId, ...change });
    } catch {
      throw this.ports.fail('input_persistence', 'the setting could not be stored; nothing changed');
    }
  }

  /** `decideApproval` validator: the call must be waiting, and not decided yet. */
  validateDecision(input: ApprovalDecisionInput): void {
    const problem = this.approvals.problemWith(input);
    if (problem)
      throw this.ports.fail(
        problem.kind === 'not_pending' ? 'approval_not_pending' : 'invalid_message',
        problem.message,
      );
  }

  /** `decideApproval`: takes the decision; the waiting turn records it and goes on. */
  decide(input: ApprovalDecisionInput): ApprovalDecisionResult {
    const d = this.approvals.decide(input);
    return { callId: d.callId, decision: d.decision, settling: this.approvals.settling() };
  }

  /** `titleChanged` signal from the title workflow: an automatic title, unless the user set one. */
  titleChanged(newTitle: string): void {
    if (typeof newTitle !== 'string' || this.titleSource === 'user') return;
    this.title = newTitle;
    this.titleSource = 'auto';
    this.showIdle();
  }

  /** `state` query. */
  state(): SessionState {
    const c = this.current;
    return {
      sessionId: this.address.sessionId,
      status: c ? 'processing' : 'idle',
      mode: this.mode,
      currentTurn: c ? { messageId: c.item.messageId, step: c.step, activity: c.activity } : null,
      queueLength: this.queue.length,
      title: this.title,
      titleSource: this.titleSource,
      turnCount: this.turnCount,
      recentProblems: [...this.recentProblems],
      pendingApprovals: this.approvals.list(),
    };
  }

  // ---- the turn loop -----------------------------------------------------------------------------------------

  /**
   * Reads the session back from Postgres when the run started without carried state: settings and turn count,
   * `pending_agent` inputs re-queued in arrival order (nothing accepted is lost), and inputs left `processing`
   * by a run that ended abnormally finished `interrupted` with a notice (what their turn did is unknown, so
   * they are not run again).
   */
  async restore(): Promise<void> {
    if (!this.restoring) return;
    // A restore that failed (its bounded retries spent, e.g. Postgres down) is tried again, without a bound and
    // before any turn runs: the inputs it would re-queue are otherwise never run. Each failure is recorded
    // (log, metric, `state`); histories recorded before this rule gave up after the first failure (the patch is
    // asked only on failure, so a restore that succeeds records no marker).
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await this.ports.turnWrites.restoreSession({ sessionId: this.address.sessionId });
          if (r.found) {
            this.mode = r.mode;
            if (this.titleSource !== 'user') [this.title, this.titleSource] = [r.title, r.titleSource];
            this.turnCount = r.turnCount;
          }
          // Commands an earlier run answered and kept when it ended (keepSeenCommands): older than any here.
          const kept = [...(r.seenCommands ?? []), ...this.seenCommands.values()];
          this.seenCommands.clear();
          for (const c of kept) this.seenCommands.set(c.updateId, c);
          this.trimSeenCommands();
          for (const item of r.queue) {
            if (this.queue.positionOf(item.messageId) === null) this.queue.restore({ ...item, gen: 0 });
          }
          for (const id of r.noticeIds) await this.deliverNotice(id, false);
          return;
        } catch (err) {
          this.record('restore', null, err);
          if (!this.ports.patched('restore-retried')) return;
          await this.ports.sleep(Math.min(5_000 * 2 ** Math.min(attempt, 10), RESTORE_RETRY_MAX_MS));
        }
      }
    } finally {
      this.restoring = false;
      this.markRestored();
      this.showIdle();
    }
  }

  /**
   * Before a run ends without continue-as-new (idle): keeps the command updates it answered in Postgres, for the
   * next run's {@link restore}. Best effort: a failure is recorded, never thrown (the run still ends).
   * @returns whether it wrote (it awaited an activity, so handlers may have run meanwhile); false when nothing
   *   answered since the last write
   */
  async keepSeenCommands(): Promise<boolean> {
    if (this.seenCommands.size === 0 || this.keptSeen === this.seenVersion) return false;
    if (!this.ports.patched(SEEN_COMMANDS_PATCH)) return false;
    const version = this.seenVersion;
    try {
      await this.ports.turnWrites.keepSeenCommands({
        sessionId: this.address.sessionId,
        commands: [...this.seenCommands.values()],
      });
    } catch (err) {
      this.record('keep_seen_commands', null, err);
    }
    this.keptSeen = version;
    return true;
  }

  /**
   * Takes the next item to run; items a `/stop` came after, and (interrupt mode) user items superseded by a
   * newer one, end `interrupted` first. @returns null when nothing is left to run
   */
  async next(): Promise<QueueItem | null> {
    const dropped = [
      ...this.queue.takeAdmittedBefore(this.stopGeneration),
      ...(this.mode === 'interrupt' ? this.queue.takeSupersededUserItems() : []),
    ];
    if (dropped.length > 0) {
      const messageIds = dropped.map((i) => i.messageId);
      await this.ports.turnWrites
        .supersede({ sessionId: this.address.sessionId, messageIds })
        .catch((err) => this.record('supersede', messageIds[0] ?? null, err));
    }
    return this.queue.shift() ?? null;
  }

  /** Waits for side work still running beside the session (the last typing-off), e.g. before continue-as-new. */
  async settleSideWork(): Promise<void> {
    if (this.typingOff) await this.typingOff;
  }

  /** Runs one turn in its own cancellation scope, then ends it (status, notices, typing) whatever happened. */
  async runTurn(
    item: QueueItem,
    opts: { resume?: TurnInput['resume']; shouldSuspend?: () => boolean } = {},
  ): Promise<'processed' | 'skipped' | 'interrupted' | 'error' | 'suspended'> {
    const shouldSuspend = opts.shouldSuspend ?? (() => false);
    const turn = this.ports.cancellable(() =>
      this.ports.runTurn({
        sessionId: this.address.sessionId,
        turnId: item.messageId,
        // A scheduled prompt or a background alert is answered like a user question (docs/message-model.md §5.4).
        kind: item.kind === 'compaction' ? 'compaction' : 'user',
        liveProgress: this.liveProgress,
        inlineDelivery: this.inlineDelivery,
        ...(this.modelLimits ? { modelLimits: this.modelLimits } : {}),
        onProgress: (p) => {
          if (this.current?.item !== item) return;
          this.current.step = p.step;
          this.current.activity = p.activity;
          this.showBusy();
        },
        stopRequested: () => this.current?.item === item && this.current.stopReason !== undefined,
        approvals: {
          desk: this.approvals,
          // A turn being stopped is never suspended: the stop ends it.
          shouldSuspend: () => this.current?.item === item && !this.current.stopReason && shouldSuspend(),
        },
        ...(opts.resume ? { resume: opts.resume } : {}),
        ...(this.typingOff ? { typingSettled: this.typingOff } : {}),
      }),
    );
    this.current = { item, step: 0, activity: 'starting', cancel: () => turn.cancel() };
    this.showBusy();
    try {
      const end = await turn.result;
      if (end.ended === 'processed' && end.turnCount !== undefined) this.turnCount = end.turnCount;
      else if (end.ended === 'processed') await this.finish(item, { outcome: 'processed' });
      return end.ended;
    } catch (err) {
      if (err instanceof TurnSuspended) {
        this.suspended = {
          item,
          step: err.step,
          turnStartedAt: err.turnStartedAt,
          nudges: err.nudges,
        };
        return 'suspended';
      }
      const outcome = this.outcomeOf(err);
      await this.ports.nonCancellable(() => this.finish(item, outcome));
      return outcome.outcome === 'interrupted' ? 'interrupted' : 'error';
    } finally {
      if (this.liveProgress) {
        const off = this.ports.nonCancellable(() => this.ports.endTyping());
        // Beside the next turn (whose typing-on waits for it), not before it.
        if (this.ports.patched(SIDE_WORK_PATCH)) this.typingOff = off.catch(() => undefined);
        else await off;
      }
      this.current = null;
      this.showIdle();
    }
  }

  /**
   * Resumes the turn the previous run suspended while it waited for approval; a `/stop` that came after the
   * suspension ends it `interrupted` instead.
   */
  async resume(
    s: SuspendedTurn,
    shouldSuspend: () => boolean,
  ): Promise<'processed' | 'skipped' | 'interrupted' | 'error' | 'suspended'> {
    if ((s.item.gen ?? 0) < this.stopGeneration) {
      for (const p of this.approvals.list())
        if (p.turnId === s.item.messageId) this.approvals.close(p.callId);
      await this.ports.nonCancellable(() => this.finish(s.item, { outcome: 'interrupted', reason: 'stop' }));
      return 'interrupted';
    }
    return this.runTurn(s.item, {
      resume: { step: s.step, turnStartedAt: s.turnStartedAt, nudges: s.nudges },
      shouldSuspend,
    });
  }

  private outcomeOf(err: unknown): TurnOutcome {
    if (this.ports.isCancellation(err))
      return { outcome: 'interrupted', reason: this.current?.stopReason ?? 'stop' };
    return this.ports.failureOutcome(err, this.current?.item.messageId ?? '');
  }

  /**
   * Ends a turn in Postgres and delivers what it owes the user: the turn's partial answer (if the model step
   * stored one), then the notice. A write or delivery that fails for good is recorded; the session goes on.
   */
  private async finish(item: QueueItem, result: TurnOutcome): Promise<void> {
    try {
      const r = await this.ports.turnWrites.finishTurn({
        sessionId: this.address.sessionId,
        turnId: item.messageId,
        result,
      });
      this.turnCount = r.turnCount;
      for (const id of r.partialIds ?? []) await this.deliverNotice(id, false);
      if (r.noticeId) await this.deliverNotice(r.noticeId, false);
    } catch (err) {
      this.record('finish_turn', item.messageId, err);
    }
  }

  /** Delivers a notice; a failure (after the bounded retries) is recorded, never thrown. */
  async deliverNotice(messageId: string, fromHandler: boolean): Promise<void> {
    try {
      await this.ports.deliverNotice(messageId, fromHandler);
    } catch (err) {
      this.record('notice_delivery', messageId, err);
    }
  }

  /** Records a problem for the `state` query and the Web UI (the newest {@link MAX_RECENT_PROBLEMS}). */
  record(what: SessionProblem['what'], messageId: string | null, err: unknown): void {
    const error = String((err as Error)?.message ?? err).slice(0, 300);
    this.ports.log.error('session problem', { what, messageId, error });
    this.ports.countProblem(what);
    this.recentProblems = [
      ...this.recentProblems,
      { what, messageId, error, at: this.ports.now().toISOString() },
    ].slice(-MAX_RECENT_PROBLEMS);
    if (!this.current) this.showIdle();
  }

  /**
   * Whether the title workflow should be (re)started: a user turn was processed, no title exists yet, and fewer
   * than {@link TITLE_ATTEMPTS_LIMIT} were started (a model that never gives a usable title is not asked after
   * every turn for the life of the session). A true answer counts as an attempt.
   */
  wantsTitle(item: QueueItem, ended: string): boolean {
    if (ended !== 'processed' || item.kind === 'compaction' || this.titleSource !== 'default') return false;
    if (this.titleAttempts >= TITLE_ATTEMPTS_LIMIT && this.ports.patched(TITLE_ATTEMPTS_PATCH)) return false;
    this.titleAttempts++;
    return true;
  }

  /**
   * True when Postgres holds all this session's state: no turn runs or waits, nothing is queued or being stored.
   * The run may then end without continue-as-new; the next run restores from Postgres.
   */
  holdsNothing(): boolean {
    return (
      this.current === null &&
      this.suspended === null &&
      this.queue.length === 0 &&
      this.reservedAt.size === 0 &&
      this.approvals.list().length === 0
    );
  }

  /** What continue-as-new carries. */
  carry(continueAsNewAfterTurns: number, idleEndS?: number): SessionWorkflowInput {
    return {
      ...this.address,
      mode: this.mode,
      queue: this.queue.items(),
      seenIds: this.queue.seenForCarry(),
      title: this.title,
      titleSource: this.titleSource,
      ...(this.titleAttempts > 0 && this.titleSource === 'default'
        ? { titleAttempts: this.titleAttempts }
        : {}),
      turnCount: this.turnCount,
      stopGeneration: this.stopGeneration,
      liveProgress: this.liveProgress,
      inlineDelivery: this.inlineDelivery,
      ...(this.modelLimits ? { modelLimits: this.modelLimits } : {}),
      continueAsNewAfterTurns,
      ...(this.suspended
        ? {
            suspendedTurn: this.suspended,
            pendingApprovals: this.approvals.list(),
            // Decisions that arrived after the turn was suspended (while this run was ending) go with it.
            pendingDecisions: this.approvals.unapplied(),
          }
        : {}),
      ...(idleEndS === undefined ? {} : { idleEndS }),
      ...(this.seenCommands.size > 0 ? { seenCommands: [...this.seenCommands.values()] } : {}),
    };
  }

  /**
   * Answers a command update (`stop`, `compact`, …) once per update id across runs: the server de-duplicates
   * update ids only within a run, so a client retrying across a continue-as-new would run the command twice.
   * @param updateId the update's id (absent outside an update: the command just runs)
   */
  async once<T>(name: string, updateId: string | undefined, run: () => T | Promise<T>): Promise<T> {
    if (updateId !== undefined) {
      // A run reading its state back may learn of this id from Postgres (kept by the run before it).
      if (this.restoring && this.ports.patched(SEEN_COMMANDS_PATCH)) await this.restored;
      const seen = this.seenCommands.get(updateId);
      if (seen && seen.name === name) return seen.result as T;
    }
    const result = await run();
    if (updateId !== undefined) {
      this.seenCommands.set(updateId, { updateId, name, result });
      this.seenVersion++;
      this.trimSeenCommands();
    }
    return result;
  }

  private trimSeenCommands(): void {
    while (this.seenCommands.size > SEEN_COMMANDS_LIMIT) {
      const oldest = this.seenCommands.keys().next().value;
      if (oldest === undefined) break;
      this.seenCommands.delete(oldest);
    }
  }

  showIdle(): void {
    if (this.current) return;
    const problem = this.recentProblems.at(-1);
    const tail = problem
      ? ` · last problem: ${problem.what} ${problem.messageId ?? ''} at ${problem.at}`
      : '';
    this.ports.show(
      'idle',
      `idle · ${this.title ?? this.address.sessionId} · ${this.turnCount} turns · mode ${this.mode}${tail}`,
    );
  }

  private showBusy(): void {
    const c = this.current;
    if (!c) return;
    this.ports.show(
      'processing',
      `turn ${c.item.messageId} · step ${c.step}: ${c.activity} · queue ${this.queue.length}`,
    );
  }
}

/**
 * The queue kind of an inbound message: a scheduled prompt (`cron`) and a background alert (`alert`) keep their
 * place and never interrupt.
 */
function queueKindOf(msg: InboundMessage): 'user' | 'cron' | 'alert' {
  if (msg.kind === 'cron') return 'cron';
  return msg.kind === 'background_alert' ? 'alert' : 'user';
}

/** The ApplicationFailure type in an activity failure's cause chain, if any. */
function failureTypeIn(err: unknown): string | null {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const type = (cur as { type?: unknown }).type;
    if (typeof type === 'string') return type;
    cur = (cur as { cause?: unknown }).cause;
  }
  return null;
}

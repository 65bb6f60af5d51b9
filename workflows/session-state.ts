/**
 * The session's state and every operation on it, as a plain class: the handlers in workflows/session.ts
 * delegate here, and the workflow body only loops and continues-as-new. Temporal is reached through
 * {@link SessionPorts} (session-ports.ts), so the rules can be unit-tested with fakes (session-state.test.ts
 * beside it). Two parts live in files of their own: admission (session-admission.ts: reserve, store, queue, the
 * stop generation) and the turn lifecycle (session-turns.ts: run, suspend, resume, finish, cancel a turn). This
 * class holds the settings, the commands, the restore, continue-as-new's carry, the problems and the status line.
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
import { LIMITS, inboundProblem, type InboundMessage } from '../domain/inbound.ts';
import {
  DEFAULT_SESSION_MODE,
  isSessionMode,
  titleProblem,
  type SessionMode,
  type TitleSource,
} from '../domain/session-settings.ts';
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
import { SessionQueue } from './session-queue.ts';
import { ApprovalDesk } from './approval-desk.ts';
import type { TurnInput } from './turn.ts';
import { SessionAdmission } from './session-admission.ts';
import type { SessionPorts } from './session-ports.ts';
import { TurnLifecycle, type CurrentTurn } from './session-turns.ts';

export type { Cancellable, SessionPorts } from './session-ports.ts';

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

export class SessionManager {
  readonly address: SessionAddress;
  readonly queue: SessionQueue;
  mode: SessionMode;
  title: string | null;
  titleSource: TitleSource;
  /** Title workflows started while the session had no title, carried across continue-as-new. */
  private titleAttempts: number;
  turnCount: number;
  readonly liveProgress: boolean;
  readonly inlineDelivery: boolean;
  readonly modelLimits: ModelStepLimits | undefined;
  /** True while the session's settings and open inputs are being read back from Postgres. */
  restoring: boolean;
  recentProblems: SessionProblem[] = [];
  /** Tool calls waiting for a person's decision (workflows/approvals.ts). */
  readonly approvals: ApprovalDesk;
  /** Reserve, store, queue; the stop generation (session-admission.ts). */
  readonly admission: SessionAdmission;
  /** The running and the suspended turn (session-turns.ts). */
  readonly turns: TurnLifecycle;
  /** Command updates answered (update id to answer), carried across continue-as-new (bounded). */
  private readonly seenCommands = new Map<string, SeenCommand>();
  /** Settles when {@link restore} has finished (at once for a run started with carried state). */
  private readonly restored: Promise<void>;
  private markRestored: () => void = () => undefined;
  /** Counts answers added to {@link seenCommands}; {@link keptSeen} is its value at the last keep. */
  private seenVersion = 0;
  private keptSeen = -1;

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
    this.admission = new SessionAdmission(this, ports, input.stopGeneration ?? 0);
    this.turns = new TurnLifecycle(this, ports);
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

  /** The running turn, or null. */
  get current(): CurrentTurn | null {
    return this.turns.current;
  }

  /** The turn suspended while it waited for approval, to carry into the next run. */
  get suspended(): SuspendedTurn | null {
    return this.turns.suspended;
  }

  set suspended(s: SuspendedTurn | null) {
    this.turns.suspended = s;
  }

  /** Increases with every `/stop`; an item admitted at a lower value is not run. */
  get stopGeneration(): number {
    return this.admission.stopGeneration;
  }

  // ---- admission -------------------------------------------------------------------------------------------

  /** `submitMessage` validator: shape and capacity (duplicates pass, they answer with the stored message). */
  validateSubmit(msg: InboundMessage): void {
    this.admission.validateSubmit(msg);
  }

  /** `submitMessage`: stores and queues a message. @throws the update failures `id_taken`, `input_persistence` */
  submit(msg: InboundMessage): Promise<SubmitResult> {
    return this.admission.submit(msg);
  }

  /** `userMessage` signal in runs that refuse it: logged, nothing stored or queued. */
  refuseSignal(msg: InboundMessage): void {
    this.admission.refuseSignal(msg);
  }

  /** `userMessage` signal in runs started before it was refused: like {@link submit}, failures only logged. */
  receiveSignal(msg: InboundMessage): Promise<void> {
    return this.admission.receiveSignal(msg);
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
    const waiting = this.admission.stopAdmitted();
    const running = this.turns.cancel('stop');
    return { stopped: running || waiting };
  }

  /** `compact` validator. */
  validateCompact(): void {
    this.admission.validateCompact();
  }

  /** `compact`: stores and queues a manual compaction prompt. */
  compact(): Promise<{ queued: boolean; message_id: string }> {
    return this.admission.compact();
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
  settleSideWork(): Promise<void> {
    return this.turns.settleSideWork();
  }

  /** Runs one turn in its own cancellation scope, then ends it (status, notices, typing) whatever happened. */
  runTurn(
    item: QueueItem,
    opts: { resume?: TurnInput['resume']; shouldSuspend?: () => boolean } = {},
  ): Promise<'processed' | 'skipped' | 'interrupted' | 'error' | 'suspended'> {
    return this.turns.run(item, opts);
  }

  /** Resumes the turn the previous run suspended while it waited for approval (or ends it, after a `/stop`). */
  resume(
    s: SuspendedTurn,
    shouldSuspend: () => boolean,
  ): Promise<'processed' | 'skipped' | 'interrupted' | 'error' | 'suspended'> {
    return this.turns.resume(s, shouldSuspend);
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
      this.admission.storing === 0 &&
      this.approvals.list().length === 0
    );
  }

  /** What continue-as-new carries. */
  carry(
    continueAsNewAfterTurns: number,
    continueAsNewAfterEvents: number,
    idleEndS?: number,
  ): SessionWorkflowInput {
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
      continueAsNewAfterEvents,
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

  /** Shows the idle session's title, turns, mode and last problem (nothing while a turn runs). */
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

  /** Shows the running turn's step and activity, and the queue's length. */
  showBusy(): void {
    const c = this.current;
    if (!c) return;
    this.ports.show(
      'processing',
      `turn ${c.item.messageId} · step ${c.step}: ${c.activity} · queue ${this.queue.length}`,
    );
  }
}

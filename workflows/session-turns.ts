/**
 * The turn lifecycle of a session: the running turn (`current`), run in its own cancellation scope and ended
 * whatever happened (status, partial answer and notice, typing off); a turn suspended while it waits for
 * approval, and its resumption in the next run; cancelling the running turn for `/stop` or an interrupt.
 * The session (workflows/session-state.ts) owns the settings, the problems and the status line; this part reports
 * to it through {@link TurnHost}.
 */
import type { TurnOutcome } from './activity-contracts.ts';
import type { ModelStepLimits } from '../domain/model-limits.ts';
import type { QueueItem, SessionAddress, SessionProblem, SuspendedTurn } from './definitions.ts';
import { TurnSuspended, type ApprovalDesk } from './approval-desk.ts';
import type { SessionPorts } from './session-ports.ts';
import { SIDE_WORK_PATCH, type TurnInput } from './turn.ts';

/** The running turn. */
export interface CurrentTurn {
  item: QueueItem;
  step: number;
  activity: string;
  stopReason?: 'stop' | 'interrupt';
  cancel(): void;
}

/** What a turn needs of its session. */
export interface TurnHost {
  readonly address: SessionAddress;
  readonly approvals: ApprovalDesk;
  readonly liveProgress: boolean;
  readonly inlineDelivery: boolean;
  readonly modelLimits: ModelStepLimits | undefined;
  /** Items admitted at a lower value than this were stopped (session-admission.ts). */
  readonly stopGeneration: number;
  turnCount: number;
  record(what: SessionProblem['what'], messageId: string | null, err: unknown): void;
  deliverNotice(messageId: string, fromHandler: boolean): Promise<void>;
  showBusy(): void;
  showIdle(): void;
}

/** The running turn, the suspended one, and how a turn starts, ends and is cancelled. */
export class TurnLifecycle {
  current: CurrentTurn | null = null;
  /** The turn suspended while it waited for approval, to carry into the next run (set by {@link run}). */
  suspended: SuspendedTurn | null = null;
  /** The last turn's typing-off, running beside the next turn (see SIDE_WORK_PATCH); settled before the run ends. */
  private typingOff: Promise<void> | null = null;

  private readonly session: TurnHost;
  private readonly ports: SessionPorts;

  constructor(session: TurnHost, ports: SessionPorts) {
    this.session = session;
    this.ports = ports;
  }

  /**
   * Cancels the running turn and records the stop in Postgres, so that a model step finishing after it cannot
   * commit its answer (the stale-commit guard). The record is best effort: a failure is recorded, never thrown.
   */
  cancel(reason: 'stop' | 'interrupt'): boolean {
    const c = this.current;
    if (!c) return false;
    const first = c.stopReason === undefined;
    c.stopReason ??= reason;
    c.cancel();
    // A compaction turn's stop is recorded too: its summary commit is guarded like a model step's.
    if (first && (c.item.kind !== 'compaction' || this.ports.patched('stop-record-compaction'))) {
      const turnId = c.item.messageId;
      void this.ports.handlerWrites
        .requestStop({ sessionId: this.session.address.sessionId, turnId })
        .catch((err) => this.session.record('stop_record', turnId, err));
    }
    return true;
  }

  /** Waits for side work still running beside the session (the last typing-off), e.g. before continue-as-new. */
  async settleSideWork(): Promise<void> {
    if (this.typingOff) await this.typingOff;
  }

  /** Runs one turn in its own cancellation scope, then ends it (status, notices, typing) whatever happened. */
  async run(
    item: QueueItem,
    opts: { resume?: TurnInput['resume']; shouldSuspend?: () => boolean } = {},
  ): Promise<'processed' | 'skipped' | 'interrupted' | 'error' | 'suspended'> {
    const shouldSuspend = opts.shouldSuspend ?? (() => false);
    const turn = this.ports.cancellable(() =>
      this.ports.runTurn({
        sessionId: this.session.address.sessionId,
        turnId: item.messageId,
        // A scheduled prompt or a background alert is answered like a user question (docs/message-model.md §5.4).
        kind: item.kind === 'compaction' ? 'compaction' : 'user',
        liveProgress: this.session.liveProgress,
        inlineDelivery: this.session.inlineDelivery,
        ...(this.session.modelLimits ? { modelLimits: this.session.modelLimits } : {}),
        onProgress: (p) => {
          if (this.current?.item !== item) return;
          this.current.step = p.step;
          this.current.activity = p.activity;
          this.session.showBusy();
        },
        stopRequested: () => this.current?.item === item && this.current.stopReason !== undefined,
        approvals: {
          desk: this.session.approvals,
          // A turn being stopped is never suspended: the stop ends it.
          shouldSuspend: () => this.current?.item === item && !this.current.stopReason && shouldSuspend(),
        },
        ...(opts.resume ? { resume: opts.resume } : {}),
        ...(this.typingOff ? { typingSettled: this.typingOff } : {}),
      }),
    );
    this.current = { item, step: 0, activity: 'starting', cancel: () => turn.cancel() };
    this.session.showBusy();
    let typingEnded = false;
    try {
      const end = await turn.result;
      typingEnded = end.typingEnded === true;
      if (end.ended === 'processed' && end.turnCount !== undefined) this.session.turnCount = end.turnCount;
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
      if (typingEnded) this.typingOff = null;
      else if (this.session.liveProgress) {
        const off = this.ports.nonCancellable(() => this.ports.endTyping());
        // Beside the next turn (whose typing-on waits for it), not before it.
        if (this.ports.patched(SIDE_WORK_PATCH)) this.typingOff = off.catch(() => undefined);
        else await off;
      }
      this.current = null;
      this.session.showIdle();
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
    if ((s.item.gen ?? 0) < this.session.stopGeneration) {
      for (const p of this.session.approvals.list())
        if (p.turnId === s.item.messageId) this.session.approvals.close(p.callId);
      await this.ports.nonCancellable(() => this.finish(s.item, { outcome: 'interrupted', reason: 'stop' }));
      return 'interrupted';
    }
    return this.run(s.item, {
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
        sessionId: this.session.address.sessionId,
        turnId: item.messageId,
        result,
      });
      this.session.turnCount = r.turnCount;
      for (const id of r.partialIds ?? []) await this.session.deliverNotice(id, false);
      if (r.noticeId) await this.session.deliverNotice(r.noticeId, false);
    } catch (err) {
      this.session.record('finish_turn', item.messageId, err);
    }
  }
}

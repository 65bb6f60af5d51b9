/**
 * One turn: model step → tools (in parallel) → model step → … → final reply → delivery. Runs inside the
 * session's cancellation scope for this turn; the cleanup after a cancellation or a failure is the session's
 * (workflows/session-state.ts).
 */
import * as wf from '@temporalio/workflow';
import type { StepOutcome } from './activity-contracts.ts';
import {
  inlineReplyDelivery,
  modelCalls,
  progress,
  replyDelivery,
  toolRuns,
  turnWrites,
} from './activity-options.ts';
import { TurnFailure, call } from './turn-failure.ts';
import { APPROVAL_IN_STEP_PATCH, gateToolCalls } from './approvals.ts';
import type { ApprovalDesk } from './approval-desk.ts';
import { toolLabel } from '../domain/tool-label.ts';
import type { ModelStepLimits } from '../domain/model-limits.ts';
import { MAX_PARALLEL_TOOL_CALLS } from '../domain/tool-limits.ts';

/**
 * Patch: the turn's side work runs beside it instead of before what the user waits for — the typing indicator
 * beside the first model step (after the previous turn's typing-off), the progress of a step's tool results beside
 * the next model step; the session ends typing and starts the title beside the next turn (workflows/session.ts).
 */
export const SIDE_WORK_PATCH = 'side-work-off-critical-path';

/**
 * Patch: a final reply delivered by activity (a live channel) ends its turn in the delivery's own transaction
 * and then ends the typing indicator (DeliveryActivities.deliverMessage `endsTurn`), so the session runs neither
 * `finishTurn` nor `signalActivity` after it. A delivery whose result carries no turn count (a
 * client-acknowledged channel) leaves both to the session as before.
 */
export const DELIVERY_ENDS_TURN_PATCH = 'delivery-ends-turn';

/** Hard ceiling on steps inside the workflow; the model activity applies the configured bound below it. */
const MAX_STEPS_HARD = 256;
/** Empty-reply nudges per turn before the turn fails: at most twice. */
export const MAX_NUDGES = 2;

/** What the running turn reports for the `state` query and the Web UI's current details. */
export interface TurnProgress {
  step: number;
  activity: string;
}

export interface TurnInput {
  sessionId: string;
  turnId: string;
  kind: 'user' | 'compaction';
  /** The channel renders thoughts and tool calls live: they are pushed per step. */
  liveProgress: boolean;
  /** The session's sink is a database write: deliveries run as local activities, final replies inline. */
  inlineDelivery: boolean;
  onProgress(p: TurnProgress): void;
  /**
   * True once `/stop` or an interrupt asked this turn to end. A model step that finishes after that is stale:
   * its answer is neither delivered nor followed by tools.
   */
  stopRequested(): boolean;
  /** Tool-call approvals of the session (workflows/approvals.ts); absent: every call runs without asking. */
  approvals?: {
    desk: ApprovalDesk;
    /** True when the run should continue-as-new: a turn still waiting for approval is then suspended. */
    shouldSuspend(): boolean;
  };
  /** Time limits of the model steps (from the model settings); absent: those of the default settings. */
  modelLimits?: ModelStepLimits;
  /** Resume a turn suspended while it waited for approval (carried across continue-as-new). */
  resume?: { step: number; turnStartedAt: number; nudges: number };
  /**
   * Settles when the previous turn's typing-off is done (with {@link SIDE_WORK_PATCH}): this turn's typing-on waits
   * for it, so the indicator never ends up off while the turn runs.
   */
  typingSettled?: Promise<void>;
}

/**
 * The side work of one turn: with {@link SIDE_WORK_PATCH} it runs beside the turn (in order among itself) and is
 * settled before the turn returns; without, each piece is awaited where it starts, as before.
 */
class SideWork {
  private chain: Promise<void> = Promise.resolve();
  private readonly beside: boolean;
  constructor(beside: boolean) {
    this.beside = beside;
  }

  /** Runs `fn` after the side work started before it; awaited here unless it runs beside the turn. */
  async add(fn: () => Promise<void>): Promise<void> {
    if (!this.beside) return await fn();
    this.chain = this.chain.catch(() => undefined).then(fn);
  }

  /** Waits for every piece started so far; a failure or cancellation of side work is not the turn's. */
  async settled(): Promise<void> {
    await this.chain.catch(() => undefined);
  }
}

/** How a turn that was not cancelled and did not fail ended. */
export interface TurnEnd {
  ended: 'processed' | 'skipped';
  /**
   * Set when the turn is already ended in Postgres (the model step's inline completion, or the final reply's
   * delivery with {@link DELIVERY_ENDS_TURN_PATCH}): the session's new turn count.
   */
  turnCount?: number;
  /** True when the delivery that ended the turn also ended the channel's typing indicator. */
  typingEnded?: boolean;
}

/**
 * Runs one turn to its delivered final reply. A user turn is claimed by its first model step; a compaction
 * turn by a claim of its own.
 * @returns `processed` when the reply was delivered, `skipped` when the trigger had already ended
 * @throws TurnFailure for failures the session presents; cancellation (also a stale step after a stop)
 *   propagates as a CancelledFailure
 */
export async function runTurn(t: TurnInput): Promise<TurnEnd> {
  const side = new SideWork(wf.patched(SIDE_WORK_PATCH));
  try {
    if (t.kind === 'compaction') return await runCompaction(t, side);
    await startTyping(t, side);
    return await runSteps(t, side);
  } finally {
    await side.settled();
  }
}

/** Starts the typing indicator, after the previous turn's typing-off. */
async function startTyping(t: TurnInput, side: SideWork): Promise<void> {
  const typingSettled = t.typingSettled;
  await side.add(async () => {
    if (typingSettled) await typingSettled;
    await showTyping(t, true);
  });
}

/** The model steps and tool runs of a user turn, see {@link runTurn}. */
async function runSteps(t: TurnInput, side: SideWork): Promise<TurnEnd> {
  const turnStartedAt = t.resume?.turnStartedAt ?? Date.now();
  let nudges = t.resume?.nudges ?? 0;
  for (let step = t.resume?.step ?? 0; step < MAX_STEPS_HARD; step++) {
    t.onProgress({ step, activity: 'thinking' });
    const outcome = await modelStep(t, step, turnStartedAt, nudges < MAX_NUDGES);
    if (outcome.kind === 'skipped') return { ended: 'skipped' };
    // What the channel shows keeps its order: the last step's results before this step's notices and reply.
    if (outcome.kind !== 'tool_calls') await side.settled();
    for (const noticeId of outcome.noticeIds ?? []) await deliverReply(t, noticeId);
    if (outcome.kind === 'final') {
      if (outcome.finished) return { ended: 'processed', turnCount: outcome.finished.turnCount };
      const endsTurn = wf.patched(DELIVERY_ENDS_TURN_PATCH) ? t.turnId : undefined;
      const { turnCount } = await deliverReply(t, outcome.replyId, endsTurn);
      return turnCount === undefined
        ? { ended: 'processed' }
        : { ended: 'processed', turnCount, typingEnded: true };
    }
    if (outcome.kind === 'empty') {
      if (++nudges > MAX_NUDGES) throw new TurnFailure('provider', 'empty');
      continue;
    }
    await runTools(t, step, outcome, { turnStartedAt, nudges }, side);
  }
  throw new TurnFailure('provider', 'step_limit');
}

/**
 * One model step, with at most one context-overflow recovery (the step is run again with `recovery`, which
 * compacts first through the same preparation path). A step that ends after a stop is stale: it throws a
 * CancelledFailure so that nothing of it is delivered.
 */
async function modelStep(
  t: TurnInput,
  step: number,
  turnStartedAt: number,
  canNudge: boolean,
): Promise<StepOutcome> {
  const run = (recovery: boolean) =>
    call(() =>
      modelCalls(t.modelLimits).runModelStep({
        sessionId: t.sessionId,
        turnId: t.turnId,
        step,
        recovery,
        turnStartedAt,
        canNudge,
        claim: step === 0,
        completeInline: t.inlineDelivery,
      }),
    );
  let outcome: StepOutcome;
  try {
    outcome = await run(false);
  } catch (err) {
    // A step that failed after a stop (e.g. its commit was refused as stale) ends the turn as stopped.
    if (t.stopRequested() && !wf.isCancellation(err))
      throw new wf.CancelledFailure('the turn was stopped while its model step ran');
    if (!(err instanceof TurnFailure && err.detail === 'context_overflow')) throw err;
    outcome = await run(true);
  }
  if (t.stopRequested() && !(outcome.kind === 'final' && outcome.finished)) {
    throw new wf.CancelledFailure('the turn was stopped while its model step ran; the step is stale');
  }
  return outcome;
}

/**
 * Runs a step's tool calls in parallel, in a cancellation scope of their own: when one fails for good the
 * others are cancelled (their process groups killed) and awaited before the turn fails, so no tool of a failed
 * turn keeps running; the calls left without a result end `interrupted`. `/stop` cancels the turn's scope,
 * which reaches every call.
 */
async function runTools(
  t: TurnInput,
  step: number,
  outcome: Extract<StepOutcome, { kind: 'tool_calls' }>,
  position: { turnStartedAt: number; nudges: number },
  side: SideWork,
): Promise<void> {
  const activity = [...new Set(outcome.calls.map((c) => toolLabel(c.name)))].join(', ');
  t.onProgress({ step, activity });
  if (t.liveProgress) {
    const shown = [
      ...(outcome.thoughtId ? [outcome.thoughtId] : []),
      ...outcome.calls.map((c) => c.messageId),
    ];
    // After the previous step's results (side work), before this step's approval asks and tools.
    await side.settled();
    await presentProgress(t, shown);
  }
  let toRun = outcome.calls;
  const refused: { resultId: string }[] = [];
  // Calls that need a person wait here, before any tool activity is scheduled (workflows/approvals.ts).
  if (t.approvals && wf.patched('tool-approval')) {
    const gate = await gateToolCalls({
      sessionId: t.sessionId,
      turnId: t.turnId,
      step,
      calls: outcome.calls,
      desk: t.approvals.desk,
      shouldSuspend: t.approvals.shouldSuspend,
      position,
      onWaiting: (waiting) => t.onProgress({ step, activity: waiting }),
      // A history whose step result carries the check but whose run did not take it replays without the patch.
      ...(outcome.approvals && wf.patched(APPROVAL_IN_STEP_PATCH) ? { checked: outcome.approvals } : {}),
    });
    toRun = outcome.calls.filter((c) => gate.run.includes(c.messageId));
    refused.push(...gate.refused);
    t.onProgress({ step, activity });
  }
  const scope = new wf.CancellationScope();
  const tools = toolRuns();
  // At most MAX_PARALLEL_TOOL_CALLS of the step at once (the others wait their turn, in order); a step with
  // fewer calls schedules them all at once, as before the cap.
  const capped = toRun.length > MAX_PARALLEL_TOOL_CALLS && wf.patched('tool-call-cap');
  const slots = capped ? new StepSlots(MAX_PARALLEL_TOOL_CALLS) : null;
  const runOne = async (c: { messageId: string; name: string }) => {
    if (slots) await slots.acquire();
    try {
      return await call(
        () =>
          // The summary names the tool (an MCP tool by server and tool) in the Web UI's event history.
          tools.runToolCall.executeWithOptions({ summary: toolLabel(c.name) }, [
            { sessionId: t.sessionId, turnId: t.turnId, toolCallMessageId: c.messageId },
          ]),
        'tool',
      );
    } finally {
      slots?.release();
    }
  };
  const runs = toRun.map((c) => scope.run(() => runOne(c)));
  let firstFailure: unknown = null;
  for (const r of runs) {
    r.catch((err: unknown) => {
      if (firstFailure === null && !wf.isCancellation(err)) {
        firstFailure = err;
        scope.cancel();
      }
    });
  }
  const settled = await Promise.allSettled(runs);
  if (firstFailure !== null) throw firstFailure;
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  const results = [
    ...refused,
    ...settled.map((s) => (s as PromiseFulfilledResult<{ resultId: string }>).value),
  ];
  if (t.liveProgress) {
    const resultIds = results.map((r) => r.resultId);
    // Beside the next model step (with the patch): the channel shows the results while the model works.
    await side.add(() => presentProgress(t, resultIds));
  }
}

/**
 * A counting semaphore for the tool calls of one step: `acquire` resolves at once while fewer than `size` run,
 * else when one ends (first come, first served); it rejects when the caller's cancellation scope is cancelled.
 */
class StepSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    let grant!: () => void;
    const granted = new Promise<void>((resolve) => (grant = resolve));
    this.waiting.push(grant);
    try {
      await Promise.race([granted, wf.CancellationScope.current().cancelRequested]);
    } catch (err) {
      const i = this.waiting.indexOf(grant);
      if (i >= 0) this.waiting.splice(i, 1);
      else this.release(); // granted in the same activation as the cancel: hand the slot on
      throw err;
    }
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

/** A `/compact` turn: claims the manual compaction prompt, then runs the compaction and delivers its summary. */
async function runCompaction(t: TurnInput, side: SideWork): Promise<TurnEnd> {
  // The claim is outside the turn's cancellation: cancelling a local activity that is about to resolve can make
  // the SDK core fail the workflow task; a /stop that arrives now takes effect at the next activity.
  const claim = await wf.CancellationScope.nonCancellable(() =>
    turnWrites.claimTurn({ sessionId: t.sessionId, messageId: t.turnId }),
  );
  if (!claim.claimed) return { ended: 'skipped' };
  const turnStartedAt = Date.now();
  await startTyping(t, side);
  t.onProgress({ step: 0, activity: 'compacting history' });
  let replyId: string;
  try {
    ({ replyId } = await call(() =>
      modelCalls(t.modelLimits).compactSession({ sessionId: t.sessionId, turnId: t.turnId, turnStartedAt }),
    ));
  } catch (err) {
    // A compaction that failed after a stop (its commit refused as stale) ends the turn as stopped.
    if (t.stopRequested() && !wf.isCancellation(err))
      throw new wf.CancelledFailure('the compaction was stopped while it ran');
    throw err;
  }
  if (t.stopRequested()) throw new wf.CancelledFailure('the compaction was stopped; its summary is stale');
  await side.settled(); // the typing indicator is on before the summary shows
  await deliverReply(t, replyId);
  return { ended: 'processed' };
}

/**
 * Delivers a committed reply. Once the answer exists and the turn was not stopped, it is delivered whatever
 * happens next, so this runs outside the turn's cancellation: cancelled turns never drop or duplicate a
 * committed body. `endsTurn`: the turn this final reply ends in the delivery's transaction.
 * @returns the session's turn count when the delivery ended the turn
 */
export async function deliverReply(
  t: Pick<TurnInput, 'sessionId' | 'inlineDelivery'>,
  replyId: string,
  endsTurn?: string,
): Promise<{ turnCount?: number }> {
  const d = t.inlineDelivery ? inlineReplyDelivery : replyDelivery;
  const r = await wf.CancellationScope.nonCancellable(() =>
    call(
      () =>
        d.deliverMessage({
          sessionId: t.sessionId,
          messageId: replyId,
          ...(endsTurn === undefined ? {} : { endsTurn }),
        }),
      'delivery',
    ),
  );
  return r.turnCount === undefined ? {} : { turnCount: r.turnCount };
}

/** Pushes intermediate messages to a live channel; best effort (a failure is logged, the turn goes on). */
async function presentProgress(t: TurnInput, messageIds: string[]): Promise<void> {
  await progress.presentProgress({ sessionId: t.sessionId, messageIds }).catch((err: unknown) => {
    if (wf.isCancellation(err)) throw err;
    wf.log.warn('progress not presented', { turnId: t.turnId, error: String(err) });
  });
}

/** Starts or ends the typing indicator of a live channel; best effort, never cancelled. */
export async function showTyping(
  t: Pick<TurnInput, 'sessionId' | 'liveProgress'>,
  active: boolean,
): Promise<void> {
  if (!t.liveProgress) return;
  await wf.CancellationScope.nonCancellable(() =>
    progress
      .signalActivity({ sessionId: t.sessionId, active })
      .catch((err: unknown) => wf.log.info('typing indicator not changed', { error: String(err) })),
  );
}

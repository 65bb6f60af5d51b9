/**
 * One turn (DESIGN.md "A turn"): claim → model step → tools (in parallel) → … → final reply → delivery.
 * Runs inside the session's cancellation scope for this turn; cleanup after cancellation or failure is the
 * session workflow's (workflows/session.ts).
 */
import * as wf from '@temporalio/workflow';
import type { DeliveryActivities, ModelActivities, PersistenceActivities, ToolActivities } from '../activities/contracts.ts';
import { failureType, parseFailureType, type TurnFailureKind } from '../domain/failures.ts';

/**
 * Short database writes in handlers, retried quickly and briefly because a caller is waiting for the update's
 * answer (a 503 is better than a long hang). First local activities; since HANDLER_ACTIVITIES_PATCH normal
 * activities (see {@link handlerPersistence}).
 */
export const persistence = wf.proxyLocalActivities<PersistenceActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 5 },
});

const persistenceRemote = wf.proxyActivities<PersistenceActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 5 },
});

/** Patch id of the change that moved handler writes from local to normal activities. */
export const HANDLER_ACTIVITIES_PATCH = 'handler-writes-normal-activities';

/**
 * The persistence proxy for update and signal handlers. Local activities in handlers that run concurrently
 * with each other and with the turn loop made the SDK core fail workflow tasks ("Update machine does not
 * handle this event: UpsertWorkflowSearchAttributes" on replay) when many messages arrived at once: with
 * normal activities the order of commands comes from history, not from when a local activity finished.
 */
export function handlerPersistence(): typeof persistence {
  return wf.patched(HANDLER_ACTIVITIES_PATCH) ? persistenceRemote : persistence;
}

/**
 * Writes of the turn itself (claim, final status, cleanup) must eventually succeed: Postgres may be down for a
 * while, and the turn simply waits for it. They retry without limit.
 */
export const persistenceDurable = wf.proxyLocalActivities<PersistenceActivities>({
  startToCloseTimeout: '10 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

const model = wf.proxyActivities<ModelActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    // Database outages (context_preparation, turn_persistence) get up to 10 attempts (~4 minutes); the activity
    // itself stops retrying provider failures after PROVIDER_MAX_ATTEMPTS.
    maximumAttempts: 10,
    nonRetryableErrorTypes: [
      'provider:auth',
      'provider:bad_request',
      'provider:context_overflow',
      'agent_creation',
    ],
  },
});

const tools = wf.proxyActivities<ToolActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '10 seconds',
  cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/** Delivery retries for about ten minutes before the turn fails with kind `delivery`. */
export const delivery = wf.proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 25 },
});

/** Deliveries to inline sinks (a database write, see INLINE_DELIVERY_CHATBOTS) run as local activities. */
const deliveryLocal = wf.proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 25 },
});

/** Notices to inline sinks, retried without limit like {@link deliveryCleanup}. */
export const deliveryLocalCleanup = wf.proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '60 seconds' },
});

/** Patch id of the change that made inline deliveries local activities (histories before it replay unpatched). */
export const INLINE_DELIVERY_PATCH = 'inline-delivery-local-activity';

/** The delivery proxy for a session: local for inline sinks (once the patch applies), else a normal activity. */
export function deliveryFor(inline: boolean): typeof delivery {
  return inline && wf.patched(INLINE_DELIVERY_PATCH) ? deliveryLocal : delivery;
}

/** Cleanup deliveries (notices) retry without limit: a notice is owed once the turn ended. */
export const deliveryCleanup = wf.proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '60 seconds' },
});

/** Hard ceiling on steps inside the workflow; the model activity applies the configured bound below it. */
const MAX_STEPS_HARD = 256;
/** Empty-reply nudges per turn before the turn fails (issue 4 item 4: "at most twice"). */
export const MAX_NUDGES = 2;

/** A failure the session maps to a crash notice. */
export class TurnFailure extends Error {
  readonly kind: TurnFailureKind;
  readonly detail?: string;
  /** `cause` is the failure it was derived from (an ActivityFailure and its chain), for the operator's log. */
  constructor(kind: TurnFailureKind, detail?: string, cause?: unknown) {
    super(detail ? `${kind}: ${detail}` : kind, cause === undefined ? undefined : { cause });
    this.name = 'TurnFailure';
    this.kind = kind;
    this.detail = detail;
  }
}

/** What the running turn reports for the `state` query and the Web UI's current details. */
export interface TurnProgress {
  step: number;
  activity: string;
}

export interface TurnInput {
  sessionId: string;
  turnId: string;
  kind: 'user' | 'compaction';
  /** Channels that render thoughts and tool calls live (Discord, Google Chat) get them pushed per step. */
  liveProgress: boolean;
  /** The session's sink is a database write (the REST API): deliveries run as local activities. */
  inlineDelivery: boolean;
  onProgress(p: TurnProgress): void;
}

/** Patch id of the leaner user turn: claim inside the first model step, inline completion for inline sinks. */
export const FAST_TURN_PATCH = 'fast-turn-v1';

/** How a turn that was not cancelled and did not fail ended. */
export interface TurnEnd {
  ended: 'processed' | 'skipped';
  /** Set when the model step already finished the turn (inline completion): the session's new turn count. */
  turnCount?: number;
}

/**
 * Runs one turn to its delivered final reply.
 * @returns `processed` when the reply was delivered, `skipped` when the trigger had already ended
 * @throws TurnFailure for failures the session presents; cancellation propagates as a CancelledFailure
 */
export async function runTurn(t: TurnInput): Promise<TurnEnd> {
  // Since FAST_TURN_PATCH a user turn is claimed by its first model step (one activity fewer per turn).
  const fast = t.kind === 'user' && wf.patched(FAST_TURN_PATCH);
  if (!fast) {
    const claim = await claimTurn(t);
    if (!claim.claimed) return { ended: 'skipped' };
    if (claim.kind === 'compaction') return runCompaction(t, Date.now());
  }
  const turnStartedAt = Date.now();
  if (t.liveProgress) await delivery.signalActivity({ sessionId: t.sessionId, active: true });

  let recovery = false;
  let recovered = false;
  let nudges = 0;
  for (let step = 0; step < MAX_STEPS_HARD; step++) {
    t.onProgress({ step, activity: 'thinking' });
    let outcome;
    try {
      outcome = await call(() =>
        model.runModelStep({
          sessionId: t.sessionId,
          turnId: t.turnId,
          step,
          recovery,
          turnStartedAt,
          canNudge: nudges < MAX_NUDGES,
          ...(fast ? { claim: step === 0, completeInline: t.inlineDelivery } : {}),
        }),
      );
    } catch (err) {
      // Seed 2 §7.2: at most one context-overflow recovery per turn, through the same preparation path.
      if (err instanceof TurnFailure && err.detail === 'context_overflow' && !recovered) {
        recovered = true;
        recovery = true;
        step--;
        continue;
      }
      throw err;
    }
    recovery = false;
    if (outcome.kind === 'skipped') return { ended: 'skipped' };
    for (const noticeId of outcome.noticeIds ?? []) await deliverReply(t, noticeId);
    if (outcome.kind === 'final') {
      if (outcome.finished) return { ended: 'processed', turnCount: outcome.finished.turnCount };
      await deliverReply(t, outcome.replyId);
      return { ended: 'processed' };
    }
    if (outcome.kind === 'empty') {
      nudges++;
      if (nudges > MAX_NUDGES) throw new TurnFailure('provider', 'empty');
      continue;
    }
    const names = [...new Set(outcome.calls.map((c) => c.name))].join(', ');
    t.onProgress({ step, activity: names });
    if (t.liveProgress) {
      const shown = [...(outcome.thoughtId ? [outcome.thoughtId] : []), ...outcome.calls.map((c) => c.messageId)];
      await delivery.presentProgress({ sessionId: t.sessionId, messageIds: shown });
    }
    const results = await Promise.all(
      outcome.calls.map((c) =>
        call(() => tools.runToolCall({ sessionId: t.sessionId, turnId: t.turnId, toolCallMessageId: c.messageId }), 'tool'),
      ),
    );
    if (t.liveProgress) await delivery.presentProgress({ sessionId: t.sessionId, messageIds: results.map((r) => r.resultId) });
  }
  throw new TurnFailure('provider', 'step_limit');
}

/** A `/compact` turn: the manual compaction prompt's turn (seed 1 §3 "手动压缩提问"). */
async function runCompaction(t: TurnInput, turnStartedAt: number): Promise<TurnEnd> {
  if (t.liveProgress) await delivery.signalActivity({ sessionId: t.sessionId, active: true });
  t.onProgress({ step: 0, activity: 'compacting history' });
  const { replyId } = await call(() => model.compactSession({ sessionId: t.sessionId, turnId: t.turnId, turnStartedAt }));
  await deliverReply(t, replyId);
  return { ended: 'processed' };
}

/** Patch id of the change that made the claim immune to the turn's cancellation. */
export const CLAIM_NON_CANCELLABLE_PATCH = 'claim-non-cancellable';

/**
 * Claims the trigger (a short local activity). It runs outside the turn's cancellation: cancelling a local
 * activity that is about to resolve can make the SDK core fail the workflow task with "Invalid transition in
 * state machine" (seen with two messages arriving while a turn was being claimed); a /stop or interrupt that
 * arrives now takes effect at the next step instead.
 */
async function claimTurn(t: TurnInput): Promise<{ claimed: boolean; kind: 'user' | 'compaction' }> {
  const claim = () => persistenceDurable.claimTurn({ sessionId: t.sessionId, messageId: t.turnId });
  return wf.patched(CLAIM_NON_CANCELLABLE_PATCH) ? wf.CancellationScope.nonCancellable(claim) : claim();
}

/**
 * Delivers a committed reply. Once the answer exists it is delivered whatever happens next: a /stop or a new
 * message arriving now cannot leave a finished reply undelivered (seed 2 §5.2: cancelled turns never
 * duplicate or drop a committed body), so this runs outside the turn's cancellation.
 */
async function deliverReply(t: TurnInput, replyId: string): Promise<void> {
  const d = deliveryFor(t.inlineDelivery);
  await wf.CancellationScope.nonCancellable(() => call(() => d.deliverMessage({ sessionId: t.sessionId, messageId: replyId }), 'delivery'));
}

/**
 * Runs an activity call and turns its failure into a {@link TurnFailure} with the kind the activity reported
 * (ApplicationFailure type, domain/failures.ts), or `fallback` when it reported none (e.g. a timeout).
 * Cancellation passes through untouched.
 */
async function call<T>(fn: () => Promise<T>, fallback: TurnFailureKind = 'provider'): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (wf.isCancellation(err)) throw err;
    throw toTurnFailure(err, fallback);
  }
}

/** Finds the failure kind in an ActivityFailure's cause chain. */
export function toTurnFailure(err: unknown, fallback: TurnFailureKind): TurnFailure {
  if (err instanceof TurnFailure) return err;
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof wf.ApplicationFailure) {
      const parsed = parseFailureType(cur.type);
      if (parsed) return new TurnFailure(parsed.kind, parsed.detail, err);
    }
    if (cur instanceof wf.TimeoutFailure) return new TurnFailure(fallback, fallback === 'provider' ? 'timeout' : undefined, err);
    cur = (cur as { cause?: unknown }).cause;
  }
  return new TurnFailure(fallback, undefined, err);
}

/**
 * The failure chain of `err` as one line for the operator's log, e.g.
 * `ActivityFailure: Activity task failed <- TimeoutFailure: activity Heartbeat timeout`. At most 6 links.
 */
export function describeFailureChain(err: unknown): string {
  const links: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 6; depth++) {
    links.push(cur instanceof Error ? `${cur.name}: ${cur.message}` : String(cur));
    cur = (cur as { cause?: unknown }).cause;
  }
  return links.join(' <- ');
}

export { failureType };

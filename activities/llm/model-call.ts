/**
 * One streamed model call inside an activity: heartbeats, cancellation, batched token deltas over NOTIFY
 * (db/notify.ts), a single retry in a plainer form when the provider refuses the conversation, and the mapping
 * of provider errors onto the activity's retry policy.
 */
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MAX_EVENT_TEXT, publishTurnEvent } from '../../db/notify.ts';
import { callBudgetMs } from '../../domain/model-limits.ts';
import type { ProviderInput } from '../../domain/provider-messages.ts';
import { ModelCallError } from './errors.ts';
import {
  PROVIDER_MAX_ATTEMPTS,
  asModelCallError,
  providerFailure,
  requireLlm,
  type ModelDeps,
} from './model-deps.ts';
import { streamModelStep, type LlmConfig, type ModelStepResult, type ModelToolSpec } from './provider.ts';

/**
 * Models (provider, base URL, model) that refused a request until past tool flows were sent as plain text:
 * this worker sends them the plainer history from the start. In memory only; a restart learns it again.
 */
const plainHistoryModels = new Set<string>();
const modelKey = (llm: LlmConfig) => `${llm.provider}|${llm.baseUrl ?? ''}|${llm.model}`;

/** True when this worker learned that the model needs the plainer history (see {@link callModel} `fallback`). */
export function prefersPlainHistory(llm: LlmConfig): boolean {
  return plainHistoryModels.has(modelKey(llm));
}

/** Where a call is in its turn, for events and logs. */
export interface CallPosition {
  sessionId: string;
  turnId: string;
  step: number;
}

export interface CallOptions {
  /**
   * When the provider refuses the request as bad (HTTP 400) and this returns an input, the call is made once
   * more with it (a plainer form of the same conversation, see activities/llm/prepare.ts).
   */
  fallback?: () => Promise<ProviderInput | null>;
  /**
   * Called with the answer text streamed so far when the call is cancelled (a stop or an interrupt), before
   * the cancellation is reported; it stores the partial reply.
   */
  onCancelled?: (text: string) => Promise<void>;
}

/**
 * Batches streamed text into turn `delta` events of at most {@link MAX_EVENT_TEXT} characters, and keeps the
 * whole answer streamed so far (for a partial reply). Events are published one after the other (never two
 * NOTIFYs in flight, so listeners get them in order), each with its character `offset` in the stream and the
 * stream's id (the activity attempt, with a suffix once the call {@link restart}s), so a listener can tell a
 * continuation from a new stream and knows when it missed a part (api/live-turns.ts).
 */
class DeltaPublisher {
  private buffer = '';
  streamed = '';
  private published = 0;
  private readonly attempt: number;
  private restarts = 0;
  private sending: Promise<void> = Promise.resolve();
  private readonly deps: ModelDeps;
  private readonly at: CallPosition;
  constructor(deps: ModelDeps, at: CallPosition, attempt: number) {
    this.deps = deps;
    this.at = at;
    this.attempt = attempt;
  }

  push(delta: string): void {
    this.streamed += delta;
    this.buffer += delta;
    if (this.buffer.length >= MAX_EVENT_TEXT) this.flush();
  }

  /** A new stream of the same step (the call is made again): its text starts from nothing. */
  restart(): void {
    this.flush();
    this.streamed = '';
    this.published = 0;
    this.restarts += 1;
  }

  flush(): void {
    if (!this.buffer) return;
    const text = this.buffer.slice(0, MAX_EVENT_TEXT);
    this.buffer = this.buffer.slice(text.length);
    const { sessionId: s, turnId: t, step } = this.at;
    const stream = this.restarts === 0 ? String(this.attempt) : `${this.attempt}.${this.restarts}`;
    const event = { s, t, type: 'delta' as const, step, text, offset: this.published, stream };
    this.published += text.length;
    this.sending = this.sending.then(() => publishTurnEvent(this.deps.pool, event)).catch(() => undefined);
  }
}

/**
 * Runs a model call with heartbeats, cancellation and batched delta publishing; maps errors to failures.
 * @throws CancelledFailure when the activity was cancelled (after `onCancelled` stored the partial answer)
 * @throws ApplicationFailure `provider:<kind>`, non-retryable from attempt {@link PROVIDER_MAX_ATTEMPTS} on
 */
export async function callModel(
  deps: ModelDeps,
  at: CallPosition,
  input: ProviderInput,
  tools: readonly ModelToolSpec[],
  opts: CallOptions = {},
): Promise<ModelStepResult> {
  const llm = requireLlm(deps);
  const ctx = Context.current();
  const deltas = new DeltaPublisher(deps, at, ctx.info.attempt);
  // The call ends itself before the attempt's start-to-close timeout would, keeping time for the commit: a
  // timeout Temporal enforces would retry the step and pay for the same answer again.
  const budgetMs = callBudgetMs(ctx.info.startToCloseTimeoutMs, Date.now() - attemptStartedAt(ctx));
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(() => deadline.abort(), budgetMs);
  const signal = AbortSignal.any([ctx.cancellationSignal, deadline.signal]);
  const beat = setInterval(() => {
    ctx.heartbeat({ step: at.step });
    deltas.flush();
  }, deps.deltaIntervalMs ?? 100);
  try {
    void publishTurnEvent(deps.pool, {
      s: at.sessionId,
      t: at.turnId,
      type: 'status',
      status: 'thinking',
      step: at.step,
    }).catch(() => undefined);
    return await streamWithFallback(deps, llm, at, input, tools, deltas, signal, opts.fallback);
  } catch (err) {
    if (deadline.signal.aborted && !ctx.cancellationSignal.aborted) {
      const e = new ModelCallError({
        kind: 'timeout',
        detail: `the model call did not finish within ${Math.round(budgetMs / 1000)} s`,
      });
      deps.logger.warn({ ...at, kind: e.kind, detail: e.detail }, 'model call stopped at its time limit');
      throw providerFailure(e, { nonRetryable: true });
    }
    if (ctx.cancellationSignal.aborted) {
      clearInterval(beat);
      deltas.flush();
      await keepPartialAnswer(deps, at, deltas.streamed, opts.onCancelled);
      throw new CancelledFailure('model call cancelled');
    }
    const e = asModelCallError(err);
    deps.logger.warn({ ...at, kind: e.kind, status: e.status, detail: e.detail }, 'model call failed');
    throw providerFailure(e, {
      nonRetryable: !e.retryable || ctx.info.attempt >= PROVIDER_MAX_ATTEMPTS,
      nextRetryDelayMs: e.retryAfterMs,
    });
  } finally {
    clearTimeout(deadlineTimer);
    clearInterval(beat);
    deltas.flush();
  }
}

/** When each running attempt made its first model call (worker clock), for {@link callBudgetMs}. */
const attemptStarts = new WeakMap<Context, number>();
function attemptStartedAt(ctx: Context): number {
  let at = attemptStarts.get(ctx);
  if (at === undefined) attemptStarts.set(ctx, (at = Date.now()));
  return at;
}

/** Streams the call; on a bad-request refusal, once more with the plainer input `fallback` gives (if any). */
async function streamWithFallback(
  deps: ModelDeps,
  llm: LlmConfig,
  at: CallPosition,
  input: ProviderInput,
  tools: readonly ModelToolSpec[],
  deltas: DeltaPublisher,
  signal: AbortSignal,
  fallback: CallOptions['fallback'],
): Promise<ModelStepResult> {
  const stream = (attemptInput: ProviderInput) =>
    streamModelStep(llm, attemptInput, [...tools], { signal, onTextDelta: (d) => deltas.push(d) });
  try {
    return await stream(input);
  } catch (err) {
    if (!(err instanceof ModelCallError) || err.kind !== 'bad_request' || !fallback || signal.aborted)
      throw err;
    const plainer = await fallback();
    if (plainer === null) throw err;
    deps.logger.warn(
      { ...at, detail: err.detail },
      'the provider refused the request; trying once more with a plainer history',
    );
    deltas.restart();
    const result = await stream(plainer);
    plainHistoryModels.add(modelKey(llm));
    return result;
  }
}

/**
 * Stores the answer streamed before a cancellation. Only a cancellation the workflow asked for (a stop or an
 * interrupt) keeps the partial answer; a worker shutdown or a heartbeat timeout is followed by a retry of the
 * whole step. A failure to store it is logged, not thrown: the cancellation is what the workflow waits for.
 */
async function keepPartialAnswer(
  deps: ModelDeps,
  at: CallPosition,
  streamed: string,
  onCancelled: CallOptions['onCancelled'],
): Promise<void> {
  const requested = Context.current().cancellationDetails?.cancelRequested === true;
  if (streamed.trim() === '' || !onCancelled || !requested) return;
  try {
    await onCancelled(streamed);
  } catch (e) {
    deps.logger.warn({ ...at, err: String(e) }, 'the partial reply could not be stored');
  }
}

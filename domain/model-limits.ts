/**
 * Time limits of a model step, derived from the model settings so that they agree by construction: the model
 * activity stops a call itself before its attempt's start-to-close timeout (and reports a timeout the workflow
 * does not retry), so that timeout only fires for a worker that died or hung; and a step, all its attempts
 * together, is bounded. Pure: the session client computes them from the configuration and the workflow passes
 * them on as activity options (workflows/activity-options.ts).
 */

/**
 * Longest time one model call may keep streaming once it answers, in ms: a long reasoning answer fits; a stream
 * that runs longer is cut and fails the step as a provider timeout.
 */
export const MODEL_GENERATION_MS = 10 * 60_000;

/** Time kept in each attempt for what is not the model call (claim, preparation, the commit retried in place), in ms. */
export const MODEL_STEP_MARGIN_MS = 2 * 60_000;

/** How long the model activity retries committing a step's answer in place before the attempt fails, in ms. */
export const MODEL_COMMIT_RETRY_MS = 30_000;

/** Heartbeat timeout of the model activity, in ms (it heartbeats every 100 ms from a timer). */
export const MODEL_HEARTBEAT_TIMEOUT_MS = 60_000;

/** Provider attempts per step (429, 5xx, inactivity timeouts); later attempts are for database outages only. */
export const PROVIDER_MAX_ATTEMPTS = 4;

/** The time limits of a model step's activity. */
export interface ModelStepLimits {
  /** Start-to-close timeout of one attempt, in ms. */
  attemptMs: number;
  /** Schedule-to-close timeout: all attempts of one step together, retries and backoff included, in ms. */
  totalMs: number;
}

/**
 * The limits for a model whose calls fail after `requestTimeoutMs` without output (`KESOKU_LLM_TIMEOUT_MS`).
 * One call lasts at most its wait for the first output plus {@link MODEL_GENERATION_MS}; an attempt holds two
 * calls (the one retry in a plainer form, or a compaction before the step) plus {@link MODEL_STEP_MARGIN_MS}.
 * The total allows one whole attempt again (a worker that died mid-call) and every provider attempt's
 * inactivity wait. Defaults (120 s): 26 min per attempt, 60 min per step.
 */
export function modelStepLimits(requestTimeoutMs: number): ModelStepLimits {
  const callMs = requestTimeoutMs + MODEL_GENERATION_MS;
  const attemptMs = 2 * callMs + MODEL_STEP_MARGIN_MS;
  return { attemptMs, totalMs: 2 * attemptMs + PROVIDER_MAX_ATTEMPTS * requestTimeoutMs };
}

/** The limits for the default `KESOKU_LLM_TIMEOUT_MS` (120 s): what a run started without limits uses. */
export const DEFAULT_MODEL_STEP_LIMITS: ModelStepLimits = modelStepLimits(120_000);

/**
 * The longest one model call may take within an attempt that started `elapsedMs` ago with `attemptMs` to run,
 * in ms: what is left before the margin kept for committing its answer. Never below 1 s.
 */
export function callBudgetMs(attemptMs: number, elapsedMs: number): number {
  return Math.max(1000, attemptMs - elapsedMs - MODEL_STEP_MARGIN_MS / 2);
}

/**
 * The activity time limits agree with the settings they come from: a model step's attempt outlasts two calls of
 * the configured model (the longest inactivity wait plus generation) and the step as a whole is bounded; a tool's
 * heartbeat timeout is generous next to its heartbeat interval and the largest heartbeat throttle a worker may
 * be given, so a stalled event loop or one slow heartbeat does not time a running command out.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_STEP_LIMITS,
  MODEL_GENERATION_MS,
  MODEL_STEP_MARGIN_MS,
  PROVIDER_MAX_ATTEMPTS,
  callBudgetMs,
  modelStepLimits,
} from './model-limits.ts';
import {
  MAX_HEARTBEAT_THROTTLE_MS,
  TOOL_HEARTBEAT_INTERVAL_MS,
  TOOL_HEARTBEAT_TIMEOUT_S,
} from './tool-limits.ts';

/** The largest values infra/config.ts accepts for the settings the limits depend on. */
const MAX_LLM_TIMEOUT_MS = 3_600_000;
const MAX_HEARTBEAT_THROTTLE_SETTING_MS = 8_000;

describe('model step limits', () => {
  it.each([1_000, 120_000, MAX_LLM_TIMEOUT_MS])(
    'an attempt holds two calls of a model timing out after %i ms, and the step is bounded',
    (requestTimeoutMs) => {
      const { attemptMs, totalMs } = modelStepLimits(requestTimeoutMs);
      expect(attemptMs).toBeGreaterThanOrEqual(2 * (requestTimeoutMs + MODEL_GENERATION_MS));
      // The call budget the activity gives itself ends before the attempt's timeout.
      expect(callBudgetMs(attemptMs, 0)).toBeLessThan(attemptMs);
      expect(callBudgetMs(attemptMs, 0)).toBeGreaterThanOrEqual(2 * requestTimeoutMs);
      expect(totalMs).toBeGreaterThanOrEqual(attemptMs + PROVIDER_MAX_ATTEMPTS * requestTimeoutMs);
      expect(Number.isFinite(totalMs)).toBe(true);
    },
  );

  it('the defaults are those of the default model timeout', () => {
    expect(DEFAULT_MODEL_STEP_LIMITS).toEqual(modelStepLimits(120_000));
    expect(DEFAULT_MODEL_STEP_LIMITS.attemptMs).toBe(26 * 60_000);
    expect(callBudgetMs(60_000, 59_000)).toBe(1000);
    expect(MODEL_STEP_MARGIN_MS).toBeGreaterThan(0);
  });
});

describe('tool heartbeats', () => {
  it('time out only after many missed beats, and never within the largest throttle a worker may use', () => {
    const timeoutMs = TOOL_HEARTBEAT_TIMEOUT_S * 1000;
    expect(timeoutMs).toBeGreaterThanOrEqual(30 * TOOL_HEARTBEAT_INTERVAL_MS);
    expect(timeoutMs).toBeGreaterThanOrEqual(4 * MAX_HEARTBEAT_THROTTLE_SETTING_MS);
    expect(MAX_HEARTBEAT_THROTTLE_MS).toBeLessThanOrEqual(timeoutMs / 4);
  });
});

/**
 * What the model activities share: their dependencies, the deterministic ids of a step's messages, the address
 * a turn's messages are written to, and the mapping of a failed model call onto an activity failure.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { failureType } from '../../domain/failures.ts';
import type { Message } from '../../domain/message.ts';
import type { SharedScope } from '../../domain/people.ts';
import type { SkillSummary } from '../../domain/prompts.ts';
import type { ApprovalJudge } from '../approvals.ts';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import { ModelCallError } from './errors.ts';
import type { LlmConfig, ModelToolSpec } from './provider.ts';

/**
 * Attempts of one model step for provider failures (429, 5xx, timeouts): the workflow's retry policy allows more
 * attempts, for database outages, so the activity marks the failure non-retryable from this attempt on.
 */
export { PROVIDER_MAX_ATTEMPTS } from '../../domain/model-limits.ts';

export interface ModelDeps {
  pool: Pool;
  logger: Logger;
  /** Null when the model is not configured: every call then fails with kind `agent_creation`. */
  llm: LlmConfig | null;
  tools: readonly ModelToolSpec[];
  /** Tools offered besides `tools` in a session's steps (the MCP servers', activities/mcp/tools.ts); never throws. */
  extraTools?: (sessionId: string) => Promise<readonly ModelToolSpec[]>;
  /** Steps per turn; the last one is offered no tools, so the model must answer. */
  maxSteps: number;
  /** Estimated prompt tokens above which history is compacted before the call. */
  compactTokens: number;
  /** Where a session's workspace lives, for the system prompt. */
  workspaceDirFor(sessionId: string): string;
  /** Delta batching interval in ms (default 100). */
  deltaIntervalMs?: number;
  /** How long a step's commit is retried in place, in ms (default MODEL_COMMIT_RETRY_MS, 30 s). */
  commitRetryMs?: number;
  /** Skills listed in the system prompt (activities/knowledge/skills.ts); none by default. */
  skills?: readonly SkillSummary[];
  /** Sessions and channels with a shared memory scope (KESOKU_MEMORY_SHARED_SCOPES, domain/people.ts); none by default. */
  sharedMemoryScopes?: ReadonlySet<SharedScope>;
  /**
   * The worker's approval rules (activities/approvals.ts): a step judges its tool calls as it stores them, so a
   * step none of whose calls waits for a person needs no `requestApprovals` activity. Absent: the workflow's
   * approval activity checks every tool step.
   */
  approvals?: ApprovalJudge;
}

/** The tools a step of `sessionId` offers: `tools`, then `extraTools`. */
export async function offeredTools(deps: ModelDeps, sessionId: string): Promise<readonly ModelToolSpec[]> {
  return deps.extraTools ? [...deps.tools, ...(await deps.extraTools(sessionId))] : deps.tools;
}

/** Deterministic ids of a step's messages, so a retried step cannot write twice. */
export const stepIds = {
  thought: (turnId: string, step: number) => `${turnId}:s${step}:thought`,
  call: (turnId: string, step: number, i: number) => `${turnId}:s${step}:call${i}`,
  reply: (turnId: string, step: number) => `${turnId}:s${step}:reply`,
  nudge: (turnId: string, step: number) => `${turnId}:s${step}:nudge`,
  compactPrompt: (turnId: string, step: number) => `${turnId}:s${step}:compact`,
  compactSummary: (turnId: string, step: number) => `${turnId}:s${step}:summary`,
  compactNotice: (turnId: string, step: number) => `${turnId}:s${step}:compacted`,
};

/**
 * The model's configuration.
 * @throws ApplicationFailure `agent_creation` (non-retryable) when the model is not configured
 */
export function requireLlm(deps: ModelDeps): LlmConfig {
  if (!deps.llm) {
    throw ApplicationFailure.nonRetryable(
      'the model is not configured (KESOKU_LLM_*)',
      failureType('agent_creation'),
    );
  }
  return deps.llm;
}

/**
 * Where the messages of a turn go: the trigger's chatbot and channel; a turn without a stored trigger (or one
 * started through the API) is addressed to the `api` chatbot on the session's own channel.
 */
export function turnAddress(trigger: Message | null, sessionId: string) {
  return {
    session_id: sessionId,
    chatbot_id: trigger?.chatbot_id ?? 'api',
    channel_id: trigger?.channel_id ?? sessionId,
  };
}

/** Any error of a model call as a {@link ModelCallError}; an unclassified one counts as a network failure. */
export function asModelCallError(err: unknown): ModelCallError {
  return err instanceof ModelCallError ? err : new ModelCallError({ kind: 'network', cause: err });
}

/**
 * The activity failure for a failed model call: type `provider:<kind>` (domain/failures.ts), retried when the
 * provider error is retryable and `nonRetryable` is not forced, after `nextRetryDelayMs` when the provider
 * said how long to wait.
 */
export function providerFailure(
  e: ModelCallError,
  opts: { nonRetryable: boolean; nextRetryDelayMs?: number },
): ApplicationFailure {
  return ApplicationFailure.create({
    message: e.message,
    type: failureType('provider', e.kind),
    nonRetryable: opts.nonRetryable,
    nextRetryDelay: opts.nextRetryDelayMs,
  });
}

/**
 * Runs `work` (a commit of what the model answered), again after a failure a retry may fix, with backoff from
 * 250 ms to 5 s, for up to `forMs` ms, logging `what` with `fields` at each retry: the answer is kept and only the
 * write is tried again, without asking the model a second time.
 * @throws the failure when time is up or the activity was cancelled; a non-retryable ApplicationFailure (a
 *   stopped turn) at once
 */
export async function retryCommitInPlace<T>(
  deps: Pick<ModelDeps, 'logger'>,
  o: { forMs: number; what: string; fields: Record<string, unknown> },
  work: () => Promise<T>,
): Promise<T> {
  const ctx = Context.current();
  const deadline = Date.now() + o.forMs;
  for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
    try {
      return await work();
    } catch (err) {
      const final = err instanceof ApplicationFailure && err.nonRetryable;
      if (final || Date.now() + wait > deadline || ctx.cancellationSignal.aborted) throw err;
      deps.logger.warn({ ...o.fields, err: String(err) }, `${o.what} not stored yet; trying again`);
      await sleep(wait);
    }
  }
}

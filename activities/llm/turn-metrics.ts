/** The `turn_metrics` of a turn's final reply (docs/message-model.md §3), counted when the reply is written. */
import type { TurnMetrics } from '../../domain/message.ts';
import { countTurnToolCalls, turnTokenTotals } from '../../db/messages.ts';
import type { Pool } from '../../db/pool.ts';
import { getSession } from '../../db/sessions.ts';
import type { ModelStepResult } from './provider.ts';

/**
 * The metrics of the turn of trigger `turnId`, the reply of `result` included.
 * - `turnStartedAt`: epoch ms when the turn started; without it `turn_time` is 0. `turn_time` is in seconds.
 * - `contextTokens`: the estimated prompt size of the call that produced `result`.
 */
export async function turnMetrics(
  pool: Pool,
  sessionId: string,
  turnId: string,
  turnStartedAt: number | undefined,
  result: ModelStepResult,
  contextTokens: number,
): Promise<TurnMetrics> {
  const [session, totals, toolCalls] = await Promise.all([
    getSession(pool, sessionId),
    turnTokenTotals(pool, turnId),
    countTurnToolCalls(pool, turnId),
  ]);
  return {
    session_turns: (session?.turn_count ?? 0) + 1,
    context_tokens: contextTokens,
    turn_tool_calls: toolCalls,
    turn_tokens: totals.tokens + result.usage.inputTokens + result.usage.outputTokens,
    turn_time: turnStartedAt ? Math.round((Date.now() - turnStartedAt) / 100) / 10 : 0,
  };
}

/** The metrics of a reply that no model call produced (e.g. "nothing to compact"). */
export const NO_TURN_METRICS: TurnMetrics = {
  session_turns: 0,
  context_tokens: 0,
  turn_tool_calls: 0,
  turn_tokens: 0,
  turn_time: 0,
};

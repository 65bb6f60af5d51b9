/**
 * Compaction: the history before a turn is summarised into a compaction prompt + summary pair
 * (docs/message-model.md §3 "手动压缩提问"), automatically when the context grows too large or manually for a
 * `/compact` turn. The summary's `compacted_through_seq` bounds what later steps read (db/messages.ts
 * `loadModelHistory`).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ModelActivities } from '../contracts.ts';
import { buildCleanHistory, estimateTokens, selectCompactionCut } from '../../domain/clean-history.ts';
import { finalReply, manualCompactionPrompt, type NewMessage } from '../../domain/factories.ts';
import { failureType } from '../../domain/failures.ts';
import type { Message } from '../../domain/message.ts';
import { AUTO_COMPACTION_PROMPT, systemPrompt } from '../../domain/prompts.ts';
import type { ProviderInput } from '../../domain/provider-messages.ts';
import { toProviderInput } from '../../domain/transpile.ts';
import { commit, getMessage, listSessionMessages, type StatusChange } from '../../db/messages.ts';
import { recordModelTokens } from '../../infra/metrics.ts';
import { callModel } from './model-call.ts';
import { requireLlm, stepIds, turnAddress, type ModelDeps } from './model-deps.ts';
import { NO_TURN_METRICS, turnMetrics } from './turn-metrics.ts';

/**
 * Which compaction to run.
 * - `keepFromTurnId`: the turn whose history stays whole; everything before its cut is summarised.
 * - `triggerId` / `summaryId`: ids of the compaction prompt and of the summary reply.
 * - `auto`: automatic compaction stores its own prompt and marks the summary delivered (it is context, not a
 *   reply); a manual `/compact` turn passes its trigger as `triggerId`.
 * - `turnStartedAt`: epoch ms, for the summary's `turn_time`.
 */
export interface CompactionRequest {
  keepFromTurnId: string;
  triggerId: string;
  summaryId: string;
  step: number;
  auto: boolean;
  turnStartedAt?: number;
}

/**
 * Summarises the history before `keepFromTurnId`. Idempotent: a retry that finds the summary stored does nothing.
 * @returns false when there was nothing to compact
 * @throws ApplicationFailure `provider:<kind>` from the model call, `turn_persistence` when the pair could not
 *   be stored
 */
export async function compact(
  deps: ModelDeps,
  sessionId: string,
  history: Message[],
  req: CompactionRequest,
): Promise<boolean> {
  if (await getMessage(deps.pool, req.summaryId)) return true; // a retried activity: already compacted
  const cut = selectCompactionCut(history, req.keepFromTurnId);
  if (cut === null) return false;
  const trigger = await getMessage(deps.pool, req.keepFromTurnId);
  const promptText = req.auto ? AUTO_COMPACTION_PROMPT : (trigger?.content ?? AUTO_COMPACTION_PROMPT);
  const input = summaryInput(deps, sessionId, history, cut, promptText);
  const result = await callModel(deps, { sessionId, turnId: req.triggerId, step: req.step }, input, []);
  recordModelTokens(result.usage.inputTokens, result.usage.outputTokens);
  const metrics = await turnMetrics(
    deps.pool,
    sessionId,
    req.triggerId,
    req.turnStartedAt,
    result,
    estimateTokens(JSON.stringify(input)),
  );
  const address = turnAddress(trigger, sessionId);
  const insert: NewMessage[] = [];
  const transitions: StatusChange[] = [];
  if (req.auto) {
    insert.push({
      ...manualCompactionPrompt({ id: req.triggerId, ...address }),
      content: AUTO_COMPACTION_PROMPT,
    });
    transitions.push({ id: req.triggerId, to: 'processing' }, { id: req.triggerId, to: 'processed' });
  }
  insert.push(
    finalReply({
      id: req.summaryId,
      ...address,
      turn_id: req.triggerId,
      step: req.step,
      content: result.text.trim() || '(empty summary)',
      turn_metrics: metrics,
      compacted_through_seq: cut,
    }),
  );
  // An automatic summary is context for the model, not a reply: it is marked delivered without being sent.
  if (req.auto) transitions.push({ id: req.summaryId, to: 'delivered' });
  await storeCompaction(deps, sessionId, insert, transitions);
  return true;
}

/** The model input that asks for the summary: the clean history up to `cut` (seq) and the compaction prompt. */
function summaryInput(
  deps: ModelDeps,
  sessionId: string,
  history: Message[],
  cut: number,
  promptText: string,
): ProviderInput {
  const older = buildCleanHistory(
    history.filter((m) => m.seq <= cut || m.turn_id === null),
    { currentTurnId: null },
  ).filter((m) => m.seq <= cut);
  const base = toProviderInput(
    older,
    systemPrompt({ workspaceDir: deps.workspaceDirFor(sessionId), now: new Date().toISOString(), tools: [] }),
  );
  return { system: base.system, messages: [...base.messages, { role: 'user', content: promptText }] };
}

async function storeCompaction(
  deps: ModelDeps,
  sessionId: string,
  insert: NewMessage[],
  transitions: StatusChange[],
): Promise<void> {
  try {
    await commit(deps.pool, sessionId, { insert, transitions });
  } catch (err) {
    deps.logger.error({ sessionId, err: String(err) }, 'compaction could not be stored');
    throw ApplicationFailure.retryable('the compaction could not be saved', failureType('turn_persistence'));
  }
}

/** The manual compaction turn (`/compact`), see {@link ModelActivities.compactSession}. */
export async function compactSession(
  deps: ModelDeps,
  { sessionId, turnId, turnStartedAt }: Parameters<ModelActivities['compactSession']>[0],
): ReturnType<ModelActivities['compactSession']> {
  requireLlm(deps);
  const history = await listSessionMessages(deps.pool, sessionId);
  const summaryId = stepIds.compactSummary(turnId, 0);
  const compacted = await compact(deps, sessionId, history, {
    keepFromTurnId: turnId,
    triggerId: turnId,
    summaryId,
    step: 0,
    auto: false,
    turnStartedAt,
  });
  if (!compacted) {
    // Nothing to compact: answer the /compact request with a short reply instead.
    const trigger = await getMessage(deps.pool, turnId);
    const reply = finalReply({
      id: summaryId,
      ...turnAddress(trigger, sessionId),
      turn_id: turnId,
      step: 0,
      content: 'Nothing to compact yet.',
      turn_metrics: { ...NO_TURN_METRICS },
    });
    await commit(deps.pool, sessionId, { insert: [reply] });
  }
  return { replyId: summaryId };
}

/**
 * Compaction: the history before a turn is summarised into a compaction prompt + summary pair
 * (docs/message-model.md §3 "手动压缩提问"), automatically when the context grows too large or manually for a
 * `/compact` turn. The summary's `compacted_through_seq` bounds what later steps read (db/messages.ts
 * `loadModelHistory`).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelActivities } from '../../workflows/activity-contracts.ts';
import {
  buildCleanHistory,
  estimateTokens,
  findCompaction,
  selectCompactionCut,
} from '../../domain/clean-history.ts';
import { finalReply, manualCompactionPrompt, type NewMessage } from '../../domain/factories.ts';
import { failureType } from '../../domain/failures.ts';
import type { Message, TurnMetrics } from '../../domain/message.ts';
import { AUTO_COMPACTION_PROMPT, systemPrompt } from '../../domain/prompts.ts';
import type { ProviderInput } from '../../domain/provider-messages.ts';
import { toProviderInput } from '../../domain/transpile.ts';
import {
  CompactionBaseMovedError,
  StaleTurnError,
  commit,
  compactionBaseOf,
  getMessage,
  listSessionMessages,
  type StatusChange,
} from '../../db/messages.ts';
import { recordModelTokens } from '../../infra/metrics.ts';
import { callModel } from './model-call.ts';
import { requireLlm, retryCommitInPlace, stepIds, turnAddress, type ModelDeps } from './model-deps.ts';
import type { ModelStepResult } from './provider.ts';
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

/** How long a failed commit of a compaction is tried again in place before the activity fails (ms). */
export const COMPACTION_COMMIT_RETRY_MS = 30_000;

/**
 * The heartbeat checkpoint of a compaction whose model answered: an activity retry after a failed commit
 * commits this answer and never asks the model again (a second, paid and different summary). `base` is the
 * version the answer was built from ({@link compactionBaseOf}): an answer built from an older base is not reused.
 */
interface CompactionCheckpoint {
  compaction: { summaryId: string; base: number; result: ModelStepResult; inputTokens: number };
}

function answeredCompaction(
  details: unknown,
  summaryId: string,
  base: number,
): CompactionCheckpoint['compaction'] | null {
  const cp = details as Partial<CompactionCheckpoint> | undefined;
  return cp?.compaction?.summaryId === summaryId && cp.compaction.base === base ? cp.compaction : null;
}

/** How many times a compaction whose base moved is built again before the activity fails. */
export const COMPACTION_REBUILDS = 3;

/**
 * Summarises the history before `keepFromTurnId`. Idempotent: a retry that finds the summary stored does nothing,
 * and a retry after a failed commit commits the answer checkpointed by the failed attempt (the model is asked
 * once per compaction). The commit is guarded by the turn of `keepFromTurnId` (db/messages.ts `guardTurn`): a
 * turn stopped meanwhile is not compacted. It is also committed only against the version it was built from
 * (`compactionBase`, docs/message-flow.md §7.1): when another compaction of the session was committed meanwhile
 * (an overflow retry, a concurrent attempt), this one is refused and built again from `reload()`'s history, at
 * most {@link COMPACTION_REBUILDS} times. Runs inside an activity (it heartbeats its checkpoint).
 * @param reload reads the history again (the same read that gave `history`)
 * @returns 'compacted' when this compaction's summary is stored; 'nothing' when there was nothing to compact;
 *   'overtaken' when another compaction was committed meanwhile and left nothing to compact (the history the
 *   caller read is out of date either way but for 'nothing')
 * @throws ApplicationFailure `provider:<kind>` from the model call; `StaleTurnError` (non-retryable) after a stop;
 *   `turn_persistence` (retryable) when the pair could not be stored for {@link COMPACTION_COMMIT_RETRY_MS}, or
 *   its base kept moving
 */
export async function compact(
  deps: ModelDeps,
  sessionId: string,
  history: Message[],
  req: CompactionRequest,
  reload: () => Promise<Message[]>,
): Promise<'compacted' | 'nothing' | 'overtaken'> {
  let current = history;
  for (let build = 0; build <= COMPACTION_REBUILDS; build++) {
    if (build > 0) current = await reload();
    const outcome = await compactOnce(deps, sessionId, current, req);
    if (outcome === 'stored') return 'compacted';
    if (outcome === 'nothing') return build === 0 ? 'nothing' : 'overtaken';
    deps.logger.info(
      { sessionId, turnId: req.keepFromTurnId },
      'compaction refused: the session was compacted meanwhile; building it again',
    );
  }
  throw ApplicationFailure.retryable(
    'the compaction kept being overtaken by other compactions',
    failureType('turn_persistence'),
  );
}

/** One build and commit of a compaction from `history`. */
async function compactOnce(
  deps: ModelDeps,
  sessionId: string,
  history: Message[],
  req: CompactionRequest,
): Promise<'stored' | 'nothing' | 'base_moved'> {
  if (await getMessage(deps.pool, req.summaryId)) return 'stored'; // a retried activity: already compacted
  const cut = selectCompactionCut(history, req.keepFromTurnId);
  if (cut === null) return 'nothing';
  const base = compactionBaseOf(history);
  const trigger = await getMessage(deps.pool, req.keepFromTurnId);
  const ctx = Context.current();
  let answered = answeredCompaction(ctx.info.heartbeatDetails, req.summaryId, base);
  if (!answered) {
    const promptText = req.auto ? AUTO_COMPACTION_PROMPT : (trigger?.content ?? AUTO_COMPACTION_PROMPT);
    const input = summaryInput(deps, sessionId, history, cut, promptText);
    const result = await callModel(deps, { sessionId, turnId: req.triggerId, step: req.step }, input, []);
    recordModelTokens(result.usage.inputTokens, result.usage.outputTokens);
    answered = { summaryId: req.summaryId, base, result, inputTokens: estimateTokens(JSON.stringify(input)) };
  }
  const checkpoint: CompactionCheckpoint = { compaction: answered };
  ctx.heartbeat(checkpoint);
  const beat = setInterval(() => ctx.heartbeat(checkpoint), 1000);
  try {
    const { result, inputTokens } = answered;
    return await retryInPlace(deps, sessionId, async () => {
      const metrics = await turnMetrics(
        deps.pool,
        sessionId,
        req.triggerId,
        req.turnStartedAt,
        result,
        inputTokens,
      );
      const { insert, transitions } = compactionRows(
        req,
        turnAddress(trigger, sessionId),
        cut,
        result,
        metrics,
      );
      return storeCompaction(deps, sessionId, req.keepFromTurnId, insert, transitions, base);
    });
  } finally {
    clearInterval(beat);
  }
}

/** The rows a compaction writes: (automatic only) its prompt, processed, and the summary with its cut. */
function compactionRows(
  req: CompactionRequest,
  address: ReturnType<typeof turnAddress>,
  cut: number,
  result: ModelStepResult,
  metrics: TurnMetrics,
): { insert: NewMessage[]; transitions: StatusChange[] } {
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
  return { insert, transitions };
}

/** Runs `work` (the compaction's commit) again after a failure a retry may fix, for up to {@link COMPACTION_COMMIT_RETRY_MS}. */
function retryInPlace<T>(deps: ModelDeps, sessionId: string, work: () => Promise<T>): Promise<T> {
  return retryCommitInPlace(
    deps,
    { forMs: COMPACTION_COMMIT_RETRY_MS, what: 'compaction', fields: { sessionId } },
    work,
  );
}

/** The model input that asks for the summary: the clean history up to `cut` (seq) and the compaction prompt. */
function summaryInput(
  deps: ModelDeps,
  sessionId: string,
  history: Message[],
  cut: number,
  promptText: string,
): ProviderInput {
  // The previous compaction is summarised too, also when it was stored after the cut (during the current turn,
  // or by a compaction that overtook this one): the new summary replaces it.
  const previous = findCompaction(history)?.summary.turn_id ?? null;
  const summarised = (m: Message) => m.seq <= cut || (previous !== null && m.turn_id === previous);
  const older = buildCleanHistory(
    history.filter((m) => summarised(m) || m.turn_id === null),
    { currentTurnId: null },
  ).filter(summarised);
  const base = toProviderInput(
    older,
    systemPrompt({ workspaceDir: deps.workspaceDirFor(sessionId), now: new Date().toISOString(), tools: [] }),
  );
  return { system: base.system, messages: [...base.messages, { role: 'user', content: promptText }] };
}

/**
 * Commits the compaction's rows, guarded by the turn of trigger `guardTurn` and, with `base`, by the version the
 * compaction was built from (db/messages.ts `compactionBase`).
 * @returns 'base_moved' when another compaction was committed since `base` (nothing was written), else 'stored'
 * @throws ApplicationFailure `StaleTurnError` (non-retryable) after a stop; `turn_persistence` (retryable)
 */
async function storeCompaction(
  deps: ModelDeps,
  sessionId: string,
  guardTurn: string,
  insert: NewMessage[],
  transitions: StatusChange[],
  base?: number,
): Promise<'stored' | 'base_moved'> {
  try {
    await commit(deps.pool, sessionId, {
      guardTurn,
      insert,
      transitions,
      ...(base === undefined ? {} : { compactionBase: base }),
    });
    return 'stored';
  } catch (err) {
    if (err instanceof CompactionBaseMovedError) return 'base_moved';
    if (err instanceof StaleTurnError) {
      deps.logger.info(
        { sessionId, turnId: guardTurn },
        'compaction not stored: the turn was stopped meanwhile',
      );
      throw ApplicationFailure.nonRetryable(err.message, 'StaleTurnError');
    }
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
  const read = () => listSessionMessages(deps.pool, sessionId);
  const summaryId = stepIds.compactSummary(turnId, 0);
  const compacted = await compact(
    deps,
    sessionId,
    await read(),
    { keepFromTurnId: turnId, triggerId: turnId, summaryId, step: 0, auto: false, turnStartedAt },
    read,
  );
  if (compacted !== 'compacted') {
    // Nothing (left) to compact: answer the /compact request with a short reply instead.
    const trigger = await getMessage(deps.pool, turnId);
    const reply = finalReply({
      id: summaryId,
      ...turnAddress(trigger, sessionId),
      turn_id: turnId,
      step: 0,
      content: 'Nothing to compact yet.',
      turn_metrics: { ...NO_TURN_METRICS },
    });
    await storeCompaction(deps, sessionId, turnId, [reply], []);
  }
  return { replyId: summaryId };
}

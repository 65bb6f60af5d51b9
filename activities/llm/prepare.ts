/**
 * The one preparation path of a model step (docs/message-flow.md §7.1): history bounded by the latest compaction
 * → clean history (docs/message-model.md §5.2) → transpilation (§5.4) with the system prompt (once, first) and
 * attachments → the runtime context (time, channel, speaker, active plan, recalled memory; activities/knowledge/
 * context.ts) appended once to the last user message. Above the token threshold, or when recovering from a
 * context overflow, the older part is compacted first and the same assembly runs again. The input a step sends
 * is kept as the session's latest prompt (`/prompt`).
 */
import { ApplicationFailure } from '@temporalio/common';
import { buildCleanHistory, estimateTokens } from '../../domain/clean-history.ts';
import { notification } from '../../domain/factories.ts';
import { failureType, presentAutoCompaction } from '../../domain/failures.ts';
import type { Message } from '../../domain/message.ts';
import { systemPrompt } from '../../domain/prompts.ts';
import type { ProviderInput } from '../../domain/provider-messages.ts';
import { toProviderInput } from '../../domain/transpile.ts';
import { commit, getMessage, loadModelHistory } from '../../db/messages.ts';
import { getSession } from '../../db/sessions.ts';
import { runtimeContext, withRuntimeContext } from '../knowledge/context.ts';
import { imageSize, withAttachments } from './attachments.ts';
import { compact } from './compaction.ts';
import { stepIds, turnAddress, type ModelDeps } from './model-deps.ts';

/** Prepared model input plus the token estimate reported as `context_tokens`. */
export interface PreparedInput {
  input: ProviderInput;
  contextTokens: number;
  /** Notification ids the workflow must deliver (automatic compaction). */
  noticeIds: string[];
  /**
   * Settles once the input is kept as the session's latest prompt (`/prompt`); it runs beside the model call
   * instead of before it, never rejects (a failure is logged), and the step awaits it before it ends.
   */
  recorded: Promise<void>;
}

/**
 * How to prepare.
 * - `recovery`: compact first whatever the size (overflow recovery).
 * - `inline`: the channel's sink delivers by commit, so a compaction notice is stored as delivered.
 * - `plain`: past tool flows as plain text and no images, for providers that refuse the richer form.
 * - `trigger`: the turn's trigger message, read once by the step.
 */
export interface PrepareOptions {
  recovery: boolean;
  inline: boolean;
  plain: boolean;
  /** The turn's trigger as the step read it (null: a turn without a stored trigger): the runtime context's source. */
  trigger: Message | null;
}

/**
 * Prepares the input of step `step` of the turn of trigger `turnId`.
 * @throws ApplicationFailure `context_preparation` (retryable) when the history cannot be read; the
 *   compaction's failures (see activities/llm/compaction.ts)
 */
export async function prepareInput(
  deps: ModelDeps,
  sessionId: string,
  turnId: string,
  step: number,
  opts: PrepareOptions,
): Promise<PreparedInput> {
  let prepared = await readInput(deps, sessionId, turnId, opts);
  const noticeIds: string[] = [];
  if (opts.recovery || prepared.contextTokens > deps.compactTokens) {
    const compacted = await compact(
      deps,
      sessionId,
      prepared.history,
      {
        keepFromTurnId: turnId,
        triggerId: stepIds.compactPrompt(turnId, step),
        summaryId: stepIds.compactSummary(turnId, step),
        step,
        auto: true,
      },
      () => loadModelHistory(deps.pool, sessionId),
    );
    if (compacted === 'compacted')
      noticeIds.push(await storeCompactionNotice(deps, sessionId, turnId, step, opts.inline));
    // Overtaken: another compaction changed the history read above, so the input is assembled again too.
    if (compacted !== 'nothing') prepared = await readInput(deps, sessionId, turnId, opts);
  }
  const recorded = recordPrompt(deps, sessionId, turnId, step, prepared.input);
  return { input: prepared.input, contextTokens: prepared.contextTokens, noticeIds, recorded };
}

/** Keeps `input` as the latest prompt of the session (best effort: a failure is logged, the step goes on). */
async function recordPrompt(
  deps: ModelDeps,
  sessionId: string,
  turnId: string,
  step: number,
  input: ProviderInput,
): Promise<void> {
  try {
    await deps.pool.query(
      `INSERT INTO session_prompts (session_id, turn_id, step, input) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (session_id) DO UPDATE SET turn_id = EXCLUDED.turn_id, step = EXCLUDED.step,
         input = EXCLUDED.input, created_at = now()`,
      [sessionId, turnId, step, JSON.stringify(input, imageSize)],
    );
  } catch (err) {
    deps.logger.warn({ sessionId, turnId, err: String(err) }, 'the prompt could not be kept for /prompt');
  }
}

/** Reads the bounded history and turns it into the model input, with its token estimate. */
async function readInput(
  deps: ModelDeps,
  sessionId: string,
  turnId: string,
  { plain, trigger }: Pick<PrepareOptions, 'plain' | 'trigger'>,
): Promise<{ history: Message[]; input: ProviderInput; contextTokens: number }> {
  const workspaceDir = deps.workspaceDirFor(sessionId);
  try {
    const [history, context] = await Promise.all([
      loadModelHistory(deps.pool, sessionId),
      runtimeContext(deps.pool, sessionId, trigger, new Date(), deps.sharedMemoryScopes),
    ]);
    const clean = buildCleanHistory(history, { currentTurnId: turnId });
    const transpiled = toProviderInput(
      clean,
      systemPrompt({
        workspaceDir,
        now: new Date().toISOString(),
        tools: deps.tools.map((t) => t.name),
        ...(deps.skills ? { skills: deps.skills } : {}),
      }),
      plain ? { pastToolFlowsAsText: turnId } : {},
    );
    const input = withRuntimeContext(
      await withAttachments(transpiled, workspaceDir, { images: !plain }),
      context,
    );
    return { history, input, contextTokens: estimateTokens(JSON.stringify(input, imageSize)) };
  } catch (err) {
    deps.logger.warn({ sessionId, turnId, err: String(err) }, 'context preparation failed');
    throw ApplicationFailure.retryable(
      'the conversation history could not be read',
      failureType('context_preparation'),
    );
  }
}

/**
 * Stores the notification that the conversation was compacted automatically. An inline sink's notice is
 * delivered by its commit (like the reply it precedes). @returns the notice's id
 */
async function storeCompactionNotice(
  deps: ModelDeps,
  sessionId: string,
  turnId: string,
  step: number,
  inline: boolean,
): Promise<string> {
  const session = await getSession(deps.pool, sessionId);
  const trigger = await getMessage(deps.pool, turnId);
  const notice = notification({
    id: stepIds.compactNotice(turnId, step),
    ...turnAddress(trigger, sessionId),
    content: presentAutoCompaction(session?.locale),
    turn_id: turnId,
    parent_id: turnId,
  });
  await commit(deps.pool, sessionId, {
    insert: [notice],
    transitions: inline ? [{ id: notice.id, to: 'delivered' }] : [],
  });
  return notice.id;
}

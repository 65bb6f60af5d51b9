/**
 * One model step of a turn (see ModelActivities.runModelStep in activities/contracts.ts): claim the trigger,
 * prepare the input, call the model, and commit the step's messages with its outcome in one transaction.
 * Idempotent per (turn, step): the committed step record is the answer to every retry.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelActivities, StepOutcome } from '../../workflows/activity-contracts.ts';
import { emptyReplyNudge, finalReply, thought, toolCall, type NewMessage } from '../../domain/factories.ts';
import { failureType } from '../../domain/failures.ts';
import { MODEL_COMMIT_RETRY_MS } from '../../domain/model-limits.ts';
import type { Message } from '../../domain/message.ts';
import { partialReply } from '../../domain/partial-reply.ts';
import { StaleTurnError, commit, getMessage, getStep } from '../../db/messages.ts';
import { getSession, incrementTurnCount } from '../../db/sessions.ts';
import { recordModelTokens, recordTurn } from '../../infra/metrics.ts';
import { imageSize } from './attachments.ts';
import { callModel, prefersPlainHistory } from './model-call.ts';
import {
  offeredTools,
  requireLlm,
  retryCommitInPlace,
  stepIds,
  turnAddress,
  type ModelDeps,
} from './model-deps.ts';
import { prepareInput, type PreparedInput } from './prepare.ts';
import type { ModelStepResult } from './provider.ts';
import { turnMetrics } from './turn-metrics.ts';
import { approvalRecordFor } from '../approvals.ts';

type StepInput = Parameters<ModelActivities['runModelStep']>[0];

/** Where a step's messages go: the turn's address plus turn id and step number. */
type StepPosition = ReturnType<typeof turnAddress> & { turn_id: string; step: number };

/**
 * The heartbeat checkpoint of a step whose model answered: a retry after a failed commit only commits it, and
 * never calls the model again (a second, paid and different answer).
 */
interface AnsweredCheckpoint {
  step: number;
  answered: { result: ModelStepResult; contextTokens: number; noticeIds: string[] };
}

function answeredCheckpoint(details: unknown, step: number): AnsweredCheckpoint['answered'] | null {
  const cp = details as Partial<AnsweredCheckpoint> | undefined;
  return cp?.step === step && cp.answered ? cp.answered : null;
}

/** Runs one model step; see ModelActivities.runModelStep for the contract. */
export async function runModelStep(deps: ModelDeps, input: StepInput): Promise<StepOutcome> {
  const { sessionId, turnId, step } = input;
  // The step record and the trigger in one round trip: the trigger is read once for the claim, the address and
  // the runtime context (none of which depends on its status).
  const [done, trigger] = await Promise.all([
    getStep(deps.pool, turnId, step),
    getMessage(deps.pool, turnId),
  ]);
  if (done) return done.result as StepOutcome; // idempotent per (turn, step)
  requireLlm(deps);
  if (input.claim && !(await claimTrigger(deps, sessionId, turnId, trigger))) return { kind: 'skipped' };

  const ctx = Context.current();
  const pos: StepPosition = { ...turnAddress(trigger, sessionId), turn_id: turnId, step };
  const answered =
    answeredCheckpoint(ctx.info.heartbeatDetails, step) ?? (await askModel(deps, input, pos, trigger));
  const checkpoint: AnsweredCheckpoint = { step, answered };
  ctx.heartbeat(checkpoint);
  const beat = setInterval(() => ctx.heartbeat(checkpoint), 1000);
  try {
    const { result } = answered;
    const prepared = { contextTokens: answered.contextTokens, noticeIds: answered.noticeIds };
    const { outcome, finishedReply } = await retryInPlace(deps, input, async () => {
      const { insert, outcome } = await stepMessages(deps, input, pos, result, prepared);
      return { outcome, finishedReply: await commitStep(deps, input, { insert, outcome, result, prepared }) };
    });
    if (finishedReply) recordTurn('processed', trigger?.created_at ?? input.turnStartedAt);
    return outcome;
  } finally {
    clearInterval(beat);
  }
}

/** Runs `work` (the step's commit) again after a failure a retry may fix, for up to {@link MODEL_COMMIT_RETRY_MS}. */
function retryInPlace<T>(deps: ModelDeps, input: StepInput, work: () => Promise<T>): Promise<T> {
  return retryCommitInPlace(
    deps,
    {
      forMs: deps.commitRetryMs ?? MODEL_COMMIT_RETRY_MS,
      what: 'model step',
      fields: { sessionId: input.sessionId, turnId: input.turnId, step: input.step },
    },
    work,
  );
}

/** Prepares the step's input and calls the model: what the step's commit needs of the answer. */
async function askModel(
  deps: ModelDeps,
  input: StepInput,
  pos: StepPosition,
  trigger: Message | null,
): Promise<AnsweredCheckpoint['answered']> {
  const { sessionId, turnId, step, completeInline } = input;
  const plainFirst = prefersPlainHistory(requireLlm(deps));
  const inline = completeInline === true;
  const prepareWith = (plain: boolean, recovery: boolean) =>
    prepareInput(deps, sessionId, turnId, step, { recovery, inline, plain, trigger });
  const prepared = await prepareWith(plainFirst, input.recovery);
  const lastStep = step >= deps.maxSteps - 1;
  const result = await callModel(
    deps,
    { sessionId, turnId, step },
    prepared.input,
    lastStep ? [] : await offeredTools(deps, sessionId),
    {
      // A request the provider refuses because of the conversation's own history (e.g. servers that want
      // reasoning on every past tool call, or a model without image input) is tried once in the plainer form.
      fallback: plainFirst
        ? undefined
        : async () => {
            // The first input's record lands before the plainer one's, so `/prompt` shows what was sent last.
            await prepared.recorded;
            const plainer = await prepareWith(true, false);
            const same =
              JSON.stringify(plainer.input, imageSize) === JSON.stringify(prepared.input, imageSize);
            return same ? null : plainer.input;
          },
      onCancelled: async (streamedText) => {
        const session = await getSession(deps.pool, sessionId);
        const partial = partialReply({ ...pos, text: streamedText, locale: session?.locale });
        await commit(deps.pool, sessionId, { insert: [partial] });
      },
    },
  );
  recordModelTokens(result.usage.inputTokens, result.usage.outputTokens);
  await prepared.recorded;
  return { result, contextTokens: prepared.contextTokens, noticeIds: prepared.noticeIds };
}

/**
 * Moves the trigger `trigger` (as read at the step's start) from `pending_agent` to `processing` (a no-op when it
 * is already processing). A trigger that moved on since it was read is refused by the commit's state machine.
 * @returns false when the trigger ended before its turn began (the step is then skipped)
 * @throws ApplicationFailure `context_preparation` (non-retryable) for an unknown trigger
 */
async function claimTrigger(
  deps: ModelDeps,
  sessionId: string,
  turnId: string,
  trigger: Message | null,
): Promise<boolean> {
  if (!trigger || trigger.session_id !== sessionId) {
    throw ApplicationFailure.nonRetryable(`unknown message ${turnId}`, failureType('context_preparation'));
  }
  if (trigger.status === 'pending_agent')
    await commit(deps.pool, sessionId, { transitions: [{ id: turnId, to: 'processing' }] });
  else if (trigger.status !== 'processing') return false;
  return true;
}

/**
 * The messages a model answer becomes, and the step's outcome:
 * - reasoning (and text before tool calls, docs/message-model.md §2.2) → a thought;
 * - tool calls → one tool_call message each;
 * - otherwise text → the final reply with its turn metrics;
 * - otherwise nothing → the empty-answer nudge when the workflow allows another try
 *   (docs/message-model.md §3 "模型防空催化剂").
 */
async function stepMessages(
  deps: ModelDeps,
  input: StepInput,
  pos: StepPosition,
  result: ModelStepResult,
  prepared: Pick<PreparedInput, 'contextTokens' | 'noticeIds'>,
): Promise<{ insert: NewMessage[]; outcome: StepOutcome }> {
  const { sessionId, turnId, step } = input;
  const text = result.text.trim();
  const insert: NewMessage[] = [];
  const thoughtId = stepThought(pos, result, insert);
  let outcome: StepOutcome;
  if (result.toolCalls.length > 0) {
    const calls = result.toolCalls.map((c, i) => {
      const m = toolCall({
        id: stepIds.call(turnId, step, i),
        ...pos,
        tool_name: c.name,
        tool_arguments: c.arguments,
        tool_call_id: c.id,
        ...(c.argumentsProblem ? { tool_arguments_problem: c.argumentsProblem } : {}),
      });
      insert.push(m);
      return { messageId: m.id, toolCallId: c.id, name: c.name };
    });
    const approvals = await judgeCalls(deps, sessionId, pos.chatbot_id, result.toolCalls, insert);
    outcome = {
      kind: 'tool_calls',
      ...(thoughtId ? { thoughtId } : {}),
      calls,
      ...(approvals ? { approvals } : {}),
    };
  } else if (text) {
    const metrics = await turnMetrics(
      deps.pool,
      sessionId,
      turnId,
      input.turnStartedAt,
      result,
      prepared.contextTokens,
    );
    const reply = finalReply({
      id: stepIds.reply(turnId, step),
      ...pos,
      content: result.text,
      turn_metrics: metrics,
    });
    insert.push(reply);
    outcome = input.completeInline
      ? { kind: 'final', replyId: reply.id, finished: { turnCount: metrics.session_turns } }
      : { kind: 'final', replyId: reply.id };
  } else if (input.canNudge) {
    const nudge = emptyReplyNudge({ id: stepIds.nudge(turnId, step), ...pos });
    insert.push(nudge);
    outcome = { kind: 'empty', nudgeId: nudge.id };
  } else {
    outcome = { kind: 'empty', nudgeId: null };
  }
  if (prepared.noticeIds.length > 0) outcome = { ...outcome, noticeIds: prepared.noticeIds };
  return { insert, outcome };
}

/**
 * The approval check of a step's tool calls (`insert`'s tool_call messages, in the order of `toolCalls`), done as
 * they are stored: when none of them waits for a person, a call approved by a pattern gets its approval record in
 * `insert` and the check is returned for the workflow; otherwise (or without approval rules) null, and activity
 * `requestApprovals` checks them as before.
 */
async function judgeCalls(
  deps: ModelDeps,
  sessionId: string,
  chatbotId: string,
  toolCalls: ModelStepResult['toolCalls'],
  insert: NewMessage[],
): Promise<Extract<StepOutcome, { kind: 'tool_calls' }>['approvals'] | null> {
  if (!deps.approvals) return null;
  const verdicts = await deps.approvals.judge(
    sessionId,
    toolCalls.map((c) => ({ name: c.name, args: c.arguments, chatbotId })),
  );
  if (!verdicts || verdicts.some((v) => v.need.kind === 'required')) return null;
  const messages = insert.filter((m) => m.type === 'tool_call');
  const now = new Date();
  const checks = verdicts.map(({ subject, need }, i) => {
    const m = messages[i]!;
    const record = approvalRecordFor(need, subject, deps.approvals!.timeoutS, now);
    if (record) m.metadata = { ...m.metadata, approval: record };
    return {
      callId: m.id,
      name: toolCalls[i]!.name,
      subject,
      state: record ? record.state : ('not_required' as const),
    };
  });
  return { calls: checks, timeoutS: deps.approvals.timeoutS };
}

/**
 * The step's thought, pushed onto `insert`: the model's reasoning (streamed or inline `<think>` text) plus any
 * text before tool calls. The reasoning is also kept apart in metadata, so it goes back to the provider in the
 * form it needs during this turn. @returns the thought's id, or undefined when there is none
 */
function stepThought(pos: StepPosition, result: ModelStepResult, insert: NewMessage[]): string | undefined {
  const reasoning = result.reasoning.trim();
  const text = result.text.trim();
  const thoughtText = [reasoning, result.toolCalls.length > 0 ? text : '']
    .filter((t) => t !== '')
    .join('\n\n');
  if (thoughtText === '') return undefined;
  const m = thought({ id: stepIds.thought(pos.turn_id, pos.step), ...pos, content: thoughtText });
  if (reasoning !== '') m.metadata = { reasoning_content: reasoning };
  insert.push(m);
  return m.id;
}

/**
 * Commits the step's messages with its step record, refused when the turn was stopped meanwhile. Inline
 * completion (docs/message-model.md §4.1-§4.2 in one transaction): reply pending → delivered, trigger
 * processed, the session's turn counted. @returns the id of the reply that finished the turn, or null
 * @throws ApplicationFailure `StaleTurnError` (non-retryable) after a stop; `turn_persistence` (retryable)
 */
async function commitStep(
  deps: ModelDeps,
  { sessionId, turnId, step }: StepInput,
  s: {
    insert: NewMessage[];
    outcome: StepOutcome;
    result: ModelStepResult;
    prepared: Pick<PreparedInput, 'contextTokens'>;
  },
): Promise<string | null> {
  const finishedReply =
    s.outcome.kind === 'final' && s.outcome.finished !== undefined ? s.outcome.replyId : null;
  try {
    await commit(deps.pool, sessionId, {
      guardTurn: turnId,
      insert: s.insert,
      transitions: finishedReply
        ? [
            { id: finishedReply, to: 'delivered' },
            { id: turnId, to: 'processed' },
          ]
        : [],
      alsoInTransaction: finishedReply
        ? async (client, { updated }) => {
            if (updated.some((m: Message) => m.id === turnId)) await incrementTurnCount(client, sessionId);
          }
        : undefined,
      step: {
        turnId,
        step,
        result: s.outcome,
        inputTokens: s.result.usage.inputTokens,
        outputTokens: s.result.usage.outputTokens,
        contextTokens: s.prepared.contextTokens,
      },
    });
  } catch (err) {
    if (err instanceof StaleTurnError) {
      deps.logger.info(
        { sessionId, turnId, step },
        'model step not committed: the turn was stopped meanwhile',
      );
      throw ApplicationFailure.nonRetryable(err.message, 'StaleTurnError');
    }
    deps.logger.error({ sessionId, turnId, step, err: String(err) }, 'model step could not be stored');
    throw ApplicationFailure.retryable('the model step could not be saved', failureType('turn_persistence'));
  }
  return finishedReply;
}

/**
 * Model activities: one model step of a turn, manual compaction, and title generation.
 *
 * The conversation is read from and written to Postgres here; the workflow only sees ids. Token deltas are
 * published with NOTIFY (db/notify.ts), never returned through workflow history.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ModelActivities, StepOutcome } from '../contracts.ts';
import { buildCleanHistory, estimateTokens, selectCompactionCut } from '../../domain/clean-history.ts';
import {
  emptyReplyNudge,
  finalReply,
  manualCompactionPrompt,
  notification,
  thought,
  toolCall,
} from '../../domain/factories.ts';
import type { NewMessage } from '../../domain/factories.ts';
import { failureType, presentAutoCompaction } from '../../domain/failures.ts';
import type { Message, TurnMetrics } from '../../domain/message.ts';
import {
  AUTO_COMPACTION_PROMPT,
  TITLE_SYSTEM_PROMPT,
  cleanTitle,
  systemPrompt,
} from '../../domain/prompts.ts';
import type { ProviderInput } from '../../domain/provider-messages.ts';
import { toProviderInput } from '../../domain/transpile.ts';
import {
  StaleTurnError,
  commit,
  getMessage,
  getStep,
  listSessionMessages,
  loadModelHistory,
  turnTokenTotals,
} from '../../db/messages.ts';
import { MAX_EVENT_TEXT, publishTurnEvent } from '../../db/notify.ts';
import type { Pool } from '../../db/pool.ts';
import { getSession, incrementTurnCount, setAutoTitle } from '../../db/sessions.ts';
import type { Logger } from '../../infra/logger.ts';
import { partialReply } from '../../domain/partial-reply.ts';
import { recordModelTokens, recordTurn } from '../../infra/metrics.ts';
import { imageSize, withAttachments } from './attachments.ts';
import { ModelCallError } from './errors.ts';
import { streamModelStep, type LlmConfig, type ModelStepResult, type ModelToolSpec } from './provider.ts';

/**
 * Attempts of one model step for provider failures (429, 5xx, timeouts): the workflow's retry policy allows more
 * attempts, for database outages, so the activity marks the failure non-retryable from this attempt on.
 */
export const PROVIDER_MAX_ATTEMPTS = 4;

export interface ModelDeps {
  pool: Pool;
  logger: Logger;
  /** Null when the model is not configured: every call then fails with kind `agent_creation`. */
  llm: LlmConfig | null;
  tools: readonly ModelToolSpec[];
  /** Steps per turn; the last one is offered no tools, so the model must answer. */
  maxSteps: number;
  /** Estimated prompt tokens above which history is compacted before the call. */
  compactTokens: number;
  /** Where a session's workspace lives, for the system prompt. */
  workspaceDirFor(sessionId: string): string;
  /** Delta batching interval in ms (default 100). */
  deltaIntervalMs?: number;
}

/**
 * Models (provider, base URL, model) that refused a request until past tool flows were sent as plain text:
 * this worker sends them the plainer history from the start. In memory only; a restart learns it again.
 */
const plainHistoryModels = new Set<string>();
const modelKey = (llm: LlmConfig) => `${llm.provider}|${llm.baseUrl ?? ''}|${llm.model}`;

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

/** Prepared model input plus the token estimate reported as `context_tokens`. */
interface PreparedInput {
  input: ProviderInput;
  contextTokens: number;
  /** Notification ids the workflow must deliver (automatic compaction). */
  noticeIds: string[];
}

export function createModelActivities(deps: ModelDeps): ModelActivities {
  const { pool, logger } = deps;

  function requireLlm(): LlmConfig {
    if (!deps.llm) {
      throw ApplicationFailure.nonRetryable(
        'the model is not configured (KESOKU_LLM_*)',
        failureType('agent_creation'),
      );
    }
    return deps.llm;
  }

  /**
   * Runs a model call with heartbeats, cancellation and batched delta publishing; maps errors to failures.
   * - `fallback`: when the provider refuses the request as bad (HTTP 400) and this returns an input, the call
   *   is made once more with it (a plainer form of the same conversation, see {@link prepareInput}).
   * - `onCancelled`: called with the answer text streamed so far when the call is cancelled (a stop or an
   *   interrupt), before the cancellation is reported; it stores the partial reply.
   */
  async function callModel(
    sessionId: string,
    turnId: string,
    step: number,
    input: ProviderInput,
    tools: readonly ModelToolSpec[],
    opts: {
      fallback?: () => Promise<ProviderInput | null>;
      onCancelled?: (text: string) => Promise<void>;
    } = {},
  ): Promise<ModelStepResult> {
    const llm = requireLlm();
    const ctx = Context.current();
    let buffer = '';
    let streamed = '';
    const flush = () => {
      if (!buffer) return;
      const text = buffer.slice(0, MAX_EVENT_TEXT);
      buffer = buffer.slice(text.length);
      void publishTurnEvent(pool, { s: sessionId, t: turnId, type: 'delta', step, text }).catch(
        () => undefined,
      );
    };
    const beat = setInterval(() => {
      ctx.heartbeat({ step });
      flush();
    }, deps.deltaIntervalMs ?? 100);
    const stream = (attemptInput: ProviderInput) =>
      streamModelStep(llm, attemptInput, [...tools], {
        signal: ctx.cancellationSignal,
        onTextDelta: (d) => {
          streamed += d;
          buffer += d;
          if (buffer.length >= MAX_EVENT_TEXT) flush();
        },
      });
    try {
      void publishTurnEvent(pool, {
        s: sessionId,
        t: turnId,
        type: 'status',
        status: 'thinking',
        step,
      }).catch(() => undefined);
      try {
        return await stream(input);
      } catch (err) {
        if (
          !(err instanceof ModelCallError) ||
          err.kind !== 'bad_request' ||
          !opts.fallback ||
          ctx.cancellationSignal.aborted
        )
          throw err;
        const plainer = await opts.fallback();
        if (plainer === null) throw err;
        logger.warn(
          { sessionId, turnId, step, detail: err.detail },
          'the provider refused the request; trying once more with a plainer history',
        );
        streamed = '';
        const result = await stream(plainer);
        plainHistoryModels.add(modelKey(llm));
        return result;
      }
    } catch (err) {
      if (ctx.cancellationSignal.aborted) {
        clearInterval(beat);
        flush();
        // Only a cancellation the workflow asked for (a stop or an interrupt) keeps the partial answer; a worker
        // shutdown or a heartbeat timeout is followed by a retry of the whole step.
        if (streamed.trim() !== '' && opts.onCancelled && ctx.cancellationDetails?.cancelRequested === true) {
          try {
            await opts.onCancelled(streamed);
          } catch (e) {
            logger.warn({ sessionId, turnId, step, err: String(e) }, 'the partial reply could not be stored');
          }
        }
        throw new CancelledFailure('model call cancelled');
      }
      const e = err instanceof ModelCallError ? err : new ModelCallError({ kind: 'network', cause: err });
      logger.warn(
        { sessionId, turnId, step, kind: e.kind, status: e.status, detail: e.detail },
        'model call failed',
      );
      throw ApplicationFailure.create({
        message: e.message,
        type: failureType('provider', e.kind),
        nonRetryable: !e.retryable || ctx.info.attempt >= PROVIDER_MAX_ATTEMPTS,
        nextRetryDelay: e.retryAfterMs,
      });
    } finally {
      clearInterval(beat);
      flush();
    }
  }

  /**
   * The one preparation path (docs/message-flow.md §7.1): first preparation and overflow recovery both come here. History
   * bounded by the latest compaction → clean history (docs/message-model.md §5.2) → transpilation (§5.4) with the system
   * prompt; above the token threshold, or when recovering from an overflow, the older part is compacted first.
   */
  async function prepareInput(
    sessionId: string,
    turnId: string,
    step: number,
    recovery: boolean,
    inline = false,
    plain = false,
  ): Promise<PreparedInput> {
    const workspaceDir = deps.workspaceDirFor(sessionId);
    const build = async () => {
      const history = await loadModelHistory(pool, sessionId);
      const clean = buildCleanHistory(history, { currentTurnId: turnId });
      const transpiled = toProviderInput(
        clean,
        systemPrompt({ workspaceDir, now: new Date().toISOString(), tools: deps.tools.map((t) => t.name) }),
        plain ? { pastToolFlowsAsText: turnId } : {},
      );
      const input = await withAttachments(transpiled, workspaceDir, { images: !plain });
      return { history, input, contextTokens: estimateTokens(JSON.stringify(input, imageSize)) };
    };
    let prepared;
    try {
      prepared = await build();
    } catch (err) {
      logger.warn({ sessionId, turnId, err: String(err) }, 'context preparation failed');
      throw ApplicationFailure.retryable(
        'the conversation history could not be read',
        failureType('context_preparation'),
      );
    }
    const noticeIds: string[] = [];
    if (recovery || prepared.contextTokens > deps.compactTokens) {
      const compacted = await compact(sessionId, prepared.history, {
        keepFromTurnId: turnId,
        triggerId: stepIds.compactPrompt(turnId, step),
        summaryId: stepIds.compactSummary(turnId, step),
        step,
        auto: true,
      });
      if (compacted) {
        const session = await getSession(pool, sessionId);
        const trigger = await getMessage(pool, turnId);
        const notice = notification({
          id: stepIds.compactNotice(turnId, step),
          session_id: sessionId,
          chatbot_id: trigger?.chatbot_id ?? 'api',
          channel_id: trigger?.channel_id ?? sessionId,
          content: presentAutoCompaction(session?.locale),
          turn_id: turnId,
          parent_id: turnId,
        });
        // An inline sink's notice is delivered by its commit (like the reply it precedes).
        await commit(pool, sessionId, {
          insert: [notice],
          transitions: inline ? [{ id: notice.id, to: 'delivered' }] : [],
        });
        noticeIds.push(notice.id);
        prepared = await build();
      }
    }
    return { input: prepared.input, contextTokens: prepared.contextTokens, noticeIds };
  }

  /**
   * Summarises the history before `keepFromTurnId` into a compaction prompt + summary pair (docs/message-model.md §3
   * "手动压缩提问"). Automatic compaction stores its own prompt; a manual `/compact` turn passes its trigger.
   * @returns false when there was nothing to compact
   */
  async function compact(
    sessionId: string,
    history: Message[],
    opts: {
      keepFromTurnId: string;
      triggerId: string;
      summaryId: string;
      step: number;
      auto: boolean;
      turnStartedAt?: number;
    },
  ): Promise<boolean> {
    if (await getMessage(pool, opts.summaryId)) return true; // a retried activity: already compacted
    const cut = selectCompactionCut(history, opts.keepFromTurnId);
    if (cut === null) return false;
    const older = buildCleanHistory(
      history.filter((m) => m.seq <= cut || m.turn_id === null),
      { currentTurnId: null },
    ).filter((m) => m.seq <= cut);
    const trigger = await getMessage(pool, opts.keepFromTurnId);
    const address = {
      session_id: sessionId,
      chatbot_id: trigger?.chatbot_id ?? 'api',
      channel_id: trigger?.channel_id ?? sessionId,
    };
    const promptText = opts.auto ? AUTO_COMPACTION_PROMPT : (trigger?.content ?? AUTO_COMPACTION_PROMPT);
    const base = toProviderInput(
      older,
      systemPrompt({
        workspaceDir: deps.workspaceDirFor(sessionId),
        now: new Date().toISOString(),
        tools: [],
      }),
    );
    const input: ProviderInput = {
      system: base.system,
      messages: [...base.messages, { role: 'user', content: promptText }],
    };
    const result = await callModel(sessionId, opts.triggerId, opts.step, input, []);
    recordModelTokens(result.usage.inputTokens, result.usage.outputTokens);
    const summaryText = result.text.trim() || '(empty summary)';
    const insert: NewMessage[] = [];
    const transitions: { id: string; to: 'processing' | 'processed' | 'delivered' }[] = [];
    if (opts.auto) {
      insert.push({
        ...manualCompactionPrompt({ id: opts.triggerId, ...address }),
        content: AUTO_COMPACTION_PROMPT,
      });
      transitions.push({ id: opts.triggerId, to: 'processing' }, { id: opts.triggerId, to: 'processed' });
    }
    const metrics = await metricsFor(
      sessionId,
      opts.triggerId,
      opts.turnStartedAt,
      result,
      estimateTokens(JSON.stringify(input)),
    );
    insert.push(
      finalReply({
        id: opts.summaryId,
        ...address,
        turn_id: opts.triggerId,
        step: opts.step,
        content: summaryText,
        turn_metrics: metrics,
        compacted_through_seq: cut,
      }),
    );
    // An automatic summary is context for the model, not a reply: it is marked delivered without being sent.
    if (opts.auto) transitions.push({ id: opts.summaryId, to: 'delivered' });
    try {
      await commit(pool, sessionId, { insert, transitions });
    } catch (err) {
      logger.error({ sessionId, err: String(err) }, 'compaction could not be stored');
      throw ApplicationFailure.retryable(
        'the compaction could not be saved',
        failureType('turn_persistence'),
      );
    }
    return true;
  }

  async function metricsFor(
    sessionId: string,
    turnId: string,
    turnStartedAt: number | undefined,
    result: ModelStepResult,
    contextTokens: number,
  ): Promise<TurnMetrics> {
    const [session, totals, calls] = await Promise.all([
      getSession(pool, sessionId),
      turnTokenTotals(pool, turnId),
      pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE turn_id = $1 AND type = 'tool_call'`,
        [turnId],
      ),
    ]);
    return {
      session_turns: (session?.turn_count ?? 0) + 1,
      context_tokens: contextTokens,
      turn_tool_calls: calls.rows[0]?.n ?? 0,
      turn_tokens: totals.tokens + result.usage.inputTokens + result.usage.outputTokens,
      turn_time: turnStartedAt ? Math.round((Date.now() - turnStartedAt) / 100) / 10 : 0,
    };
  }

  return {
    async runModelStep({
      sessionId,
      turnId,
      step,
      recovery,
      turnStartedAt,
      canNudge,
      claim,
      completeInline,
    }) {
      const done = await getStep(pool, turnId, step);
      if (done) return done.result as StepOutcome; // seed: idempotent per (turn, step)
      requireLlm();
      if (claim) {
        const trigger = await getMessage(pool, turnId);
        if (!trigger || trigger.session_id !== sessionId) {
          throw ApplicationFailure.nonRetryable(
            `unknown message ${turnId}`,
            failureType('context_preparation'),
          );
        }
        if (trigger.status === 'pending_agent')
          await commit(pool, sessionId, { transitions: [{ id: turnId, to: 'processing' }] });
        else if (trigger.status !== 'processing') return { kind: 'skipped' }; // it ended before its turn began
      }

      const llm = requireLlm();
      const plainFirst = plainHistoryModels.has(modelKey(llm));
      const prepared = await prepareInput(
        sessionId,
        turnId,
        step,
        recovery,
        completeInline === true,
        plainFirst,
      );
      const lastStep = step >= deps.maxSteps - 1;
      const trigger = await getMessage(pool, turnId);
      const pos = {
        session_id: sessionId,
        chatbot_id: trigger?.chatbot_id ?? 'api',
        channel_id: trigger?.channel_id ?? sessionId,
        turn_id: turnId,
        step,
      };
      const result = await callModel(sessionId, turnId, step, prepared.input, lastStep ? [] : deps.tools, {
        // A request the provider refuses because of the conversation's own history (e.g. servers that want
        // reasoning on every past tool call, or a model without image input) is tried once in the plainer form.
        fallback: plainFirst
          ? undefined
          : async () => {
              const plainer = await prepareInput(
                sessionId,
                turnId,
                step,
                false,
                completeInline === true,
                true,
              );
              return JSON.stringify(plainer.input, imageSize) === JSON.stringify(prepared.input, imageSize)
                ? null
                : plainer.input;
            },
        onCancelled: async (streamedText) => {
          const session = await getSession(pool, sessionId);
          const partial = partialReply({ ...pos, text: streamedText, locale: session?.locale });
          await commit(pool, sessionId, { insert: [partial] });
        },
      });
      recordModelTokens(result.usage.inputTokens, result.usage.outputTokens);

      const text = result.text.trim();
      const reasoning = result.reasoning.trim();
      const insert: NewMessage[] = [];
      let outcome: StepOutcome;
      // The model's reasoning (streamed reasoning or inline <think> text) is the step's thought; it is kept
      // apart in metadata so it goes back to the provider in the form it needs during this turn.
      const thoughtText = [reasoning, result.toolCalls.length > 0 ? text : '']
        .filter((t) => t !== '')
        .join('\n\n');
      const thoughtId = thoughtText !== '' ? stepIds.thought(turnId, step) : undefined;
      if (thoughtId) {
        const m = thought({ id: thoughtId, ...pos, content: thoughtText });
        if (reasoning !== '') m.metadata = { reasoning_content: reasoning };
        insert.push(m);
      }
      if (result.toolCalls.length > 0) {
        // docs/message-model.md §2.2: text before tool calls is the turn's thought.
        const calls = result.toolCalls.map((c, i) => {
          const m = toolCall({
            id: stepIds.call(turnId, step, i),
            ...pos,
            tool_name: c.name,
            tool_arguments: c.arguments,
            tool_call_id: c.id,
          });
          insert.push(m);
          return { messageId: m.id, toolCallId: c.id, name: c.name };
        });
        outcome = thoughtId ? { kind: 'tool_calls', thoughtId, calls } : { kind: 'tool_calls', calls };
      } else if (text) {
        const metrics = await metricsFor(sessionId, turnId, turnStartedAt, result, prepared.contextTokens);
        const reply = finalReply({
          id: stepIds.reply(turnId, step),
          ...pos,
          content: result.text,
          turn_metrics: metrics,
        });
        insert.push(reply);
        outcome = completeInline
          ? { kind: 'final', replyId: reply.id, finished: { turnCount: metrics.session_turns } }
          : { kind: 'final', replyId: reply.id };
      } else if (canNudge) {
        // docs/message-model.md §3 "模型防空催化剂": an empty answer gets the nudge and another try (bounded by the workflow).
        const nudge = emptyReplyNudge({ id: stepIds.nudge(turnId, step), ...pos });
        insert.push(nudge);
        outcome = { kind: 'empty', nudgeId: nudge.id };
      } else {
        outcome = { kind: 'empty', nudgeId: null };
      }
      if (prepared.noticeIds.length > 0) outcome = { ...outcome, noticeIds: prepared.noticeIds };
      // Inline completion (docs/message-model.md §4.1-§4.2 in one transaction): reply pending → delivered, trigger processed.
      const finishedReply =
        outcome.kind === 'final' && outcome.finished !== undefined ? outcome.replyId : null;
      try {
        await commit(pool, sessionId, {
          // A step that ends after /stop or an interrupt must not commit (the stale-commit guard).
          guardTurn: turnId,
          insert,
          transitions: finishedReply
            ? [
                { id: finishedReply, to: 'delivered' },
                { id: turnId, to: 'processed' },
              ]
            : [],
          alsoInTransaction: finishedReply
            ? async (client, { updated }) => {
                if (updated.some((m) => m.id === turnId)) await incrementTurnCount(client, sessionId);
              }
            : undefined,
          step: {
            turnId,
            step,
            result: outcome,
            inputTokens: result.usage.inputTokens,
            outputTokens: result.usage.outputTokens,
            contextTokens: prepared.contextTokens,
          },
        });
      } catch (err) {
        if (err instanceof StaleTurnError) {
          logger.info(
            { sessionId, turnId, step },
            'model step not committed: the turn was stopped meanwhile',
          );
          throw ApplicationFailure.nonRetryable(err.message, 'StaleTurnError');
        }
        logger.error({ sessionId, turnId, step, err: String(err) }, 'model step could not be stored');
        throw ApplicationFailure.retryable(
          'the model step could not be saved',
          failureType('turn_persistence'),
        );
      }
      if (finishedReply) recordTurn('processed', trigger?.created_at ?? turnStartedAt);
      return outcome;
    },

    async compactSession({ sessionId, turnId, turnStartedAt }) {
      requireLlm();
      const history = await listSessionMessages(pool, sessionId);
      const summaryId = stepIds.compactSummary(turnId, 0);
      const compacted = await compact(sessionId, history, {
        keepFromTurnId: turnId,
        triggerId: turnId,
        summaryId,
        step: 0,
        auto: false,
        turnStartedAt,
      });
      if (!compacted) {
        // Nothing to compact: answer the /compact request with a short reply instead.
        const trigger = await getMessage(pool, turnId);
        const reply = finalReply({
          id: summaryId,
          session_id: sessionId,
          chatbot_id: trigger?.chatbot_id ?? 'api',
          channel_id: trigger?.channel_id ?? sessionId,
          turn_id: turnId,
          step: 0,
          content: 'Nothing to compact yet.',
          turn_metrics: {
            session_turns: 0,
            context_tokens: 0,
            turn_tool_calls: 0,
            turn_tokens: 0,
            turn_time: 0,
          },
        });
        await commit(pool, sessionId, { insert: [reply] });
      }
      return { replyId: summaryId };
    },

    async generateTitle({ sessionId }) {
      const llm = requireLlm();
      const session = await getSession(pool, sessionId);
      if (!session || session.title_source !== 'default') return { title: null, committed: false };
      const history = await listSessionMessages(pool, sessionId, { limit: 50 });
      const firstUser = history.find((m) => m.role === 'user' && m.type === 'text');
      const firstReply = history.find(
        (m) => m.role === 'assistant' && m.type === 'text' && m.sender === 'Kesoku',
      );
      if (!firstUser) return { title: null, committed: false };
      // The user's first message is the request; the first answer goes along as context in the instruction.
      const system = firstReply
        ? `${TITLE_SYSTEM_PROMPT}\n\nThe assistant answered:\n${firstReply.content.slice(0, 2000)}`
        : TITLE_SYSTEM_PROMPT;
      const ctx = Context.current();
      let result;
      try {
        result = await streamModelStep(
          llm,
          { system, messages: [{ role: 'user', content: firstUser.content.slice(0, 4000) }] },
          [],
          {
            signal: ctx.cancellationSignal,
          },
        );
      } catch (err) {
        const e = err instanceof ModelCallError ? err : new ModelCallError({ kind: 'network', cause: err });
        throw ApplicationFailure.create({
          message: e.message,
          type: failureType('provider', e.kind),
          nonRetryable: !e.retryable,
        });
      }
      const title = cleanTitle(result.text);
      if (!title) return { title: null, committed: false };
      // docs/message-flow.md §12: commit only while the title is still the default; a user's title always wins.
      const committed = await setAutoTitle(pool, sessionId, title);
      return { title, committed };
    },
  };
}

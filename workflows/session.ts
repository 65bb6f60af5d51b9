/**
 * The session workflow: one long-running workflow per chat session (DESIGN.md "Session = one long-running
 * workflow"). Handlers admit messages into a bounded queue; the loop below runs one turn at a time inside its
 * own cancellation scope; `/stop` and (in interrupt mode) a new message cancel that scope directly.
 */
import * as wf from '@temporalio/workflow';
import type { SessionState } from './definitions.ts';
import {
  LIMITS,
  SA_CHANNEL,
  SA_CHATBOT,
  SA_SESSION_STATUS,
  compactUpdate,
  inboundProblem,
  setModeUpdate,
  setTitleUpdate,
  stateQuery,
  stopSignal,
  stopUpdate,
  submitMessageUpdate,
  titleChangedSignal,
  titleWorkflowId,
  userMessageSignal,
  type InboundMessage,
  type QueueItem,
  type SessionMode,
  type SessionWorkflowInput,
  type SubmitResult,
  isInlineDelivery,
  titleProblem,
  isLiveChannel,
} from './definitions.ts';
import { SessionQueue } from './session-queue.ts';
import { INLINE_DELIVERY_PATCH, TurnFailure, handlerPersistence, deliveryCleanup, deliveryLocalCleanup, persistenceDurable, runTurn, toTurnFailure, describeFailureChain } from './turn.ts';
import { titleWorkflow } from './title.ts';

/** Turns per run before continue-as-new when the server has not suggested it earlier. */
export const DEFAULT_CONTINUE_AS_NEW_TURNS = 200;

export async function sessionWorkflow(input: SessionWorkflowInput & { continueAsNewAfterTurns?: number }): Promise<void> {
  const address = { sessionId: input.sessionId, chatbotId: input.chatbotId, channelId: input.channelId };
  const queue = new SessionQueue(input.queue ?? [], input.seenIds ?? [], LIMITS.queueCapacity);
  let mode: SessionMode = input.mode ?? 'interrupt';
  let title: string | null = input.title ?? null;
  let titleSource: 'default' | 'auto' | 'user' = title ? 'auto' : 'default';
  let turnCount = input.turnCount ?? 0;
  let runTurns = 0;
  const canAfter = input.continueAsNewAfterTurns ?? DEFAULT_CONTINUE_AS_NEW_TURNS;
  const liveProgress = isLiveChannel(input.chatbotId);
  const inlineDelivery = isInlineDelivery(input.chatbotId);

  let current: {
    messageId: string;
    kind: QueueItem['kind'];
    scope: wf.CancellationScope;
    step: number;
    activity: string;
    stopReason?: 'stop' | 'interrupt';
  } | null = null;

  // Search attributes are written only when they change (each upsert is a history event); the current details
  // (Web UI) are free and follow every step.
  let indexedStatus = wf.workflowInfo().typedSearchAttributes.get(SA_SESSION_STATUS);
  const setStatus = (status: 'idle' | 'processing') => {
    if (indexedStatus !== status) {
      wf.upsertSearchAttributes([{ key: SA_SESSION_STATUS, value: status }]);
      indexedStatus = status;
    }
    wf.setCurrentDetails(
      status === 'idle'
        ? `idle · ${title ?? input.sessionId} · ${turnCount} turns · mode ${mode}`
        : `turn ${current?.messageId ?? ''} · step ${current?.step ?? 0}: ${current?.activity ?? ''} · queue ${queue.length}`,
    );
  };
  if (wf.workflowInfo().typedSearchAttributes.get(SA_CHATBOT) === undefined) {
    // Started by something other than SessionClient (which sets them at start).
    wf.upsertSearchAttributes([
      { key: SA_CHATBOT, value: input.chatbotId },
      { key: SA_CHANNEL, value: input.channelId },
    ]);
  }
  setStatus('idle');

  /** Turns ahead of a queued item: the running one counts unless it is being interrupted. */
  const queuePosition = (index: number | null): number => {
    if (index === null) return 0;
    return index + (current && !current.scope.consideredCancelled ? 1 : 0);
  };

  /** Cancels the running turn; returns whether one was running. */
  const cancelTurn = (reason: 'stop' | 'interrupt'): boolean => {
    if (!current) return false;
    current.stopReason ??= reason;
    current.scope.cancel();
    return true;
  };

  /** Admits a message whose slot was reserved; shared by the update and the signal. */
  const admit = async (msg: InboundMessage): Promise<SubmitResult> => {
    let stored;
    try {
      stored = await handlerPersistence().acceptInbound({ address, message: msg });
    } catch (err) {
      queue.release(msg.id);
      const inner = err instanceof wf.ActivityFailure && err.cause instanceof wf.ApplicationFailure ? err.cause.type : null;
      if (inner?.endsWith(':id_taken')) {
        throw wf.ApplicationFailure.nonRetryable('this message id is already used by another session', inner);
      }
      throw wf.ApplicationFailure.nonRetryable('the message could not be stored; nothing was queued', 'input_persistence');
    }
    const index = queue.commit(msg.id, stored.message.status === 'pending_agent');
    // A new user message interrupts a running user turn (interrupt mode); compaction turns run to the end.
    if (index !== null && mode === 'interrupt' && current?.kind === 'user' && current.messageId !== msg.id) cancelTurn('interrupt');
    return { message: stored.message, queue_position: queuePosition(index), duplicate: !stored.created };
  };

  wf.setHandler(
    submitMessageUpdate,
    async (msg) => {
      if (queue.isSeen(msg.id)) {
        const stored = await handlerPersistence().acceptInbound({ address, message: msg });
        return { message: stored.message, queue_position: queuePosition(queue.positionOf(msg.id)), duplicate: true };
      }
      queue.reserve(msg.id);
      return admit(msg);
    },
    {
      validator: (msg) => {
        const problem = inboundProblem(msg);
        if (problem) throw wf.ApplicationFailure.nonRetryable(`invalid message: ${problem}`, 'invalid_message');
        if (!queue.isSeen(msg.id) && !queue.hasRoom()) throw queueFull();
      },
    },
  );

  wf.setHandler(userMessageSignal, async (msg) => {
    if (inboundProblem(msg) !== null) {
      wf.log.warn('userMessage signal ignored: invalid payload', { problem: inboundProblem(msg) });
      return;
    }
    if (queue.isSeen(msg.id)) return;
    if (!queue.hasRoom()) {
      queue.markSeen(msg.id);
      const { noticeId } = await persistenceDurable.rejectInbound({ address, message: msg, capacity: LIMITS.queueCapacity });
      if (noticeId) await deliverNotice(address.sessionId, noticeId, inlineDelivery);
      return;
    }
    queue.reserve(msg.id);
    await admit(msg).catch((err) => wf.log.error('userMessage signal could not be stored', { error: String(err) }));
  });

  wf.setHandler(stopSignal, () => void cancelTurn('stop'));
  wf.setHandler(stopUpdate, () => ({ stopped: cancelTurn('stop') }));

  wf.setHandler(
    compactUpdate,
    async () => {
      const id = `compact-${wf.uuid4()}`;
      queue.reserve(id);
      try {
        const { message } = await handlerPersistence().createCompactionPrompt({ address, id, receivedAt: new Date().toISOString() });
        queue.commit(message.id, true, 'compaction');
        return { queued: true, message_id: message.id };
      } catch (err) {
        queue.release(id);
        throw wf.ApplicationFailure.nonRetryable('the compaction request could not be stored', 'input_persistence', { cause: String(err) });
      }
    },
    {
      validator: () => {
        if (!queue.hasRoom()) throw queueFull();
      },
    },
  );

  wf.setHandler(
    setTitleUpdate,
    async (newTitle) => {
      await handlerPersistence().updateSession({ sessionId: address.sessionId, title: newTitle.trim() });
      title = newTitle.trim();
      titleSource = 'user';
      if (!current) setStatus('idle');
      return { title };
    },
    {
      validator: (newTitle) => {
        const problem = titleProblem(newTitle);
        if (problem) throw wf.ApplicationFailure.nonRetryable(problem, 'invalid_message');
      },
    },
  );

  wf.setHandler(
    setModeUpdate,
    async (newMode) => {
      await handlerPersistence().updateSession({ sessionId: address.sessionId, mode: newMode });
      mode = newMode;
      if (!current) setStatus('idle');
      return { mode };
    },
    {
      validator: (newMode) => {
        if (newMode !== 'interrupt' && newMode !== 'queue') {
          throw wf.ApplicationFailure.nonRetryable('mode must be "interrupt" or "queue"', 'invalid_message');
        }
      },
    },
  );

  wf.setHandler(titleChangedSignal, (newTitle) => {
    if (titleSource !== 'user') {
      title = newTitle;
      titleSource = 'auto';
      if (!current) setStatus('idle');
    }
  });

  wf.setHandler(
    stateQuery,
    (): SessionState => ({
      sessionId: address.sessionId,
      status: current ? 'processing' : 'idle',
      mode,
      currentTurn: current ? { messageId: current.messageId, step: current.step, activity: current.activity } : null,
      queueLength: queue.length,
      title,
      turnCount,
    }),
  );

  const shouldContinueAsNew = () => wf.workflowInfo().continueAsNewSuggested || runTurns >= canAfter;

  for (;;) {
    await wf.condition(() => queue.length > 0 || shouldContinueAsNew());
    if (queue.length === 0 || shouldContinueAsNew()) {
      // Only between turns, after every handler finished (TEMPORAL-NOTES: temporalio/temporal#6375).
      await wf.condition(wf.allHandlersFinished);
      return await wf.continueAsNew<typeof sessionWorkflow>({
        ...address,
        mode,
        queue: queue.items(),
        seenIds: queue.seenForCarry(),
        title,
        turnCount,
        continueAsNewAfterTurns: canAfter,
      });
    }

    // Interrupt mode: only the newest user message runs; older queued ones were superseded by it.
    const superseded: QueueItem[] = mode === 'interrupt' ? queue.takeSupersededUserItems() : [];
    if (superseded.length > 0) {
      await persistenceDurable.supersede({ sessionId: address.sessionId, messageIds: superseded.map((i) => i.messageId) });
    }
    const item = queue.shift();
    if (!item) continue;

    const scope = new wf.CancellationScope();
    current = { messageId: item.messageId, kind: item.kind, scope, step: 0, activity: 'starting' };
    const running = current;
    setStatus('processing');
    let ended: 'processed' | 'skipped' | 'interrupted' | 'error' = 'error';
    try {
      const end = await scope.run(() =>
        runTurn({
          sessionId: address.sessionId,
          turnId: item.messageId,
          kind: item.kind,
          liveProgress,
          inlineDelivery,
          onProgress: (p) => {
            running.step = p.step;
            running.activity = p.activity;
            setStatus('processing');
          },
        }),
      );
      ended = end.ended;
      if (end.ended === 'processed' && end.turnCount !== undefined) turnCount = end.turnCount; // finished inline
      else if (end.ended === 'processed') {
        const r = await persistenceDurable.finishTurn({ sessionId: address.sessionId, turnId: item.messageId, result: { outcome: 'processed' } });
        turnCount = r.turnCount;
      }
    } catch (err) {
      ended = wf.isCancellation(err) ? 'interrupted' : 'error';
      await wf.CancellationScope.nonCancellable(async () => {
        const result =
          ended === 'interrupted'
            ? { outcome: 'interrupted' as const, reason: running.stopReason ?? ('stop' as const) }
            : (() => {
                const f = err instanceof TurnFailure ? err : toTurnFailure(err, 'provider');
                wf.log.warn('turn failed', { turnId: item.messageId, kind: f.kind, detail: f.detail, failure: describeFailureChain(err) });
                return { outcome: 'error' as const, kind: f.kind, detail: f.detail };
              })();
        const { noticeId, turnCount: n } = await persistenceDurable.finishTurn({ sessionId: address.sessionId, turnId: item.messageId, result });
        turnCount = n;
        if (noticeId) await deliverNotice(address.sessionId, noticeId, inlineDelivery);
      });
    } finally {
      if (liveProgress) {
        await wf.CancellationScope.nonCancellable(() =>
          deliveryCleanup.signalActivity({ sessionId: address.sessionId, active: false }).catch(() => undefined),
        );
      }
      current = null;
      runTurns++;
      setStatus('idle');
    }

    // Seed 2 §12: the title is generated off the turn's critical path, by a child that outlives this run.
    if (ended === 'processed' && titleSource === 'default' && item.kind === 'user') {
      titleSource = 'auto';
      await startTitle(address.sessionId);
    }
  }
}

/**
 * Delivers a notice (stop, interruption, crash, queue full). It retries until the channel takes it; a channel
 * that refuses for good (deleted channel, revoked access) ends the attempt with a log line, never the session.
 */
async function deliverNotice(sessionId: string, messageId: string, inline: boolean): Promise<void> {
  try {
    await (inline && wf.patched(INLINE_DELIVERY_PATCH) ? deliveryLocalCleanup : deliveryCleanup).deliverMessage({ sessionId, messageId });
  } catch (err) {
    wf.log.warn('notice not delivered', { messageId, error: String(err) });
  }
}

function queueFull(): wf.ApplicationFailure {
  return wf.ApplicationFailure.nonRetryable(`queue full: the session already holds ${LIMITS.queueCapacity} messages`, 'queue_full');
}

async function startTitle(sessionId: string): Promise<void> {
  try {
    await wf.startChild(titleWorkflow, {
      workflowId: titleWorkflowId(sessionId),
      args: [{ sessionId, parentWorkflowId: wf.workflowInfo().workflowId }],
      parentClosePolicy: wf.ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: wf.WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      staticSummary: `title for session ${sessionId}`,
    });
  } catch (err) {
    // Already started (e.g. before a continue-as-new) or finished: the title is not ours to retry.
    wf.log.info('title workflow not started', { error: String(err) });
  }
}


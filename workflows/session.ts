/**
 * The session workflow: one long-running workflow per chat session. Its state and operations live in
 * {@link SessionManager} (workflows/session-state.ts); each handler below delegates to it, and the body is the
 * loop: wait for work, run one turn, start the title, continue-as-new between turns.
 */
import * as wf from '@temporalio/workflow';
import {
  SA_CHANNEL,
  SA_CHATBOT,
  SA_SESSION_STATUS,
  compactUpdate,
  editQueuedMessageUpdate,
  decideApprovalUpdate,
  setModeUpdate,
  setTitleUpdate,
  stateQuery,
  stopSignal,
  stopUpdate,
  submitMessageUpdate,
  titleChangedSignal,
  titleWorkflowId,
  userMessageSignal,
  withdrawQueuedMessageUpdate,
  type SessionWorkflowInput,
} from './definitions.ts';
import { SessionManager, type SessionPorts } from './session-state.ts';
import { inlineNotices, notices, progress, handlerWrites, turnWrites } from './activity-options.ts';
import { runTurn } from './turn.ts';
import { describeFailureChain, toTurnFailure } from './turn-failure.ts';
import { titleWorkflow } from './title.ts';

/** Turns per run before continue-as-new when the server has not suggested it earlier. */
export const DEFAULT_CONTINUE_AS_NEW_TURNS = 200;

export async function sessionWorkflow(input: SessionWorkflowInput): Promise<void> {
  const session = new SessionManager(input, temporalPorts(input));
  const canAfter = input.continueAsNewAfterTurns ?? DEFAULT_CONTINUE_AS_NEW_TURNS;
  if (wf.workflowInfo().typedSearchAttributes.get(SA_CHATBOT) === undefined) {
    // Started by something other than the session client (which sets them at start).
    wf.upsertSearchAttributes([
      { key: SA_CHATBOT, value: input.chatbotId },
      { key: SA_CHANNEL, value: input.channelId },
    ]);
  }

  wf.setHandler(submitMessageUpdate, (msg) => session.submit(msg), {
    validator: (msg) => session.validateSubmit(msg),
  });
  wf.setHandler(userMessageSignal, (msg) => session.receiveSignal(msg));
  wf.setHandler(stopSignal, () => void session.stop());
  wf.setHandler(stopUpdate, () => session.stop());
  wf.setHandler(compactUpdate, () => session.compact(), { validator: () => session.validateCompact() });
  wf.setHandler(setTitleUpdate, (title) => session.setTitle(title), {
    validator: (title) => session.validateTitle(title),
  });
  wf.setHandler(setModeUpdate, (mode) => session.setMode(mode), {
    validator: (mode) => session.validateMode(mode),
  });
  wf.setHandler(editQueuedMessageUpdate, (edit) => session.editQueued(edit), {
    validator: (edit) => session.validateEdit(edit),
  });
  wf.setHandler(withdrawQueuedMessageUpdate, (messageId) => session.withdrawQueued(messageId));
  wf.setHandler(titleChangedSignal, (title) => session.titleChanged(title));
  wf.setHandler(decideApprovalUpdate, (d) => session.decide(d), {
    validator: (d) => session.validateDecision(d),
  });
  wf.setHandler(stateQuery, () => session.state());

  session.showIdle();
  await session.restore();
  let runTurns = 0;
  const shouldContinueAsNew = () => wf.workflowInfo().continueAsNewSuggested || runTurns >= canAfter;
  // A turn waiting for approval is carried into the next run when this one should end: the server suggests it,
  // or the waiting turn is this run's last by the turn bound (a turn resumed here is not carried again for it).
  const suspendWhile = (resumed: boolean) => () =>
    wf.workflowInfo().continueAsNewSuggested || (!resumed && runTurns + 1 >= canAfter);
  const continueAsNew = async () => {
    // Only after every handler finished: an update accepted but unfinished would be lost.
    await wf.condition(wf.allHandlersFinished);
    return await wf.continueAsNew<typeof sessionWorkflow>(session.carry(canAfter));
  };
  if (input.suspendedTurn) {
    const item = input.suspendedTurn.item;
    const ended = await session.resume(input.suspendedTurn, suspendWhile(true));
    if (ended === 'suspended') return await continueAsNew();
    runTurns++;
    if (session.wantsTitle(item, ended)) await startTitle(input.sessionId);
  }
  for (;;) {
    await wf.condition(() => session.queue.length > 0 || shouldContinueAsNew());
    if (session.queue.length === 0 || shouldContinueAsNew()) return await continueAsNew();
    const item = await session.next();
    if (!item) continue;
    const ended = await session.runTurn(item, { shouldSuspend: suspendWhile(false) });
    if (ended === 'suspended') return await continueAsNew();
    runTurns++;
    if (session.wantsTitle(item, ended)) await startTitle(input.sessionId);
  }
}

/** The Temporal side of {@link SessionPorts}. */
function temporalPorts(input: SessionWorkflowInput): SessionPorts {
  let indexedStatus = wf.workflowInfo().typedSearchAttributes.get(SA_SESSION_STATUS);
  return {
    handlerWrites,
    turnWrites,
    deliverNotice: async (messageId, fromHandler) => {
      const proxy = input.inlineDelivery && !fromHandler ? inlineNotices : notices;
      await proxy.deliverMessage({ sessionId: input.sessionId, messageId });
    },
    cancellable: (fn) => {
      const scope = new wf.CancellationScope();
      return { cancel: () => scope.cancel(), result: scope.run(fn) };
    },
    nonCancellable: (fn) => wf.CancellationScope.nonCancellable(fn),
    isCancellation: (err) => wf.isCancellation(err),
    failureOutcome: (err, turnId) => {
      const f = toTurnFailure(err, 'provider');
      wf.log.warn('turn failed', {
        turnId,
        kind: f.kind,
        detail: f.detail,
        failure: describeFailureChain(err),
      });
      return { outcome: 'error', kind: f.kind, detail: f.detail };
    },
    runTurn,
    endTyping: () =>
      progress
        .signalActivity({ sessionId: input.sessionId, active: false })
        .catch((err) => wf.log.info('typing indicator not ended', { error: String(err) })),
    show: (status, details) => {
      // Search attributes are written only when they change (each upsert is a history event); the current
      // details (Web UI) are free and follow every step.
      if (indexedStatus !== status) {
        wf.upsertSearchAttributes([{ key: SA_SESSION_STATUS, value: status }]);
        indexedStatus = status;
      }
      wf.setCurrentDetails(details);
    },
    fail: (type, message) => wf.ApplicationFailure.nonRetryable(message, type),
    uuid: () => wf.uuid4(),
    now: () => new Date(),
    log: wf.log,
  };
}

/**
 * Starts the title workflow, off the turn's critical path; it outlives this run (ABANDON). A title that failed
 * is tried again after the next processed turn: the id may be reused once the earlier title run closed.
 */
async function startTitle(sessionId: string): Promise<void> {
  try {
    await wf.startChild(titleWorkflow, {
      workflowId: titleWorkflowId(sessionId),
      args: [{ sessionId, parentWorkflowId: wf.workflowInfo().workflowId }],
      parentClosePolicy: wf.ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: wf.WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      staticSummary: `title for session ${sessionId}`,
    });
  } catch (err) {
    // Still running (e.g. started before a continue-as-new): it reports through `titleChanged`.
    wf.log.info('title workflow not started', { error: String(err) });
  }
}

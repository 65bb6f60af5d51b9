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
  upgradeSignal,
  userMessageSignal,
  DEFAULT_CONTINUE_AS_NEW_EVENTS,
  DEFAULT_SESSION_IDLE_S,
  withdrawQueuedMessageUpdate,
  type SessionWorkflowInput,
} from './definitions.ts';
import { SessionManager } from './session-state.ts';
import type { SessionPorts } from './session-ports.ts';
import { inlineNotices, notices, progress, handlerWrites, turnWrites } from './activity-options.ts';
import { SIDE_WORK_PATCH, runTurn } from './turn.ts';
import { describeFailureChain, toTurnFailure } from './turn-failure.ts';
import { titleWorkflow } from './title.ts';

/** Turns per run before continue-as-new when the server has not suggested it earlier. */
export const DEFAULT_CONTINUE_AS_NEW_TURNS = 200;

/**
 * The patch of the idle bound: a run waiting for work starts a timer and ends when it fires
 * ({@link SessionWorkflowInput.idleEndS}). Histories recorded before it wait without a timer.
 */
export const IDLE_PATCH = 'session-idle-end';

/**
 * The patch of the history bound ({@link SessionWorkflowInput.continueAsNewAfterEvents}): a run whose history
 * reached the bound continues-as-new at the next turn boundary. Asked only once the bound is reached, so a history
 * that an older build carried past the bound (its input may hold the bound from a newer client) replays as it ran.
 */
export const EVENT_BOUND_PATCH = 'continue-as-new-at-event-bound';

/*
 * Versioning: a session run is PINNED to the build it started on (Worker Deployment versioning, the worker's
 * default behaviour: workers/build-worker.ts), so a deploy, a
 * ramp or a rollback never replays its history on other code. A session moves to another build only with a new
 * run:
 * - an idle run (nothing queued, no turn) ends after the idle bound, or at once on an `upgrade` signal or when the
 *   server says the deployment's target build changed. Its state is all in Postgres: the next message starts a
 *   run on the current build, which restores it (settings, open inputs);
 * - a run with something to carry (the turn bound, the server's suggestion, a turn waiting for approval while
 *   another build should take over) continues-as-new with `initialVersioningBehavior: 'AUTO_UPGRADE'`. Servers
 *   with upgrade-on-continue-as-new start that run on the current build; older ones (1.29) keep it on this
 *   build, and it ends by the rule above once idle.
 * Without a Worker Deployment (no build id) PINNED has no effect; changes stay behind `patched()` either way.
 */
export async function sessionWorkflow(input: SessionWorkflowInput): Promise<void> {
  const session = new SessionManager(input, temporalPorts(input));
  const canAfter = input.continueAsNewAfterTurns ?? DEFAULT_CONTINUE_AS_NEW_TURNS;
  // Runs started without the event bound have none (their histories replay unchanged); their next run has it.
  const canEvents = input.continueAsNewAfterEvents;
  const idleS = input.idleEndS ?? DEFAULT_SESSION_IDLE_S;
  let upgradeRequested = input.upgradeRequested ?? false;
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
  // Messages arrive only by the submitMessage update, whose validator and answer the API and adapters use; the
  // userMessage signal admitted a message from anyone who reaches Temporal. Runs started before this rule keep it
  // (their histories replay), new runs log and drop it.
  if (wf.patched('refuse-user-message-signal'))
    wf.setHandler(userMessageSignal, (msg) => session.refuseSignal(msg));
  else wf.setHandler(userMessageSignal, (msg) => session.receiveSignal(msg));
  wf.setHandler(stopSignal, () => void session.stop());
  wf.setHandler(stopUpdate, () => session.once('stop', wf.currentUpdateInfo()?.id, () => session.stop()));
  wf.setHandler(
    compactUpdate,
    () => session.once('compact', wf.currentUpdateInfo()?.id, () => session.compact()),
    {
      validator: () => session.validateCompact(),
    },
  );
  wf.setHandler(upgradeSignal, () => {
    upgradeRequested = true;
  });
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
  // Another build should take over: an operator asked (`upgrade`), or the server says the deployment's target
  // build is no longer the one this run is pinned to.
  const movesOn = () => upgradeRequested || wf.workflowInfo().targetWorkerDeploymentVersionChanged;
  const shouldContinueAsNew = () =>
    wf.workflowInfo().continueAsNewSuggested ||
    runTurns >= canAfter ||
    (canEvents !== undefined &&
      wf.workflowInfo().historyLength >= canEvents &&
      wf.patched(EVENT_BOUND_PATCH));
  // A turn waiting for approval is carried into the next run when this one should end: the server suggests it,
  // another build should take over, or the waiting turn is this run's last by the turn bound (a turn resumed here
  // is not carried again for it).
  const suspendWhile = (resumed: boolean) => () =>
    wf.workflowInfo().continueAsNewSuggested || movesOn() || (!resumed && runTurns + 1 >= canAfter);
  // The next run starts on the deployment's current build, whatever this one is pinned to.
  const continueOnCurrentBuild = wf.makeContinueAsNewFunc<typeof sessionWorkflow>({
    initialVersioningBehavior: 'AUTO_UPGRADE',
  });
  // Titles start beside the next turn (SIDE_WORK_PATCH), one after the other; settled before the run ends.
  let titles: Promise<void> = Promise.resolve();
  const wantTitle = async () => {
    if (!wf.patched(SIDE_WORK_PATCH)) return await startTitle(input.sessionId);
    titles = titles.then(() => startTitle(input.sessionId));
  };
  const continueAsNew = async () => {
    await session.settleSideWork();
    await titles;
    // Only after every handler finished: an update accepted but unfinished would be lost.
    await wf.condition(wf.allHandlersFinished);
    return await continueOnCurrentBuild({
      ...session.carry(
        canAfter,
        canEvents ?? DEFAULT_CONTINUE_AS_NEW_EVENTS,
        input.idleEndS === undefined ? undefined : idleS,
      ),
      ...(upgradeRequested ? { upgradeRequested } : {}),
    });
  };
  // Ends an idle run: closes it when nothing but Postgres holds its state (the next message starts a run on the
  // current build, which restores), else continues-as-new.
  const endIdleRun = async () => {
    // Typing-off and titles still running beside the last turn finish first, as before continue-as-new.
    await session.settleSideWork();
    await titles;
    // The answered command ids go to Postgres first; a handler that ran while they were written is looked at
    // again (what it queued is carried by continue-as-new, a command it answered is kept too).
    for (;;) {
      await wf.condition(wf.allHandlersFinished);
      if (!session.holdsNothing()) return await continueAsNew();
      if (!(await session.keepSeenCommands())) break;
    }
    wf.log.info('idle session run ends; the next message starts a new run', { upgradeRequested });
  };
  // Waits for queued work or a reason to end the run; false when the run stayed idle for the idle bound.
  const waitForWork = async (): Promise<boolean> => {
    const ready = () => session.queue.length > 0 || shouldContinueAsNew() || movesOn();
    if (ready()) return true;
    if (!wf.patched(IDLE_PATCH)) return await wf.condition(ready).then(() => true);
    return await wf.condition(ready, idleS * 1000);
  };
  if (input.suspendedTurn) {
    const item = input.suspendedTurn.item;
    const ended = await session.resume(input.suspendedTurn, suspendWhile(true));
    if (ended === 'suspended') return await continueAsNew();
    runTurns++;
    if (session.wantsTitle(item, ended)) await wantTitle();
  }
  for (;;) {
    // Idle past the bound, or another build should take over: the run ends, so old builds drain and patch
    // markers leave open histories.
    if (!(await waitForWork()) || (session.queue.length === 0 && movesOn())) return await endIdleRun();
    if (session.queue.length === 0 || shouldContinueAsNew()) return await continueAsNew();
    const item = await session.next();
    if (!item) continue;
    const ended = await session.runTurn(item, { shouldSuspend: suspendWhile(false) });
    if (ended === 'suspended') return await continueAsNew();
    runTurns++;
    if (session.wantsTitle(item, ended)) await wantTitle();
  }
}

/** The Temporal side of {@link SessionPorts}. */
function temporalPorts(input: SessionWorkflowInput): SessionPorts {
  let indexedStatus = wf.workflowInfo().typedSearchAttributes.get(SA_SESSION_STATUS);
  // `kesoku_session_problems{what}` in the worker's SDK metrics: what the `state` query lists, to alert on.
  const problemCounter = wf.metricMeter.createCounter(
    'kesoku_session_problems',
    undefined,
    'Session problems the workflow recorded and moved on from or retries (restore, notice delivery, …), by kind.',
  );
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
    sleep: (ms) => wf.sleep(ms),
    patched: (changeId) => wf.patched(changeId),
    countProblem: (what) => problemCounter.add(1, { what }),
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

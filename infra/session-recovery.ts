/**
 * Recovery of a session whose run is stuck (a workflow task that fails on every attempt, e.g. with a
 * nondeterminism error after a deploy of code that does not replay its history): the run is terminated and a new
 * run is started, which restores the session from Postgres (settings, `pending_agent` inputs re-queued, turns
 * cut short ended `interrupted` with a notice). In a run started before the `userMessage` signal was refused
 * (no `refuse-user-message-signal` patch marker in its history), messages that reached it only by that signal
 * (recorded in its history, never stored) are submitted again, in order; message ids make every repeat harmless.
 * Later runs refuse the signal, so nothing that came by it was accepted. Updates sent while the run was stuck were never accepted (their callers got 503) and are retried by
 * their callers. docs/operations.md "A session stuck on a nondeterminism error"; `npm run recover` is bin/recover.ts.
 */
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { LoadedDataConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { InboundMessage, SessionWorkflowInput } from '../workflows/definitions.ts';
import type { SessionClient } from './session-client.ts';

/** The patch after which session runs refuse the `userMessage` signal (workflows/session.ts). */
const SIGNAL_REFUSAL_PATCH = 'refuse-user-message-signal';

/** What {@link recoverSession} did. */
export interface RecoveryReport {
  /** The terminated run, or null when the session had no running run (nothing was terminated). */
  terminatedRunId: string | null;
  /** Ids of the messages found only as signals in the stuck run and submitted again. */
  resubmitted: string[];
  /** The run started to take over. */
  newRunId: string;
}

/**
 * Terminates the session's running run and starts a new one that restores from Postgres; re-submits the messages
 * the run had received by signal. Idempotent: a second call on a healthy session terminates its run too, and
 * loses nothing (the run is restored the same way), but cuts a running turn short.
 * @throws when Temporal does not answer, or the session has never had a run (WorkflowNotFoundError)
 */
export async function recoverSession(
  sessions: SessionClient,
  sessionId: string,
  reason = 'kesoku recovery: stuck workflow task',
): Promise<RecoveryReport> {
  const handle = sessions.handle(sessionId);
  const described = await handle.describe();
  const history = await handle.fetchHistory();
  const converter = (sessions.client.workflow.options as { loadedDataConverter: LoadedDataConverter })
    .loadedDataConverter;
  const events = history.events ?? [];
  const input = await decodeFromPayloadsAtIndex<SessionWorkflowInput>(
    converter,
    0,
    events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads,
  );
  const signalled: InboundMessage[] = [];
  const refusesSignals = events.some((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_patch') return false;
    return Object.values(m.details ?? {}).some((d) =>
      (d.payloads ?? []).some((p) =>
        Buffer.from(p.data ?? [])
          .toString('utf8')
          .includes(SIGNAL_REFUSAL_PATCH),
      ),
    );
  });
  for (const e of refusesSignals ? [] : events) {
    const s = e.workflowExecutionSignaledEventAttributes;
    if (s?.signalName !== 'userMessage') continue;
    signalled.push(await decodeFromPayloadsAtIndex<InboundMessage>(converter, 0, s.input?.payloads));
  }
  let terminatedRunId: string | null = null;
  if (described.status.name === 'RUNNING') {
    await handle.terminate(reason);
    terminatedRunId = described.runId;
  }
  const address = { sessionId, chatbotId: input.chatbotId, channelId: input.channelId };
  await sessions.start(address);
  const resubmitted: string[] = [];
  for (const msg of signalled) {
    await sessions.submit(address, msg);
    resubmitted.push(msg.id);
  }
  return { terminatedRunId, resubmitted, newRunId: (await handle.describe()).runId };
}

/**
 * Session ids of the running session workflows whose workflow task has failed at least `minAttempts` times in a
 * row (a stuck run: nondeterminism, or a bug that throws in every activation).
 */
export async function stuckSessions(client: Client, minAttempts = 3): Promise<string[]> {
  const out: string[] = [];
  const query = "WorkflowType = 'sessionWorkflow' AND ExecutionStatus = 'Running'";
  for await (const w of client.workflow.list({ query })) {
    const d = await client.workflow.getHandle(w.workflowId).describe();
    if ((d.raw.pendingWorkflowTask?.attempt ?? 0) >= minAttempts && w.workflowId.startsWith('session:'))
      out.push(w.workflowId.slice('session:'.length));
  }
  return out;
}

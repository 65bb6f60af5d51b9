/**
 * Workflow tasks that fail with a nondeterminism error, as this worker process saw them: the Temporal SDK core logs
 * "Failing workflow task" with the failure (`[TMPRL1100] Nondeterminism error: …`, cause NonDeterministicError)
 * and retries the task for as long as the run is open, so the session stops answering. Counted in
 * `kesoku_workflow_task_nondeterminism_total`, logged at error with the run id, and reported by the worker's
 * `/healthz` (component `workflows`, 503) for {@link NONDETERMINISM_HEALTH_WINDOW_MS} after the last one.
 * Recovery: docs/operations.md "A session stuck on a nondeterminism error".
 */
import client from 'prom-client';
import { registry } from './metrics.ts';

/** How long `/healthz` reports a nondeterminism failure after the last one, in ms. */
export const NONDETERMINISM_HEALTH_WINDOW_MS = 15 * 60_000;

const counter = new client.Counter({
  name: 'kesoku_workflow_task_nondeterminism_total',
  help: 'Workflow tasks this worker failed with a nondeterminism error (the run is stuck until recovered: docs/operations.md).',
  registers: [registry],
});

/** The latest nondeterminism failure seen by this process. */
export interface NondeterminismSeen {
  /** The workflow run, as the SDK logged it. */
  runId: string | null;
  /** ISO 8601. */
  at: string;
  /** The failure message, shortened to 300 characters. */
  error: string;
}

let seen = 0;
let last: NondeterminismSeen | null = null;

/**
 * Looks at one SDK log entry; counts and remembers it when it is a workflow task failed by a nondeterminism error.
 * @returns true when it was one
 */
export function noteSdkLog(message: string, meta: Record<string, unknown>, now = new Date()): boolean {
  if (!/failing workflow task/i.test(message)) return false;
  const text = `${String(meta.failure ?? '')} ${String(meta.error ?? '')}`;
  if (!/nondetermin/i.test(text)) return false;
  seen++;
  counter.inc();
  const runId = meta.run_id ?? meta.runId;
  last = {
    runId: typeof runId === 'string' ? runId : null,
    at: now.toISOString(),
    error: (/\[TMPRL1100\][^"]*/.exec(text)?.[0] ?? text).slice(0, 300),
  };
  return true;
}

/** The `workflows` component of `/healthz`: not ok while a nondeterminism failure is recent. */
export function workflowTaskHealth(now = Date.now()): {
  ok: boolean;
  nondeterminism: number;
  last?: NondeterminismSeen;
} {
  const recent = last !== null && now - Date.parse(last.at) < NONDETERMINISM_HEALTH_WINDOW_MS;
  return { ok: !recent, nondeterminism: seen, ...(last ? { last } : {}) };
}

/**
 * How the Temporal SDK's own log entries reach Kesoku's logger (one JSON line each, under `temporal: true`), and
 * the SDK runtime's Prometheus exporter. Every process installs it once, before its first connection.
 */
import type { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Logger } from '../infra/logger.ts';
import { noteSdkLog } from '../infra/workflow-health.ts';

/**
 * Activity failure types that are an expected outcome, not a fault: `StaleTurnError` is a step whose commit was
 * refused because the user stopped or interrupted the turn (db/messages.ts guardTurn). The SDK logs them as
 * "Activity failed" at WARN with the stack; Kesoku logs them at INFO with the type and message only.
 */
export const EXPECTED_ACTIVITY_FAILURE_TYPES: ReadonlySet<string> = new Set(['StaleTurnError']);

/**
 * SDK warnings that describe Kesoku's design, not a fault: the tool worker (`<queue>-tools`) runs activities only,
 * so the SDK's "no workflows registered" is expected there. Written at info (not shown at `npm start`'s level).
 */
export const EXPECTED_SDK_WARNINGS: ReadonlySet<string> = new Set([
  'No workflows registered, not polling for workflow tasks',
]);

/**
 * How one Temporal SDK log entry is written: the pino method and fields. An `error` in the metadata becomes
 * pino's `err` (message and stack), but an "Activity failed" of an {@link EXPECTED_ACTIVITY_FAILURE_TYPES} type
 * is written at info as `failure: {type, message}` (no stack), and an {@link EXPECTED_SDK_WARNINGS} warning at info.
 * @param level the SDK's level name (TRACE, DEBUG, INFO, WARN, ERROR)
 */
export function sdkLogLine(
  level: string,
  message: string,
  meta: Record<string, unknown>,
): { method: 'trace' | 'debug' | 'info' | 'warn' | 'error'; fields: Record<string, unknown> } {
  // An activity's task token is an opaque credential-like blob of no use to a reader.
  const { error, taskToken: _taskToken, ...rest } = meta;
  // By name, not instanceof: the SDK may load its own copy of @temporalio/common.
  const failure =
    error instanceof Error && error.name === 'ApplicationFailure' ? (error as ApplicationFailure) : null;
  if (message === 'Activity failed' && failure && EXPECTED_ACTIVITY_FAILURE_TYPES.has(failure.type ?? '')) {
    return { method: 'info', fields: { ...rest, failure: { type: failure.type, message: failure.message } } };
  }
  const fields = error === undefined ? rest : { ...rest, err: error };
  if (level === 'WARN' && EXPECTED_SDK_WARNINGS.has(message)) return { method: 'info', fields };
  const method =
    level === 'TRACE'
      ? 'trace'
      : level === 'DEBUG'
        ? 'debug'
        : level === 'INFO'
          ? 'info'
          : level === 'WARN'
            ? 'warn'
            : 'error';
  return { method, fields };
}

/**
 * Routes the Temporal SDK's own logs (worker state, activity failures, workflow `log` calls such as "turn
 * failed") into `logger` as JSON lines under `temporal: true`, at WARN unless Kesoku logs at info/debug/trace.
 * An `error` in the entry's metadata becomes pino's `err` (message and stack). Call once, before the first
 * connection.
 */
export function installTemporalLogging(
  level: string,
  logger: Logger,
  opts: { prometheusBindAddress?: string } = {},
): void {
  const sdkLevel = level === 'debug' || level === 'trace' ? 'DEBUG' : level === 'info' ? 'INFO' : 'WARN';
  const sdk = logger.child({ temporal: true });
  const write = new DefaultLogger(sdkLevel, (entry) => {
    const meta = (entry.meta ?? {}) as Record<string, unknown>;
    if (noteSdkLog(entry.message, meta)) {
      // A session stuck until an operator acts: an error, with where to look.
      sdk.error(
        {
          ...meta,
          nondeterminism: true,
          recovery: 'docs/operations.md "A session stuck on a nondeterminism error"',
        },
        'workflow task failed with a nondeterminism error; the run is stuck',
      );
      return;
    }
    const line = sdkLogLine(entry.level, entry.message, meta);
    sdk[line.method](line.fields, entry.message);
  });
  try {
    // Core (Rust) logs are forwarded to the same logger instead of being printed to the console.
    Runtime.install({
      logger: write,
      telemetryOptions: {
        logging: { filter: { core: sdkLevel, other: 'ERROR' }, forward: {} },
        // The SDK runtime's own Prometheus exporter (worker and task-queue series), re-served on /metrics.
        ...(opts.prometheusBindAddress
          ? {
              metrics: {
                prometheus: {
                  bindAddress: opts.prometheusBindAddress,
                  countersTotalSuffix: true,
                  unitSuffix: true,
                  useSecondsForDurations: true,
                },
              },
            }
          : {}),
      },
    });
  } catch {
    // Already installed.
  }
}

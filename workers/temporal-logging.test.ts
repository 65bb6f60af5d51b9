// How the Temporal SDK's log entries are written: an activity refused because the user stopped the turn is an
// expected outcome (info, no stack); other failures keep their level and stack.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { sdkLogLine } from './temporal-logging.ts';

describe('sdkLogLine', () => {
  it('writes a stale turn (a stop was requested) at info with type and message, without the error', () => {
    const error = ApplicationFailure.nonRetryable('turn t1 is stale: a stop was requested', 'StaleTurnError');
    const line = sdkLogLine('WARN', 'Activity failed', { error, durationMs: 12, activityType: 'modelStep' });
    expect(line.method).toBe('info');
    expect(line.fields).toEqual({
      durationMs: 12,
      activityType: 'modelStep',
      failure: { type: 'StaleTurnError', message: 'turn t1 is stale: a stop was requested' },
    });
  });

  it('keeps other activity failures at their level with the error (and its stack)', () => {
    const error = ApplicationFailure.nonRetryable('provider said no', 'provider:auth');
    const line = sdkLogLine('WARN', 'Activity failed', { error });
    expect(line).toEqual({ method: 'warn', fields: { err: error } });
    const plain = new Error('boom');
    expect(sdkLogLine('ERROR', 'Activity failed', { error: plain })).toEqual({
      method: 'error',
      fields: { err: plain },
    });
    expect(sdkLogLine('INFO', 'Worker state changed', { state: 'RUNNING' })).toEqual({
      method: 'info',
      fields: { state: 'RUNNING' },
    });
  });

  it('writes the tool worker’s expected “no workflows registered” at info, other warnings at warn', () => {
    const msg = 'No workflows registered, not polling for workflow tasks';
    expect(sdkLogLine('WARN', msg, { taskQueue: 'kesoku-tools' })).toEqual({
      method: 'info',
      fields: { taskQueue: 'kesoku-tools' },
    });
    expect(sdkLogLine('WARN', 'Workflow task failed', { taskQueue: 'kesoku' }).method).toBe('warn');
  });

  it("leaves out an activity's task token (an opaque blob of no use to a reader)", () => {
    const line = sdkLogLine('WARN', 'Activity failed', {
      attempt: 2,
      taskToken: 'Cg5zZWNyZXQ=',
      activityType: 'x',
    });
    expect(line.fields).toEqual({ attempt: 2, activityType: 'x' });
  });
});

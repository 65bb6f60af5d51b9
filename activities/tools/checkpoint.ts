/**
 * What a tool run leaves for a retry of its activity: the heartbeat checkpoint (where the run is), and the
 * result stored for a run that an earlier attempt started but never finished.
 */
import type { ToolResult } from './tool.ts';
import type { LeftoverOutcome, SpawnedProcess, StoredToolOutcome } from './runs.ts';

/** What the tool activity heartbeats: where the run is, so a retry knows what the earlier attempt did. */
export type ToolCheckpoint =
  | { phase: 'started' }
  | { phase: 'running'; process: SpawnedProcess }
  | { phase: 'done'; outcome: StoredToolOutcome };

/** The checkpoint in an activity's last heartbeat details, or undefined when there is none (or it is malformed). */
export function checkpointOf(details: unknown): ToolCheckpoint | undefined {
  if (typeof details !== 'object' || details === null || !('phase' in details)) return undefined;
  const phase = (details as { phase: unknown }).phase;
  if (phase === 'started') return { phase };
  if (phase === 'running' && 'process' in details) return details as ToolCheckpoint;
  if (phase === 'done' && 'outcome' in details) {
    const outcome = (details as { outcome: StoredToolOutcome }).outcome;
    if (typeof outcome?.result?.content === 'string' && typeof outcome.ok === 'boolean')
      return { phase, outcome };
  }
  return undefined;
}

/**
 * The result stored for a command whose earlier attempt started it but never reported back (the worker was
 * killed, lost its host, or was stopped past its drain time). The model reads `content`.
 */
export function interruptedResult(
  name: string,
  leftover: LeftoverOutcome,
  why: 'worker_stopped' | 'drain_expired',
): ToolResult {
  const what = name === 'run_shell_command' ? 'command' : `${name} call`;
  const cause =
    why === 'drain_expired'
      ? `The worker running this ${what} was shut down and its drain time ran out before the ${what} finished; its processes were killed.`
      : `The worker running this ${what} stopped (it crashed, was killed or lost its host) before the ${what} finished.`;
  const processes: Record<LeftoverOutcome, string> = {
    'none-recorded': '',
    'already-gone': ' Its processes had already ended.',
    unverifiable: ' Its processes could not be identified with certainty, so none were signalled.',
    killed: ' Its processes that were still running have been killed.',
    'other-host': ' It ran on another host, whose processes could not be reached from here.',
    'not-permitted': ' Its processes could not be signalled (permission denied).',
  };
  return {
    content:
      `Error: the ${what} was interrupted by a worker stop and was not run again. ${cause}${processes[leftover]} ` +
      'It may have done part of its work: check its effects before running it again.',
    summary: `interrupted by a worker stop; not re-run`,
  };
}

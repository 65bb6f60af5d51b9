/**
 * The tool activity: runs one stored tool_call and stores its tool_result (docs/message-model.md §3 "工具执行输出").
 *
 * A command runs at most once per tool call, however often the activity is retried:
 * - before anything is spawned, a `tool_runs` row records that the call started (and, once spawned, the
 *   process group and the host); a heartbeat checkpoint says the same;
 * - once the tool has finished, its result goes into a heartbeat checkpoint and into that row before the
 *   tool_result message is committed, so a retry after a failed commit only commits it;
 * - a retry that finds a started run without a result does not run it again: it kills the process group the
 *   earlier attempt left behind when it can reach it (same host) and stores a result that says the command was
 *   interrupted by a worker stop and not re-run. Only `read_file`, which changes nothing, runs again.
 * Idempotent per tool call (one result per call, enforced by a unique index); cancellable (the activity's
 * cancellation signal kills the command's process group); heartbeats while the tool runs.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ToolActivities } from '../contracts.ts';
import { toolResult } from '../../domain/factories.ts';
import { failureType } from '../../domain/failures.ts';
import { commit, getMessage } from '../../db/messages.ts';
import { publishTurnEvent } from '../../db/notify.ts';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import { isToolError } from './errors.ts';
import { runTool } from './registry.ts';
import type { ToolResult } from './tool.ts';
import { sessionDirName, sessionWorkspaceDir } from '../../infra/workspace.ts';
import type { Sandbox } from './sandbox.ts';
import {
  getToolRun,
  killLeftover,
  processStartTicks,
  recordRunOutcome,
  recordRunProcess,
  recordRunRestarted,
  recordRunStarted,
  workerHostId,
  type LeftoverOutcome,
  type SpawnedProcess,
  type StoredToolOutcome,
} from './runs.ts';

export interface ToolDeps {
  pool: Pool;
  logger: Logger;
  /** Root for per-session workspaces and full tool output (`<dataDir>/workspaces`, `<dataDir>/tool-output`). */
  dataDir: string;
  /** Timeout of a shell command when the model gives none, in ms. */
  defaultTimeoutMs: number;
  /** Bytes of output the model sees (head and tail). Default 16 KiB. */
  maxModelOutputBytes?: number;
  /** Bytes of output kept in the full-output file. Default 8 MiB. */
  maxStoredOutputBytes?: number;
  /** The sandbox shell commands run in (probed at worker start); none: scrubbed environment only. */
  sandbox?: Sandbox;
  /** Interval between heartbeats while a tool runs, in ms. Default 1000. */
  heartbeatIntervalMs?: number;
  /**
   * How long a finished run keeps trying to store its result before the attempt fails (the retry then commits
   * the checkpointed result), in ms. Default 30 000.
   */
  storeResultForMs?: number;
}

/** Tools that change nothing and may simply run again on a retry. */
const RERUNNABLE_TOOLS: ReadonlySet<string> = new Set(['read_file']);

/** What the tool activity heartbeats: where the run is, so a retry knows what the earlier attempt did. */
export type ToolCheckpoint =
  | { phase: 'started' }
  | { phase: 'running'; process: SpawnedProcess }
  | { phase: 'done'; outcome: StoredToolOutcome };

function checkpointOf(details: unknown): ToolCheckpoint | undefined {
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

/** The tools' working directory of a session: `<dataDir>/workspaces/<session dir>` (infra/workspace.ts). */
export const workspaceDirFor = sessionWorkspaceDir;
export { sessionDirName };

/** The stored result id of a tool call (one per call). */
export const resultIdOf = (toolCallMessageId: string) => `${toolCallMessageId}:result`;

export function createToolActivities(deps: ToolDeps): ToolActivities {
  const { pool, logger } = deps;
  const beatEveryMs = deps.heartbeatIntervalMs ?? 1000;
  const storeForMs = deps.storeResultForMs ?? 30_000;
  return {
    async runToolCall({ sessionId, turnId, toolCallMessageId }) {
      const call = await getMessage(pool, toolCallMessageId);
      if (!call || call.type !== 'tool_call' || call.session_id !== sessionId) {
        throw ApplicationFailure.nonRetryable(`unknown tool call ${toolCallMessageId}`, failureType('tool'));
      }
      const stored = await pool.query<{
        id: string;
        metadata: { tool_result?: string; tool_ok?: boolean } | null;
        content: string;
      }>(`SELECT id, metadata, content FROM messages WHERE parent_id = $1 AND type = 'tool_result'`, [
        call.id,
      ]);
      const prior = stored.rows[0];
      if (prior) {
        const ok = prior.metadata?.tool_ok ?? prior.metadata?.tool_result !== 'interrupted';
        return { resultId: prior.id, ok, summary: prior.metadata?.tool_result ?? '' };
      }

      const name = call.metadata?.tool_name ?? call.sender;
      const toolCallId = call.metadata?.tool_call_id ?? call.id;
      const step = call.step ?? 0;
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const event = { s: sessionId, t: turnId, step, call_id: toolCallId, name };
      let checkpoint: ToolCheckpoint | undefined = checkpointOf(ctx.info.heartbeatDetails);
      const beat = setInterval(() => ctx.heartbeat(checkpoint ?? { phase: 'started' }), beatEveryMs);
      const setCheckpoint = (next: ToolCheckpoint) => {
        checkpoint = next;
        ctx.heartbeat(next);
      };

      /** Stores the outcome in the run row (best effort) and the tool_result message (with retries). */
      const store = async (outcome: StoredToolOutcome, status: 'finished' | 'interrupted') => {
        setCheckpoint({ phase: 'done', outcome });
        const deadline = Date.now() + storeForMs;
        for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
          try {
            await recordRunOutcome(pool, call.id, status, outcome);
            return await commitResult(outcome);
          } catch (err) {
            if (Date.now() + wait > deadline || ctx.cancellationSignal.aborted) {
              logger.error(
                { sessionId, toolCallMessageId, err: String(err) },
                'tool result could not be stored',
              );
              throw ApplicationFailure.retryable(
                'the tool result could not be saved',
                failureType('turn_persistence'),
              );
            }
            // The checkpoint keeps heartbeating meanwhile, so a retry finds the result even if this attempt dies.
            await sleep(wait);
          }
        }
      };

      const commitResult = async ({ result, ok }: StoredToolOutcome) => {
        const message = toolResult({
          id: resultIdOf(call.id),
          session_id: sessionId,
          chatbot_id: call.chatbot_id,
          channel_id: call.channel_id,
          turn_id: turnId,
          step,
          parent_id: call.id,
          tool_name: name,
          tool_call_id: toolCallId,
          content: result.content,
          summary: result.summary,
        });
        // Kesoku addition: whether the run succeeded, so sinks render ✅/❌ without parsing the summary.
        message.metadata = {
          ...message.metadata,
          tool_ok: ok,
          ...(result.fullOutputPath ? { full_output_path: result.fullOutputPath } : {}),
        };
        await commit(pool, sessionId, { insert: [message] });
        const final = await getMessage(pool, message.id);
        void publishTurnEvent(pool, { ...event, type: 'tool_finished', ok, summary: result.summary }).catch(
          () => undefined,
        );
        return { resultId: final?.id ?? message.id, ok, summary: result.summary };
      };

      /** The earlier attempt started the call and never reported back: do not run it again. */
      const notRerun = async (spawned: SpawnedProcess | null) => {
        const leftover = killLeftover(spawned);
        logger.warn(
          { sessionId, toolCallMessageId, attempt, leftover },
          'tool call started by an earlier attempt; not run again',
        );
        return store(
          { result: interruptedResult(name, leftover, 'worker_stopped'), ok: false },
          'interrupted',
        );
      };

      try {
        // 1. A result the earlier attempt checkpointed or recorded: only store it.
        if (checkpoint?.phase === 'done') return await store(checkpoint.outcome, 'finished');
        let run;
        try {
          run = await getToolRun(pool, call.id);
        } catch (err) {
          throw ApplicationFailure.retryable(
            `the tool run record could not be read: ${String(err)}`,
            failureType('turn_persistence'),
          );
        }
        if (run?.outcome)
          return await store(run.outcome, run.status === 'interrupted' ? 'interrupted' : 'finished');

        // 2. Started before and never finished: run again only what changes nothing.
        const rerunnable = RERUNNABLE_TOOLS.has(name);
        if (run && !rerunnable) {
          return await notRerun(run.process ?? (checkpoint?.phase === 'running' ? checkpoint.process : null));
        }
        try {
          if (run) await recordRunRestarted(pool, call.id, attempt);
          else if (
            !(await recordRunStarted(pool, {
              toolCallMessageId: call.id,
              sessionId,
              toolName: name,
              attempt,
            }))
          ) {
            // Another attempt recorded its start between our read and our insert.
            if (!rerunnable) return await notRerun((await getToolRun(pool, call.id))?.process ?? null);
          }
        } catch (err) {
          if (err instanceof ApplicationFailure) throw err;
          // Nothing was spawned: the retry may safely run the tool.
          throw ApplicationFailure.retryable(
            `the tool run could not be recorded: ${String(err)}`,
            failureType('turn_persistence'),
          );
        }
        setCheckpoint({ phase: 'started' });
        void publishTurnEvent(pool, { ...event, type: 'tool_started' }).catch(() => undefined);

        // 3. Run it, once.
        let result: ToolResult;
        let ok = true;
        try {
          result = await runTool(name, call.metadata?.tool_arguments ?? {}, {
            workspaceDir: workspaceDirFor(deps.dataDir, sessionId),
            signal: ctx.cancellationSignal,
            defaultTimeoutMs: deps.defaultTimeoutMs,
            maxModelOutputBytes: deps.maxModelOutputBytes ?? 16 * 1024,
            maxStoredOutputBytes: deps.maxStoredOutputBytes ?? 8 * 1024 * 1024,
            outputDir: path.join(deps.dataDir, 'tool-output', sessionDirName(sessionId)),
            callId: toolCallId,
            ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
            onSpawn: (pid) => {
              const spawned: SpawnedProcess = {
                hostId: workerHostId(),
                pid,
                pgid: pid,
                startTicks: processStartTicks(pid),
              };
              setCheckpoint({ phase: 'running', process: spawned });
              recordRunProcess(pool, call.id, spawned).catch((err: unknown) =>
                logger.warn(
                  { sessionId, toolCallMessageId, err: String(err) },
                  'tool process could not be recorded; the heartbeat keeps it',
                ),
              );
            },
          });
          if ('exitCode' in result && (result as { exitCode: number | null }).exitCode !== 0) ok = false;
        } catch (err) {
          if (ctx.cancellationSignal.aborted) {
            if (isWorkerShutdown(ctx)) {
              // Drained too long: the processes were killed. Say so, rather than leave a retry to find out.
              return await store(
                { result: interruptedResult(name, 'killed', 'drain_expired'), ok: false },
                'interrupted',
              );
            }
            throw new CancelledFailure('tool run cancelled');
          }
          if (!isToolError(err)) throw err;
          // The model sees what went wrong and can correct itself; this is a result, not a turn failure.
          ok = false;
          result = { content: `Error: ${err.message}`, summary: `error: ${err.message}`.slice(0, 120) };
          if (err.kind === 'execution_failed')
            logger.warn({ sessionId, toolCallMessageId, err: err.message }, 'tool could not run');
        }
        // 4. Keep the result safe, then store it.
        return await store({ result: toPlainResult(result), ok }, 'finished');
      } finally {
        clearInterval(beat);
      }
    },
  };
}

/** True when the activity was cancelled because its worker is shutting down (drain time over). */
function isWorkerShutdown(ctx: Context): boolean {
  if (ctx.cancellationDetails?.workerShutdown) return true;
  const reason: unknown = ctx.cancellationSignal.reason;
  return reason instanceof CancelledFailure && reason.message === 'WORKER_SHUTDOWN';
}

/** The fields of a tool result that are stored (a shell result carries more, e.g. exit code and byte counts). */
function toPlainResult(r: ToolResult): ToolResult {
  return {
    content: r.content,
    summary: r.summary,
    ...(r.fullOutputPath ? { fullOutputPath: r.fullOutputPath } : {}),
  };
}

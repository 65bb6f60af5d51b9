/**
 * One run of the tool activity for one stored tool_call (see activities/tools/activities.ts for the
 * at-most-once rules): read what earlier attempts did, record the start, run the tool once, keep the result
 * in the heartbeat checkpoint and the `tool_runs` row, then commit the tool_result message.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ToolActivities } from '../../workflows/activity-contracts.ts';
import { toolResult } from '../../domain/factories.ts';
import { failureType } from '../../domain/failures.ts';
import { TOOL_HEARTBEAT_INTERVAL_MS } from '../../domain/tool-limits.ts';
import type { Message } from '../../domain/message.ts';
import { commit, findToolResult, getMessage } from '../../db/messages.ts';
import { publishTurnEvent } from '../../db/notify.ts';
import { sessionDirName, sessionWorkspaceDir } from '../../infra/workspace.ts';
import { checkpointOf, interruptedResult, type ToolCheckpoint } from './checkpoint.ts';
import { isToolError, ToolExecutionError } from './errors.ts';
import { runTool } from './registry.ts';
import { backgroundStarter, startsBackgroundJob } from './background.ts';
import {
  getToolRun,
  killLeftover,
  processStartTicks,
  recordRunOutcome,
  recordRunProcess,
  recordRunRestarted,
  recordRunStarted,
  workerHostId,
  type SpawnedProcess,
  type StoredToolOutcome,
  type ToolRunRow,
} from './runs.ts';
import type { ToolResult } from './tool.ts';
import { OutputFeed } from './output-feed.ts';
import type { Pool } from '../../db/pool.ts';
import type { BackgroundJobs } from '../../infra/jobs.ts';
import type { Logger } from '../../infra/logger.ts';
import type { ToolSource } from './registry.ts';
import type { Sandbox } from './sandbox.ts';
import type { ToolOutputPresenter } from '../delivery.ts';

/** What the tool activities are built from (activities.ts `createToolActivities`). */
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
  /**
   * Variables never passed to a command, whatever their names (the chat channels' secrets, adapters/registry.ts
   * `channelSecretKeys`); see shell.ts `ShellContext.secretNames`.
   */
  secretNames?: readonly string[];
  /** Tools besides the host's, run by this activity too (the MCP servers' tools, activities/mcp/tools.ts). */
  extraTools?: ToolSource;
  /** Starts `run_shell_command` calls with `background: true` as jobs (infra/jobs.ts); absent: refused. */
  backgroundJobs?: BackgroundJobs;
  /**
   * Where a running command's output tail and elapsed time go besides `turn.updated` (the channel's live status,
   * activities/delivery.ts `createToolOutputPresenter`): about once a second while it prints, every 5 s
   * (tool-call.ts `TOOL_PROGRESS_TICK_MS`) while it is silent. Best effort.
   */
  presentToolOutput?: ToolOutputPresenter;
  /** Interval between heartbeats while a tool runs, in ms. Default 1000. */
  heartbeatIntervalMs?: number;
  /**
   * How long a finished run keeps trying to store its result before the attempt fails (the retry then commits
   * the checkpointed result), in ms. Default 30 000.
   */
  storeResultForMs?: number;
}

/** How often a running tool's elapsed time goes to the channel's status while the command prints nothing, ms. */
export const TOOL_PROGRESS_TICK_MS = 5000;

type ToolCallInput = Parameters<ToolActivities['runToolCall']>[0];
type ToolCallResult = Awaited<ReturnType<ToolActivities['runToolCall']>>;

/** Tools that change nothing and may simply run again on a retry. */
const RERUNNABLE_TOOLS: ReadonlySet<string> = new Set(['read_file']);

/** The stored result id of a tool call (one per call). */
export const resultIdOf = (toolCallMessageId: string) => `${toolCallMessageId}:result`;

/**
 * Runs the tool call, or returns its stored result. See ToolActivities.runToolCall.
 * @throws ApplicationFailure `tool` (non-retryable) for an unknown tool call; `turn_persistence` (retryable)
 *   when the run record or the result cannot be stored; CancelledFailure when the activity was cancelled
 */
export async function runToolCall(deps: ToolDeps, input: ToolCallInput): Promise<ToolCallResult> {
  const call = await getMessage(deps.pool, input.toolCallMessageId);
  if (!call || call.type !== 'tool_call' || call.session_id !== input.sessionId) {
    throw ApplicationFailure.nonRetryable(
      `unknown tool call ${input.toolCallMessageId}`,
      failureType('tool'),
    );
  }
  const prior = await findToolResult(deps.pool, call.id);
  if (prior) {
    const ok = prior.metadata?.tool_ok ?? prior.metadata?.tool_result !== 'interrupted';
    return { resultId: prior.id, ok, summary: prior.metadata?.tool_result ?? '' };
  }
  return new ToolCallRun(deps, input, call).run();
}

/** The state of one attempt at a tool call: the call, its heartbeat checkpoint and the activity context. */
class ToolCallRun {
  private readonly deps: ToolDeps;
  private readonly input: ToolCallInput;
  private readonly call: Message;
  private readonly name: string;
  private readonly toolCallId: string;
  private readonly step: number;
  private readonly ctx = Context.current();
  private checkpoint: ToolCheckpoint | undefined;

  constructor(deps: ToolDeps, input: ToolCallInput, call: Message) {
    this.deps = deps;
    this.input = input;
    this.call = call;
    this.name = call.metadata?.tool_name ?? call.sender;
    this.toolCallId = call.metadata?.tool_call_id ?? call.id;
    this.step = call.step ?? 0;
    this.checkpoint = checkpointOf(this.ctx.info.heartbeatDetails);
  }

  /** Heartbeats the checkpoint while the attempt lasts. */
  async run(): Promise<ToolCallResult> {
    const beat = setInterval(
      () => this.ctx.heartbeat(this.checkpoint ?? { phase: 'started' }),
      this.deps.heartbeatIntervalMs ?? TOOL_HEARTBEAT_INTERVAL_MS,
    );
    try {
      return await this.resume();
    } finally {
      clearInterval(beat);
    }
  }

  private async resume(): Promise<ToolCallResult> {
    // 0. Arguments that were not one JSON object: nothing runs; the model is told what was wrong.
    const problem = this.call.metadata?.tool_arguments_problem;
    if (problem) {
      const content = `Error: the call was not run: ${problem}. Call ${this.name} again with its arguments as one JSON object.`;
      return await this.store(
        { result: { content, summary: `error: ${problem}`.slice(0, 120) }, ok: false },
        'finished',
      );
    }
    // 1. A result the earlier attempt checkpointed or recorded: only store it.
    if (this.checkpoint?.phase === 'done') return await this.store(this.checkpoint.outcome, 'finished');
    let run: ToolRunRow | null;
    try {
      run = await getToolRun(this.deps.pool, this.call.id);
    } catch (err) {
      throw ApplicationFailure.retryable(
        `the tool run record could not be read: ${String(err)}`,
        failureType('turn_persistence'),
      );
    }
    if (run?.outcome)
      return await this.store(run.outcome, run.status === 'interrupted' ? 'interrupted' : 'finished');

    // 2. Started before and never finished: run again only what changes nothing.
    const rerunnable =
      RERUNNABLE_TOOLS.has(this.name) ||
      this.deps.extraTools?.rerunnable?.(this.name) === true ||
      startsBackgroundJob(this.name, this.call.metadata?.tool_arguments);
    if (run && !rerunnable) {
      const cp = this.checkpoint;
      return await this.notRerun(run.process ?? (cp?.phase === 'running' ? cp.process : null));
    }
    const raced = await this.recordStart(run, rerunnable);
    if (raced) return raced;
    this.setCheckpoint({ phase: 'started' });
    void publishTurnEvent(this.deps.pool, { ...this.event(), type: 'tool_started' }).catch(() => undefined);

    // 3. Run it, once. 4. Keep the result safe, then store it.
    return await this.execute();
  }

  /**
   * Records that this attempt starts the run. @returns the stored "not re-run" result when another attempt
   * recorded its start between our read and our insert (and the tool must not run twice), else null
   * @throws ApplicationFailure `turn_persistence` (retryable) when nothing could be recorded (nothing was spawned)
   */
  private async recordStart(run: ToolRunRow | null, rerunnable: boolean): Promise<ToolCallResult | null> {
    const { pool } = this.deps;
    try {
      if (run) {
        await recordRunRestarted(pool, this.call.id, this.ctx.info.attempt);
        return null;
      }
      const started = await recordRunStarted(pool, {
        toolCallMessageId: this.call.id,
        sessionId: this.input.sessionId,
        toolName: this.name,
        attempt: this.ctx.info.attempt,
      });
      if (started || rerunnable) return null;
      return await this.notRerun((await getToolRun(pool, this.call.id))?.process ?? null);
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      // Nothing was spawned: the retry may safely run the tool.
      throw ApplicationFailure.retryable(
        `the tool run could not be recorded: ${String(err)}`,
        failureType('turn_persistence'),
      );
    }
  }

  /** Runs the tool and stores what it gave: its result, or its error as a result the model can act on. */
  private async execute(): Promise<ToolCallResult> {
    const { deps, ctx } = this;
    const { sessionId, toolCallMessageId } = this.input;
    let result: ToolResult;
    let ok = true;
    // The command's last lines, live, for whoever watches the turn (throttled; never stored).
    const startedAt = Date.now();
    const present = (tail: string) =>
      void deps.presentToolOutput?.({
        sessionId,
        turnId: this.input.turnId,
        toolCallMessageId,
        tail,
        elapsedMs: Date.now() - startedAt,
      });
    const feed = new OutputFeed((t) => {
      void publishTurnEvent(deps.pool, {
        ...this.event(),
        type: 'tool_output',
        tail: t.tail,
        output_chars: t.outputChars,
      }).catch(() => undefined);
      present(t.tail);
    });
    // A silent command's elapsed time still moves in the chat channels' status (REST clients count it themselves).
    const tick = deps.presentToolOutput
      ? setInterval(() => present(feed.currentTail()), TOOL_PROGRESS_TICK_MS)
      : null;
    tick?.unref();
    try {
      result = await runTool(this.name, this.call.metadata?.tool_arguments ?? {}, {
        workspaceDir: sessionWorkspaceDir(deps.dataDir, sessionId),
        signal: ctx.cancellationSignal,
        defaultTimeoutMs: deps.defaultTimeoutMs,
        maxModelOutputBytes: deps.maxModelOutputBytes ?? 16 * 1024,
        maxStoredOutputBytes: deps.maxStoredOutputBytes ?? 8 * 1024 * 1024,
        outputDir: path.join(deps.dataDir, 'tool-output', sessionDirName(sessionId)),
        callId: this.toolCallId,
        sandbox: deps.sandbox,
        ...(deps.secretNames ? { secretNames: deps.secretNames } : {}),
        onSpawn: (pid) => this.spawned(pid),
        onOutput: (chunk) => feed.push(chunk.text),
        ...(deps.extraTools ? { extraTools: deps.extraTools } : {}),
        sessionId,
        ...(this.call.turn_id ? { turnId: this.call.turn_id } : {}),
        call: { sessionId, turnId: this.input.turnId, toolCallMessageId },
        ...(deps.backgroundJobs
          ? {
              backgroundJobs: backgroundStarter(deps.backgroundJobs, {
                sessionId,
                toolCallMessageId: this.call.id,
                chatbotId: this.call.chatbot_id,
                channelId: this.call.channel_id,
              }),
            }
          : {}),
      });
      if (result.ok === false) ok = false;
      if ('exitCode' in result && (result as { exitCode: number | null }).exitCode !== 0) ok = false;
    } catch (err) {
      if (ctx.cancellationSignal.aborted) {
        if (isWorkerShutdown(ctx)) {
          // Drained too long: the processes were killed. Say so, rather than leave a retry to find out.
          const interrupted = interruptedResult(this.name, 'killed', 'drain_expired');
          return await this.store({ result: interrupted, ok: false }, 'interrupted');
        }
        throw new CancelledFailure('tool run cancelled');
      }
      // The model sees what went wrong and can correct itself; this is a result, not a turn failure, and never a
      // failed attempt (a retry would run the tool again, in whatever state a command left the workspace).
      const toolErr = isToolError(err)
        ? err
        : new ToolExecutionError('the tool failed on the host; the operator can find the cause in the logs', {
            cause: err,
          });
      ok = false;
      result = { content: `Error: ${toolErr.message}`, summary: `error: ${toolErr.message}`.slice(0, 120) };
      if (toolErr.kind === 'execution_failed')
        deps.logger.warn(
          { sessionId, toolCallMessageId, err: toolErr.message, cause: String(err) },
          'tool could not run',
        );
    } finally {
      feed.close();
      if (tick) clearInterval(tick);
    }
    return await this.store({ result: toPlainResult(result), ok }, 'finished');
  }

  /** The tool spawned its process group: checkpoint it and record it (best effort; the heartbeat keeps it). */
  private spawned(pid: number): void {
    const process: SpawnedProcess = {
      hostId: workerHostId(),
      pid,
      pgid: pid,
      startTicks: processStartTicks(pid),
    };
    this.setCheckpoint({ phase: 'running', process });
    recordRunProcess(this.deps.pool, this.call.id, process).catch((err: unknown) =>
      this.deps.logger.warn(
        {
          sessionId: this.input.sessionId,
          toolCallMessageId: this.input.toolCallMessageId,
          err: String(err),
        },
        'tool process could not be recorded; the heartbeat keeps it',
      ),
    );
  }

  /** The earlier attempt started the call and never reported back: do not run it again. */
  private async notRerun(spawned: SpawnedProcess | null): Promise<ToolCallResult> {
    const leftover = killLeftover(spawned);
    this.deps.logger.warn(
      {
        sessionId: this.input.sessionId,
        toolCallMessageId: this.input.toolCallMessageId,
        attempt: this.ctx.info.attempt,
        leftover,
      },
      'tool call started by an earlier attempt; not run again',
    );
    const result = interruptedResult(this.name, leftover, 'worker_stopped');
    return this.store({ result, ok: false }, 'interrupted');
  }

  /** Stores the outcome in the run row (best effort) and the tool_result message, retrying for a while. */
  private async store(
    outcome: StoredToolOutcome,
    status: 'finished' | 'interrupted',
  ): Promise<ToolCallResult> {
    this.setCheckpoint({ phase: 'done', outcome });
    const deadline = Date.now() + (this.deps.storeResultForMs ?? 30_000);
    for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
      try {
        await recordRunOutcome(this.deps.pool, this.call.id, status, outcome);
        return await this.commitResult(outcome);
      } catch (err) {
        if (Date.now() + wait > deadline || this.ctx.cancellationSignal.aborted) {
          this.deps.logger.error(
            {
              sessionId: this.input.sessionId,
              toolCallMessageId: this.input.toolCallMessageId,
              err: String(err),
            },
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
  }

  private async commitResult({ result, ok }: StoredToolOutcome): Promise<ToolCallResult> {
    const { call, input } = this;
    const message = toolResult({
      id: resultIdOf(call.id),
      session_id: input.sessionId,
      chatbot_id: call.chatbot_id,
      channel_id: call.channel_id,
      turn_id: input.turnId,
      step: this.step,
      parent_id: call.id,
      tool_name: this.name,
      tool_call_id: this.toolCallId,
      content: result.content,
      summary: result.summary,
    });
    // Whether the run succeeded, so sinks render ✅/❌ without parsing the summary.
    message.metadata = {
      ...message.metadata,
      tool_ok: ok,
      ...(result.fullOutputPath ? { full_output_path: result.fullOutputPath } : {}),
      ...(result.images && result.images.length > 0 ? { attachments: result.images } : {}),
    };
    await commit(this.deps.pool, input.sessionId, { insert: [message] });
    const final = await getMessage(this.deps.pool, message.id);
    void publishTurnEvent(this.deps.pool, {
      ...this.event(),
      type: 'tool_finished',
      ok,
      summary: result.summary,
    }).catch(() => undefined);
    return { resultId: final?.id ?? message.id, ok, summary: result.summary };
  }

  private setCheckpoint(next: ToolCheckpoint): void {
    this.checkpoint = next;
    this.ctx.heartbeat(next);
  }

  /** The fields every tool event of this call carries. */
  private event() {
    const { sessionId: s, turnId: t } = this.input;
    return { s, t, step: this.step, call_id: this.toolCallId, name: this.name };
  }
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
    ...(r.images && r.images.length > 0 ? { images: r.images } : {}),
  };
}

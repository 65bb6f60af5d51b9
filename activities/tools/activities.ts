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
import type { ToolActivities } from '../../workflows/activity-contracts.ts';
import type { Pool } from '../../db/pool.ts';
import type { BackgroundJobs } from '../../infra/jobs.ts';
import type { Logger } from '../../infra/logger.ts';
import { sessionDirName, sessionWorkspaceDir } from '../../infra/workspace.ts';
import type { ToolSource } from './registry.ts';
import type { Sandbox } from './sandbox.ts';
import { runToolCall } from './tool-call.ts';
import type { ToolOutputPresenter } from '../delivery.ts';

export { interruptedResult, type ToolCheckpoint } from './checkpoint.ts';
export { resultIdOf } from './tool-call.ts';

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

/** The tools' working directory of a session: `<dataDir>/workspaces/<session dir>` (infra/workspace.ts). */
export const workspaceDirFor = sessionWorkspaceDir;
export { sessionDirName };

/** The tool activities with their dependencies (wired once per worker). */
export function createToolActivities(deps: ToolDeps): ToolActivities {
  return { runToolCall: (input) => runToolCall(deps, input) };
}

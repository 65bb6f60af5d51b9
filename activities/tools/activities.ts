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
import { sessionDirName, sessionWorkspaceDir } from '../../infra/workspace.ts';
import { runToolCall, type ToolDeps } from './tool-call.ts';

export { interruptedResult, type ToolCheckpoint } from './checkpoint.ts';
export { resultIdOf, type ToolDeps } from './tool-call.ts';

/** The tools' working directory of a session: `<dataDir>/workspaces/<session dir>` (infra/workspace.ts). */
export const workspaceDirFor = sessionWorkspaceDir;
export { sessionDirName };

/** The tool activities with their dependencies (wired once per worker). */
export function createToolActivities(deps: ToolDeps): ToolActivities {
  return { runToolCall: (input) => runToolCall(deps, input) };
}

/**
 * The host tools as the model sees them (name, description, JSON Schema of the arguments) and the one entry point
 * the tool activity calls to run one of them.
 */
import { z } from 'zod';
import { ToolInputError } from './errors.ts';
import { readFileArgsSchema, readFileTool, writeFileArgsSchema, writeFileTool } from './files.ts';
import { runShellCommand, shellArgsSchema } from './shell.ts';
import type { ShellContext } from './shell.ts';
import { parseToolArgs } from './tool.ts';
import type { ToolResult } from './tool.ts';

/** Names of the host tools, in the order they are offered to the model. */
export const TOOL_NAMES = ['run_shell_command', 'read_file', 'write_file'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * A tool as offered to the model: `parameters` is a JSON Schema (draft 2020-12, without the `$schema` key) of an
 * object with `additionalProperties: false`.
 */
export interface ToolSpec {
  name: ToolName;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * Tools from outside this file, run through the same activity (the MCP servers' tools, activities/mcp/tools.ts):
 * `handles` says which names are its own, `run` runs one with its parsed arguments (same errors as
 * {@link runTool}).
 */
export interface ToolSource {
  handles(name: string): boolean;
  run(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult>;
  /** True for a tool of this source that may simply run again on a retry (it reads, or its writes are idempotent). */
  rerunnable?(name: string): boolean;
}

/** The stored tool call a run belongs to: its session, its turn's trigger message id and its own message id. */
export interface ToolCallRef {
  sessionId: string;
  turnId: string;
  toolCallMessageId: string;
}

/**
 * What the host gives every tool run; the file tools use only `workspaceDir`. `extraTools` runs the names that
 * are not host tools; `call` says which stored call is running (tools that write per session or per person).
 */
export type ToolContext = ShellContext & {
  extraTools?: ToolSource;
  call?: ToolCallRef;
  /** The session and the turn the call belongs to (tools that act on the session, e.g. schedule_prompt). */
  sessionId?: string;
  turnId?: string;
  backgroundJobs?: BackgroundJobStarter;
};

/** One source answering for the tools of all `sources` (the first that handles a name runs it). */
export function combineToolSources(...sources: (ToolSource | undefined)[]): ToolSource | undefined {
  const list = sources.filter((s): s is ToolSource => s !== undefined);
  if (list.length <= 1) return list[0];
  const owner = (name: string) => list.find((s) => s.handles(name));
  return {
    handles: (name) => owner(name) !== undefined,
    run: (name, args, ctx) => {
      const s = owner(name);
      if (!s) throw new ToolInputError(`unknown tool "${name}"`);
      return s.run(name, args, ctx);
    },
    rerunnable: (name) => owner(name)?.rerunnable?.(name) ?? false,
  };
}

/**
 * Starts `run_shell_command` with `background: true` as a background job for the current tool call
 * (activities/tools/background.ts); absent where background jobs are not wired (they are then refused).
 */
export type BackgroundJobStarter = (req: { command: string; timeoutS?: number }) => Promise<ToolResult>;

interface ToolDefinition {
  spec: ToolSpec;
  run: (rawArgs: unknown, ctx: ToolContext) => Promise<ToolResult>;
}

function define<S extends z.ZodType>(
  name: ToolName,
  description: string,
  schema: S,
  run: (args: z.output<S>, ctx: ToolContext) => Promise<ToolResult>,
): ToolDefinition {
  const { $schema: _, ...parameters } = z.toJSONSchema(schema, { io: 'input' });
  return {
    spec: { name, description, parameters },
    run: (rawArgs, ctx) => run(parseToolArgs(schema, rawArgs, name), ctx),
  };
}

const TOOLS: Record<ToolName, ToolDefinition> = {
  run_shell_command: define(
    'run_shell_command',
    "Run a shell command with /bin/sh -c in the session's workspace directory and return its stdout and " +
      'stderr. The command has a timeout and limits on CPU time, memory, file size and (when sandboxed) ' +
      'processes; in the sandbox only the workspace is writable and the environment holds only PATH, HOME, ' +
      'LANG, TERM and what the operator allows. Processes it leaves running are stopped when it exits. Long ' +
      'output is shortened to its beginning and end. With background: true it returns a job id at once and ' +
      'the command runs on as a background job; when it ends you get a "[System Alert] Background Job <id> ' +
      'finished." message with its state and output tail.',
    shellArgsSchema,
    (args, ctx) =>
      args.background === true && ctx.backgroundJobs
        ? ctx.backgroundJobs({
            command: args.command,
            ...(args.timeout_s !== undefined ? { timeoutS: args.timeout_s } : {}),
          })
        : runShellCommand(args, ctx),
  ),
  read_file: define(
    'read_file',
    'Read a UTF-8 text file from the workspace. The path is relative to the workspace directory; long files are ' +
      'cut after max_bytes.',
    readFileArgsSchema,
    readFileTool,
  ),
  write_file: define(
    'write_file',
    'Create or replace a text file in the workspace, or append to it. The path is relative to the workspace ' +
      'directory; missing parent directories are created.',
    writeFileArgsSchema,
    writeFileTool,
  ),
};

/** The specs of all host tools, for the model request. */
export const toolSpecs: readonly ToolSpec[] = TOOL_NAMES.map((name) => TOOLS[name].spec);

/** True when `name` is one of {@link TOOL_NAMES}. */
export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOLS, name);
}

/**
 * Validates `rawArgs` for the tool `name` and runs it.
 *
 * `rawArgs` is the parsed arguments object, or the provider's JSON text of it; missing arguments count as `{}`.
 *
 * @throws {ToolInputError} unknown tool name, arguments that are not valid JSON or do not match the tool's schema,
 *   or whatever the tool itself rejects; the message is written for the model.
 * @throws {ToolCancelledError} `ctx.signal` aborted the run.
 * @throws {ToolExecutionError} the host failed to run the tool.
 */
export async function runTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
  const extra = !isToolName(name) && ctx.extraTools?.handles(name) ? ctx.extraTools : undefined;
  if (!isToolName(name) && !extra) {
    throw new ToolInputError(`unknown tool "${name}"; the available tools are ${TOOL_NAMES.join(', ')}`);
  }
  let args: unknown = rawArgs ?? {};
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : (JSON.parse(args) as unknown);
    } catch (err) {
      throw new ToolInputError(`arguments for ${name} are not valid JSON: ${(err as Error).message}`);
    }
  }
  return extra ? extra.run(name, args, ctx) : TOOLS[name as ToolName].run(args, ctx);
}

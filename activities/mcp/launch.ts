/**
 * How a stdio MCP server is started: inside the tool sandbox (activities/tools/sandbox.ts, docs/sandbox.md) with
 * the limits of a shell command (its cgroup, prlimit, seccomp, its own uid under a root worker), its own
 * writable directory under the data dir as its home (and working directory unless it sets `cwd`), the files its
 * command and arguments name and its `paths` bound read-only (nothing else of the host's but the sandbox's
 * system directories), and an environment of the sandbox's allowlist (PATH, HOME, LANG, TERM, KESOKU_TOOL_ENV
 * less the channels' secrets) plus the server's configured `env`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { commandCgroupName, createCommandCgroup, JOIN_SCRIPT } from '../tools/cgroup.ts';
import { ToolExecutionError } from '../tools/errors.ts';
import { prepareWorkspace, sandboxEnvironment, sandboxPlan, type Sandbox } from '../tools/sandbox.ts';
import type { StdioServerConfig } from './config.ts';

/** What StdioClientTransport spawns, and what to do once that process has ended. */
export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Removes the server's cgroup (killing what is left in it). Never throws. */
  finished(): Promise<void>;
}

/** Opens the seccomp program on fd 3 (bwrap's `--seccomp 3`) before the command runs: `sh -c … <file> <argv>`. */
const SECCOMP_ON_FD3 = 'exec 3<"$0" && exec "$@"';

/** The real path of `p`, or undefined when it does not exist. */
function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The file `command` runs: itself when it names a path, else the first match on `searchPath`. */
function resolveCommand(command: string, cwd: string, searchPath: string): string | undefined {
  if (command.includes('/')) return realPath(path.resolve(cwd, command));
  for (const dir of searchPath.split(':')) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return realPath(candidate);
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * The launch of `server` in `sandbox`. The command and every argument that names an existing file or directory
 * are given by their real paths, so what is bound is what runs. Creates `homeDir` (owned by the server's
 * sandbox uid under a root worker).
 * @param homeDir the server's own directory, e.g. `<dataDir>/mcp/<slug>`
 * @param secretNames variables never passed on unless the server's `env` sets them (the channels' secrets)
 * @throws {ToolExecutionError} no working sandbox (tools are refused), or its home or cgroup cannot be made
 */
export async function serverLaunch(
  sandbox: Sandbox | undefined,
  server: StdioServerConfig,
  homeDir: string,
  secretNames: readonly string[] = [],
  from: NodeJS.ProcessEnv = process.env,
): Promise<ServerLaunch> {
  if (!sandbox || sandbox.kind === 'unavailable')
    throw new ToolExecutionError(
      `the MCP server "${server.name}" is not started: ${sandbox?.reason ?? 'this worker has no sandbox'}`,
    );
  await prepareWorkspace(sandbox, homeDir);
  const cwd = server.cwd ?? homeDir;
  const env = { ...sandboxEnvironment(sandbox.settings, homeDir, from, secretNames), ...server.env };
  const command = resolveCommand(server.command, cwd, env.PATH ?? '') ?? server.command;
  const args = server.args.map((a) => {
    if (!a.includes('/') && !fs.existsSync(path.resolve(cwd, a))) return a;
    return realPath(path.resolve(cwd, a)) ?? a;
  });
  const named = [command, ...args].filter((a) => path.isAbsolute(a) && fs.existsSync(a));
  const readOnly = [
    ...new Set([
      ...named,
      ...server.paths.map((p) => realPath(p)).filter((p) => p !== undefined),
      ...(server.cwd ? [realPath(cwd) ?? cwd] : []),
    ]),
  ];
  const plan = sandboxPlan(
    {
      ...sandbox,
      settings: { ...sandbox.settings, extraPaths: [...sandbox.settings.extraPaths, ...readOnly] },
    },
    [command, ...args],
    homeDir,
    env,
  );
  if (server.cwd && sandbox.kind === 'bwrap')
    plan.args[plan.args.indexOf('--chdir') + 1] = realPath(cwd) ?? cwd;
  let argv = [plan.file, ...plan.args];
  if (plan.seccompFile) argv = ['/bin/sh', '-c', SECCOMP_ON_FD3, plan.seccompFile, ...argv];
  let cgroup: ReturnType<typeof createCommandCgroup> | undefined;
  if (sandbox.cgroups) {
    try {
      cgroup = createCommandCgroup(sandbox.cgroups, commandCgroupName(), {
        memoryMb: sandbox.settings.memoryMb,
        processes: sandbox.settings.processes,
      });
    } catch (err) {
      throw new ToolExecutionError(`the MCP server's cgroup could not be made: ${(err as Error).message}`, {
        cause: err,
      });
    }
    argv = ['/bin/sh', '-c', JOIN_SCRIPT, 'kesoku-cgroup', ...cgroup.procsFiles, '--', ...argv];
  }
  return {
    command: argv[0]!,
    args: argv.slice(1),
    env: plan.env,
    cwd: sandbox.kind === 'off' && server.cwd ? cwd : plan.cwd,
    finished: async () => {
      await cgroup?.finish();
    },
  };
}

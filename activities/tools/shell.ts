/**
 * The `run_shell_command` tool (docs/architecture.md "Tools", docs/sandbox.md): one shell command in the session's
 * workspace, in the sandbox (sandbox.ts), in its own process group, with a timeout, bounded output and an
 * allowlisted environment, killed on cancel.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { ToolCancelledError, ToolExecutionError, ToolInputError } from './errors.ts';
import { clip, parseToolArgs } from './tool.ts';
import type { ToolResult } from './tool.ts';
import { utf8CutBack, utf8CutForward } from './utf8.ts';
import { MAX_SHELL_TIMEOUT_S } from '../../domain/tool-limits.ts';
import type { CgroupReport } from './cgroup.ts';
import {
  limitExplanation,
  prepareWorkspace,
  sandboxEnvironment,
  sandboxPlan,
  sandboxRefusal,
  spawnSandboxed,
  type Sandbox,
} from './sandbox.ts';
import { checkWorkspaceQuota, forgetUsage, sweepSessionFiles } from './workspace-limits.ts';

/** Longest accepted `command`, in bytes of UTF-8. */
export const MAX_COMMAND_BYTES = 16 * 1024;
/** Time between SIGTERM and SIGKILL when a run times out or leaves processes behind, in ms. */
export const KILL_GRACE_MS = 1000;
/**
 * How long to wait for stdout/stderr to reach EOF once the shell has exited and its group has been killed, in ms.
 * Only a process that left the group (setsid) but kept the pipes open makes this wait run out.
 */
export const PIPE_DRAIN_MS = 2000;

/** Arguments of `run_shell_command`, as the model sends them. */
export const shellArgsSchema = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(MAX_COMMAND_BYTES)
    .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_COMMAND_BYTES, {
      message: `must be at most ${MAX_COMMAND_BYTES} bytes of UTF-8`,
    })
    .describe('The command line, run with /bin/sh -c in the workspace directory. stdin is empty.'),
  timeout_s: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Seconds before the command and everything it started is killed (at most ${MAX_SHELL_TIMEOUT_S}; larger values ` +
        'are lowered to it). Defaults to the host setting.',
    ),
  background: z
    .boolean()
    .optional()
    .describe(
      'Run as a background job: the call returns a job id at once, and a [System Alert] message reports the ' +
        'end. timeout_s is then the job timeout.',
    ),
});

/** `run_shell_command` arguments before validation (what a caller may pass). */
export type ShellArgs = z.input<typeof shellArgsSchema>;

/** One piece of live output, decoded as UTF-8 without splitting characters across pieces. */
export interface ShellOutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

/** What the host gives `runShellCommand`. Sizes are in bytes, durations in ms. */
export interface ShellContext {
  /** Directory the command runs in; created (recursively) when missing. */
  workspaceDir: string;
  /** Aborting kills the whole process group with SIGKILL and rejects with `ToolCancelledError`. */
  signal?: AbortSignal;
  /** Timeout when the model gives no `timeout_s`, in ms. */
  defaultTimeoutMs: number;
  /** Bytes of stdout + stderr given to the model (head and tail of each stream), e.g. 16 KiB. */
  maxModelOutputBytes: number;
  /** Hard cap on bytes of stdout + stderr kept in memory and written to disk, e.g. 8 MiB. */
  maxStoredOutputBytes: number;
  /** Directory for the full output file, written only when the model's slice is truncated. */
  outputDir?: string;
  /** Tool call id; names the full output file (`<callId>.log`, unsafe characters replaced by `_`). */
  callId?: string;
  /** Environment the allowlist takes its values from; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Variables that hold secrets — the chat channels' `secretKeys` (adapters/registry.ts `channelSecretKeys`):
   * never passed to a command, not even when KESOKU_TOOL_ENV names them. Default none.
   */
  secretNames?: readonly string[];
  /** Live output as it arrives (all of it, also past the caps). Exceptions it throws are ignored. */
  onOutput?: (chunk: ShellOutputChunk) => void;
  /**
   * Called once, right after the process group leader was spawned, with its pid (which is also its process group
   * id). Exceptions it throws are ignored.
   */
  onSpawn?: (pid: number) => void;
  /**
   * The sandbox to run the command in (sandbox.ts): kind `off` runs it unsandboxed (the operator's explicit
   * choice); kind `unavailable`, or none, refuses it.
   */
  sandbox: Sandbox | undefined;
}

/**
 * The outcome of one run.
 *
 * - `exitCode`: the shell's exit code; null when killed by a signal or timed out.
 * - `signal`: the signal that ended the shell (e.g. `SIGTERM` after a timeout), else null.
 * - `stdout` / `stderr`: what the model sees of each stream: all of it, or its head and tail around a
 *   `[… N bytes omitted …]` line when the two streams together exceed `maxModelOutputBytes`.
 * - `truncated`: some output is not in `stdout`/`stderr`; `fullOutputPath` then names the file with everything
 *   that was kept (up to `maxStoredOutputBytes`), when `outputDir` was given and the write succeeded.
 * - `content`: `=== STDOUT ===\n<stdout>\n=== STDERR ===\n<stderr>`, where `<stdout>` loses one trailing newline
 *   so that output ending in a newline looks exactly like the spec's example (docs/message-model.md §6.1).
 * - `summary`: see {@link summarizeShellRun}.
 */
export interface ShellResult extends ToolResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Wall time from spawn to the end of output, in ms. */
  durationMs: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** Bytes each stream produced in total, including any not kept. */
  stdoutBytes: number;
  stderrBytes: number;
}

/**
 * Runs `args.command` with `/bin/sh -c` in `ctx.workspaceDir`.
 *
 * The shell leads its own process group (detached), so a timeout, a cancel or the end of the run reaches
 * everything it started: on timeout the group gets SIGTERM, then SIGKILL after {@link KILL_GRACE_MS}; on abort it
 * gets SIGKILL at once. When the shell exits normally, processes it left running in its group (`sleep 300 &`) get
 * the same SIGTERM-then-SIGKILL: background jobs are a separate feature (docs/architecture.md "Tools"), and leftovers would
 * otherwise hold the output pipes open and outlive the call.
 *
 * The environment is the sandbox's allowlist (sandbox.ts `sandboxEnvironment`) taken from `ctx.env ??
 * process.env`, less `ctx.secretNames`, in every mode.
 *
 * @throws {ToolInputError} invalid arguments, `background: true` ("background jobs are not supported yet"), or a
 *   workspace over its quota.
 * @throws {ToolCancelledError} `ctx.signal` aborted before or during the run; the group has been sent SIGKILL.
 * @throws {ToolExecutionError} no sandbox can run (the message names the fix), the workspace could not be
 *   prepared, or the shell could not be spawned.
 */
export async function runShellCommand(args: ShellArgs, ctx: ShellContext): Promise<ShellResult> {
  const { command, timeout_s, background } = parseToolArgs(shellArgsSchema, args, 'run_shell_command');
  if (background === true) {
    throw new ToolInputError('background jobs are not supported yet: run the command without "background"');
  }
  if (ctx.signal?.aborted) throw cancelled(ctx.signal);
  const refusal = sandboxRefusal(ctx.sandbox);
  if (refusal) throw refusal;
  const sandbox = ctx.sandbox!;
  await prepareWorkspace(sandbox, ctx.workspaceDir);
  await checkWorkspaceQuota(sandbox, ctx.workspaceDir);
  sweepSessionFiles(sandbox, ctx.workspaceDir, ctx.outputDir);

  const timeoutMs = shellTimeoutMs(timeout_s, ctx.defaultTimeoutMs);
  const run = await execute(command, ctx, timeoutMs).finally(() => forgetUsage(ctx.workspaceDir));

  const [stdoutBudget, stderrBudget] = shareBudget(
    ctx.maxModelOutputBytes,
    run.stdout.totalBytes,
    run.stderr.totalBytes,
  );
  const stdout = run.stdout.modelSlice(stdoutBudget);
  const stderr = run.stderr.modelSlice(stderrBudget);
  const truncated = stdout.omittedBytes > 0 || stderr.omittedBytes > 0;
  const fullOutputPath =
    truncated && ctx.outputDir !== undefined
      ? await writeFullOutput(ctx.outputDir, ctx.callId, run.stdout, run.stderr)
      : undefined;

  const exitCode = run.timedOut ? null : run.exitCode;
  const limit = run.timedOut
    ? undefined
    : limitExplanation(ctx.sandbox, {
        exitCode,
        signal: run.signal,
        stderr: stderr.text,
        ...(run.cgroup ? { cgroup: run.cgroup } : {}),
      });
  const result: ShellResult = {
    exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    durationMs: run.durationMs,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated,
    stdoutBytes: run.stdout.totalBytes,
    stderrBytes: run.stderr.totalBytes,
    content:
      `=== STDOUT ===\n${stdout.text.replace(/\n$/, '')}\n=== STDERR ===\n${stderr.text}` +
      (limit
        ? `${stderr.text.endsWith('\n') || stderr.text === '' ? '' : '\n'}=== SANDBOX ===\nError: ${limit}`
        : ''),
    summary: limit
      ? clip(limit)
      : summarizeShellRun({ ...run, exitCode, timeoutMs, stdout: stdout.text, stderr: stderr.text }),
  };
  if (fullOutputPath !== undefined) result.fullOutputPath = fullOutputPath;
  return result;
}

/**
 * The timeout of one run, in ms: the model's `timeout_s` or the host default, never more than
 * {@link MAX_SHELL_TIMEOUT_S}, so a command always ends (and its result is stored) before its tool activity's
 * start-to-close timeout.
 */
export function shellTimeoutMs(timeoutS: number | undefined, defaultTimeoutMs: number): number {
  const wanted = timeoutS !== undefined ? timeoutS * 1000 : defaultTimeoutMs;
  return Math.min(wanted, MAX_SHELL_TIMEOUT_S * 1000);
}

/**
 * The one-line `metadata.tool_result` for a run, at most 120 characters. In order of precedence:
 *
 * - timed out: `timed out after 30s`
 * - ended by a signal: `killed by SIGKILL after 2.3s[: <last stderr line>]`
 * - exit 0: the last stdout line that has a letter or digit, stripped of `=`/`-`/`*` rules and at most 120
 *   characters (so a pytest run gives `5 passed in 0.42s`, as in docs/message-model.md §6.1); otherwise `exit 0 in 0.42s`
 * - other exits: `exit 2 in 1.0s: <last stderr line, or stdout line when stderr is empty>`
 *
 * Durations: two decimals under 1 s, one under 60 s, whole seconds above.
 */
export function summarizeShellRun(run: {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  timeoutMs: number;
  stdout: string;
  stderr: string;
}): string {
  if (run.timedOut) {
    const s = run.timeoutMs / 1000;
    return `timed out after ${Number.isInteger(s) ? `${s}s` : formatDuration(run.timeoutMs)}`;
  }
  const took = formatDuration(run.durationMs);
  const lastLine = lastMeaningfulLine(run.stderr) ?? lastMeaningfulLine(run.stdout);
  if (run.exitCode === null) {
    return clip(`killed by ${run.signal ?? 'a signal'} after ${took}${lastLine ? `: ${lastLine}` : ''}`);
  }
  if (run.exitCode === 0) {
    const line = lastMeaningfulLine(run.stdout);
    return line !== undefined && Array.from(line).length <= 120 ? line : `exit 0 in ${took}`;
  }
  return clip(`exit ${run.exitCode} in ${took}${lastLine ? `: ${lastLine}` : ''}`);
}

interface RawRun {
  cgroup?: CgroupReport;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdout: OutputCapture;
  stderr: OutputCapture;
}

/** Spawns the shell and settles once its output pipes are closed (or given up on). */
function execute(command: string, ctx: ShellContext, timeoutMs: number): Promise<RawRun> {
  return new Promise<RawRun>((resolve, reject) => {
    const started = performance.now();
    // The last bytes of each stream are kept even past the cap, so the model sees how a long run ended.
    const tailCap = Math.ceil(ctx.maxModelOutputBytes / 2) + 4;
    const headBudget = { remaining: Math.max(0, ctx.maxStoredOutputBytes - 2 * tailCap) };
    const stdout = new OutputCapture(headBudget, tailCap);
    const stderr = new OutputCapture(headBudget, tailCap);

    let child: ChildProcess;
    let finished: Promise<CgroupReport | undefined>;
    try {
      const sandbox = ctx.sandbox!;
      const env = sandboxEnvironment(
        sandbox.settings,
        ctx.workspaceDir,
        ctx.env ?? process.env,
        ctx.secretNames,
      );
      const plan = sandboxPlan(sandbox, ['/bin/sh', '-c', command], ctx.workspaceDir, env);
      ({ child, finished } = spawnSandboxed(sandbox, plan));
    } catch (err) {
      reject(
        err instanceof ToolExecutionError
          ? err
          : new ToolExecutionError(`could not start /bin/sh: ${(err as Error).message}`, { cause: err }),
      );
      return;
    }

    if (child.pid !== undefined && ctx.onSpawn) {
      try {
        ctx.onSpawn(child.pid);
      } catch {
        // Recording the process is best effort here; the caller keeps its own copy.
      }
    }

    let timedOut = false;
    let aborted = false;
    let exited = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch (err) {
        // ESRCH: the group is already empty. Anything else: at least reach the shell itself.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') child.kill(sig);
      }
    };
    const terminateGroup = (): void => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const stopReading = (): void => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const onAbort = (): void => {
      aborted = true;
      killGroup('SIGKILL');
      if (exited) stopReading();
    };
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      terminateGroup();
    }, timeoutMs);

    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      ctx.signal?.removeEventListener('abort', onAbort);
      outcome();
    };

    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal?.aborted) onAbort(); // aborted while the workspace was being created
    forward(child.stdout, 'stdout', stdout, ctx.onOutput);
    forward(child.stderr, 'stderr', stderr, ctx.onOutput);

    child.once('exit', () => {
      exited = true;
      if (settled) return;
      if (aborted) {
        stopReading();
        return;
      }
      // Leftovers in the group would keep the pipes open; a process that escaped the group (setsid) with the
      // pipes still open is given up on after the drain time.
      terminateGroup();
      drainTimer = setTimeout(stopReading, KILL_GRACE_MS + PIPE_DRAIN_MS);
    });
    child.on('error', (err) => {
      if (child.pid !== undefined) return; // a failed kill of a running child; the run goes on
      settle(() => reject(new ToolExecutionError(`could not start /bin/sh: ${err.message}`, { cause: err })));
    });
    child.once('close', (code: number | null, sig: NodeJS.Signals | null) => {
      void finished.then((cgroup) =>
        settle(() => {
          if (aborted) {
            reject(cancelled(ctx.signal));
            return;
          }
          resolve({
            ...(cgroup ? { cgroup } : {}),
            exitCode: code,
            signal: sig,
            timedOut,
            durationMs: Math.round(performance.now() - started),
            stdout,
            stderr,
          });
        }),
      );
    });
  });
}

function cancelled(signal: AbortSignal | undefined): ToolCancelledError {
  return new ToolCancelledError('run_shell_command was cancelled; its processes were killed', {
    cause: signal?.reason,
  });
}

/** Feeds a pipe into its capture and, decoded, into `onOutput`. */
function forward(
  pipe: Readable | null,
  stream: ShellOutputChunk['stream'],
  capture: OutputCapture,
  onOutput: ShellContext['onOutput'],
): void {
  if (pipe === null) return;
  const decoder = onOutput ? new StringDecoder('utf8') : undefined;
  const emit = (text: string): void => {
    if (text === '' || onOutput === undefined) return;
    try {
      onOutput({ stream, text });
    } catch {
      // Live output is best effort; a failing listener must not break the run.
    }
  };
  pipe.on('data', (chunk: Buffer) => {
    capture.push(chunk);
    if (decoder) emit(decoder.write(chunk));
  });
  pipe.on('end', () => {
    if (decoder) emit(decoder.end());
  });
}

/**
 * The bytes kept of one stream: a head taken from a budget shared by both streams, then a rolling tail of at most
 * `tailCap` bytes. Whatever falls between the two is only counted.
 */
class OutputCapture {
  readonly head: Buffer[] = [];
  headBytes = 0;
  tail: Buffer[] = [];
  tailBytes = 0;
  totalBytes = 0;
  readonly #budget: { remaining: number };
  readonly #tailCap: number;

  constructor(budget: { remaining: number }, tailCap: number) {
    this.#budget = budget;
    this.#tailCap = tailCap;
  }

  /** Bytes seen but kept neither in the head nor in the tail. */
  get droppedBytes(): number {
    return this.totalBytes - this.headBytes - this.tailBytes;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    // Once a stream has spilled into its tail, all later bytes go there too, keeping head + tail in order.
    const take = this.tailBytes === 0 ? Math.min(chunk.length, this.#budget.remaining) : 0;
    if (take > 0) {
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      this.#budget.remaining -= take;
    }
    if (take === chunk.length) return;
    this.tail.push(chunk.subarray(take));
    this.tailBytes += chunk.length - take;
    while (this.tailBytes > this.#tailCap) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.#tailCap;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  /**
   * At most `budget` bytes for the model: everything, or the head and the tail (split evenly, cut on UTF-8
   * character boundaries) around a `[… N bytes omitted …]` line.
   */
  modelSlice(budget: number): { text: string; omittedBytes: number } {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    const dropped = this.droppedBytes;
    if (dropped === 0 && this.totalBytes <= budget) {
      return { text: Buffer.concat([head, tail]).toString('utf8'), omittedBytes: 0 };
    }
    const headWant = Math.floor(budget / 2);
    const tailWant = budget - headWant;
    let first: Buffer;
    let last: Buffer;
    if (dropped === 0) {
      const all = Buffer.concat([head, tail]);
      first = all.subarray(0, utf8CutBack(all, headWant));
      last = all.subarray(utf8CutForward(all, all.length - tailWant));
    } else {
      first = head.subarray(0, utf8CutBack(head, Math.min(headWant, head.length)));
      last = tail.subarray(utf8CutForward(tail, Math.max(0, tail.length - tailWant)));
    }
    const omittedBytes = this.totalBytes - first.length - last.length;
    return {
      text: `${first.toString('utf8')}\n[… ${omittedBytes} bytes omitted …]\n${last.toString('utf8')}`,
      omittedBytes,
    };
  }

  /** Everything kept, with a marker line where bytes were dropped. */
  stored(): Buffer[] {
    const dropped = this.droppedBytes;
    if (dropped === 0) return [...this.head, ...this.tail];
    const marker = Buffer.from(`\n[… ${dropped} bytes not kept: over the storage cap …]\n`);
    return [...this.head, marker, ...this.tail];
  }
}

/** Splits the model's byte budget: a stream that needs less than half gives the rest to the other. */
function shareBudget(total: number, stdoutBytes: number, stderrBytes: number): [number, number] {
  if (stdoutBytes + stderrBytes <= total) return [stdoutBytes, stderrBytes];
  const half = Math.floor(total / 2);
  if (stdoutBytes <= half) return [stdoutBytes, total - stdoutBytes];
  if (stderrBytes <= half) return [total - stderrBytes, stderrBytes];
  return [total - half, half];
}

/** Writes everything kept to `<outputDir>/<callId or uuid>.log`; undefined when the write fails. */
async function writeFullOutput(
  outputDir: string,
  callId: string | undefined,
  stdout: OutputCapture,
  stderr: OutputCapture,
): Promise<string | undefined> {
  const stem = callId
    ? callId
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .replace(/^\./, '_')
        .slice(0, 200)
    : randomUUID();
  const file = path.resolve(outputDir, `${stem}.log`);
  try {
    // Same layout as `content`: one newline between stdout and the STDERR header.
    const out = Buffer.concat(stdout.stored());
    const separator = out.length > 0 && out[out.length - 1] === 0x0a ? '' : '\n';
    await mkdir(outputDir, { recursive: true });
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from('=== STDOUT ===\n'),
        out,
        Buffer.from(`${separator}=== STDERR ===\n`),
        ...stderr.stored(),
      ]),
    );
    return file;
  } catch {
    // The command has already run; losing the full copy must not turn its result into a failure (a retry would
    // run it again). The caller sees `truncated` without `fullOutputPath`.
    return undefined;
  }
}

function lastMeaningfulLine(text: string): string | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    // Rules like "===== 5 passed in 0.42s =====" are decoration, not content.
    const line = lines[i]!.trim().replace(/^[=\-*#_~]{3,}\s*|\s*[=\-*#_~]{3,}$/g, '');
    if (/[\p{L}\p{N}]/u.test(line) && !/^\[… \d+ bytes omitted …\]$/.test(line)) return line;
  }
  return undefined;
}

function formatDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 1) return `${s.toFixed(2)}s`;
  if (s < 60) return `${s.toFixed(1)}s`;
  return `${Math.round(s)}s`;
}

/**
 * Kesoku parts as separate OS processes (the real `npm run worker` entry point), so tests can SIGKILL and
 * restart them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Stack } from './stack.ts';

export const ROOT = path.join(import.meta.dirname, '..', '..');

export interface ChildPart {
  child: ChildProcess;
  output(): string;
  /** Resolves once `text` appears in stdout/stderr. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Environment that points a child Kesoku process at the stack's Temporal, Postgres, task queue and fake model. */
export function stackEnv(stack: Stack, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    KESOKU_TASK_QUEUE: stack.taskQueue,
    KESOKU_DATA_DIR: stack.dataDir,
    KESOKU_LLM_PROVIDER: 'openai-compatible',
    KESOKU_LLM_BASE_URL: stack.fake.url,
    KESOKU_LLM_MODEL: 'fake-model',
    KESOKU_LOG_LEVEL: 'warn',
    // Tests that are not about approvals run commands without asking (the default of most channels asks).
    KESOKU_TOOL_APPROVAL: 'off',
    ...extra,
  };
}

/**
 * The process entry points tests start, by role: `start` (`npm start`), `worker`, `api` and `channels` (the chat
 * channels' ingress, `npm run channels`; pass channel ids as args, e.g. `['discord']` for `npm run discord`). The
 * one place that names their scripts.
 */
export const ENTRY_POINTS = {
  start: 'bin/start.ts',
  worker: 'bin/worker.ts',
  api: 'bin/api.ts',
  channels: 'bin/channels.ts',
} as const satisfies Record<string, string>;

/** Starts the entry point of `role` (see {@link ENTRY_POINTS}) with `env`. */
export function startEntry(
  role: keyof typeof ENTRY_POINTS,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): ChildPart {
  return startPart(ENTRY_POINTS[role], env, args);
}

/** Starts `node <script> <args…>` (script relative to the repository root) with `env`. */
export function startPart(script: string, env: NodeJS.ProcessEnv, args: string[] = []): ChildPart {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of [...waiters])
      if (out.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    output: () => out,
    waitFor(text, timeoutMs = 60_000) {
      if (out.includes(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`"${text}" not seen within ${timeoutMs} ms; output:\n${out}`)),
          timeoutMs,
        );
        waiters.push({ text, resolve: () => (clearTimeout(timer), resolve()) });
        child.once('exit', (code) =>
          reject(new Error(`process exited (${code}) before "${text}"; output:\n${out}`)),
        );
      });
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** PIDs of processes whose command line contains `needle`. */
export function pids(needle: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', needle], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((p) => p !== process.pid);
  } catch {
    return [];
  }
}

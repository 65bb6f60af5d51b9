/**
 * Runs the terminal client (`node adapters/cli/main.ts`) as a child process with piped stdin and stdout, or on a
 * pseudo-terminal (util-linux `script`) to see what a person at a terminal sees.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.join(import.meta.dirname, '..', '..', '..');

export interface CliRun {
  /** stdout and stderr as received so far (interleaved in arrival order). */
  output(): string;
  /** Resolves once `text` appears in the output; rejects on time-out or exit. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  write(text: string): void;
  /** The exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** The exit code; after `timeoutMs` the client is killed and this rejects with its output. */
  exit(timeoutMs?: number): Promise<number | null>;
  /** Sends `signal` (default SIGKILL) unless the client has exited. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts the client with `args`, FORCE_COLOR=1 and USER=tester. `stdin` is written and closed at once unless
 * `keepStdinOpen`, in which case the test writes with {@link CliRun.write}. With `tty` the client runs on a
 * pseudo-terminal (stdin and stdout are a terminal; lines written must end with `\r`); its output then carries
 * the terminal's echo and the client's cursor movements too.
 */
export function runCli(
  args: string[],
  opts: { stdin?: string; keepStdinOpen?: boolean; env?: NodeJS.ProcessEnv; tty?: boolean } = {},
): CliRun {
  // The environment's API settings are not the test's; `opts.env` may set them.
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '1', USER: 'tester' };
  delete env.KESOKU_API_URL;
  delete env.KESOKU_API_TOKEN;
  delete env.KESOKU_API_TOKENS;
  Object.assign(env, opts.env);
  const argv = [process.execPath, path.join(ROOT, 'adapters', 'cli', 'main.ts'), ...args];
  const quote = (a: string) => `'${a.replaceAll("'", `'\\''`)}'`;
  const child = opts.tty
    ? spawn('script', ['-qfec', argv.map(quote).join(' '), '/dev/null'], {
        cwd: ROOT,
        env: { TERM: 'xterm-256color', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(argv[0] as string, argv.slice(1), { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    for (const l of [...listeners]) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  if (opts.stdin !== undefined) child.stdin.write(opts.stdin);
  if (!opts.keepStdinOpen) child.stdin.end();
  return {
    output: () => out,
    waitFor(text, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!out.includes(text)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`"${text}" not printed within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`the client exited before printing "${text}"; output:\n${out}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('close', onExit);
        };
        listeners.add(check);
        child.once('close', onExit);
        check();
      });
    },
    write: (text) => void child.stdin.write(text),
    exited,
    exit(timeoutMs = 30_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the client did not exit within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
      });
      return Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
    },
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

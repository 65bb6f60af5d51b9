/**
 * The servers Kesoku starts as child processes (the Temporal dev server, the embedded Postgres): each runs in
 * its own process group, so a terminal's Ctrl-C reaches only Kesoku, which stops them in order. This module
 * keeps track of them so that a forced exit, or this process exiting without stopping them, takes them down.
 */
import type { ChildProcess } from 'node:child_process';

/** Server children started and not exited yet. */
const started = new Set<ChildProcess>();

/** SIGKILLs every server child this process started that has not exited (for a forced exit). */
export function killStartedChildren(): void {
  for (const child of started) child.kill('SIGKILL');
}

let exitHookInstalled = false;

/** A supervised server child: see {@link superviseChild}. */
export interface SupervisedChild {
  /** Resolves when the child has exited. */
  exited: Promise<void>;
  /**
   * Sends `signal` unless the child has already exited, and waits for the exit; SIGKILL follows after
   * `graceMs` (default 10 000 ms) if it is still running.
   */
  stop(signal: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/**
 * Tracks `child` until it exits: {@link killStartedChildren} and this process's 'exit' event SIGKILL it
 * (best effort for crashes and forced exits).
 */
export function superviseChild(child: ChildProcess): SupervisedChild {
  if (!exitHookInstalled) {
    process.once('exit', killStartedChildren);
    exitHookInstalled = true;
  }
  started.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (started.delete(child), resolve())));
  return {
    exited,
    async stop(signal, graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

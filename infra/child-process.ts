/** Stopping the servers Kesoku starts as child processes (the Temporal dev server, the embedded Postgres). */
import type { ChildProcess } from 'node:child_process';

/**
 * Sends `signal` to `child` unless it has already exited, and waits for `exited` (the promise of its 'exit'
 * event); SIGKILL follows after `graceMs` (default 10 000 ms) if it is still running.
 */
export async function stopChild(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

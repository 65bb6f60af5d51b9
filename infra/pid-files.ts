/**
 * Pid files of the servers `npm start` runs as children (the Temporal dev server, the embedded Postgres), so
 * that after a hard kill of Kesoku (SIGKILL, out of memory) the next `npm start` — or `npx kesoku doctor` — can
 * recognise the servers it left running and stop them. A server is recognised by its pid file in the data dir
 * and by its process: the same start time as recorded (a reused pid is never taken for it) or, for Postgres,
 * whose own `postmaster.pid` records no start time, a command line naming this data dir. Never by program name:
 * other checkouts' servers of the same programs run beside it.
 */
import fs from 'node:fs';
import { processStartTicks } from './process-start.ts';

/** What a Kesoku pid file holds (JSON). */
export interface PidRecord {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat), when known. */
  startTicks?: number;
  /** Free-form facts shown to a person (port, data file). */
  [fact: string]: unknown;
}

/** Writes `record` to `file` (mode 0600), adding the process's start time. */
export function writePidFile(file: string, record: PidRecord): void {
  const startTicks = processStartTicks(record.pid) ?? undefined;
  fs.writeFileSync(file, JSON.stringify({ ...record, startTicks }) + '\n', { mode: 0o600 });
}

/** The record in `file`, or null when there is none or it is unreadable. */
export function readPidFile(file: string): PidRecord | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PidRecord>;
    return typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 ? (v as PidRecord) : null;
  } catch {
    return null;
  }
}

/** Removes `file` when it still names `pid` (a newer server's file is left alone). */
export function removePidFile(file: string, pid: number): void {
  if (readPidFile(file)?.pid === pid) fs.rmSync(file, { force: true });
}

/** True when `pid` is a running process (also one of another user's that this user may not signal). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of `pid` as its arguments, or null where /proc does not tell. */
export function commandLine(pid: number): string[] | null {
  try {
    return fs
      .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return null;
  }
}

/**
 * True when the process `record` names still runs and is the one recorded: its start time matches the
 * recorded one, or — with no recorded start time — its command line holds `args` in a row (e.g.
 * `['-D', dataDir]`). Where /proc is unavailable, a live pid is enough.
 */
export function isRecordedProcess(record: PidRecord, args: readonly string[] = []): boolean {
  if (!isAlive(record.pid)) return false;
  const ticks = processStartTicks(record.pid);
  if (ticks === null) return !fs.existsSync('/proc/self');
  if (record.startTicks !== undefined) return record.startTicks === ticks;
  const cmd = commandLine(record.pid);
  if (!cmd || args.length === 0) return false;
  return cmd.some((_, i) => args.every((a, j) => cmd[i + j] === a));
}

/**
 * Stops a leftover server: `signal` to its process group (it was started as a group leader) and to it, then
 * waits for it to exit; SIGKILL after `graceMs`.
 * @returns how long it took, in ms
 */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs = 15_000): Promise<number> {
  const started = Date.now();
  const send = (s: NodeJS.Signals) => {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, s);
      } catch {
        // Gone already, or not a group leader.
      }
    }
  };
  send(signal);
  let killed = false;
  while (isAlive(pid)) {
    if (!killed && Date.now() - started > graceMs) {
      send('SIGKILL');
      killed = true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

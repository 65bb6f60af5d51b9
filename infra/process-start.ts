/**
 * When a process started, read from Linux's /proc: with the pid it tells a live process from a later one that
 * reused the pid (the tool runs' leftover check, the pid files, the instance lock).
 */
import { readFileSync } from 'node:fs';

/** Start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or null when it is gone. */
export function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields after it follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/**
 * One `npm start` per data dir: a pid file (`<data dir>/kesoku.pid`, JSON `{pid, apiUrl, startTicks, fakeModel}`) created
 * exclusively at start-up and removed at exit. A second start finds it, checks that its pid is still the process
 * that wrote it (same start time, infra/pid-files.ts) and refuses with a line naming that pid and its API,
 * instead of failing later on a port of the first one. A file left behind by a killed process (its pid gone, or
 * reused by another program) is taken over; the servers that process left running are recognised by their own
 * pid files (infra/temporal-server.ts, infra/postgres-server.ts) and stopped by the start that took it over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processStartTicks } from './process-start.ts';

/** The pid file's name in the data dir. */
export const PID_FILE = 'kesoku.pid';

/** What the pid file holds. `apiUrl`: the REST API's URL (as configured until the API listens). */
export interface InstanceInfo {
  pid: number;
  apiUrl?: string;
  /** The process's start time in clock ticks since boot, when known (tells a reused pid apart). */
  startTicks?: number;
  /** True when it runs with the fake model (`npm run demo`), whatever the settings name. */
  fakeModel?: boolean;
}

/** Another live Kesoku already runs from this data dir. */
export class AlreadyRunningError extends Error {
  readonly kind = 'already-running';
  readonly other: InstanceInfo;
  constructor(other: InstanceInfo) {
    super(
      `Kesoku is already running from this checkout (pid ${other.pid}, ` +
        `${other.apiUrl ? `API at ${other.apiUrl}` : 'still starting'}); stop it with Ctrl-C in its terminal`,
    );
    this.other = other;
  }
}

/** The held pid file: `update` records the API's URL once known; `release` removes the file (idempotent). */
export interface InstanceLock {
  readonly file: string;
  update(apiUrl: string): void;
  release(): void;
}

/**
 * True when the process `info` names is running and is the one that wrote the file: the same start time when
 * one is recorded, else (a file of an older Kesoku) a command line naming `start.ts`. Where /proc is
 * unavailable, a live pid is enough.
 */
export function isLiveKesoku(pid: number, startTicks?: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  if (startTicks !== undefined) {
    const ticks = processStartTicks(pid);
    if (ticks !== null) return ticks === startTicks;
  }
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let cmdline: string;
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return !fs.existsSync('/proc/self');
  }
  return cmdline.includes('start.ts');
}

/** The pid file of `dataDir` and whether the Kesoku it names still runs (`npx kesoku doctor`, `status`). */
export function instanceOf(dataDir: string): { info: InstanceInfo; live: boolean } | null {
  const info = readInfo(path.join(dataDir, PID_FILE));
  return info ? { info, live: isLiveKesoku(info.pid, info.startTicks) } : null;
}

function readInfo(file: string): InstanceInfo | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<InstanceInfo>;
    if (typeof v.pid !== 'number') return null;
    return {
      pid: v.pid,
      apiUrl: v.apiUrl,
      startTicks: v.startTicks,
      ...(v.fakeModel === true ? { fakeModel: true } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * Takes the pid file of `dataDir` (which must exist) for this process, with `apiUrl` as the URL so far and
 * `fakeModel` when it answers with the fake model. The file is removed when this process exits, however it exits
 * short of SIGKILL.
 * @throws AlreadyRunningError when a live Kesoku holds it
 */
export function acquireInstanceLock(
  dataDir: string,
  apiUrl?: string,
  opts: { fakeModel?: boolean } = {},
): InstanceLock {
  const file = path.join(dataDir, PID_FILE);
  const startTicks = processStartTicks(process.pid) ?? undefined;
  const fake = opts.fakeModel === true ? { fakeModel: true } : {};
  const mine = (url?: string) =>
    JSON.stringify({ pid: process.pid, apiUrl: url, startTicks, ...fake }) + '\n';
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, mine(apiUrl), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw err;
    }
    const other = readInfo(file);
    if (other && isLiveKesoku(other.pid, other.startTicks)) throw new AlreadyRunningError(other);
    // Stale (its process is gone) or unreadable: remove it and try again; of two racing starts one wins `wx`.
    fs.rmSync(file, { force: true });
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    if (readInfo(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
  process.on('exit', release);
  return {
    file,
    update(url) {
      if (held) fs.writeFileSync(file, mine(url), { mode: 0o600 });
    },
    release,
  };
}

// One `npm start` per data dir: the pid file names a live Kesoku and refuses a second start; a file left by a
// process that is gone, or whose pid now belongs to another program, is taken over; the file goes at exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, AlreadyRunningError, PID_FILE } from './instance-lock.ts';

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-lock-'));
  dirs.push(d);
  return d;
}

/** A live process whose command line looks like `node bin/start.ts` (or not, with `args`). */
function sleeper(args: string[]): number {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', ...args], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

describe('acquireInstanceLock', () => {
  it('refuses while a live Kesoku holds the pid file, naming its pid and API', () => {
    const dir = tmpDir();
    const pid = sleeper(['bin/start.ts']);
    fs.writeFileSync(path.join(dir, PID_FILE), JSON.stringify({ pid, apiUrl: 'http://127.0.0.1:3101' }));
    expect(() => acquireInstanceLock(dir)).toThrow(AlreadyRunningError);
    expect(() => acquireInstanceLock(dir)).toThrow(
      `Kesoku is already running from this checkout (pid ${pid}, API at http://127.0.0.1:3101); ` +
        'stop it with Ctrl-C in its terminal',
    );
  });

  it('takes over a file whose pid is gone or belongs to another program, and records its own pid and API', () => {
    const dir = tmpDir();
    const file = path.join(dir, PID_FILE);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    for (const pid of [gone, sleeper(['something-else.js'])]) {
      fs.writeFileSync(file, JSON.stringify({ pid, apiUrl: 'http://127.0.0.1:1' }));
      const lock = acquireInstanceLock(dir, 'http://127.0.0.1:3000');
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
        pid: process.pid,
        apiUrl: 'http://127.0.0.1:3000',
        startTicks: expect.any(Number),
      });
      lock.update('http://127.0.0.1:3001');
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).apiUrl).toBe('http://127.0.0.1:3001');
      lock.release();
      expect(fs.existsSync(file)).toBe(false);
    }
  });

  it('takes over a file whose pid is alive but started at another time (a reused pid), whatever its command line', () => {
    const dir = tmpDir();
    const file = path.join(dir, PID_FILE);
    const pid = sleeper(['bin/start.ts']);
    fs.writeFileSync(file, JSON.stringify({ pid, apiUrl: 'http://127.0.0.1:1', startTicks: 1 }));
    const lock = acquireInstanceLock(dir);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    lock.release();
    // The same process with its true start time is recognised as running.
    const ticks = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19]);
    fs.writeFileSync(file, JSON.stringify({ pid, startTicks: ticks }));
    expect(() => acquireInstanceLock(dir)).toThrow(AlreadyRunningError);
  });

  it('removes the pid file when the process exits', () => {
    const dir = tmpDir();
    const code = `import('${path.resolve('infra/instance-lock.ts')}').then((m) => { m.acquireInstanceLock(process.argv[1]); process.exit(3); })`;
    const r = spawnSync(process.execPath, ['-e', code, dir], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(3);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

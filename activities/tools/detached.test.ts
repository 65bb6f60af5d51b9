/**
 * Detached commands (background jobs) in this host's real bubblewrap sandbox: they write their output and exit
 * status to files, outlive the process that started them (a worker SIGKILLed right after the spawn), and another
 * process adopts them by their recorded pid and start time — watching them to their real end, enforcing the
 * deadline and killing them on request — while a link planted in place of their files is never followed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pids } from '../../test/support/processes.ts';
import { bwrapSandbox } from '../../test/support/sandbox.ts';
import {
  detachedFiles,
  finishDetachedCgroup,
  hasExitStatus,
  readDetachedOutput,
  readDetachedProcess,
  startDetached,
  superviseDetached,
  type DetachedContext,
} from './detached.ts';
import { ToolExecutionError } from './errors.ts';
import { spawnedProcessState, type SpawnedProcess } from './runs.ts';
import type { Sandbox } from './sandbox.ts';

let tmp: string;
let sandbox: Sandbox;
let n = 0;
const run = Math.floor(Math.random() * 0xffffffff)
  .toString(16)
  .padStart(8, '0');
const started: { spawned: SpawnedProcess; id: string }[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-detached-'));
  sandbox = await bwrapSandbox(path.join(tmp, 'data'));
});
afterEach(async () => {
  // A failed test must not leave a command or its cgroup behind.
  for (const { spawned, id } of started.splice(0)) {
    try {
      if (spawnedProcessState(spawned) === 'running') process.kill(-spawned.pgid, 'SIGKILL');
    } catch {
      // gone
    }
    await finishDetachedCgroup(sandbox, id);
  }
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function context(): DetachedContext {
  n += 1;
  return {
    workspaceDir: path.join(tmp, 'data', 'workspaces', `s${n}`),
    outputDir: path.join(tmp, 'data', 'tool-output', `s${n}`),
    id: `job_${run}${String(n).padStart(8, '0')}`,
    sandbox,
  };
}

async function start(command: string, ctx = context()) {
  const spawned = await startDetached(command, ctx);
  started.push({ spawned, id: ctx.id });
  return { ctx, spawned, files: detachedFiles(ctx.outputDir, ctx.id) };
}

const watch = (spawned: SpawnedProcess, over: Partial<Parameters<typeof superviseDetached>[0]> = {}) =>
  superviseDetached({
    spawned,
    deadline: Date.now() + 30_000,
    signal: new AbortController().signal,
    killOnAbort: () => true,
    beat: () => undefined,
    pollMs: 50,
    ...over,
  });

describe('detached commands', () => {
  it('write stdout, stderr and the exit status to files outside the workspace; the watch ends when they end', async () => {
    const { ctx, spawned, files } = await start('echo out; echo err >&2; exit 3');
    expect(spawned.startTicks).not.toBeNull();
    expect(await watch(spawned)).toBe('exited');
    expect(readDetachedOutput(files, 2048)).toEqual({
      exitCode: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      stdoutBytes: 4,
      stderrBytes: 4,
    });
    expect(path.relative(ctx.workspaceDir, files.exit).startsWith('..')).toBe(true);
    expect(fs.readdirSync(ctx.workspaceDir)).not.toContain(path.basename(files.exit));
  });

  it('outlive the process that started them (SIGKILLed after the spawn); another adopts the running command and reads its real end', async () => {
    const ctx = context();
    // A stand-in for a worker: starts the command, prints what it recorded, and is SIGKILLed.
    const script = path.join(tmp, 'starter.ts');
    fs.writeFileSync(
      script,
      `import { startDetached } from ${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'detached.ts')).href)};
       import { bwrapSandbox } from ${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, '../../test/support/sandbox.ts')).href)};
       const ctx = JSON.parse(process.argv[2]);
       const spawned = await startDetached('echo ran >> runs.txt; sleep 2; echo done', { ...ctx, sandbox: await bwrapSandbox(ctx.dataDir) });
       process.stdout.write(JSON.stringify(spawned) + '\\n', () => process.kill(process.pid, 'SIGKILL'));`,
    );
    const out = await new Promise<string>((resolve) =>
      execFile(
        process.execPath,
        [script, JSON.stringify({ ...ctx, dataDir: path.join(tmp, 'data') })],
        (_e, o) => resolve(o),
      ),
    );
    const spawned = JSON.parse(out.trim()) as SpawnedProcess;
    started.push({ spawned, id: ctx.id });
    expect(spawnedProcessState(spawned)).toBe('running');
    const files = detachedFiles(ctx.outputDir, ctx.id);
    // Also found without the starter's answer (a worker that died before writing its database row).
    expect(readDetachedProcess(files)).toEqual(spawned);
    expect(hasExitStatus(files)).toBe(false);

    let beats = 0;
    expect(await watch(spawned, { beat: () => void beats++ })).toBe('exited');
    expect(beats).toBeGreaterThan(2);
    expect(readDetachedOutput(files, 2048)).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    expect(fs.readFileSync(path.join(ctx.workspaceDir, 'runs.txt'), 'utf8')).toBe('ran\n');
    expect(spawnedProcessState(spawned)).toBe('gone');
  });

  it('past the deadline the process group is killed (no process left) and the watch says timed_out', async () => {
    const marker = `30.${Math.floor(Math.random() * 1e6)}`;
    const { spawned, files } = await start(`sleep ${marker}; echo never`);
    await new Promise((r) => setTimeout(r, 200));
    expect(pids(`sleep ${marker}`)).not.toEqual([]);
    expect(await watch(spawned, { deadline: Date.now() + 500, killGraceMs: 300 })).toBe('timed_out');
    expect(spawnedProcessState(spawned)).toBe('gone');
    // The sandboxed command too, not only the wrapper that leads the group.
    await expect.poll(() => pids(`sleep ${marker}`), { timeout: 2000 }).toEqual([]);
    expect(readDetachedOutput(files, 2048)).toMatchObject({ exitCode: null, stdout: '' });
  });

  it('a kill by request kills the group; a worker shutdown leaves the command running', async () => {
    const kill = new AbortController();
    const a = await start('sleep 30');
    setTimeout(() => kill.abort(), 200);
    expect(await watch(a.spawned, { signal: kill.signal })).toBe('killed');
    expect(spawnedProcessState(a.spawned)).toBe('gone');

    const shutdown = new AbortController();
    const b = await start('sleep 30');
    setTimeout(() => shutdown.abort(), 200);
    expect(await watch(b.spawned, { signal: shutdown.signal, killOnAbort: () => false })).toBe('left');
    expect(spawnedProcessState(b.spawned)).toBe('running');
  });

  it('a link in place of an output file is never followed: the start fails and the target is untouched', async () => {
    const ctx = context();
    const files = detachedFiles(ctx.outputDir, ctx.id);
    const target = path.join(tmp, 'target.txt');
    fs.writeFileSync(target, 'keep');
    fs.mkdirSync(path.dirname(files.stdout), { recursive: true });
    fs.symlinkSync(target, files.stdout);
    await expect(startDetached('echo overwritten', ctx)).rejects.toBeInstanceOf(ToolExecutionError);
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
    // Read side: a link in place of the exit file reads as no status.
    fs.writeFileSync(target, '0\n');
    fs.symlinkSync(target, files.exit);
    expect(hasExitStatus(files)).toBe(false);
  });
});

/**
 * Limits that hold for a root worker: the memory of a command's processes together (a per-command cgroup; each
 * process stays under its own data limit), its process count, a uid of its own per session, the workspace
 * quota, and retention of full tool output and attachments that never follows a link.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareSandbox, defaultSandboxSettings } from '../../activities/tools/sandbox.ts';
import { runShellCommand } from '../../activities/tools/shell.ts';
import { writeFileTool } from '../../activities/tools/files.ts';
import { sweepDataDir } from '../../activities/tools/workspace-limits.ts';
import { MessageAttachments } from '../../infra/attachments-store.ts';
import { attachmentDirFor, sessionDirName } from '../../infra/workspace.ts';
import { runInSandbox } from './support/run-as.ts';

const dirs: string[] = [];
const fresh = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return path.join(d, 'data');
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('limits of a command', () => {
  it('four processes of 40 MiB each cannot use more than the command memory limit of 96 MiB together', async () => {
    const data = fresh('kesoku-mem-');
    const sandbox = await prepareSandbox(defaultSandboxSettings(data, { mode: 'required', memoryMb: 96 }));
    expect(sandbox.cgroups, sandbox.cgroupReason).toBeDefined();
    // `cat /dev/zero | tail -c N` keeps N bytes in memory and never ends: each process alone is allowed.
    const r = await runShellCommand(
      {
        command:
          'for i in 1 2 3 4; do cat /dev/zero | tail -c 41943040 > /dev/null & done; sleep 3; ' +
          'echo "alive: $(ps -e -o comm= | grep -c tail)"; pkill -9 cat; pkill -9 tail; wait; echo end',
      },
      {
        workspaceDir: path.join(data, 'workspaces', 'mem'),
        defaultTimeoutMs: 60_000,
        maxModelOutputBytes: 16 * 1024,
        maxStoredOutputBytes: 1024 * 1024,
        sandbox,
      },
    );
    expect(r.content).toMatch(
      /=== SANDBOX ===\nError: a process was killed by the sandbox: the command reached its memory limit of 96 MiB/,
    );
    expect(r.summary).toMatch(/memory limit/);
    expect(r.stdout).toMatch(/alive: [0-3]\n/);
    expect(r.stdout).toContain('end');
  }, 90_000);

  it('a command cannot start more processes than its limit', async () => {
    const data = fresh('kesoku-pids-');
    const r = await runInSandbox(data, 'for i in $(seq 1 40); do sleep 3 & done; wait', { processes: 16 });
    expect(r.content).toMatch(/processes could not be started: the sandbox allows 16 processes/);
  }, 60_000);

  it.runIf(process.getuid?.() === 0)(
    'as root, two sessions run as two different unprivileged uids, each owning its workspace',
    async () => {
      const data = fresh('kesoku-uids-');
      const a = await runInSandbox(data, 'id -u', {}, 'session-a');
      const b = await runInSandbox(data, 'id -u', {}, 'session-b');
      const uidA = Number(a.stdout.trim());
      const uidB = Number(b.stdout.trim());
      expect(uidA).toBeGreaterThan(65534);
      expect(uidB).toBeGreaterThan(65534);
      expect(uidA).not.toBe(uidB);
      expect(fs.statSync(path.join(data, 'workspaces', 'session-a')).uid).toBe(uidA);
    },
    60_000,
  );
});

describe('disk', () => {
  it('a workspace over its quota refuses further commands and writes with a clear error', async () => {
    const data = fresh('kesoku-quota-');
    const sandbox = await prepareSandbox(
      defaultSandboxSettings(data, { mode: 'required', workspaceQuotaMb: 2 }),
    );
    const ctx = {
      workspaceDir: path.join(data, 'workspaces', 'q'),
      defaultTimeoutMs: 60_000,
      maxModelOutputBytes: 16 * 1024,
      maxStoredOutputBytes: 1024 * 1024,
      sandbox,
    };
    const fill = await runShellCommand(
      { command: 'head -c 3000000 /dev/urandom > big.bin && echo filled' },
      ctx,
    );
    expect(fill.stdout).toContain('filled');
    await expect(runShellCommand({ command: 'echo more > more.txt' }, ctx)).rejects.toMatchObject({
      kind: 'invalid_input',
      message: expect.stringMatching(/the workspace is full: it uses 3 MiB of its 2 MiB quota; remove files/),
    });
    await expect(writeFileTool({ path: 'x.txt', content: 'x' }, ctx)).rejects.toThrow(/workspace is full/);
    expect(fs.existsSync(path.join(ctx.workspaceDir, 'more.txt'))).toBe(false);
  }, 60_000);

  it('retention removes old tool output and attachments and never follows a link out of them', async () => {
    const data = fresh('kesoku-retention-');
    const outside = path.join(path.dirname(data), 'outside');
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'keep.log'), 'outside file');
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    // Tool output: an old file, a new one, and a link to a directory outside.
    const outputDir = path.join(data, 'tool-output', sessionDirName('s'));
    fs.mkdirSync(outputDir, { recursive: true });
    fs.writeFileSync(path.join(outputDir, 'old.log'), 'old');
    fs.utimesSync(path.join(outputDir, 'old.log'), old, old);
    fs.writeFileSync(path.join(outputDir, 'new.log'), 'new');
    fs.symlinkSync(outside, path.join(outputDir, 'link'));
    fs.symlinkSync(outside, path.join(data, 'tool-output', 'linked-session'));
    // Attachments: an old message, a new one, and a message folder that is a link outside.
    for (const [id, when] of [
      ['m-old', old],
      ['m-new', new Date()],
    ] as const) {
      const store = await MessageAttachments.open(data, 's', id, { create: true });
      await store.write('0-a.txt', Buffer.from(id), { existing: 'keep' });
      await store.close();
      fs.utimesSync(path.join(attachmentDirFor(data, 's', id), '0-a.txt'), when, when);
      fs.utimesSync(attachmentDirFor(data, 's', id), when, when);
    }
    fs.symlinkSync(outside, attachmentDirFor(data, 's', 'm-link'));
    fs.lutimesSync(attachmentDirFor(data, 's', 'm-link'), old, old);

    await sweepDataDir(data, 30);

    expect(fs.readdirSync(outputDir).sort()).toEqual(['link', 'new.log']);
    expect(fs.existsSync(attachmentDirFor(data, 's', 'm-old'))).toBe(false);
    expect(fs.existsSync(attachmentDirFor(data, 's', 'm-new'))).toBe(true);
    expect(fs.readdirSync(outside)).toEqual(['keep.log']);
  });
});

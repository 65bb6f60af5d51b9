/**
 * The sandbox's spawn plan, environment and limit explanations (pure), and the start-up probe on this host.
 * The attacks themselves run on the real stack in test/security/sandbox.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultSandboxSettings,
  limitExplanation,
  prepareSandbox,
  sandboxEnvironment,
  sandboxPlan,
  sandboxWarning,
  type Sandbox,
} from './sandbox.ts';

let tmp: string;
let dataDir: string;
let workspace: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-sbx-unit-'));
  dataDir = path.join(tmp, 'data');
  workspace = path.join(dataDir, 'workspaces', 's1');
  fs.mkdirSync(workspace, { recursive: true });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const bwrap = (over: Partial<Sandbox['settings']> = {}): Sandbox => ({
  settings: defaultSandboxSettings(dataDir, over),
  kind: 'bwrap',
  bwrapPath: '/usr/bin/bwrap',
  prlimitPath: '/usr/bin/prlimit',
  setprivPath: '/usr/bin/setpriv',
});

describe('sandbox', () => {
  it('passes only PATH, HOME (= workspace), LANG, TERM and the KESOKU_TOOL_ENV names', () => {
    const env = sandboxEnvironment(defaultSandboxSettings(dataDir, { toolEnv: ['ALLOWED'] }), workspace, {
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      ALLOWED: 'yes',
      GH_PAT: 'secret',
      DATABASE_URL: 'postgres://x',
    });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: workspace,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      ALLOWED: 'yes',
    });
  });

  it('plans bwrap with its own namespaces, the data dir hidden before the workspace is bound, and limits', () => {
    const plan = sandboxPlan(bwrap(), 'echo hi', workspace, {}, { PATH: '/bin' });
    const args = plan.args.join(' ');
    expect(plan.file).toBe('/usr/bin/bwrap');
    for (const flag of [
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--clearenv',
    ]) {
      expect(plan.args).toContain(flag);
    }
    const hideData = args.indexOf(`--tmpfs ${fs.realpathSync(dataDir)}`);
    const bindWorkspace = args.indexOf(`--bind ${fs.realpathSync(workspace)} ${fs.realpathSync(workspace)}`);
    expect(hideData).toBeGreaterThan(-1);
    expect(bindWorkspace).toBeGreaterThan(hideData);
    expect(args).toMatch(/--nproc=512 .*\/bin\/sh -c echo hi$/);
    expect(args).toContain(`--fsize=${1024 * 1024 * 1024}`);
    expect(plan.env).not.toHaveProperty('DATABASE_URL');
    expect(sandboxPlan(bwrap({ network: 'on' }), 'true', workspace, {}).args).not.toContain('--unshare-net');
  });

  it('without a sandbox: the scrubbed environment and limits without a process count', () => {
    const none: Sandbox = {
      settings: defaultSandboxSettings(dataDir),
      kind: 'none',
      reason: 'test',
      prlimitPath: '/usr/bin/prlimit',
    };
    const plan = sandboxPlan(none, 'true', workspace, { PATH: '/bin' });
    expect(plan.file).toBe('/usr/bin/prlimit');
    expect(plan.env).toEqual({ PATH: '/bin' });
    expect(plan.args.join(' ')).not.toContain('--nproc');
    expect(sandboxWarning(none)).toMatch(/WITHOUT a sandbox/);
  });

  it('explains which limit stopped a command', () => {
    const s = bwrap({ fileMb: 16, cpuS: 30, processes: 64 });
    expect(limitExplanation(s, { exitCode: 153, signal: null, stderr: '' })).toMatch(
      /file size limit of 16 MiB/,
    );
    expect(limitExplanation(s, { exitCode: null, signal: 'SIGXCPU', stderr: '' })).toMatch(
      /CPU time limit of 30 s/,
    );
    expect(limitExplanation(s, { exitCode: 2, signal: null, stderr: '/bin/sh: 1: Cannot fork\n' })).toMatch(
      /64 processes/,
    );
    expect(limitExplanation(s, { exitCode: 1, signal: null, stderr: 'no such file' })).toBeUndefined();
  });

  it('the probe finds a working bubblewrap on this host (CI installs it), and `off` never sandboxes', async () => {
    const probed = await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'required' }));
    expect(probed.kind).toBe('bwrap');
    expect(sandboxWarning(probed)).toBeNull();
    expect((await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'off' }))).kind).toBe('none');
  });
});

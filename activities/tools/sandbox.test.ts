/**
 * The sandbox's spawn plan, environment and limit explanations (pure), the start-up probe on this host, and
 * commands in the real sandbox using their workspace by its absolute path (as root, as CI runs, and as another
 * user). The attacks themselves run on the real stack in test/security/sandbox.test.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultSandboxSettings,
  limitExplanation,
  prepareSandbox,
  prepareWorkspace,
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

  it('plans the directories between the hidden data dir and the workspace as passable, not listable, before the bind; without --perms (bwrap < 0.5) plain', () => {
    const real = fs.realpathSync(workspace);
    const parent = path.dirname(real);
    const args = sandboxPlan(bwrap(), 'true', workspace, {}).args.join(' ');
    expect(args).toContain('--perms 1777 --tmpfs /tmp ');
    expect(args).toContain(`--perms 0111 --tmpfs ${path.dirname(parent)} `);
    expect(args).toContain(`--perms 0111 --dir ${parent} --bind ${real} ${real}`);
    const old = sandboxPlan({ ...bwrap(), bwrapPerms: false }, 'true', workspace, {}).args;
    expect(old).not.toContain('--perms');
    expect(old.join(' ')).toContain(`--dir ${parent} --bind ${real} ${real}`);
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

  it('a command uses its workspace by its absolute path; the directories above it, inside a hidden one, can be passed through but not listed; /tmp is writable', async () => {
    const sandbox = await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'required' }));
    fs.mkdirSync(path.join(dataDir, 'workspaces', 'other'), { recursive: true });
    const otherFile = path.join(dataDir, 'workspaces', 'other', 'private.txt');
    fs.writeFileSync(otherFile, 'OTHER-PRIVATE');
    const out = await runSandboxed(
      sandbox,
      `${absolutePathCheck([path.join(dataDir, 'workspaces'), dataDir])}; cat ${otherFile}`,
      workspace,
    );
    expectAbsolutePathsWork(out);
    // Another workspace stays hidden: the passage leads only to this one.
    expect(out).not.toContain('OTHER-PRIVATE');
    expect(out).toContain(`cat: ${otherFile}: No such file or directory`);

    // A hidden directory inside another (the data dir inside Kesoku's directory): the directory between them too.
    const app = path.join(tmp, 'app');
    const nestedData = path.join(app, 'x', 'data');
    const nested = path.join(nestedData, 'workspaces', 's2');
    fs.mkdirSync(nested, { recursive: true });
    const nestedSandbox = await prepareSandbox(
      defaultSandboxSettings(nestedData, { mode: 'required', hide: [app, nestedData] }),
    );
    const nestedOut = await runSandboxed(
      nestedSandbox,
      absolutePathCheck([path.join(nestedData, 'workspaces'), nestedData, path.join(app, 'x'), app]),
      nested,
    );
    expectAbsolutePathsWork(nestedOut);
  }, 60_000);

  it.runIf(process.getuid?.() === 0)(
    'the same for a worker that is not root (commands keep its uid in a user namespace)',
    async () => {
      const own = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-sbx-user-'));
      try {
        const data = path.join(own, 'data');
        const ws = path.join(data, 'workspaces', 's3');
        fs.mkdirSync(ws, { recursive: true });
        execFileSync('chown', ['-R', '65534:65534', own]);
        const script = `
          import { execFile } from 'node:child_process';
          const m = await import(${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'sandbox.ts')).href)});
          const sandbox = await m.prepareSandbox(m.defaultSandboxSettings(${JSON.stringify(data)}, { mode: 'required', hide: [${JSON.stringify(data)}] }));
          const plan = m.sandboxPlan(sandbox, process.argv[1], ${JSON.stringify(ws)}, {});
          execFile(plan.file, plan.args, { env: plan.env, timeout: 30000 }, (err, stdout, stderr) => process.stdout.write(stdout + stderr));
        `;
        const out = await new Promise<string>((resolve) =>
          execFile(
            'setpriv',
            [
              '--reuid=65534',
              '--regid=65534',
              '--clear-groups',
              process.execPath,
              '--input-type=module',
              '-e',
              script,
              absolutePathCheck([path.join(data, 'workspaces'), data]),
            ],
            { cwd: own, env: { PATH: process.env.PATH, HOME: own }, timeout: 60_000 },
            (err, stdout, stderr) => resolve(stdout + stderr + (err ? String(err) : '')),
          ),
        );
        expectAbsolutePathsWork(out);
      } finally {
        fs.rmSync(own, { recursive: true, force: true });
      }
    },
    90_000,
  );
});

const hasGit = (() => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A shell script that uses the workspace only by absolute paths ($PWD, `cd "$(pwd)"`, git when installed) and
 * tries to list each of `parents`; it prints a marker per step that worked.
 */
function absolutePathCheck(parents: string[]): string {
  return [
    'ls -d "$PWD" && echo ls-ok',
    'cd "$(pwd)" && echo cd-ok',
    'echo abs > "$PWD/abs.txt" && cat "$(pwd)/abs.txt" && echo file-ok',
    hasGit ? 'git init -q "$PWD" && git -C "$PWD" status >/dev/null && echo git-ok' : 'echo git-ok',
    'echo t > /tmp/t && echo tmp-ok',
    ...parents.map((p) => `ls -A ${p} && echo LISTED`),
    'echo done',
  ].join('; ');
}

function expectAbsolutePathsWork(out: string): void {
  for (const marker of ['ls-ok', 'cd-ok', 'file-ok', 'git-ok', 'tmp-ok', 'done'])
    expect(out).toContain(marker);
  expect(out).not.toContain('LISTED');
  expect(out).toMatch(/Permission denied/);
}

/** Runs `command` in the real sandbox in `ws` (prepared as the tool does); stdout and stderr together. */
async function runSandboxed(sandbox: Sandbox, command: string, ws: string): Promise<string> {
  await prepareWorkspace(sandbox, ws);
  const plan = sandboxPlan(sandbox, command, ws, {});
  return new Promise((resolve) =>
    execFile(plan.file, plan.args, { env: plan.env, timeout: 30_000, ...plan.ids }, (err, stdout, stderr) =>
      resolve(stdout + stderr),
    ),
  );
}

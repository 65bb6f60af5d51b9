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
  runCollected,
  sandboxPlan,
  sandboxRefusal,
  sandboxUid,
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

  it('plans bwrap from an empty root: system directories read-only, the workspace and the attachments bound, the data dir absent, seccomp, limits', () => {
    const plan = sandboxPlan(
      { ...bwrap(), seccompFile: '/x/seccomp.bpf' },
      ['/bin/sh', '-c', 'echo hi'],
      workspace,
      { PATH: '/bin' },
    );
    const args = plan.args.join(' ');
    expect(plan.file).toBe('/usr/bin/bwrap');
    expect(plan.seccompFile).toBe('/x/seccomp.bpf');
    for (const flag of [
      '--die-with-parent',
      '--new-session',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--clearenv',
    ]) {
      expect(plan.args).toContain(flag);
    }
    expect(args).toMatch(/^.*? --tmpfs \/ /);
    expect(args).toContain('--ro-bind /usr /usr');
    expect(args).toContain('--ro-bind /etc /etc');
    expect(args).toContain('--seccomp 3');
    expect(args).toContain('--remount-ro /');
    for (const absent of ['/run', '/home', '/root', '/srv', '/mnt', '/media', '/var/run'])
      expect(plan.args).not.toContain(absent);
    // The data dir is not bound at all: only the workspace inside it.
    const real = fs.realpathSync(workspace);
    expect(args).not.toContain(`--bind ${fs.realpathSync(dataDir)} `);
    expect(args).toContain(`--bind ${real} ${real}`);
    expect(args.indexOf('--remount-ro /')).toBeGreaterThan(args.indexOf(`--bind ${real} ${real}`));
    expect(args).toMatch(/--nproc=512 .*\/bin\/sh -c echo hi$/);
    expect(args).toContain(`--fsize=${1024 * 1024 * 1024}`);
    expect(plan.env).toEqual({ PATH: '/bin' });
    expect(sandboxPlan(bwrap({ network: 'on' }), ['true'], workspace, {}).args).not.toContain(
      '--unshare-net',
    );
  });

  it('plans the directories on the way to the workspace as passable, not listable; without --perms (bwrap < 0.5) plain', () => {
    const real = fs.realpathSync(workspace);
    const parent = path.dirname(real);
    const args = sandboxPlan(bwrap(), ['true'], workspace, {}).args.join(' ');
    expect(args).toContain('--perms 1777 --size');
    expect(args).toContain(`--perms 0111 --dir ${path.dirname(parent)} `);
    expect(args).toContain(`--perms 0111 --dir ${parent} --bind ${real} ${real}`);
    const old = sandboxPlan({ ...bwrap(), bwrapPerms: false }, ['true'], workspace, {}).args;
    expect(old).not.toContain('--perms');
    expect(old.join(' ')).toContain(`--dir ${parent} --bind ${real} ${real}`);
  });

  it('hides a configured key file or directory that a system directory would show', () => {
    const args = sandboxPlan(
      bwrap({ hide: ['/etc/hostname', '/usr/share/doc', '/nonexistent/key'] }),
      ['true'],
      workspace,
      {},
    ).args.join(' ');
    expect(args).toContain('--ro-bind /dev/null /etc/hostname');
    expect(args).toContain('--tmpfs /usr/share/doc');
    expect(args).not.toContain('/nonexistent/key');
  });

  it('gives each session of a root worker its own uid from the range, the same one every time', () => {
    const s = defaultSandboxSettings(dataDir);
    const a = sandboxUid(s, path.join(dataDir, 'workspaces', 'a'));
    const b = sandboxUid(s, path.join(dataDir, 'workspaces', 'b'));
    expect(a).not.toBe(b);
    for (const uid of [a, b]) {
      expect(uid).toBeGreaterThanOrEqual(s.uids.first);
      expect(uid).toBeLessThanOrEqual(s.uids.last);
    }
    expect(sandboxUid(s, path.join(dataDir, 'workspaces', 'a'))).toBe(a);
    expect(sandboxUid(defaultSandboxSettings(dataDir, { uids: { first: 4000, last: 4000 } }), 'x')).toBe(
      4000,
    );
  });

  it('without a sandbox (KESOKU_SANDBOX=off): the allowlisted environment and limits without a process count; unavailable: refused with the fix', () => {
    const off: Sandbox = {
      settings: defaultSandboxSettings(dataDir, { mode: 'off' }),
      kind: 'off',
      reason: 'KESOKU_SANDBOX=off',
      prlimitPath: '/usr/bin/prlimit',
    };
    const plan = sandboxPlan(off, ['/bin/sh', '-c', 'true'], workspace, { PATH: '/bin' });
    expect(plan.file).toBe('/usr/bin/prlimit');
    expect(plan.env).toEqual({ PATH: '/bin' });
    expect(plan.args.join(' ')).not.toContain('--nproc');
    expect(sandboxWarning(off)).toMatch(/WITHOUT a sandbox/);
    const unavailable: Sandbox = {
      ...off,
      kind: 'unavailable',
      reason: 'bubblewrap (bwrap) is not installed',
    };
    expect(() => sandboxPlan(unavailable, ['true'], workspace, {})).toThrow(/install bubblewrap/);
    expect(sandboxRefusal(unavailable)?.message).toMatch(
      /refused on this host because no sandbox can run \(bubblewrap \(bwrap\) is not installed\).*apt-get install bubblewrap.*KESOKU_SANDBOX=off/,
    );
    expect(sandboxRefusal(undefined)).toBeDefined();
    expect(sandboxRefusal(off)).toBeUndefined();
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
    expect((await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'off' }))).kind).toBe('off');
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
          const m = await import(${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'sandbox.ts')).href)});
          const sandbox = await m.prepareSandbox(m.defaultSandboxSettings(${JSON.stringify(data)}, { mode: 'required', hide: [${JSON.stringify(data)}] }));
          await m.prepareWorkspace(sandbox, ${JSON.stringify(ws)});
          const r = await m.runCollected(sandbox, ['/bin/sh', '-c', process.argv[1]], ${JSON.stringify(ws)}, { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30000 });
          process.stdout.write(r.stdout.toString() + r.stderr.toString());
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
  const r = await runCollected(sandbox, ['/bin/sh', '-c', command], ws, {
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 30_000,
  });
  return r.stdout.toString() + r.stderr.toString();
}

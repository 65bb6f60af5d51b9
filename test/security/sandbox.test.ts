/**
 * The shell tool's sandbox, attacked on the real stack: the real worker entry point (`npm run worker`) in a child
 * process whose environment holds secrets, the real tool activity, and the fake model replying `run: <command>`.
 * With KESOKU_SANDBOX=required the worker refuses to start without a working bubblewrap, so these tests cannot
 * pass unsandboxed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../activities/tools/activities.ts';
import { APP_ROOT } from '../../activities/tools/sandbox.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const SECRETS = {
  KESOKU_LLM_API_KEY: 'sk-llm-SECRET-7f3a',
  AWS_SECRET_ACCESS_KEY: 'aws-SECRET-91c2',
  // Passed the old name-based scrub: only an allowlist keeps it out.
  GH_PAT: 'ghp-SECRET-55d0',
  // A chat channel's secrets (adapters/wechat/channel.ts secretKeys), listed in KESOKU_TOOL_ENV by mistake.
  WECHAT_APP_SECRET: 'wechat-app-SECRET-0b7e',
  WECHAT_TOKEN: 'wechatpushSECRETc41d',
};

let stack: Stack;
let worker: ChildPart;
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  worker = startPart(
    'bin/worker.ts',
    stackEnv(stack, {
      ...SECRETS,
      KESOKU_SANDBOX: 'required',
      WECHAT_APP_ID: 'wx0123456789abcdef',
      WECHAT_API_URL: 'http://127.0.0.1:9',
      KESOKU_TOOL_ENV: 'KESOKU_TEST_VISIBLE,WECHAT_APP_SECRET,WECHAT_TOKEN',
      KESOKU_TEST_VISIBLE: 'shown-to-tools',
      KESOKU_SANDBOX_PROCESSES: '64',
      KESOKU_SANDBOX_FILE_MB: '16',
      KESOKU_SHELL_TIMEOUT_S: '60',
    }),
  );
  await worker.waitFor('kesoku worker running', 120_000);
}, 240_000);
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await stack?.stop();
});

/** Runs `command` as a tool call in a new session; returns the tool result's content and summary. */
async function runTool(
  command: string,
  session = uniqueId('sbx'),
): Promise<{ content: string; summary: string; session: string }> {
  const r = await stack.submit(session, `run: ${command}`);
  const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 90_000);
  expect(done.status).toBe('processed');
  const result = (await stack.messages(session)).find((m) => m.type === 'tool_result');
  expect(result).toBeDefined();
  return { content: result!.content, summary: String(result!.metadata?.tool_result ?? ''), session };
}

/** Whether git is installed here (the absolute-path test then runs `git init` and `git status` too). */
function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// DATABASE_URL (set by stackEnv) is a secret too: its value starts with postgres://.
const secretValues = [...Object.values(SECRETS), 'postgres://'];

describe('sandbox of run_shell_command', () => {
  it("no secret in env, in /proc/<parent>/environ or in /proc/1/environ; HOME is the workspace; KESOKU_TOOL_ENV passes, except a channel's secrets", async () => {
    const { content, session } = await runTool(
      "env; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; tr '\\0' '\\n' < /proc/1/environ; echo ---; ps -e -o pid= | wc -l",
    );
    for (const secret of secretValues) expect(content).not.toContain(secret);
    expect(content).not.toMatch(/DATABASE_URL|TEMPORAL_ADDRESS|KESOKU_LLM|WECHAT_APP_SECRET|WECHAT_TOKEN/);
    expect(content).toContain(`HOME=${workspaceDirFor(stack.dataDir, session)}`);
    expect(content).toContain('KESOKU_TEST_VISIBLE=shown-to-tools');
    // Its own PID namespace: only the sandbox's few processes are visible, not the worker's.
    const count = Number(
      content
        .split('---')
        .at(-1)!
        .split('\n')
        .map((l) => l.trim())
        .find((l) => /^\d+$/.test(l)),
    );
    expect(count).toBeLessThan(10);
  }, 120_000);

  it("another session's workspace, the data dir and Kesoku's own files cannot be read", async () => {
    const other = uniqueId('sbx-other');
    const otherDir = workspaceDirFor(stack.dataDir, other);
    fs.mkdirSync(otherDir, { recursive: true });
    fs.writeFileSync(path.join(otherDir, 'private.txt'), 'OTHER-SESSION-PRIVATE');
    fs.writeFileSync(path.join(stack.dataDir, 'data-dir-file.txt'), 'DATA-DIR-PRIVATE');
    const { content } = await runTool(
      `cat ${otherDir}/private.txt; cat ${stack.dataDir}/data-dir-file.txt; ls -A ${stack.dataDir}/workspaces; cat ${APP_ROOT}/package.json | head -3`,
    );
    expect(content).not.toContain('OTHER-SESSION-PRIVATE');
    expect(content).not.toContain('DATA-DIR-PRIVATE');
    expect(content).not.toContain('"name": "kesoku"');
    expect(content).toMatch(/No such file or directory/);
  }, 120_000);

  it('the workspace works by its absolute path ($PWD, cd "$(pwd)", git); the directories above it cannot be listed; /tmp is writable', async () => {
    const other = uniqueId('sbx-other');
    fs.mkdirSync(workspaceDirFor(stack.dataDir, other), { recursive: true });
    const git = hasGit()
      ? 'git init -q . && git status && echo git-ok'
      : 'echo abs > "$PWD/abs.txt" && cat "$(pwd)/abs.txt" && echo git-ok';
    const { content } = await runTool(
      `ls -ld "$PWD" . && echo ls-ok; cd "$(pwd)" && echo cd-ok; ${git}; echo t > /tmp/t && echo tmp-ok; ` +
        `ls -A "$PWD/.." && echo LISTED; ls -A ${stack.dataDir} && echo LISTED; echo done`,
    );
    for (const marker of ['ls-ok', 'cd-ok', 'git-ok', 'tmp-ok', 'done']) expect(content).toContain(marker);
    expect(content).not.toContain('LISTED');
    expect(content).not.toContain(other);
    expect(content).toMatch(/cannot open directory .*: Permission denied/);
  }, 120_000);

  it('writes outside the workspace fail; writes inside it work', async () => {
    const outside = path.join(APP_ROOT, `sandbox-escape-${process.pid}.txt`);
    const { content, session } = await runTool(
      `echo x > /etc/kesoku-escape; echo x > ${outside}; echo x > /usr/kesoku-escape; echo inside > inside.txt && echo wrote-inside`,
    );
    expect(content).toContain('wrote-inside');
    expect(content).toMatch(/Read-only file system|Permission denied|No such file or directory/);
    expect(fs.existsSync('/etc/kesoku-escape')).toBe(false);
    expect(fs.existsSync('/usr/kesoku-escape')).toBe(false);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(path.join(workspaceDirFor(stack.dataDir, session), 'inside.txt'), 'utf8')).toBe(
      'inside\n',
    );
  }, 120_000);

  it('a fork bomb is stopped by the process limit and the model gets a clear tool error', async () => {
    const { content, summary } = await runTool('f(){ f|f& }; f; sleep 2; echo after the bomb');
    expect(content).toContain('=== SANDBOX ===');
    expect(content).toMatch(/Error: processes could not be started: the sandbox allows 64 processes/);
    expect(summary).toMatch(/processes could not be started/);
  }, 120_000);

  it('a 10 GB file is stopped by the file size limit and the model gets a clear tool error', async () => {
    const { content, summary, session } = await runTool('head -c 10G /dev/zero > big.bin');
    expect(content).toMatch(
      /Error: a process was stopped by the sandbox: it exceeded the file size limit of 16 MiB/,
    );
    expect(summary).toMatch(/file size limit/);
    expect(
      fs.statSync(path.join(workspaceDirFor(stack.dataDir, session), 'big.bin')).size,
    ).toBeLessThanOrEqual(16 * 1024 * 1024);
  }, 120_000);
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolCancelledError, ToolInputError } from './errors.ts';
import { channelSecretKeys } from '../../adapters/registry.ts';
import { runShellCommand, summarizeShellRun } from './shell.ts';
import type { ShellContext } from './shell.ts';
import { offSandbox } from '../../test/support/sandbox.ts';

let tmp: string;
let ctx: ShellContext;
const groupsStarted: number[] = [];

beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'kesoku-shell-'));
  ctx = {
    workspaceDir: path.join(tmp, 'workspace'),
    outputDir: path.join(tmp, 'outputs'),
    defaultTimeoutMs: 30_000,
    maxModelOutputBytes: 16 * 1024,
    maxStoredOutputBytes: 8 * 1024 * 1024,
    sandbox: offSandbox(tmp, {
      toolEnv: ['MY_TOOL_SETTING', 'ACME_SETTING', 'ACME_PASSPHRASE_VALUE', 'WECHAT_APP_SECRET'],
    }),
  };
});

afterEach(async () => {
  // A failed test must not leave sleeps behind.
  for (const pgid of groupsStarted.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(tmp, { recursive: true, force: true });
});

interface Member {
  pid: number;
  comm: string;
  state: string;
}

/** Processes in the group `pgid`, from /proc (zombies included, with state `Z`). */
function members(pgid: number): Member[] {
  const found: Member[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (Number(pgrp) === pgid) found.push({ pid: Number(entry), comm, state: state ?? '?' });
  }
  return found;
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ESRCH');
    return false;
  }
}

/**
 * Asserts that 2 s after `abortedAt` nothing in the group runs any more, then that the group disappears.
 *
 * The group has vanished for `process.kill(-pgid, 0)` only once every member has been reaped. Grandchildren are
 * orphans reaped by PID 1, which in some sandboxes (this one: a firecracker init) reaps only every ~2 s; a killed,
 * unreaped process (state Z) is dead, so at the 2 s mark zombies are accepted, and ESRCH is awaited afterwards.
 */
async function expectGroupGone(pgid: number, abortedAt: number): Promise<void> {
  while (Date.now() < abortedAt + 2000 && groupExists(pgid)) await sleep(20);
  expect(members(pgid).filter((m) => m.state !== 'Z')).toEqual([]);
  await vi.waitFor(() => expect(groupExists(pgid)).toBe(false), { timeout: 5000, interval: 50 });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs a command whose first output line is its shell's pid (`echo $$`), resolving that pid as the pgid. */
function startWithPgid(command: string, signal: AbortSignal) {
  let resolvePgid: (pgid: number) => void = () => {};
  const pgid = new Promise<number>((resolve) => (resolvePgid = resolve));
  let seen = '';
  const run = runShellCommand(
    { command: `echo $$; ${command}` },
    {
      ...ctx,
      signal,
      onOutput: ({ stream, text }) => {
        if (stream !== 'stdout') return;
        seen += text;
        const line = /^(\d+)\n/.exec(seen);
        if (line) {
          groupsStarted.push(Number(line[1]));
          resolvePgid(Number(line[1]));
        }
      },
    },
  );
  run.catch(() => {}); // asserted by the caller
  return { run, pgid };
}

describe('run_shell_command', () => {
  it('returns stdout, exit code 0 and the spec content format, in a workspace it creates', async () => {
    const result = await runShellCommand({ command: 'echo hello; pwd' }, ctx);

    expect(result.exitCode).toBe(0);
    expect(result.signal).toBeNull();
    expect(result.timedOut).toBe(false);
    expect(result.truncated).toBe(false);
    expect(result.stdout).toBe(`hello\n${ctx.workspaceDir}\n`);
    expect(result.stderr).toBe('');
    expect(result.content).toBe(`=== STDOUT ===\nhello\n${ctx.workspaceDir}\n=== STDERR ===\n`);
    expect(result.summary).toBe(ctx.workspaceDir);
    expect(result.fullOutputPath).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a non-zero exit with the last stderr line as summary', async () => {
    const result = await runShellCommand(
      { command: 'echo partial; echo "warning: first" >&2; echo "error: it broke" >&2; exit 3' },
      ctx,
    );

    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('partial\n');
    expect(result.stderr).toBe('warning: first\nerror: it broke\n');
    expect(result.content).toBe('=== STDOUT ===\npartial\n=== STDERR ===\nwarning: first\nerror: it broke\n');
    expect(result.summary).toMatch(/^exit 3 in \d+\.\d+s: error: it broke$/);
  });

  it('kills the command when timeout_s runs out and reports timedOut with no exit code', async () => {
    const result = await runShellCommand({ command: 'sleep 30', timeout_s: 1 }, ctx);

    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(result.durationMs).toBeGreaterThanOrEqual(950);
    expect(result.durationMs).toBeLessThan(3000);
    expect(result.summary).toBe('timed out after 1s');
  });

  it('follows SIGTERM with SIGKILL after 1 s when the command ignores SIGTERM', async () => {
    const result = await runShellCommand(
      { command: "trap '' TERM; sleep 30; echo survived", timeout_s: 1 },
      ctx,
    );

    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(result.stdout).toBe('');
    expect(result.durationMs).toBeGreaterThanOrEqual(1900);
    expect(result.durationMs).toBeLessThan(4000);
  });

  it('kills the whole process group of `sleep 300` on abort and rejects with ToolCancelledError', async () => {
    const abort = new AbortController();
    const { run, pgid } = startWithPgid('sleep 300', abort.signal);
    const group = await pgid;
    await vi.waitFor(() => expect(members(group).some((m) => m.comm === 'sleep')).toBe(true));

    const abortedAt = Date.now();
    abort.abort(new Error('user pressed stop'));

    await expect(run).rejects.toBeInstanceOf(ToolCancelledError);
    await expect(run).rejects.toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    await expectGroupGone(group, abortedAt);
  });

  it("kills grandchildren too on abort (sh -c 'sleep 300 & sleep 300')", async () => {
    const abort = new AbortController();
    const { run, pgid } = startWithPgid("sh -c 'sleep 300 & sleep 300'", abort.signal);
    const group = await pgid;
    await vi.waitFor(() => expect(members(group).filter((m) => m.comm === 'sleep')).toHaveLength(2));

    const abortedAt = Date.now();
    abort.abort();

    await expect(run).rejects.toBeInstanceOf(ToolCancelledError);
    await expectGroupGone(group, abortedAt);
  });

  it('rejects at once with ToolCancelledError when the signal is already aborted', async () => {
    await expect(
      runShellCommand({ command: 'echo never' }, { ...ctx, signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(ToolCancelledError);
  });

  it('stops processes the command left running in its group when it exits', async () => {
    const started = Date.now();
    const { run, pgid } = startWithPgid('sleep 300 & echo started', new AbortController().signal);

    const result = await run;
    const group = await pgid;

    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${group}\nstarted\n`);
    expect(Date.now() - started).toBeLessThan(3000);
    // SIGTERM has been sent by the time the run resolves; on a loaded machine the process may take a moment to go.
    await expect
      .poll(() => members(group).filter((m) => m.state !== 'Z'), { timeout: 2000, interval: 50 })
      .toEqual([]);
  });

  it('gives the model head and tail of output over the cap and writes the full output file', async () => {
    const result = await runShellCommand(
      { command: 'yes | head -c 3000000' },
      { ...ctx, callId: 'call_big/1' },
    );

    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdoutBytes).toBe(3_000_000);
    const marker = /\n\[… (\d+) bytes omitted …\]\n/.exec(result.stdout);
    expect(marker).not.toBeNull();
    const shown = Buffer.byteLength(result.stdout) - Buffer.byteLength(marker![0]);
    expect(shown).toBe(16 * 1024);
    expect(Number(marker![1])).toBe(3_000_000 - shown);
    expect(result.stdout.startsWith('y\ny\n')).toBe(true);
    expect(result.stdout.endsWith('y\ny\n')).toBe(true);

    expect(result.fullOutputPath).toBe(path.join(ctx.outputDir!, 'call_big_1.log'));
    const full = await readFile(result.fullOutputPath!, 'utf8');
    expect(full).toBe(`=== STDOUT ===\n${'y\n'.repeat(1_500_000)}=== STDERR ===\n`);
  });

  it('keeps no more than maxStoredOutputBytes but still shows the real end of the output', async () => {
    const result = await runShellCommand(
      { command: 'seq 1 100000' },
      { ...ctx, maxModelOutputBytes: 1024, maxStoredOutputBytes: 64 * 1024 },
    );

    expect(result.truncated).toBe(true);
    expect(result.stdoutBytes).toBe(588_895);
    expect(result.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(result.summary).toBe('100000');
    const full = await readFile(result.fullOutputPath!);
    expect(full.length).toBeLessThanOrEqual(64 * 1024 + 200);
    expect(full.toString('utf8')).toMatch(/\n\[… \d+ bytes not kept: over the storage cap …\]\n/);
    expect(full.toString('utf8')).toContain('\n100000\n=== STDERR ===\n');
  });

  it('passes only the allowlist (PATH, HOME, LANG, TERM, KESOKU_TOOL_ENV names) from process.env, also without a sandbox', async () => {
    const planted = {
      KESOKU_LLM_API_KEY: 'planted-kesoku-llm-key-7f3a',
      DISCORD_TOKEN: 'planted-discord-token-91bc',
      PGPASSWORD: 'planted-pg-password',
      AWS_SECRET_ACCESS_KEY: 'planted-aws-secret',
      GITHUB_TOKEN: 'planted-github-token',
      DATABASE_URL: 'postgres://u:planted-db-url@h/db',
      KESOKU_TEST_VISIBLE_SETTING: 'dropped-by-prefix',
      // Names no deny list recognises: only an allowlist keeps them out.
      DB_PASS: 'planted-db-pass',
      GH_PAT: 'planted-gh-pat',
      REDIS_URL: 'redis://:planted-redis@h',
      NODE_OPTIONS: '--require /planted.js',
      MY_TOOL_SETTING: 'visible-value',
    };
    Object.assign(process.env, planted);
    try {
      const result = await runShellCommand({ command: 'env' }, ctx);

      for (const [name, value] of Object.entries(planted)) {
        if (name === 'MY_TOOL_SETTING') continue;
        expect(result.stdout).not.toContain(value);
        expect(result.stdout).not.toContain(`${name}=`);
      }
      expect(result.stdout).toContain('MY_TOOL_SETTING=visible-value\n');
      expect(result.stdout).toMatch(/^PATH=/m);
      expect(result.stdout).toMatch(/^HOME=/m);
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
    }
  });

  it("keeps the chat channels' secrets (ctx.secretNames) out of the command, whatever they are called", async () => {
    const env = {
      PATH: process.env.PATH,
      WECHAT_APP_SECRET: 'planted-wechat-secret',
      WECHAT_ENCODING_AES_KEY: 'planted-wechat-aes-key',
      GOOGLE_CHAT_CREDENTIALS_FILE: '/planted/google-chat-credentials.json',
      // A channel secret no generic rule recognises.
      ACME_PASSPHRASE_VALUE: 'planted-acme-passphrase',
      ACME_SETTING: 'visible-value',
    };
    const result = await runShellCommand(
      { command: 'env' },
      { ...ctx, env, secretNames: [...channelSecretKeys(), 'ACME_PASSPHRASE_VALUE'] },
    );

    expect(channelSecretKeys()).toEqual(expect.arrayContaining(['WECHAT_APP_SECRET', 'DISCORD_TOKEN']));
    expect(result.stdout).not.toContain('planted');
    expect(result.stdout).not.toMatch(/^(WECHAT_|GOOGLE_CHAT_|ACME_PASSPHRASE)/m);
    expect(result.stdout).toContain('ACME_SETTING=visible-value\n');
  });

  it('uses ctx.env instead of process.env, scrubbed, and sets HOME to the workspace when missing', async () => {
    const result = await runShellCommand(
      { command: 'env' },
      { ...ctx, env: { PATH: process.env.PATH, LANG: 'C.UTF-8', OPENAI_API_KEY: 'planted-openai' } },
    );

    expect(result.stdout).not.toContain('planted-openai');
    expect(result.stdout).toContain(`HOME=${ctx.workspaceDir}\n`);
    expect(result.stdout).toContain('LANG=C.UTF-8\n');
  });

  it('returns unicode output intact, also live through onOutput', async () => {
    let live = '';
    const text = 'héllo 世界 🎉 Ελληνικά';
    const result = await runShellCommand(
      { command: `printf '%s\\n' '${text}'; printf 'ошибка ✗\\n' >&2` },
      { ...ctx, onOutput: ({ stream, text: piece }) => (live += `${stream}:${piece}`) },
    );

    expect(result.stdout).toBe(`${text}\n`);
    expect(result.stderr).toBe('ошибка ✗\n');
    expect(live).toContain(`stdout:${text}\n`);
    expect(result.summary).toBe(text);
  });

  it('never cuts a multibyte character when truncating', async () => {
    const result = await runShellCommand(
      { command: 'yes 世界 | head -c 99995' },
      { ...ctx, maxModelOutputBytes: 1001, outputDir: undefined },
    );

    expect(result.truncated).toBe(true);
    expect(result.fullOutputPath).toBeUndefined();
    expect(result.stdout).not.toContain('\uFFFD');
    expect(result.stdout).toMatch(/^(世界\n)+世?\n\[… \d+ bytes omitted …\]\n(界\n)?(世界\n)+$/);
  });

  it('refuses background jobs with a ToolInputError', async () => {
    const run = runShellCommand({ command: 'sleep 1', background: true }, ctx);

    await expect(run).rejects.toBeInstanceOf(ToolInputError);
    await expect(run).rejects.toThrow('background jobs are not supported yet');
  });

  it('rejects invalid arguments with a message naming the field', async () => {
    await expect(runShellCommand({ command: '' }, ctx)).rejects.toThrow(/command:/);
    await expect(runShellCommand({ command: 'x'.repeat(16 * 1024 + 1) }, ctx)).rejects.toThrow(/command:/);
    await expect(runShellCommand({ command: 'true', timeout_s: 0 }, ctx)).rejects.toThrow(/timeout_s:/);
  });
});

describe('summarizeShellRun', () => {
  const base = { exitCode: 0, signal: null, timedOut: false, durationMs: 420, timeoutMs: 30_000, stderr: '' };

  it('uses the last meaningful stdout line of a successful run, without rule decoration (docs/message-model.md §6.1)', () => {
    const stdout = 'collected 5 items\n\n===== 5 passed in 0.42s =====\n';
    expect(summarizeShellRun({ ...base, stdout })).toBe('5 passed in 0.42s');
  });

  it('falls back to the exit code and duration when the last line is long or has no words', () => {
    expect(summarizeShellRun({ ...base, stdout: '}\n' })).toBe('exit 0 in 0.42s');
    expect(summarizeShellRun({ ...base, stdout: `${'x'.repeat(121)}\n` })).toBe('exit 0 in 0.42s');
    expect(summarizeShellRun({ ...base, exitCode: 2, durationMs: 1000, stdout: '' })).toBe('exit 2 in 1.0s');
  });

  it('clips a failing run to 120 characters', () => {
    const summary = summarizeShellRun({ ...base, exitCode: 1, stdout: '', stderr: `${'e'.repeat(300)}\n` });
    expect(Array.from(summary)).toHaveLength(120);
    expect(summary.endsWith('…')).toBe(true);
  });
});

describe('timeouts agree with the tool activity by construction', () => {
  it('lowers timeout_s and the host default to MAX_SHELL_TIMEOUT_S', async () => {
    const { shellTimeoutMs } = await import('./shell.ts');
    const { MAX_SHELL_TIMEOUT_S, TOOL_ACTIVITY_TIMEOUT_S } = await import('../../domain/tool-limits.ts');
    expect(shellTimeoutMs(999_999, 1000)).toBe(MAX_SHELL_TIMEOUT_S * 1000);
    expect(shellTimeoutMs(undefined, 86_400_000)).toBe(MAX_SHELL_TIMEOUT_S * 1000);
    expect(shellTimeoutMs(5, 1000)).toBe(5000);
    expect(MAX_SHELL_TIMEOUT_S).toBeLessThan(TOOL_ACTIVITY_TIMEOUT_S);
    const { loadConfig } = await import('../../infra/config.ts');
    expect(loadConfig({ KESOKU_SHELL_TIMEOUT_S: '86400' }).KESOKU_SHELL_TIMEOUT_S).toBe(MAX_SHELL_TIMEOUT_S);
    expect(loadConfig({}).KESOKU_SHELL_TIMEOUT_S).toBe(300);
  });
});

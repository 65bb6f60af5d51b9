// The terminal client's inline approval prompt in a pseudo-terminal (util-linux `script` gives the client a real
// TTY): a command the policy asks about is shown as `approve: run … ? [y]es / [n]o / [a]lways`, `y` runs it,
// `n` refuses the next one, `a` runs it and lets the next matching command run without a prompt; the real API, worker, Temporal dev server and Postgres behind it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../../activities/tools/activities.ts';
import { startApiServer, type ApiServer } from '../../../api/server.ts';
import { createLogger } from '../../../infra/logger.ts';
import { startStack, uniqueId, type Stack } from '../../../test/support/stack.ts';
import { ROOT } from './support.ts';

let stack: Stack;
let api: ApiServer;

beforeAll(async () => {
  stack = await startStack({ approvals: { policy: 'writes', timeoutS: 600 } });
  api = await startApiServer({
    pool: stack.pool,
    sessions: stack.sessions,
    databaseUrl: stack.databaseUrl,
    logger: createLogger('test-cli', process.env.KESOKU_TEST_LOG ?? 'silent'),
    host: '127.0.0.1',
    port: 0,
    tokens: [],
  });
});

afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The client in a pseudo-terminal; `text()` is its output without escape sequences. */
function runInPty(args: string[]): {
  child: ChildProcess;
  text(): string;
  waitFor(t: string): Promise<void>;
} {
  const cmd = [process.execPath, path.join(ROOT, 'adapters', 'cli', 'main.ts'), ...args].map(quote).join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, USER: 'tester', TERM: 'xterm-256color', COLUMNS: '120' };
  delete env.KESOKU_API_URL;
  delete env.KESOKU_API_TOKEN;
  const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], { cwd: ROOT, env });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const text = () => stripVTControlCharacters(out);
  return {
    child,
    text,
    async waitFor(t) {
      const deadline = Date.now() + 30_000;
      while (!text().includes(t)) {
        if (Date.now() > deadline) throw new Error(`"${t}" not shown within 30 s; output:\n${text()}`);
        if (child.exitCode !== null) throw new Error(`the client exited; output:\n${text()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

describe('npm run chat: approval prompt', () => {
  it('asks y/n/a inline: y runs the command, n refuses the next one', async () => {
    const session = uniqueId('cli');
    const cli = runInPty(['--session', session, '--url', api.url]);
    try {
      await cli.waitFor(`session ${session}`);
      cli.child.stdin?.write('run: echo pty-approved >> runs.txt\r');
      await cli.waitFor('approve: run `echo pty-approved >> runs.txt`? [y]es / [n]o / [a]lways');
      cli.child.stdin?.write('y\r');
      await cli.waitFor('✓ approved');
      await cli.waitFor('Done:');

      cli.child.stdin?.write('run: echo pty-denied >> runs.txt\r');
      await cli.waitFor('approve: run `echo pty-denied >> runs.txt`?');
      cli.child.stdin?.write('n\r');
      await cli.waitFor('✗ denied');
      await cli.waitFor('Done: Error: the user denied this command');

      const file = path.join(workspaceDirFor(stack.dataDir, session), 'runs.txt');
      expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toEqual(['pty-approved']);
      const calls = (await stack.messages(session)).filter((m) => m.type === 'tool_call');
      expect(
        calls.map((c) => (c.metadata as { approval?: { state: string; by: string } }).approval),
      ).toMatchObject([
        { state: 'approved', by: 'api:local' },
        { state: 'denied', by: 'api:local' },
      ]);
      cli.child.stdin?.write('/quit\r');
      await new Promise<void>((resolve) => cli.child.once('close', () => resolve()));
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  }, 90_000);

  it('a (always) runs the command and the next matching one runs without a prompt', async () => {
    const session = uniqueId('cli');
    const cli = runInPty(['--session', session, '--url', api.url]);
    try {
      await cli.waitFor(`session ${session}`);
      cli.child.stdin?.write('run: echo pty-always-1\r');
      await cli.waitFor('approve: run `echo pty-always-1`? [y]es / [n]o / [a]lways');
      cli.child.stdin?.write('a\r');
      await cli.waitFor('✓ approved (always)');
      await cli.waitFor('Done: pty-always-1');

      // `always` added the pattern `echo *` to the session: the next echo is not asked about.
      cli.child.stdin?.write('run: echo pty-always-2\r');
      await cli.waitFor('Done: pty-always-2');
      expect(cli.text()).not.toContain('approve: run `echo pty-always-2`');
      const calls = (await stack.messages(session)).filter((m) => m.type === 'tool_call');
      expect(calls.map((c) => (c.metadata as { approval?: unknown }).approval)).toMatchObject([
        { state: 'approved', by: 'api:local', decision: 'always' },
        { state: 'approved', by: 'pattern', pattern: 'echo *' },
      ]);
      cli.child.stdin?.write('/quit\r');
      await new Promise<void>((resolve) => cli.child.once('close', () => resolve()));
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  }, 90_000);
});

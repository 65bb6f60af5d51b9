// The terminal client (`npm run chat`) as a person or a script uses it: the real `node adapters/cli/main.ts` in a
// child process, talking to the real REST API over a real worker, Temporal dev server and Postgres.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../../api/server.ts';
import type { ApiToken } from '../../../api/auth.ts';
import { getJob, listJobs } from '../../../db/jobs.ts';
import { getSession } from '../../../db/sessions.ts';
import { TITLE_MAX_CHARS } from '../../../domain/session-settings.ts';
import { createLogger } from '../../../infra/logger.ts';
import { startStack, uniqueId, type Stack } from '../../../test/support/stack.ts';
import { ROOT, runCli } from './support.ts';

const CYAN = '\u001b[36m';
const YELLOW = '\u001b[33m';
const MAGENTA = '\u001b[35m';
const DIM = '\u001b[2m';
const RED = '\u001b[31m';
const TRANSCRIPT = path.join(ROOT, 'adapters', 'cli', 'test', 'fixtures', 'run-a-command.ansi.txt');

let stack: Stack;
let api: ApiServer;

beforeAll(async () => {
  stack = await startStack();
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

/** The panel whose top border carries `title`, from its top border to its bottom border. */
function panelOf(out: string, title: string): string {
  const start = out.indexOf(title);
  expect(start, `no panel titled ${title} in:\n${out}`).toBeGreaterThan(-1);
  const lineStart = out.lastIndexOf('\n', start) + 1;
  const end = out.indexOf('╯', start);
  return out.slice(lineStart, end + 1);
}

describe('npm run chat', () => {
  it('runs a piped script: thought, tool call and tool output in cyan, yellow and magenta panels, then the reply with its metrics, and exits 0', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '20'], {
      stdin: 'run: echo hello-from-cli\n/quit\n',
    });
    const code = await cli.exit();
    const out = cli.output();
    expect(code, out).toBe(0);

    expect(out).toContain(`session ${session}`);
    expect(stripVTControlCharacters(out)).toContain('tester › run: echo hello-from-cli');
    const thought = panelOf(out, '💭 thought');
    expect(thought.startsWith(`${CYAN}╭`)).toBe(true);
    expect(thought).toContain('I will run `echo hello-from-cli`.');
    const call = panelOf(out, '🔧 run_shell_command');
    expect(call.startsWith(`${YELLOW}╭`)).toBe(true);
    expect(call).toContain('echo hello-from-cli');
    const result = panelOf(out, '✅ run_shell_command');
    expect(result.startsWith(`${MAGENTA}╭`)).toBe(true);
    expect(result).toContain('hello-from-cli');
    // The reply comes last, with its metrics dim on the next line.
    expect(out.indexOf('Done: hello-from-cli')).toBeGreaterThan(out.indexOf('✅ run_shell_command'));
    const replyLines = out.slice(out.lastIndexOf('\n', out.indexOf('Done: hello-from-cli')) + 1).split('\n');
    expect(stripVTControlCharacters(replyLines[0] ?? '')).toBe('Kesoku › Done: hello-from-cli');
    expect(replyLines[1]).toMatch(
      new RegExp(`^${esc(DIM)}⏱ \\d+(\\.\\d)?s · 🔧 1 tool · \\d+ tokens · turn 1${esc('\u001b[22m')}$`),
    );
    // Each message once.
    expect(out.split('💭 thought').length).toBe(2);
    expect(out.split('Done: hello-from-cli').length).toBe(2);

    if (process.env.KESOKU_WRITE_TRANSCRIPT === '1') {
      fs.mkdirSync(path.dirname(TRANSCRIPT), { recursive: true });
      fs.writeFileSync(TRANSCRIPT, out);
    }
  });

  it('shows a message sent over HTTP to the same session, and its reply, while it is attached', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url], { keepStdinOpen: true });
    try {
      await cli.waitFor(`session ${session}`);
      const res = await fetch(`${api.url}/v1/sessions/${session}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'hello from curl', sender: 'curl-user' }),
      });
      expect(res.status).toBe(202);
      await cli.waitFor('echo: hello from curl');
      const out = stripVTControlCharacters(cli.output());
      expect(out).toContain('curl-user › hello from curl\n');
      expect(out).toMatch(
        /\nKesoku › echo: hello from curl\n⏱ \d+(\.\d)?s · 🔧 0 tools · \d+ tokens · turn 1\n/,
      );
      cli.write('/quit\n');
      expect(await cli.exit()).toBe(0);
    } finally {
      cli.kill();
    }
  });

  it('on a terminal, the live line (⋯ thinking, tool progress) is erased when the reply is printed and stays gone', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url], { tty: true, keepStdinOpen: true });
    try {
      await cli.waitFor(`session ${session}`);
      cli.write('run: echo live-gone\r');
      await cli.waitFor('· turn 1');
      // The trigger's final status is committed a moment after the reply: wait for it and for its events.
      await expect
        .poll(async () => (await stack.messages(session)).find((m) => m.role === 'user')?.status, {
          timeout: 20_000,
        })
        .toBe('processed');
      await new Promise((r) => setTimeout(r, 1000));
      const out = stripVTControlCharacters(cli.output());
      // The live line was there while the turn ran…
      expect(out.slice(0, out.indexOf('Kesoku › Done: live-gone'))).toContain('⋯ thinking');
      // …and nothing live is drawn once the reply and its metrics line are printed.
      const afterReply = out.slice(out.lastIndexOf('· turn 1'));
      expect(afterReply).not.toContain('⋯');
      expect(afterReply).not.toContain('⏳');
      cli.write('/quit\r');
      expect(await cli.exit()).toBe(0);
    } finally {
      cli.kill();
    }
  });

  it('on a terminal, the streamed compaction summary is no longer live once the summary is printed', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url], { tty: true, keepStdinOpen: true });
    try {
      await cli.waitFor(`session ${session}`);
      cli.write('hello before compaction\r');
      await cli.waitFor('echo: hello before compaction');
      await expect
        .poll(async () => (await stack.messages(session)).find((m) => m.role === 'user')?.status, {
          timeout: 20_000,
        })
        .toBe('processed');
      const summary = Array.from({ length: 8 }, (_, i) => `summary-row-${i + 1}`).join('\n');
      stack.script(session, { kind: 'text', text: summary, chunkDelayMs: 60 });
      cli.write('/compact\r');
      await cli.waitFor('Kesoku (summary)');
      await new Promise((r) => setTimeout(r, 1500));
      const out = stripVTControlCharacters(cli.output());
      const printed = out.lastIndexOf('Kesoku (summary)');
      // The summary streamed live before it was committed (how far depends on the snapshots' pace)…
      expect(out.slice(0, printed)).toMatch(/summary-row-\d/);
      // …and once printed, its rows are not drawn again under it.
      const after = out.slice(out.indexOf('⏱', printed));
      expect(after).not.toContain('summary-row-');
      cli.write('/quit\r');
      expect(await cli.exit()).toBe(0);
    } finally {
      cli.kill();
    }
  });

  it('/jobs lists the background jobs and /kill <id> kills one; killing it again is refused plainly', async () => {
    const session = uniqueId('cli');
    stack.script(
      session,
      {
        kind: 'tool_calls',
        calls: [{ name: 'run_shell_command', arguments: { command: 'sleep 60', background: true } }],
      },
      { kind: 'text', text: 'started it' },
    );
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '20'], { keepStdinOpen: true });
    cli.write('start a job\n');
    await cli.waitFor('started it');
    const [job] = await listJobs(stack.pool, session);
    expect(job?.state).toBe('running');
    cli.write('/jobs\n');
    await cli.waitFor(`${job!.id}  running  sleep 60`);
    cli.write(`/kill ${job!.id}\n`);
    await cli.waitFor(`⏹ killed ${job!.id}  killed  sleep 60`);
    cli.write(`/kill ${job!.id}\n`);
    await cli.waitFor(`/kill: background job ${job!.id} is not running: it ended killed`);
    cli.write('/quit\n');
    const code = await cli.exit();
    const out = stripVTControlCharacters(cli.output());
    // A refused command makes the run end with 1, as for every command.
    expect(code, out).toBe(1);
    expect(out).not.toContain('not in the terminal yet');
    expect((await getJob(stack.pool, job!.id))?.state).toBe('killed');
  });

  it('/mode and /approval work before the first message: the session is created on cli with them', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '20'], {
      stdin: `/mode queue\n/approval\n/title ${'t'.repeat(TITLE_MAX_CHARS + 1)}\nhello early\n/quit\n`,
    });
    const code = await cli.exit();
    const out = stripVTControlCharacters(cli.output());
    expect(code, out).toBe(0);
    expect(out).toContain('mode: queue');
    // The grammar every channel shares: a title over the limit is a usage error, never sent.
    expect(out).toContain(`usage: /title <text> (1-${TITLE_MAX_CHARS} characters)`);
    // The terminal's own default (no KESOKU_TOOL_APPROVAL here), and no patterns yet.
    expect(out).toContain('approval: off (KESOKU_TOOL_APPROVAL or the channel’s default)');
    expect(out).toContain('approved without asking in this session (always): none');
    expect(out).toContain('Kesoku › echo: hello early');
    const row = await getSession(stack.pool, session);
    expect(row).toMatchObject({ chatbot_id: 'cli', mode: 'queue', turn_count: 1 });
  });

  it('piped input answers an approval with its next line; a line that is no answer leaves the call waiting at once', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '60'], {
      stdin: '/approval writes\nrun: echo piped-approved\ny\n/quit\n',
    });
    const code = await cli.exit();
    const out = stripVTControlCharacters(cli.output());
    expect(code, out).toBe(0);
    expect(out).toContain('approve: run');
    expect(out).toContain('✓ approved');
    expect(out).toContain('piped-approved');
    expect(out).not.toContain('no answer within');

    const started = Date.now();
    const other = runCli(['--session', session, '--url', api.url, '--timeout', '60'], {
      stdin: 'run: echo never-approved\n/quit\n',
    });
    const otherCode = await other.exit();
    const otherOut = stripVTControlCharacters(other.output());
    expect(otherCode, otherOut).toBe(1);
    expect(otherOut).toContain('a tool call waits for approval and the next input line is not y/n/a');
    expect(Date.now() - started).toBeLessThan(30_000); // not the 60 s turn timeout
  });

  it('on a terminal, lines typed before the client is connected are sent in order once it is', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', url], { tty: true, keepStdinOpen: true });
    let late: ApiServer | null = null;
    try {
      await cli.waitFor('Waiting for it');
      cli.write('typed early\r');
      await new Promise((r) => setTimeout(r, 300));
      late = await startApi(port);
      await cli.waitFor(`session ${session}`);
      cli.write('typed late\r');
      await expect
        .poll(async () => userTexts(await stack.messages(session)), { timeout: 20_000 })
        .toEqual(['typed early', 'typed late']);
      cli.write('/quit\r');
      expect(await cli.exit()).toBe(0);
    } finally {
      cli.kill();
      await late?.close();
    }
  });

  it('on a terminal, a line the API does not accept is not shown as sent', async () => {
    const port = await closedPort();
    const own = await startApi(port);
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', own.url], { tty: true, keepStdinOpen: true });
    try {
      await cli.waitFor(`session ${session}`);
      await own.close();
      cli.write('during restart\r');
      await cli.waitFor('your text is back in the prompt');
      const out = stripVTControlCharacters(cli.output());
      expect(out).toContain('not sent');
      expect(out).not.toContain('tester › during restart');
    } finally {
      cli.kill();
      await own.close();
    }
  });

  it("says plainly, at start and when a message is refused, that another principal's session cannot be used with this token", async () => {
    const port = await closedPort();
    const own = await startApi(port, [
      { name: 'alice', admin: false, token: 'alice-token' },
      { name: 'bob', admin: false, token: 'bob-token' },
    ]);
    try {
      const session = uniqueId('cli');
      const res = await fetch(`${own.url}/v1/sessions/${session}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer alice-token' },
        body: JSON.stringify({ content: 'alice was here', sender: 'alice' }),
      });
      expect(res.status).toBe(202);
      const cli = runCli(['--session', session, '--url', own.url, '--timeout', '20'], {
        stdin: 'hello from bob\n/quit\n',
        env: { KESOKU_API_TOKEN: 'bob-token' },
      });
      const code = await cli.exit();
      const out = stripVTControlCharacters(cli.output());
      expect(code, out).toBe(1);
      expect(out).not.toContain('new session');
      expect(out).toContain(`session ${session} was not found for this token: it belongs to someone else`);
      expect(out).toContain(
        `not sent — session ${session} belongs to someone else or cannot be used with this token; use another session: npm run chat -- --session cli-`,
      );
      expect(userTexts(await stack.messages(session))).toEqual(['alice was here']);

      // Without --session the id is made here: bob's new session is just new, with no warning.
      const fresh = runCli(['--url', own.url, '--timeout', '20'], {
        stdin: '/quit\n',
        env: { KESOKU_API_TOKEN: 'bob-token' },
      });
      const freshOut = stripVTControlCharacters(fresh.output());
      expect(await fresh.exit(), freshOut).toBe(0);
      const all = stripVTControlCharacters(fresh.output());
      expect(all).toContain('new session');
      expect(all).not.toContain('not found for this token');
    } finally {
      await own.close();
    }
  });

  it('says clearly that the API is not reachable and exits with code 2', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const cli = runCli(['--url', url], { stdin: 'hello\n' });
    const code = await cli.exit();
    expect(code).toBe(2);
    expect(cli.output()).toContain(
      `${RED}✖ Kesoku API at ${url} is not reachable — is \`npm start\` running?`,
    );
    expect(cli.output()).not.toContain('at Object.');
  });
});

/** A second API server over the same stack, on `port`, with `tokens` (none: loopback only). */
function startApi(port: number, tokens: ApiToken[] = []): Promise<ApiServer> {
  return startApiServer({
    pool: stack.pool,
    sessions: stack.sessions,
    databaseUrl: stack.databaseUrl,
    logger: createLogger('test-cli', process.env.KESOKU_TEST_LOG ?? 'silent'),
    host: '127.0.0.1',
    port,
    tokens,
  });
}

/** The texts of a session's user messages, in commit order. */
const userTexts = (ms: { role: string; type: string; content: unknown }[]) =>
  ms.filter((m) => m.role === 'user' && m.type === 'text').map((m) => m.content);

const esc = (s: string) => s.replace(/[[\]\\^$.*+?(){}|]/g, '\\$&');

/** A port nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

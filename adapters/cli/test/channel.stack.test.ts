// The terminal client as the `cli` channel (docs/message-model.md §5.3 CLI column): the real client in a child
// process (piped, or on a pseudo-terminal) against the real REST API, worker, Temporal dev server and Postgres.
// Its sessions are stored with chatbot `cli`; what it printed becomes `delivered`; a reply nobody printed stays
// `pending` until a client resumes the session and prints it; final replies are Markdown on a terminal.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../../api/server.ts';
import type { Message } from '../../../domain/message.ts';
import { createLogger } from '../../../infra/logger.ts';
import { startStack, uniqueId, type Stack } from '../../../test/support/stack.ts';
import { runCli } from './support.ts';

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

async function messagesOf(session: string): Promise<Message[]> {
  const res = await fetch(`${api.url}/v1/sessions/${session}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Message[] }).messages;
}

/** Polls the session's messages until `cond` holds. */
async function until(session: string, cond: (ms: Message[]) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ms = await messagesOf(session);
    if (cond(ms)) return ms;
    if (Date.now() > deadline) throw new Error(`not reached; messages:\n${JSON.stringify(ms, null, 1)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ofType = (ms: Message[], type: Message['type'], role: Message['role']) =>
  ms.filter((m) => m.type === type && m.role === role);
const statusOf = (ms: Message[]) => Object.fromEntries(ms.map((m) => [`${m.role}/${m.type}`, m.status]));

describe('npm run chat as the cli channel', () => {
  it('stores its session with chatbot cli and marks what it printed delivered: thought, tool call, tool output, reply', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '50'], {
      stdin: 'run: echo printed-here\n/quit\n',
    });
    expect(await cli.exit(60_000), cli.output()).toBe(0);
    expect(cli.output()).toContain('Done: printed-here');

    const info = (await (await fetch(`${api.url}/v1/sessions/${session}`)).json()) as Json;
    expect(info.chatbot_id).toBe('cli');
    const ms = await messagesOf(session);
    expect(new Set(ms.map((m) => m.chatbot_id))).toEqual(new Set(['cli']));
    expect(statusOf(ms)).toEqual({
      'user/text': 'processed',
      'assistant/thought': 'delivered',
      'tool/tool_call': 'delivered',
      'tool/tool_result': 'delivered',
      'assistant/text': 'delivered',
    });
  });

  it('leaves a reply it did not print undelivered; a client resuming the session prints it, then it is delivered', async () => {
    const session = uniqueId('cli');
    const first = runCli(['--session', session, '--url', api.url, '--timeout', '30'], {
      keepStdinOpen: true,
    });
    try {
      first.write('run: sleep 3 && echo late-reply\n');
      await first.waitFor('🔧 run_shell_command');
      // What it printed while it ran is delivered…
      await until(session, (ms) =>
        [...ofType(ms, 'thought', 'assistant'), ...ofType(ms, 'tool_call', 'tool')].every(
          (m) => m.status === 'delivered',
        ),
      );
      // …then it goes away before the tool ends.
      first.kill('SIGTERM');
      await first.exit();
    } finally {
      first.kill();
    }
    expect(first.output()).not.toContain('Done: late-reply');

    const ended = await until(session, (ms) => ms.find((m) => m.role === 'user')?.status === 'processed');
    const reply = ofType(ended, 'text', 'assistant')[0];
    expect(reply?.content).toBe('Done: late-reply');
    expect(reply?.status).toBe('pending');
    expect(ofType(ended, 'tool_result', 'tool')[0]?.status).toBe('responded');
    // The reply stays pending: nothing but a client marks it.
    await new Promise((r) => setTimeout(r, 500));
    expect(ofType(await messagesOf(session), 'text', 'assistant')[0]?.status).toBe('pending');

    // A client that shows only the last message prints the reply owed, and acknowledges just that.
    const second = runCli(['--session', session, '--url', api.url, '--history', '1'], { stdin: '/quit\n' });
    expect(await second.exit(), second.output()).toBe(0);
    expect(second.output()).toContain('Done: late-reply');
    const after = await messagesOf(session);
    expect(ofType(after, 'text', 'assistant')[0]?.status).toBe('delivered');
    // The tool output was neither printed then nor now (--history 1): it stays `responded`.
    expect(second.output()).not.toContain('✅ run_shell_command');
    expect(ofType(after, 'tool_result', 'tool')[0]?.status).toBe('responded');
  });

  it('renders the final reply as Markdown on a terminal (bold, code, list), and as written with --plain', async () => {
    const reply = 'Here is **bold-word**, `code-span` and a list:\n\n- item-one\n- item-two';
    stack.fake.setRespond((req) => {
      const last = req.body?.messages?.at(-1);
      return typeof last?.content === 'string' && last.content.includes('markdown please')
        ? { kind: 'text', text: reply }
        : undefined;
    });
    try {
      const session = uniqueId('cli');
      const tty = runCli(['--session', session, '--url', api.url], { tty: true, keepStdinOpen: true });
      try {
        await tty.waitFor(`session ${session}`);
        tty.write('markdown please\r');
        // The committed reply, with its metrics line (the streamed text shows in the live region before).
        await tty.waitFor('· turn 1');
        tty.write('/quit\r');
        await tty.exit();
      } finally {
        tty.kill();
      }
      const out = tty.output();
      expect(out).toContain('\u001b[1mbold-word\u001b[22m');
      expect(out).toContain('\u001b[33mcode-span\u001b[39m');
      expect(out).toMatch(/\* item-one\r?\n {2}\* item-two/);
      // The committed reply starts under the sender, without Markdown syntax (the live region showed the raw
      // streamed text before it).
      expect(stripVTControlCharacters(out)).toContain(
        'Kesoku ›\r\nHere is bold-word, code-span and a list:\r\n\r\n  * item-one',
      );
      await until(session, (ms) => ofType(ms, 'text', 'assistant')[0]?.status === 'delivered');

      const plain = runCli(['--session', session, '--url', api.url, '--plain'], {
        tty: true,
        keepStdinOpen: true,
      });
      try {
        await plain.waitFor('· turn 1');
        plain.write('/quit\r');
        await plain.exit();
      } finally {
        plain.kill();
      }
      expect(plain.output()).toContain('**bold-word**, `code-span`');
    } finally {
      stack.fake.setRespond(undefined);
    }
  });
});

type Json = Record<string, unknown>;

/**
 * Model servers that stream differently from the reference API (Ollama, vLLM, LM Studio, DeepSeek, Qwen, Kimi),
 * on the real stack: real Temporal dev server, real Postgres, the real AI SDK against the fake model server,
 * which streams exactly the chunks each case describes. Every case counts the model requests and the runs of
 * the shell command (each run appends one line to a file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSession } from '../../db/sessions.ts';
import { NUL_REPLACEMENT } from '../../domain/storable-text.ts';
import { partialReplyId } from '../../domain/partial-reply.ts';
import {
  contentText,
  requireReasoningContent,
  type FakeRequest,
  type WireMessage,
} from '../fakes/model-server.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

const ENDED = ['processed', 'error', 'interrupted'] as const;

/**
 * A shell command that appends one line to a fresh file per test, and a reader of its run count. The file is
 * relative: it lands in the session's workspace, the only place a sandboxed command may write.
 */
function countedCommand(extra = ''): { command: string; runs: () => number } {
  const name = `${uniqueId('runs')}.txt`;
  const workspaces = path.join(stack.dataDir, 'workspaces');
  const lines = (dir: string) => {
    const file = path.join(workspaces, dir, name);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  };
  return {
    command: `echo run >> ${name}${extra}`,
    runs: () =>
      fs.existsSync(workspaces) ? fs.readdirSync(workspaces).reduce((n, dir) => n + lines(dir), 0) : 0,
  };
}

const messagesOf = (r: FakeRequest | undefined): WireMessage[] => r?.body?.messages ?? [];

async function endOf(session: string, content: string) {
  const r = await stack.submit(session, content);
  const done = await stack.waitForStatus(r.message.id, [...ENDED], 40_000);
  return { id: r.message.id, done };
}

describe('1. a stream that ends without a finish reason', () => {
  for (const [label, finishReason] of [
    ['no choice ever carries a finish reason (tool call, then [DONE])', 'absent'],
    ['the last chunk has finish_reason null', null],
  ] as const) {
    it(`accepts a complete tool call when ${label}: one model request for it, one command run`, async () => {
      const session = uniqueId('s');
      const cmd = countedCommand();
      stack.script(
        session,
        {
          kind: 'tool_calls',
          calls: [{ name: 'run_shell_command', arguments: { command: cmd.command } }],
          finishReason,
        },
        { kind: 'text', text: 'The command ran.', finishReason },
      );
      const { done } = await endOf(session, 'run the command');
      expect(done.status).toBe('processed');
      expect(cmd.runs()).toBe(1);
      expect(stack.requestsOf(session)).toHaveLength(2);
      const reply = (await stack.messages(session)).find((m) => m.role === 'assistant' && m.type === 'text');
      expect(reply?.content).toBe('The command ran.');
    });
  }

  it('accepts a text answer whose stream carries no finish reason: one model request', async () => {
    const session = uniqueId('s');
    stack.script(session, {
      kind: 'text',
      text: 'Plain answer without a finish reason.',
      finishReason: 'absent',
    });
    const { done } = await endOf(session, 'hello');
    expect(done.status).toBe('processed');
    expect(stack.requestsOf(session)).toHaveLength(1);
    const reply = (await stack.messages(session)).find((m) => m.role === 'assistant' && m.type === 'text');
    expect(reply?.content).toBe('Plain answer without a finish reason.');
  });
});

describe('2. reasoning models that need their reasoning back', () => {
  it('stores reasoning_content as the thought and sends it back on the tool-call message of the current turn (DeepSeek)', async () => {
    const session = uniqueId('s');
    const cmd = countedCommand();
    const guard = requireReasoningContent('current-turn');
    stack.fake.setGuard((r) => (stack.requestsOf(session).includes(r) ? guard(r) : undefined));
    try {
      stack.script(
        session,
        {
          kind: 'tool_calls',
          reasoning: 'The user wants the command run; I will call the shell.',
          calls: [{ name: 'run_shell_command', arguments: { command: cmd.command } }],
        },
        { kind: 'text', text: 'Done, it ran.', reasoning: 'It worked.' },
      );
      const { id, done } = await endOf(session, 'run the command please');
      expect(done.status).toBe('processed');
      expect(cmd.runs()).toBe(1);
      const requests = stack.requestsOf(session);
      expect(requests).toHaveLength(2);
      const back = messagesOf(requests[1]).find((m) => m.role === 'assistant' && m.tool_calls?.length);
      expect(back?.reasoning_content).toBe('The user wants the command run; I will call the shell.');
      const thought = (await stack.messages(session)).find((m) => m.type === 'thought' && m.turn_id === id);
      expect(thought?.content).toContain('The user wants the command run');
      expect(thought?.metadata?.reasoning_content).toBe(
        'The user wants the command run; I will call the shell.',
      );

      // The next turn: history thoughts are stripped, and the server (which checks the current turn only) accepts it.
      const next = await endOf(session, 'hello');
      expect(next.done.status).toBe('processed');
      expect(stack.requestsOf(session)).toHaveLength(3);
    } finally {
      stack.fake.setGuard(undefined);
    }
  });

  it('a server that wants reasoning on every past tool call never bricks the session (Kimi): hello is answered', async () => {
    const session = uniqueId('s');
    const cmd = countedCommand();
    const guard = requireReasoningContent('all');
    stack.fake.setGuard((r) => (stack.requestsOf(session).includes(r) ? guard(r) : undefined));
    try {
      stack.script(
        session,
        {
          kind: 'tool_calls',
          reasoning: 'Run it.',
          calls: [{ name: 'run_shell_command', arguments: { command: cmd.command } }],
        },
        { kind: 'text', text: 'It ran.' },
      );
      expect((await endOf(session, 'run it')).done.status).toBe('processed');
      expect(cmd.runs()).toBe(1);
      const before = stack.requestsOf(session).length;
      stack.script(session, { kind: 'text', text: 'Hello again!' });
      const hello = await endOf(session, 'hello');
      expect(hello.done.status).toBe('processed');
      const reply = (await stack.messages(session))
        .filter((m) => m.role === 'assistant' && m.type === 'text')
        .at(-1);
      expect(reply?.content).toBe('Hello again!');
      // At most one refused request, then the past tool flow goes as plain text; the command never runs again.
      const hellos = stack.requestsOf(session).slice(before);
      expect(hellos.length).toBeLessThanOrEqual(2);
      expect(messagesOf(hellos.at(-1)).some((m) => m.tool_calls?.length)).toBe(false);
      expect(JSON.stringify(messagesOf(hellos.at(-1)))).toContain('Earlier tool call: run_shell_command');
      expect(cmd.runs()).toBe(1);
      const third = await endOf(session, 'and again');
      expect(third.done.status).toBe('processed');
    } finally {
      stack.fake.setGuard(undefined);
    }
  });
});

describe('2b. tool-call arguments that are not one JSON object', () => {
  for (const [label, args, problem] of [
    [
      'two objects glued together',
      '{"command":"echo a"}{"command":"echo b"}',
      /several JSON objects glued together/,
    ],
    ['a stray brace', '{"command":"echo a"}}', /stray "\}" after the JSON object/],
    ['a truncated object', '{"command":"echo a', /truncated/],
  ] as const) {
    it(`answers ${label} to the model as an error result; the turn goes on and nothing runs`, async () => {
      const session = uniqueId('s');
      stack.script(
        session,
        {
          kind: 'raw',
          choices: [
            {
              delta: {
                role: 'assistant',
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_bad',
                    type: 'function',
                    function: { name: 'run_shell_command', arguments: args },
                  },
                ],
              },
            },
            { delta: {}, finish_reason: 'tool_calls' },
          ],
        },
        { kind: 'text', text: 'I will send one object next time.' },
      );
      const { done } = await endOf(session, 'run it');
      expect(done.status).toBe('processed');
      // One request per step: the odd answer was not retried as a provider failure.
      const requests = stack.requestsOf(session);
      expect(requests).toHaveLength(2);
      const toolMessage = messagesOf(requests[1]).find((m) => m.role === 'tool');
      expect(contentText(toolMessage?.content ?? '')).toMatch(problem);
      expect(contentText(toolMessage?.content ?? '')).toMatch(/^Error: the call was not run/);
      const result = (await stack.messages(session)).find((m) => m.type === 'tool_result');
      expect(result?.metadata?.tool_ok).toBe(false);
      expect(
        await stack.pool.query(`SELECT 1 FROM tool_runs WHERE session_id = $1`, [session]),
      ).toMatchObject({
        rowCount: 0,
      });
    });
  }
});

describe('2c. servers that want reasoning_content on every tool-call message, empty allowed', () => {
  it('get the field on each assistant tool-call message, empty when the model gave no reasoning', async () => {
    const session = uniqueId('s');
    const cmd = countedCommand();
    const guard = requireReasoningContent('all', { allowEmpty: true });
    stack.fake.setGuard((r) => (stack.requestsOf(session).includes(r) ? guard(r) : undefined));
    try {
      stack.script(
        session,
        { kind: 'tool_calls', calls: [{ name: 'run_shell_command', arguments: { command: cmd.command } }] },
        { kind: 'text', text: 'It ran.' },
        { kind: 'text', text: 'Hello again!' },
      );
      expect((await endOf(session, 'run it')).done.status).toBe('processed');
      expect((await endOf(session, 'hello')).done.status).toBe('processed');
      const requests = stack.requestsOf(session);
      // No request was refused: each step and each turn took one request.
      expect(requests).toHaveLength(3);
      const calls = requests.flatMap((r) =>
        messagesOf(r).filter((m) => m.role === 'assistant' && m.tool_calls?.length),
      );
      expect(calls.length).toBeGreaterThan(0);
      for (const m of calls) expect(m.reasoning_content).toBe('');
      expect(cmd.runs()).toBe(1);
    } finally {
      stack.fake.setGuard(undefined);
    }
  });
});

describe('3. inline <think> reasoning', () => {
  it('becomes a thought, never part of the reply or the title, also when the tag is split across chunks', async () => {
    const session = uniqueId('s');
    const question = `plan a trip ${session}`;
    stack.scriptWhen(
      (r) => !r.body?.tools?.length && JSON.stringify(r.body?.messages ?? []).includes(question),
      { kind: 'text', text: '', chunks: ['<th', 'ink>choosing a title</thi', 'nk>\n', 'Trip planning'] },
    );
    stack.script(session, {
      kind: 'text',
      text: '',
      chunks: ['<thi', 'nk>private plan</th', 'ink>\n\nHere is', ' the answer.'],
    });
    const { id, done } = await endOf(session, question);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    const reply = msgs.find((m) => m.role === 'assistant' && m.type === 'text');
    expect(reply?.content).toBe('Here is the answer.');
    expect(msgs.find((m) => m.type === 'thought' && m.turn_id === id)?.content).toBe('private plan');
    await expect
      .poll(async () => (await getSession(stack.pool, session))?.title, { timeout: 15_000 })
      .toBe('Trip planning');
    expect(stack.requestsOf(session)).toHaveLength(1);
  });

  it('a <think> that is never closed is a thought, not a reply: the model is nudged and its next answer is the reply', async () => {
    const session = uniqueId('s');
    stack.script(
      session,
      {
        kind: 'text',
        text: '',
        chunks: ['<think>I am still thinking about', ' this and never close the tag'],
      },
      { kind: 'text', text: 'The real answer.' },
    );
    const { id, done } = await endOf(session, 'think hard');
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    const replies = msgs.filter((m) => m.role === 'assistant' && m.type === 'text');
    expect(replies.map((m) => m.content)).toEqual(['The real answer.']);
    expect(msgs.find((m) => m.type === 'thought' && m.turn_id === id)?.content).toBe(
      'I am still thinking about this and never close the tag',
    );
    expect(stack.requestsOf(session)).toHaveLength(2);
    const title = (await getSession(stack.pool, session))?.title ?? '';
    expect(title).not.toContain('<think>');
  });
});

describe('4. NUL bytes', () => {
  it("a tool output with a NUL byte (printf 'a\\000b') is stored marked; the command runs once and the turn ends normally", async () => {
    const session = uniqueId('s');
    const cmd = countedCommand(` && printf 'a\\000b'`);
    stack.script(
      session,
      { kind: 'tool_calls', calls: [{ name: 'run_shell_command', arguments: { command: cmd.command } }] },
      { kind: 'text', text: 'Printed.' },
    );
    const { done } = await endOf(session, 'print a NUL');
    expect(done.status).toBe('processed');
    expect(cmd.runs()).toBe(1);
    expect(stack.requestsOf(session)).toHaveLength(2);
    const result = (await stack.messages(session)).find((m) => m.type === 'tool_result');
    expect(result?.content).toContain(`a${NUL_REPLACEMENT}b`);
    expect(result?.metadata?.text_replaced).toBe(true);
  });

  it('a NUL inside the model text is stored marked after one model call', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'text', text: 'before\u0000after and a lone \ud800 surrogate' });
    const { done } = await endOf(session, 'say something odd');
    expect(done.status).toBe('processed');
    expect(stack.requestsOf(session)).toHaveLength(1);
    const reply = (await stack.messages(session)).find((m) => m.role === 'assistant' && m.type === 'text');
    expect(reply?.content).toBe(`before${NUL_REPLACEMENT}after and a lone \uFFFD surrogate`);
    expect(reply?.metadata?.text_replaced).toBe(true);
  });
});

describe('5. /stop mid-answer', () => {
  it('keeps the streamed part as an interrupted partial reply, and the model sees it next turn so "go on" works', async () => {
    const session = uniqueId('s');
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    stack.script(session, { kind: 'slow_text', text: words, chunkDelayMs: 40 });
    const r = await stack.submit(session, 'tell me a long story');
    await stack.waitForStatus(r.message.id, ['processing']);
    await expect.poll(() => stack.requestsOf(session).length, { timeout: 10_000 }).toBe(1);
    await new Promise((res) => setTimeout(res, 1500));
    expect(await stack.sessions.stop(session)).toEqual({ stopped: true });
    const ended = await stack.waitForStatus(r.message.id, [...ENDED]);
    expect(ended.status).toBe('interrupted');

    const partial = (await stack.messages(session)).find((m) => m.id === partialReplyId(r.message.id, 0));
    expect(partial).toMatchObject({
      role: 'assistant',
      type: 'text',
      turn_id: r.message.id,
      metadata: { partial: true },
    });
    expect(['pending', 'delivered']).toContain(partial?.status);
    expect(partial?.content.startsWith('word0 word1 word2')).toBe(true);
    expect(partial?.content).toContain('interrupted');
    const streamedWords = (partial?.content.match(/word\d+/g) ?? []).length;
    expect(streamedWords).toBeGreaterThan(5);
    expect(streamedWords).toBeLessThan(200);

    stack.script(session, { kind: 'text', text: 'Continuing the story.' });
    const next = await endOf(session, 'go on');
    expect(next.done.status).toBe('processed');
    const requests = stack.requestsOf(session);
    expect(requests).toHaveLength(2);
    const seen = messagesOf(requests[1])
      .filter((m) => m.role === 'assistant')
      .map((m) => contentText(m.content ?? null));
    expect(seen.some((c) => c.includes('word0 word1 word2') && c.includes('interrupted'))).toBe(true);
  });
});

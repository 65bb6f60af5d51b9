// What the terminal client prints for each kind of message (docs/message-model.md §4.3, §5.3 CLI column), as ANSI text.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { TRACE_6_1 } from '../../domain/fixtures/trace-6-1.ts';
import { ApiError, describeError } from './api-client.ts';
import { keepOnlyStyling, renderMarkdown } from './markdown.ts';
import {
  clean,
  createStyle,
  describeApproval,
  metricsLine,
  renderHelp,
  renderLive,
  renderMessage,
  visibleWidth,
  type RenderOptions,
} from './render.ts';

const CYAN = '\u001b[36m';
const YELLOW = '\u001b[33m';
const MAGENTA = '\u001b[35m';
const RED = '\u001b[31m';
const DIM = '\u001b[2m';

const opts: RenderOptions = { style: createStyle(1), columns: 80 };
const plainOpts: RenderOptions = { style: createStyle(0), columns: 80 };

const byId = (id: string): Message => {
  const m = TRACE_6_1.find((x) => x.id === id);
  if (!m) throw new Error(`no ${id} in the trace`);
  return m;
};

/** A message of the docs/message-model.md §6.1 session with the given fields. */
function msg(fields: Partial<Message> & Pick<Message, 'role' | 'type' | 'sender' | 'content'>): Message {
  return {
    ...byId('msg_reply_001'),
    id: `m-${Math.random().toString(36).slice(2)}`,
    status: 'pending',
    metadata: null,
    ...fields,
  };
}

const render = (m: Message, o: RenderOptions = opts): string => {
  const out = renderMessage(m, o);
  if (out === null) throw new Error(`${m.id} rendered as hidden`);
  return out;
};

describe('renderMessage', () => {
  it('puts a thought in a cyan panel', () => {
    const out = render(byId('msg_thought_001'));
    const lines = out.split('\n');
    expect(lines[0]?.startsWith(`${CYAN}╭`)).toBe(true);
    expect(lines[0]).toContain('💭 thought');
    expect(lines.at(-1)?.startsWith(`${CYAN}╰`)).toBe(true);
    for (const line of lines.slice(1, -1)) expect(line.startsWith(`${CYAN}│`)).toBe(true);
    expect(stripVTControlCharacters(out)).toContain('我需要使用 uv pytest');
  });

  it('puts a tool call in a yellow panel with the tool name as title and the command as body', () => {
    const out = render(byId('msg_call_001'));
    expect(out.startsWith(`${YELLOW}╭`)).toBe(true);
    const plain = stripVTControlCharacters(out);
    expect(plain.split('\n')[0]).toContain('🔧 run_shell_command');
    expect(plain).toContain('$ uv run pytest tests/test_history.py');
  });

  it('shows the other arguments of a tool call as key: value lines', () => {
    const out = render(
      msg({
        role: 'tool',
        type: 'tool_call',
        sender: 'Kesoku',
        status: 'responded',
        content: 'Calling tool `write_file` …',
        metadata: { tool_name: 'write_file', tool_arguments: { path: 'a.txt', mode: 420, lines: ['x'] } },
      }),
      plainOpts,
    );
    expect(out).toContain('🔧 write_file');
    expect(out).toContain('path: a.txt');
    expect(out).toContain('mode: 420');
    expect(out).not.toContain('$ ');
  });

  it('puts tool output in a magenta panel: mark and tool name, the summary, then the output without empty sections', () => {
    const out = render(byId('msg_result_001'));
    expect(out.startsWith(`${MAGENTA}╭`)).toBe(true);
    const plain = stripVTControlCharacters(out);
    expect(plain.split('\n')[0]).toContain('✅ run_shell_command');
    expect(plain.split('\n')[1]).toContain('5 passed in 0.42s');
    expect(plain).toContain('collected 5 items');
    expect(plain).not.toContain('=== STDOUT ===');
    expect(plain).not.toContain('=== STDERR ===');
  });

  it('bounds the output slice of a tool result and says how much it left out', () => {
    const stdout = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const out = stripVTControlCharacters(
      render(
        msg({
          role: 'tool',
          type: 'tool_result',
          sender: 'run_shell_command',
          status: 'responded',
          content: `=== STDOUT ===\n${stdout}\n=== STDERR ===\noops\n`,
          metadata: { tool_name: 'run_shell_command', tool_result: 'exit 1 in 0.1s: oops' },
        }),
        { ...opts, outputLines: 5 },
      ),
    );
    expect(out.split('\n')[0]).toContain('❌ run_shell_command');
    expect(out).toContain('line 4');
    expect(out).not.toContain('line 5');
    expect(out).toContain('… 97 more lines not shown');
  });

  it('prints the final reply with a dim metrics line', () => {
    const out = render(byId('msg_reply_001'));
    const [head, metrics] = out.split('\n');
    expect(stripVTControlCharacters(head ?? '')).toBe(
      'Kesoku › 我已经成功运行了 history 模块的单元测试，全部 5 个测试用例均已顺利通过（耗时 0.42 秒）。',
    );
    expect(metrics).toBe(`${DIM}⏱ 2.1s · 🔧 1 tool · 1042 tokens · turn 3\u001b[22m`);
  });

  it('says "tools" for more than one tool call', () => {
    expect(
      metricsLine({
        session_turns: 7,
        context_tokens: 1,
        turn_tool_calls: 2,
        turn_tokens: 99,
        turn_time: 42.4,
      }),
    ).toBe('⏱ 42s · 🔧 2 tools · 99 tokens · turn 7');
  });

  it('prints user messages with their sender, whoever sent them', () => {
    const out = render(
      msg({ role: 'user', type: 'text', sender: 'curl-user', status: 'pending_agent', content: 'hi' }),
    );
    expect(stripVTControlCharacters(out)).toBe('curl-user › hi');
  });

  it('prints a sender on one line, so a line break in it cannot fake a line of the agent', () => {
    const out = render(
      msg({
        role: 'user',
        type: 'text',
        sender: 'x ›\nKesoku',
        status: 'pending_agent',
        content: 'all good',
      }),
    );
    expect(stripVTControlCharacters(out)).toBe('x › Kesoku › all good');
  });

  it('prints notifications dim and crash notices in red', () => {
    const note = render(
      msg({ role: 'assistant', type: 'text', sender: 'Notification', content: '🔄 聊天历史已自动压缩。' }),
    );
    expect(note).toBe(`${DIM}· 🔄 聊天历史已自动压缩。\u001b[22m`);
    const crash = render(
      msg({
        role: 'assistant',
        type: 'text',
        sender: 'Kesoku',
        content: '⚠️ 处理您的请求时发生异常: provider',
        metadata: { failure_kind: 'provider' },
      }),
    );
    expect(crash.startsWith(RED)).toBe(true);
    expect(stripVTControlCharacters(crash)).toBe('⚠️ 处理您的请求时发生异常: provider');
  });

  it('shows nothing for what the spec keeps from people: system prompt, background alert, empty-reply nudge', () => {
    const hidden = [
      msg({
        role: 'system',
        type: 'text',
        sender: 'System',
        chatbot_id: 'system',
        status: 'responded',
        content: '# System',
      }),
      msg({
        role: 'system',
        type: 'text',
        sender: 'System',
        status: 'pending_agent',
        content: '[System Alert] Background Job j1 finished.',
      }),
      msg({
        role: 'system',
        type: 'text',
        sender: 'System',
        status: 'responded',
        content: 'Your previous response had empty content',
      }),
    ];
    for (const m of hidden) expect(renderMessage(m, opts)).toBeNull();
  });

  it('strips terminal control sequences from message text', () => {
    const out = render(
      msg({
        role: 'assistant',
        type: 'text',
        sender: 'Kesoku',
        content: 'a\u001b[2J\u001b[31mb\rc\u0007d\ne',
      }),
      plainOpts,
    );
    expect(out).toBe('Kesoku › abcd\ne');
    expect(clean('x\r\ny\tz')).toBe('x\ny\tz');
  });

  it('renders without any escape code at colour level 0', () => {
    for (const m of TRACE_6_1)
      expect(render(m, plainOpts)).toBe(stripVTControlCharacters(render(m, plainOpts)));
  });

  it('keeps panels within the terminal width', () => {
    const long = msg({
      role: 'assistant',
      type: 'thought',
      sender: 'Kesoku',
      status: 'responded',
      content: 'x'.repeat(500),
    });
    for (const line of render(long, { ...plainOpts, columns: 40 }).split('\n'))
      expect(visibleWidth(line)).toBeLessThanOrEqual(40);
  });
});

/* eslint-disable no-control-regex -- matching control characters is the point */
describe('final replies as Markdown (a terminal without --plain)', () => {
  const md: RenderOptions = { ...opts, markdown: true };
  const BOLD = '\u001b[1m';
  const reply = (content: string) =>
    msg({ role: 'assistant', type: 'text', sender: 'Kesoku', content, status: 'pending' });

  it('renders bold, italics, code spans, code blocks and lists with ANSI styles, starting under the sender', () => {
    const out = render(
      reply('Here is **bold**, *soft* and `npm test`:\n\n- one\n- two\n\n```sh\nls -la\n```'),
      md,
    );
    const lines = out.split('\n');
    expect(stripVTControlCharacters(lines[0] ?? '')).toBe('Kesoku ›');
    expect(out).toContain(`${BOLD}bold\u001b[22m`);
    expect(out).toContain('\u001b[3msoft\u001b[23m');
    expect(out).toContain(`${YELLOW}npm test\u001b[39m`);
    expect(out).toContain(`  ${YELLOW}ls -la\u001b[39m`);
    const plain = stripVTControlCharacters(out);
    expect(plain).toMatch(/\n {2}\* one\n {2}\* two\n/);
    expect(plain).not.toContain('**');
    expect(plain).not.toContain('```');
  });

  it('keeps a one-line reply on the sender line, and the metrics line under it', () => {
    const m = { ...byId('msg_reply_001'), content: 'All **5** passed.' };
    const [head, metrics] = render(m, md).split('\n');
    expect(stripVTControlCharacters(head ?? '')).toBe('Kesoku › All 5 passed.');
    expect(metrics).toMatch(/^\u001b\[2m⏱/);
  });

  it('prints the reply as written with --plain (markdown off)', () => {
    expect(stripVTControlCharacters(render(reply('**x** and `y`'), opts))).toBe('Kesoku › **x** and `y`');
  });

  it('writes links as text (url), never as an OSC 8 hyperlink', () => {
    const out = render(reply('see [the docs](https://example.com/a) and <https://example.com/b>'), md);
    expect(out).not.toContain('\u001b]');
    expect(stripVTControlCharacters(out)).toBe(
      'Kesoku › see the docs (https://example.com/a) and https://example.com/b',
    );
  });

  it('lets no escape sequence but SGR styling through, whatever the text says', () => {
    const hostile = [
      'x\u001b]52;c;Y3VybA==\u0007y',
      '**a\u001b[2Jb**',
      '`\u009b2J` and \u009d0;title\u009c',
      '```\n\u001bP+q\u001b\\\n```',
      '[l](javascript:alert\u001b[1A)',
      '&#27;[31m &#x1b;]0;t&#7; <span>\u001b[5n</span>',
      '| a | b |\n|---|---|\n| \u001b[6n | \u0007 |',
    ];
    for (const text of hostile) {
      const out = render(reply(text), md);
      const sequences =
        out.match(
          /\u001b\[[0-?]*[ -/]*[@-~]|\u001b.?|[\u0000-\u0008\u000B-\u001A\u001C-\u001F\u007F-\u009F]/gs,
        ) ?? [];
      const foreign = sequences.filter((seq) => !/^\u001b\[[0-9;]*m$/.test(seq));
      expect(foreign, JSON.stringify(out)).toEqual([]);
    }
  });

  it('keepOnlyStyling keeps SGR and drops every other sequence a renderer could emit', () => {
    const sgr = '\u001b[1mb\u001b[22m';
    expect(keepOnlyStyling(`${sgr}\u001b]8;;https://x\u0007l\u001b]8;;\u0007\u001b[2J\u001b[1;1H\r\n`)).toBe(
      `${sgr}l\n`,
    );
    expect(renderMarkdown('plain', createStyle(0), 80)).toBe('plain');
  });
});

/* eslint-enable no-control-regex */

describe('renderLive', () => {
  it('shows the tail of the streamed text and the running tools, each line narrower than the terminal', () => {
    const lines = renderLive(
      {
        turnId: 't',
        step: 0,
        status: 'running_tools',
        text: 'one\ntwo\nthree\nfour\nfive ' + 'y'.repeat(200),
        tools: [{ call_id: 'c1', name: 'run_shell_command', status: 'running' }],
      },
      { ...opts, columns: 60 },
    );
    const plain = lines.map((l) => stripVTControlCharacters(l));
    expect(plain).toHaveLength(5);
    expect(plain.at(-1)).toBe('⏳ run_shell_command');
    expect(plain.join('\n')).not.toContain('one');
    for (const l of lines) expect(visibleWidth(l)).toBeLessThan(60);
  });

  it("shows a running tool's elapsed time and the last lines of its output under it", () => {
    const lines = renderLive(
      {
        turnId: 't',
        step: 0,
        status: 'running_tools',
        text: '',
        tools: [
          {
            call_id: 'c1',
            name: 'run_shell_command',
            status: 'running',
            started_at: '2026-12-02T10:00:00.000Z',
            output_tail: 'one\ntwo\nthree\n\u001b[2Jfour',
          },
        ],
      },
      plainOpts,
      4,
      Date.parse('2026-12-02T10:00:12.400Z'),
    );
    expect(lines.map((l) => stripVTControlCharacters(l))).toEqual([
      '⏳ run_shell_command · 12 s',
      '   │ two',
      '   │ three',
      '   │ four',
    ]);
  });

  it('says it is thinking before any text arrived', () => {
    const lines = renderLive({ turnId: 't', step: 0, status: 'started', text: '', tools: [] }, plainOpts);
    expect(lines).toEqual(['  ⋯ thinking']);
  });
});

describe('describeError', () => {
  it('names the API that is not reachable and how to start it', () => {
    const err = new ApiError('unreachable', 'ECONNREFUSED', { baseUrl: 'http://127.0.0.1:3000' });
    expect(describeError(err)).toBe(
      'Kesoku API at http://127.0.0.1:3000 is not reachable — is `npm start` running?',
    );
  });

  it('turns a problem into one line: title (status): detail', () => {
    const err = new ApiError('problem', 'x', {
      baseUrl: 'http://x',
      status: 429,
      problem: {
        type: 'urn:kesoku:problem:queue-full',
        title: 'Queue full',
        status: 429,
        detail: 'the session queue is full; try again later',
      },
    });
    expect(describeError(err)).toBe('queue full (429): the session queue is full; try again later');
  });
});

describe('the /approval answer', () => {
  const session = {
    id: 's',
    title: null,
    title_source: 'default' as const,
    status: 'idle' as const,
    queue_length: 0,
    revision: 3,
    mode: 'interrupt' as const,
  };

  it('names the policy in force, where it comes from, and the session’s and the configured patterns apart', () => {
    expect(
      describeApproval({
        ...session,
        approval: null,
        approval_in_force: 'writes',
        approve_patterns: { session: ['ls *', 'git status *'], configured: ['uname *'] },
      }),
    ).toBe(
      [
        'approval: writes (KESOKU_TOOL_APPROVAL or the channel’s default)',
        '  approved without asking in this session (always): ls *, git status *',
        '  approved without asking everywhere (KESOKU_TOOL_AUTO_APPROVE): uname *',
      ].join('\n'),
    );
    expect(
      describeApproval({
        ...session,
        approval: 'all',
        approval_in_force: 'all',
        approve_patterns: { session: [], configured: [] },
      }).split('\n'),
    ).toEqual([
      'approval: all (set for this session)',
      '  approved without asking in this session (always): none',
      '  approved without asking everywhere (KESOKU_TOOL_AUTO_APPROVE): none',
    ]);
  });

  it('is listed by /help', () => {
    expect(stripVTControlCharacters(renderHelp(plainOpts))).toContain('/approval [off|writes|all]');
  });
});

/**
 * What the terminal client prints, as strings with ANSI colour codes. Pure: no I/O, no reading of the terminal;
 * the colour level and width come in through {@link RenderOptions}, so the same input always gives the same
 * text (unit-testable without a terminal).
 *
 * docs/message-model.md §4.3 / §5.3 (the CLI column): the CLI shows every kind a person may see — thoughts in a cyan panel, tool
 * calls in a yellow panel, tool output in a magenta panel, the final reply with its metrics, notifications, crash
 * notices — and nothing the spec marks invisible (system prompt, background alerts, empty-reply nudges).
 */
import { stripVTControlCharacters } from 'node:util';
import boxen from 'boxen';
import chalk, { Chalk, type ChalkInstance } from 'chalk';
import type { Message, TurnMetrics } from '../../domain/message.ts';
import { messageKind } from '../../domain/message-kind.ts';
import { presentationFor } from '../../domain/presentation.ts';
import { metricsSummary, toolResultState } from '../../domain/presentation.ts';
import { toolLabel } from '../../domain/tool-label.ts';
import type { SessionInfo, ToolProgress } from './api-client.ts';
import type { LivePlan, LiveView } from './live.ts';
import { PLAN_MARK, planProgress } from '../../domain/plan-view.ts';
import { renderMarkdown } from './markdown.ts';
import { formatElapsed } from '../../infra/progress.ts';

/** How to render. */
export interface RenderOptions {
  /** Colours; see {@link createStyle}. */
  style: ChalkInstance;
  /** Terminal width in columns: no panel is wider. */
  columns: number;
  /** Lines of tool output a result panel shows (default 12). */
  outputLines?: number;
  /** Characters of tool output a result panel shows (default 1500). */
  outputChars?: number;
  /**
   * Render final replies as Markdown (adapters/cli/markdown.ts); off = the reply as written. The client turns it on
   * when stdout is a terminal and `--plain` is not given.
   */
  markdown?: boolean;
}

/**
 * A chalk instance at `level` (0 none, 1 basic 16 colours, 2 256, 3 truecolor); by default chalk's own detection,
 * which follows FORCE_COLOR (so `FORCE_COLOR=1` colours piped output) and whether stdout is a terminal.
 */
export function createStyle(level?: 0 | 1 | 2 | 3): ChalkInstance {
  return new Chalk({ level: level ?? chalk.level });
}

type Paint = (s: string) => string;

const DEFAULT_OUTPUT_LINES = 12;
const DEFAULT_OUTPUT_CHARS = 1500;
const MAX_PANEL_WIDTH = 100;
const MAX_ARGUMENT_LINES = 20;

/**
 * A message as the terminal shows it, or null for kinds the CLI never shows (docs/message-model.md §5.3: system prompt,
 * background alert, empty-reply nudge).
 */
export function renderMessage(message: Message, opts: RenderOptions): string | null {
  if (presentationFor('cli', message) === 'hidden') return null;
  const m = { ...message, sender: cleanName(message.sender), content: clean(message.content) };
  const s = opts.style;
  switch (messageKind(m)) {
    case 'user_question':
      return renderUserLine(m.sender, m.content, opts);
    case 'cron_prompt':
      return `${s.bold.blue(`⏰ ${m.sender}`)} ${s.dim('›')} ${m.content}`;
    case 'manual_compaction_prompt':
      return s.dim(`⟳ compaction requested (${m.sender})`);
    case 'thought':
      return renderThought(m, opts);
    case 'tool_call':
      return renderToolCall(m, opts);
    case 'tool_result':
      return renderToolResult(m, opts);
    case 'final_reply':
      return renderReply(m, opts);
    case 'notification':
      return s.dim(`· ${m.content}`);
    case 'crash_notice':
      return s.red(m.content);
    default:
      return null;
  }
}

/** A person's message: "<sender> › <text>" (also the echo of a line typed here, before it is committed). */
export function renderUserLine(sender: string, content: string, opts: RenderOptions): string {
  const s = opts.style;
  return `${s.bold.blue(cleanName(sender))} ${s.dim('›')} ${clean(content)}`;
}

/** docs/message-model.md §4.3: a thought in a cyan panel. */
function renderThought(m: Message, opts: RenderOptions): string {
  return panel(m.content.trim() || '(empty)', '💭 thought', opts.style.cyan, opts);
}

/** docs/message-model.md §4.3: a tool call in a yellow panel — the tool's name as title, its arguments as the body. */
function renderToolCall(m: Message, opts: RenderOptions): string {
  const name = clean(toolLabel(m.metadata?.tool_name ?? 'tool'));
  const args = m.metadata?.tool_arguments;
  const body = args ? formatArguments(args, opts) : m.content;
  return panel(body, `🔧 ${name}`, opts.style.yellow, opts);
}

/**
 * docs/message-model.md §4.3: tool output in a magenta panel — ✅/❌/⏹️ and the tool's name as title, the summary
 * (`metadata.tool_result`) first, then a bounded slice of the output unless it says no more than the summary.
 */
function renderToolResult(m: Message, opts: RenderOptions): string {
  const s = opts.style;
  const name = cleanName(toolLabel(m.metadata?.tool_name ?? m.sender));
  const mark = { ok: '✅', failed: '❌', interrupted: '⏹️' }[toolResultState(m)];
  const summary = clean(m.metadata?.tool_result ?? '').trim();
  const output = outputSlice(m.content, opts);
  const lines: string[] = [];
  if (summary !== '') lines.push(s.bold(summary));
  if (output.text !== '' && output.text !== summary) {
    if (lines.length > 0) lines.push('');
    lines.push(output.text);
  } else if (output.text === '' && summary === '') {
    lines.push(s.dim('(no output)'));
  }
  if (output.omitted) lines.push(s.dim(output.omitted));
  return panel(lines.join('\n'), `${mark} ${name}`, s.magenta, opts);
}

/**
 * The final reply: `Kesoku › text`, then the dim metrics line when the reply carries metrics. With
 * `opts.markdown` the (already cleaned) text is rendered as Markdown; a rendering of more than one line starts
 * on the line under the sender.
 */
function renderReply(m: Message, opts: RenderOptions): string {
  const s = opts.style;
  // A compaction summary (clean-history.ts) is the compaction turn's reply: say what it is.
  const who = m.metadata?.compacted_through_seq === undefined ? m.sender : `${m.sender} (summary)`;
  const body = opts.markdown ? renderMarkdown(m.content, s, opts.columns) : m.content;
  const head = `${s.bold.green(who)} ${s.dim('›')}${body.includes('\n') && opts.markdown ? '\n' : ' '}${body}`;
  const metrics = m.metadata?.turn_metrics;
  return metrics ? `${head}\n${s.dim(metricsLine(metrics))}` : head;
}

/** "⏱ 2.1s · 🔧 1 tool · 1042 tokens · turn 3" (docs/message-model.md §3 `turn_metrics`; `turn_time` in seconds). */
export function metricsLine(m: TurnMetrics): string {
  return `${metricsSummary(m)} · turn ${m.session_turns}`;
}

/** A status line of the client itself (connection, command results): dim, yellow for warnings, red for errors. */
export function renderNotice(text: string, level: 'info' | 'warn' | 'error', opts: RenderOptions): string {
  const s = opts.style;
  return level === 'error' ? s.red(`✖ ${text}`) : level === 'warn' ? s.yellow(`⚠ ${text}`) : s.dim(text);
}

/** A dim rule with a label: "── history ──". */
export function renderRule(label: string, opts: RenderOptions): string {
  return opts.style.dim(`── ${label} ──`);
}

/** One tool's live progress: "⏳ run_shell_command", "✅ run_shell_command — 5 passed in 0.42s". */
export function renderToolProgress(t: ToolProgress, opts: RenderOptions, nowMs?: number): string {
  const s = opts.style;
  if (t.status === 'running') {
    const started = t.started_at === undefined ? NaN : Date.parse(t.started_at);
    const elapsed =
      nowMs !== undefined && Number.isFinite(started)
        ? ` · ${formatElapsed(Math.max(0, nowMs - started))}`
        : '';
    return s.yellow(`⏳ ${clean(toolLabel(t.name))}${elapsed}`);
  }
  const line = clean(
    `${t.status === 'ok' ? '✅' : '❌'} ${toolLabel(t.name)}${t.summary ? ` — ${t.summary}` : ''}`,
  );
  return t.status === 'ok' ? s.magenta(line) : s.red(line);
}

/**
 * The active plan as the terminal shows it live: "📋 Plan 1/3 done" and one line per step with its mark
 * (domain/plan-view.ts), cyan. Titles are cleaned of control sequences.
 */
export function renderPlan(plan: LivePlan, opts: RenderOptions): string[] {
  const s = opts.style;
  return [
    s.cyan(`📋 Plan ${planProgress(plan.steps)}`),
    ...plan.steps.map((p) => s.cyan(`   ${PLAN_MARK[p.status]} ${clean(p.title)}`)),
  ];
}

/** Rows of a running command's output the live region shows. */
const TAIL_ROWS = 3;

/**
 * The live region under the transcript while a turn runs: the last `maxTextRows` rows of the text streamed in
 * this step (dim) and the tools still running, each with its elapsed time at `nowMs` (epoch ms) and the last
 * lines of its command's output. Every line is cut to fit in `columns - 1`, so the region takes exactly as many
 * terminal rows as it has lines.
 */
export function renderLive(
  view: LiveView,
  opts: RenderOptions,
  maxTextRows = 4,
  nowMs: number = Date.now(),
): string[] {
  const s = opts.style;
  const width = Math.max(10, opts.columns - 1);
  const lines: string[] = view.plan ? renderPlan(view.plan, opts).map((l) => fitToWidth(l, width)) : [];
  const text = clean(view.text).replace(/\s+$/, '');
  if (text !== '') {
    const rows = text.split('\n').flatMap((l) => wrapToWidth(`  ${l}`, width));
    lines.push(...rows.slice(-maxTextRows).map((r) => s.dim(r)));
  }
  for (const t of view.tools) {
    lines.push(fitToWidth(renderToolProgress(t, opts, nowMs), width));
    // A running command's last output lines (the newest at the bottom), dim, under its line.
    if (t.status === 'running' && t.output_tail)
      for (const l of clean(t.output_tail).split('\n').slice(-TAIL_ROWS))
        lines.push(fitToWidth(s.dim(`   │ ${l}`), width));
  }
  if (lines.length === (view.plan ? view.plan.steps.length + 1 : 0))
    lines.push(s.dim(view.status === 'running_tools' ? '  ⋯ running tools' : '  ⋯ thinking'));
  return lines;
}

/**
 * The `/approval` answer (no argument): the tool-approval policy in force, whether it is the session's own, and
 * the patterns that approve calls without asking — the session's (`always`) and the configured ones
 * (KESOKU_TOOL_AUTO_APPROVE). Pattern text is cleaned of control sequences. One line per part.
 */
export function describeApproval(info: SessionInfo): string {
  const policy = info.approval_in_force ?? info.approval ?? 'unknown (an older server)';
  const source = info.approval ? 'set for this session' : 'KESOKU_TOOL_APPROVAL or the channel’s default';
  const lines = [`approval: ${policy} (${source})`];
  const list = (p: string[]) => (p.length === 0 ? 'none' : p.map((x) => clean(x)).join(', '));
  if (info.approve_patterns) {
    lines.push(`  approved without asking in this session (always): ${list(info.approve_patterns.session)}`);
    lines.push(
      `  approved without asking everywhere (KESOKU_TOOL_AUTO_APPROVE): ${list(info.approve_patterns.configured)}`,
    );
  }
  return lines.join('\n');
}

/** The /help text. */
export function renderHelp(opts: RenderOptions): string {
  const s = opts.style;
  const rows: [string, string][] = [
    ['/stop', 'stop the running turn'],
    ['/compact', 'compact the conversation history'],
    ['/title <text>', 'set the session title'],
    ['/mode interrupt|queue', 'whether a new message cancels the running turn or waits'],
    ['/locale en|zh', 'the language of notices (zh: the Chinese notices)'],
    ['/schedules', 'the scheduled prompts of this session (next and last runs)'],
    ['/jobs', 'the background jobs of this session (state, exit code)'],
    ['/kill <job id>', 'kill a running background job (/stop does not)'],
    [
      '/approval [off|writes|all]',
      'which tool calls wait for your y/n/a before they run; alone: the policy in force and approved patterns',
    ],
    ['/memory [forget <id>]', 'what the agent remembers about you; forget one entry'],
    ['/plan', 'the active plan of this session'],
    ['/prompt', 'the exact model input of the latest step (admins)'],
    ['/new', 'switch to a fresh session'],
    ['/quit', 'leave (also Ctrl-D or Ctrl-C)'],
    ['/help', 'this list'],
    ['//text', 'send a message that starts with "/"'],
  ];
  const w = Math.max(...rows.map(([c]) => c.length));
  return rows.map(([c, what]) => `  ${s.bold(c.padEnd(w))}  ${s.dim(what)}`).join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Panels

/**
 * A round-cornered panel whose border and title are painted with `paint`. The width fits the content and the
 * title, within `opts.columns` (and at most 100), and is passed to boxen explicitly, so the panel never depends on
 * the width of the process's own stdout.
 */
function panel(body: string, title: string, paint: Paint, opts: RenderOptions): string {
  const limit = Math.max(20, Math.min(opts.columns, MAX_PANEL_WIDTH));
  const widest = Math.max(...body.split('\n').map(visibleWidth));
  const width = Math.min(limit, Math.max(widest + 4, visibleWidth(title) + 6));
  const box = boxen(body, { title, borderStyle: 'round', padding: { left: 1, right: 1 }, width });
  const rows = box.split('\n');
  const last = rows.length - 1;
  // The border is painted here rather than by boxen's borderColor: boxen colours through the global chalk,
  // whose level is fixed when it is first imported; this keeps the colour level in RenderOptions.
  return rows
    .map((row, i) => {
      if (i === 0 || i === last) return paint(row);
      const chars = [...row];
      return `${paint(chars[0] ?? '')}${chars.slice(1, -1).join('')}${paint(chars.at(-1) ?? '')}`;
    })
    .join('\n');
}

/** Tool arguments for people: `$ <command>` for a shell command, else one `key: value` line per argument. */
function formatArguments(args: Record<string, unknown>, opts: RenderOptions): string {
  const s = opts.style;
  const lines: string[] = [];
  const { command, ...rest } = args;
  if (typeof command === 'string') lines.push(`${s.dim('$')} ${clean(command)}`);
  else if (command !== undefined) rest.command = command;
  for (const [key, value] of Object.entries(rest)) {
    const text = clean(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    lines.push(`${s.dim(`${key}:`)} ${text}`);
  }
  const all = lines.join('\n').split('\n');
  if (all.length <= MAX_ARGUMENT_LINES) return all.join('\n') || s.dim('(no arguments)');
  return [...all.slice(0, MAX_ARGUMENT_LINES), s.dim(`… ${all.length - MAX_ARGUMENT_LINES} more lines`)].join(
    '\n',
  );
}

/* eslint-disable no-control-regex -- matching control characters is the point */
/**
 * Control strings: OSC, DCS, SOS, PM and APC, with a 7-bit (ESC ] / ESC P / ESC X / ESC ^ / ESC _) or 8-bit
 * (U+009D, U+0090, U+0098, U+009E, U+009F) introducer, up to BEL, ESC \ or U+009C. An unterminated one loses
 * its introducer below, which leaves inert text.
 */
const CONTROL_STRING =
  /(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[^\u0007\u001B\u009C]*(?:\u0007|\u001B\\|\u009C)/g;
/** CSI sequences, 7-bit (ESC [) and 8-bit (U+009B): parameters, intermediates, final byte. */
const CSI = /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]/g;
/**
 * What is left to drop: C0 controls but tab and newline, DEL, every C1 control (U+0080–U+009F), and the bidi
 * embedding, override, isolate and mark characters that make text display in another order than it reads.
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/**
 * Text from the model, tools, the server or other people without terminal control sequences, so a message or
 * a session title cannot move the cursor, recolour or retitle the terminal, set the clipboard (OSC 52), make
 * links (OSC 8), or reorder what is shown: 7-bit and 8-bit CSI/OSC/DCS/SOS/PM/APC sequences, the other ESC
 * sequences, C0 and C1 controls and bidi controls are removed; carriage returns go (CRLF becomes LF). Newlines
 * and tabs stay. The client's own colours are added after cleaning, so they are kept.
 */
export function clean(s: string): string {
  return stripVTControlCharacters(s.replace(CONTROL_STRING, '').replace(CSI, ''))
    .replace(/\r\n/g, '\n')
    .replace(CONTROL, '');
}

/**
 * A name shown before `›` (a sender, a tool name): {@link clean}ed and on one line, so a sender holding a line
 * break cannot start a line that looks like the agent's.
 */
export function cleanName(s: string): string {
  return clean(s).replace(/\s+/g, ' ').trim();
}

const SECTION = /^=== (STDOUT|STDERR) ===$/;

/**
 * The part of a tool's output a panel shows: at most `outputLines` lines and `outputChars` characters. Shell output
 * (`=== STDOUT ===\n…\n=== STDERR ===\n…`, docs/architecture.md "Tools") loses its empty sections and the STDOUT marker.
 * @returns the text and, when something was cut, a note saying how much
 */
function outputSlice(content: string, opts: RenderOptions): { text: string; omitted: string | null } {
  const maxLines = opts.outputLines ?? DEFAULT_OUTPUT_LINES;
  const maxChars = opts.outputChars ?? DEFAULT_OUTPUT_CHARS;
  let lines = content.replace(/\s+$/, '').split('\n');
  if (lines.some((l) => SECTION.test(l))) {
    const sections: { name: string; lines: string[] }[] = [];
    for (const l of lines) {
      const marker = SECTION.exec(l);
      if (marker) sections.push({ name: marker[1] ?? '', lines: [] });
      else if (sections.length === 0) sections.push({ name: '', lines: [l] });
      else sections.at(-1)?.lines.push(l);
    }
    lines = sections
      .map((sec) => ({ ...sec, lines: trimBlankLines(sec.lines) }))
      .filter((sec) => sec.lines.length > 0)
      .flatMap((sec) => (sec.name === 'STDERR' ? [opts.style.dim('stderr:'), ...sec.lines] : sec.lines));
  }
  const total = lines.length;
  const kept: string[] = [];
  let chars = 0;
  for (const l of lines.slice(0, maxLines)) {
    if (chars + l.length > maxChars) {
      const room = maxChars - chars;
      if (room > 20) kept.push(`${l.slice(0, room)}…`);
      break;
    }
    kept.push(l);
    chars += l.length + 1;
  }
  const hidden = total - kept.length;
  return {
    text: kept.join('\n'),
    omitted: hidden > 0 ? `… ${hidden} more line${hidden === 1 ? '' : 's'} not shown` : null,
  };
}

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.trim() === '') start++;
  while (end > start && lines[end - 1]?.trim() === '') end--;
  return lines.slice(start, end);
}

// ---------------------------------------------------------------------------------------------------------------
// Terminal widths

const WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|\p{Emoji_Presentation}|[\u{20000}-\u{3FFFD}]/u;
const ZERO_WIDTH = /\p{Mn}|\p{Me}|\p{Cf}|[\uFE00-\uFE0F]/u;

/** Terminal columns `s` takes (ANSI codes are free, East Asian wide characters and emoji take two). */
export function visibleWidth(s: string): number {
  let width = 0;
  for (const ch of stripVTControlCharacters(s)) {
    if (ZERO_WIDTH.test(ch)) continue;
    width += WIDE.test(ch) ? 2 : 1;
  }
  return width;
}

/** Terminal rows `s` (one line, no newline) takes in `columns`. */
export function rowsOf(s: string, columns: number): number {
  return Math.max(1, Math.ceil(visibleWidth(s) / Math.max(1, columns)));
}

/** Plain text cut into pieces of at most `width` columns. */
function wrapToWidth(plain: string, width: number): string[] {
  const rows: string[] = [];
  let row = '';
  let w = 0;
  for (const ch of plain) {
    const cw = visibleWidth(ch);
    if (w + cw > width) {
      rows.push(row);
      row = '';
      w = 0;
    }
    row += ch;
    w += cw;
  }
  rows.push(row);
  return rows;
}

/** `s` (possibly coloured) cut to `width` columns with "…"; colours are dropped only when it is cut. */
function fitToWidth(s: string, width: number): string {
  if (visibleWidth(s) <= width) return s;
  return `${wrapToWidth(stripVTControlCharacters(s), width - 1)[0] ?? ''}…`;
}

/**
 * The platform-neutral part of a turn's live status (docs/message-model.md §4.3): the lines a channel shows while
 * a turn runs — a thought (💭), a tool call whose mark goes ⏳ → ✅/❌ (⏹️ when the turn stopped first), or a
 * system notice (a "Notification" message: the stop notice, the automatic compaction notice; §5.3 "system
 * interaction log", `live` on Discord and Google Chat) — and how thoughts, tool calls, tool results and
 * notices become and update those lines. Pure: no I/O. Each channel renders
 * the lines in its own format and writes them with its own API (Discord: adapters/discord/format.ts
 * `renderEntry`, adapters/discord/live-status.ts).
 */
import { ids } from '../../activities/persistence.ts';
import { messageKind } from '../../domain/message-kind.ts';
import type { Message } from '../../domain/message.ts';
import { TOOL_MARK, formatSeconds, toolResultState, type ToolState } from '../../domain/presentation.ts';
import { planOneLine, planStepsOfArguments } from '../../domain/plan-view.ts';
import { toolLabel } from '../../domain/tool-label.ts';

export { TOOL_MARK, toolResultState, type ToolState };

/** One line of the live status (a thought, a system notice, or a tool call with its state). */
export type StatusEntry =
  | { kind: 'thought'; key: string; text: string }
  /** A notification's text as stored (it starts with its own emoji: "⏹️ Stopped.", "🔄 …"). */
  | { kind: 'notice'; key: string; text: string }
  | {
      kind: 'tool';
      key: string;
      toolCallId: string | null;
      /** The tool as people see it: its name, or `<server> › <tool>` for an MCP tool (domain/tool-label.ts). */
      name: string;
      /** The shell command, the steps an `update_plan` sets ("✅ a · ▶️ b"), or the arguments as JSON (`{}` for none). */
      args: string;
      state: ToolState;
      /** The result's short summary (`metadata.tool_result`); '' while running. */
      summary: string;
      /** While running: the last lines of the command's output (see {@link setToolTail}). */
      tail?: string;
      /** While running: whole seconds it has been running, as last reported (see {@link setToolTail}). */
      elapsedS?: number;
    };

/** Longest thought, arguments and result summary a line shows, in code points (longer ones end in `…`). */
export const THOUGHT_CHARS = 300;
export const ARGS_CHARS = 200;
export const SUMMARY_CHARS = 150;

/**
 * The status entry of a thought, tool_call or notification message; null for other kinds (and blank thoughts
 * and notices).
 */
export function statusEntryFor(m: Message): StatusEntry | null {
  if (messageKind(m) === 'notification')
    return m.content.trim() === '' ? null : { kind: 'notice', key: m.id, text: m.content };
  if (m.type === 'thought')
    return m.content.trim() === '' ? null : { kind: 'thought', key: m.id, text: m.content };
  if (m.type !== 'tool_call') return null;
  const md = m.metadata ?? {};
  const args = md.tool_arguments ?? {};
  const command = typeof args.command === 'string' ? args.command : null;
  const name = typeof md.tool_name === 'string' ? md.tool_name : m.sender;
  // The active plan, live in the status: an `update_plan` line shows the steps it sets, not their JSON.
  const plan = name === 'update_plan' ? planStepsOfArguments(args) : null;
  return {
    kind: 'tool',
    key: m.id,
    toolCallId: typeof md.tool_call_id === 'string' ? md.tool_call_id : null,
    name: toolLabel(name),
    args: plan ? planOneLine(plan) || 'clear' : (command ?? JSON.stringify(args)),
    state: 'running',
    summary: '',
  };
}

/**
 * The line a tool result belongs to among `entries`: its parent call's, else the call with its
 * `metadata.tool_call_id`; undefined when the call was never shown.
 */
export function entryOfResult(
  entries: ReadonlyMap<string, StatusEntry>,
  result: Message,
): StatusEntry | undefined {
  const callId = result.metadata?.tool_call_id;
  return (
    (result.parent_id ? entries.get(result.parent_id) : undefined) ??
    [...entries.values()].find((e) => e.kind === 'tool' && callId !== undefined && e.toolCallId === callId)
  );
}

/** A line of its own for a result whose call was never shown (rendering started late). */
export function orphanResultEntry(result: Message): StatusEntry {
  return {
    kind: 'tool',
    key: result.parent_id ?? result.id,
    toolCallId: null,
    name: toolLabel(result.sender),
    args: '{}',
    state: 'running',
    summary: '',
  };
}

/** Sets a tool line's mark and summary from its result (✅/❌/⏹️, `metadata.tool_result`). */
export function applyToolResult(entry: StatusEntry, result: Message): void {
  if (entry.kind !== 'tool') return;
  entry.state = toolResultState(result);
  entry.summary = typeof result.metadata?.tool_result === 'string' ? result.metadata.tool_result : '';
  delete entry.tail;
  delete entry.elapsedS;
}

/** Lines of a running command's output a status line shows under its tool line (the last ones). */
export const TAIL_LINES = 2;

/**
 * Sets the running time (whole seconds of `elapsedMs`) and the output tail (its last {@link TAIL_LINES} lines; an
 * empty tail keeps the lines shown) of the running tool call among `entries` whose key is `toolCallMessageId`.
 * @returns whether a line changed (false for an unknown or ended call, or nothing new)
 */
export function setToolTail(
  entries: StatusEntry[],
  toolCallMessageId: string,
  tail: string,
  elapsedMs: number,
): boolean {
  const entry = entries.find((e) => e.key === toolCallMessageId);
  if (entry?.kind !== 'tool' || entry.state !== 'running') return false;
  const lines = tail
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-TAIL_LINES)
    .join('\n');
  const elapsedS = Math.max(0, Math.floor(elapsedMs / 1000));
  const changed = (lines !== '' && entry.tail !== lines) || entry.elapsedS !== elapsedS;
  if (lines !== '') entry.tail = lines;
  entry.elapsedS = elapsedS;
  return changed;
}

/** " · 12s" after a running tool's ⏳ when its running time is known, else ''. */
export function runningFor(e: StatusEntry): string {
  return e.kind === 'tool' && e.state === 'running' && e.elapsedS !== undefined
    ? ` · ${formatSeconds(e.elapsedS)}`
    : '';
}

/** Collapses whitespace and cuts at `max` code points with an ellipsis. */
export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length <= max ? flat : `${points.slice(0, max - 1).join('')}…`;
}

/**
 * One line as plain text, for channels without Markdown: "💭 thought", the notice's own text, or
 * "🛠️ name args ⏳" / "… ✅ summary". Thoughts, notices, arguments and summaries are cut to
 * {@link THOUGHT_CHARS}, {@link ARGS_CHARS}, {@link SUMMARY_CHARS}.
 */
export function renderEntryPlain(e: StatusEntry): string {
  if (e.kind === 'thought') return `💭 ${oneLine(e.text, THOUGHT_CHARS)}`;
  if (e.kind === 'notice') return oneLine(e.text, THOUGHT_CHARS);
  const summary =
    e.summary.trim() === '' || e.state === 'running' ? '' : ` ${oneLine(e.summary, SUMMARY_CHARS)}`;
  const args = e.args === '{}' ? '' : ` ${oneLine(e.args, ARGS_CHARS)}`;
  const tail =
    e.state === 'running' && e.tail
      ? e.tail
          .split('\n')
          .map((l) => `\n   ${oneLine(l, TAIL_CHARS)}`)
          .join('')
      : '';
  return `🛠️ ${oneLine(e.name, ARGS_CHARS)}${args} ${TOOL_MARK[e.state]}${runningFor(e)}${summary}${tail}`;
}

/** Longest output line a status shows under a running tool, in code points. */
export const TAIL_CHARS = 120;

/**
 * Whether delivering `message` ends its turn: the final reply, the crash notice, or the turn's own notice
 * (a stopped turn's "stopped" notification, id `<turn id>:notice`). A sink brings the turn's live status to its
 * final state and stops typing then.
 * @returns the state still-running tool lines end in (`null` after a final reply: none is left running), or
 *   false when the turn goes on
 */
export function turnEndOf(message: Message): Exclude<ToolState, 'running' | 'ok'> | null | false {
  const turnId = message.turn_id;
  if (turnId === null) return false;
  const kind = messageKind(message);
  if (kind === 'final_reply') return null;
  if (kind === 'crash_notice') return 'failed';
  if (kind === 'notification' && message.id === ids.notice(turnId)) return 'interrupted';
  return false;
}

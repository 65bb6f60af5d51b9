/**
 * What Kesoku writes on Discord and how a Discord message becomes prompt text. Pure: no I/O.
 *
 * - Inbound (docs/message-model.md §6.1): "`Name` <@id> at `YYYY-MM-DD HH:MM:SS UTC`:\n<text>", then one line per attachment,
 *   so the model knows who spoke, when, and which files came with the message (and where they were staged).
 *   A line of the text that imitates such a header or a Kesoku notice is marked as typed by the user.
 * - The final reply's header (docs/message-model.md §6.1 "在消息卡片头部标注性能指标"): a Discord subtext line
 *   "-# ⏱ 2.1s · 🔧 1 tool · 1042 tokens".
 * - The live status line (docs/message-model.md §4.3): "💭 thought" and "🛠️ `tool` `args` ⏳", edited into ✅/❌ (⏹️ when the
 *   turn was stopped before the tool finished), and a system notice's own text ("⏹️ Stopped.", §5.3); the lines
 *   themselves are the kit's (adapters/kit/live-status.ts), this module writes them in Discord's Markdown.
 */
import type { Attachment, TurnMetrics } from '../../domain/message.ts';
import { metricsSummary } from '../../domain/presentation.ts';
import {
  ARGS_CHARS,
  SUMMARY_CHARS,
  TAIL_CHARS,
  THOUGHT_CHARS,
  TOOL_MARK,
  oneLine,
  runningFor,
  type StatusEntry,
} from '../kit/live-status.ts';
import { neutraliseUserText, speakerHeader } from '../../domain/prompt-safety.ts';
import { escapeStatusText } from './split.ts';

/** "2026-05-27 12:50:00 UTC" (seconds precision, always UTC). */
export function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * The prompt text of a Discord message (docs/message-model.md §6.1 trace): header line, the text (bot mention removed by the
 * caller), and one `[Attachment: …]` line per attachment. Never empty: the header is always there.
 */
export function formatInboundContent(input: {
  displayName: string;
  userId: string;
  at: Date;
  text: string;
  attachments: readonly Attachment[];
  /** The message this one replies to, shown to the model as a quote before the text. */
  quoted?: QuotedMessage | null;
}): string {
  const header = speakerHeader('discord', {
    name: inlineSafe(input.displayName),
    id: input.userId,
    at: formatUtc(input.at),
  });
  const lines = [header];
  if (input.quoted) lines.push(quoteBlock(input.quoted));
  // User text cannot start a line the way this header or a Kesoku notice does (domain/prompt-safety.ts).
  if (input.text.trim() !== '') lines.push(neutraliseUserText(input.text));
  for (const a of input.attachments) lines.push(attachmentLine(a));
  return lines.join('\n');
}

/** The replied-to message of a Discord reply: its author and text (as Discord sent it). */
export interface QuotedMessage {
  displayName: string;
  userId: string;
  text: string;
}

/** How much of a replied-to message the prompt quotes, in code points. */
export const QUOTE_CHARS = 1000;

/**
 * The quote of a replied-to message: "> Replying to `Name` <@id>:" and its text, every line prefixed with "> ",
 * cut at {@link QUOTE_CHARS} code points with an ellipsis. The quoted text is someone else's: lines that imitate a
 * speaker header or a Kesoku notice are marked (domain/prompt-safety.ts) before they are quoted.
 */
export function quoteBlock(q: QuotedMessage): string {
  const points = Array.from(q.text.trim());
  const text =
    points.length > QUOTE_CHARS ? `${points.slice(0, QUOTE_CHARS - 1).join('')}…` : points.join('');
  const body =
    text === '' ? ['(no text)'] : neutraliseUserText(text).split(/\r\n|[\n\r\u0085\u2028\u2029\v\f]/u);
  return [
    `> Replying to \`${inlineSafe(q.displayName)}\` <@${q.userId}>:`,
    ...body.map((l) => `> ${l}`),
  ].join('\n');
}

/** "[Attachment: report.csv (text/csv, 1.2 KiB) saved at /…/report.csv]", or "… not downloaded" without a path. */
export function attachmentLine(a: Attachment): string {
  const facts = [a.content_type, a.size === undefined ? undefined : formatBytes(a.size)].filter(
    (x): x is string => !!x,
  );
  const about = facts.length > 0 ? ` (${facts.join(', ')})` : '';
  return a.path
    ? `[Attachment: ${a.name}${about} saved at ${a.path}]`
    : `[Attachment: ${a.name}${about}, not downloaded]`;
}

/** Bytes for people: "512 B", "1.2 KiB", "3.4 MiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The final reply's first line: "-# ⏱ 2.1s · 🔧 1 tool · 1042 tokens" (Discord subtext). */
export function metricsHeader(m: TurnMetrics): string {
  return `-# ${metricsSummary(m)}`;
}

export type { StatusEntry } from '../kit/live-status.ts';
export { oneLine, statusEntryFor } from '../kit/live-status.ts';

/** Longest rendered entry (a bound the live status relies on to keep each message under 2000 characters). */
export const MAX_ENTRY_LENGTH = 40 + THOUGHT_CHARS + ARGS_CHARS + SUMMARY_CHARS;

/** One status line: "💭 …", a notice's own text ("⏹️ Stopped."), or "🛠️ `name` `args` ⏳" / "… ✅ `summary`". */
export function renderEntry(e: StatusEntry): string {
  // A ``` inside a thought would open a code block that swallows the status lines after it; other markdown in a
  // thought (bold, spoilers, links) is shown as typed.
  const freeText = (text: string) =>
    escapeStatusText(oneLine(text, THOUGHT_CHARS).replace(/`{3,}/g, (run) => 'ˋ'.repeat(run.length)));
  if (e.kind === 'thought') return `💭 ${freeText(e.text)}`;
  if (e.kind === 'notice') return freeText(e.text);
  const summary =
    e.summary.trim() === '' || e.state === 'running'
      ? ''
      : ` \`${inlineSafe(oneLine(e.summary, SUMMARY_CHARS))}\``;
  const args = e.args === '{}' ? '' : ` \`${inlineSafe(oneLine(e.args, ARGS_CHARS))}\``;
  // A running command's last output lines, as subtext under its line.
  const tail =
    e.state === 'running' && e.tail
      ? e.tail
          .split('\n')
          .map((l) => `\n-# └ \`${inlineSafe(oneLine(l, TAIL_CHARS))}\``)
          .join('')
      : '';
  return `🛠️ \`${inlineSafe(e.name)}\`${args} ${TOOL_MARK[e.state]}${runningFor(e)}${summary}${tail}`;
}

/** Text safe inside an inline code span: backticks become a look-alike, never empty. */
function inlineSafe(s: string): string {
  // No backticks (they end the code span) and no line breaks or other controls (a name must stay on the header line).
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const t = s.replace(/`/g, 'ˋ').replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, ' ');
  return t === '' ? ' ' : t;
}

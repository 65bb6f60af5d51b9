/**
 * What Kesoku writes in Google Chat and how a Chat message becomes prompt text. Pure: no I/O.
 *
 * - Inbound (docs/message-model.md §6.1): "`Name` (users/123) at `YYYY-MM-DD HH:MM:SS UTC`:\n<text>", so the
 *   model knows who spoke and when; lines imitating such a header or a Kesoku notice are marked as the user's;
 *   then one `[Attachment: …]` line per file (attachments.ts).
 * - Final replies (docs/message-model.md §4.3, §5.3 "card layout" / formatted text): the model's Markdown in
 *   Chat's text formatting (`*bold*`, `_italic_`, `~strike~`, `<url|label>`, code spans and blocks kept), the
 *   first line the turn metrics in italics.
 * - The intermediate card's lines (HTML subset of card text): "💭 thought", "🛠️ <b>tool</b> args ⏳" → ✅/❌/⏹️.
 */
import type { Attachment, TurnMetrics } from '../../domain/message.ts';
import { TOOL_MARK, metricsSummary } from '../../domain/presentation.ts';
import { neutraliseUserText, speakerHeader } from '../../domain/prompt-safety.ts';
import { pathFromWorkspace } from '../../infra/workspace.ts';
import { TAIL_CHARS, runningFor, type StatusEntry } from '../kit/live-status.ts';

/** "2026-05-27 12:50:00 UTC" (seconds precision, always UTC). */
function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * The prompt text of a Chat message: header line, then the text (the app's mention already removed), then one
 * line per attachment ({@link attachmentLine}) and per refused file ("[Attachment: x.zip, not taken: it is
 * larger than the 25 MiB limit]").
 * @param input.workspaceDir the session's workspace, so stored files are named relative to it (the agent's
 *   working directory)
 */
export function formatInboundContent(input: {
  displayName: string;
  userName: string;
  at: Date;
  text: string;
  attachments?: readonly Attachment[];
  refused?: readonly { name: string; reason: string }[];
  workspaceDir?: string;
}): string {
  const name = input.displayName.replace(/[`\r\n]/g, ' ').trim() || input.userName;
  const lines = [speakerHeader('googleChat', { name, user: input.userName, at: formatUtc(input.at) })];
  if (input.text.trim() !== '') lines.push(neutraliseUserText(input.text));
  for (const a of input.attachments ?? []) lines.push(attachmentLine(a, input.workspaceDir));
  for (const r of input.refused ?? [])
    lines.push(`[Attachment: ${oneLineName(r.name)}, not taken: ${r.reason}]`);
  return lines.join('\n');
}

/** "1.5 MiB", "300 KiB", "12 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Number((n / (1024 * 1024)).toFixed(1))} MiB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KiB`;
  return `${n} bytes`;
}

function oneLineName(name: string): string {
  return name.replace(/[\r\n\]]/g, ' ').trim();
}

/**
 * "[Attachment: report.csv (text/csv, 1.2 KiB) saved at attachments/<id>/0-report.csv]" for a stored file (the
 * path as a command in `workspaceDir` opens it), "[Attachment: plan.doc (…), a Google Drive file, not
 * downloaded: <link>]" for a Drive reference.
 */
export function attachmentLine(a: Attachment, workspaceDir?: string): string {
  const facts = [a.content_type, a.size !== undefined ? formatBytes(a.size) : undefined].filter(
    (f): f is string => f !== undefined && f !== '',
  );
  const label = `${oneLineName(a.name)}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`;
  if (a.path !== undefined) {
    const where = workspaceDir !== undefined ? pathFromWorkspace(workspaceDir, a.path) : a.path;
    return `[Attachment: ${label} saved at ${where}]`;
  }
  if (a.url !== undefined) return `[Attachment: ${label}, a Google Drive file, not downloaded: ${a.url}]`;
  return `[Attachment: ${label}, not downloaded]`;
}

/** The final reply's first line: "_⏱ 2.1s · 🔧 1 tool · 1042 tokens_". */
export function metricsLine(m: TurnMetrics): string {
  return `_${metricsSummary(m)}_`;
}

/**
 * Markdown as Google Chat text formatting. Code blocks and code spans are kept as they are; elsewhere
 * `**b**`/`__b__` → `*b*`, `*i*`/`_i_` → `_i_`, `~~s~~` → `~s~`, `[label](url)` → `<url|label>`, and a heading
 * line `# Title` → `*Title*`. Other text is unchanged.
 */
export function toChatText(markdown: string): string {
  // Odd pieces are code (``` blocks or `spans`), left alone.
  const pieces = markdown.split(/(```[\s\S]*?(?:```|$)|`[^`\n]+`)/);
  return pieces.map((p, i) => (i % 2 === 1 ? p : convertProse(p))).join('');
}

function convertProse(s: string): string {
  const BOLD = '\u0000B\u0000';
  return s
    .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm, `${BOLD}$1${BOLD}`)
    .replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__(?=\S)([^\n]*?\S)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1_$2_')
    .replace(/~~(?=\S)([^\n]*?\S)~~/g, '~$1~')
    .replace(
      /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
      (_m, label: string, url: string) => `<${url}|${label.replace(/[|>]/g, ' ')}>`,
    )
    .replaceAll(BOLD, '*');
}

/** Text safe inside card text (which reads a subset of HTML). */
export function escapeCardText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Collapses whitespace and cuts at `max` code points with an ellipsis. */
function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length <= max ? flat : `${points.slice(0, max - 1).join('')}…`;
}

/** One line of the intermediate card (card text: HTML subset, escaped). */
export function renderCardEntry(e: StatusEntry): string {
  if (e.kind === 'thought') return `💭 <i>${escapeCardText(oneLine(e.text, 300))}</i>`;
  if (e.kind === 'notice') return escapeCardText(oneLine(e.text, 300));
  const args = e.args === '{}' ? '' : ` <font color="#5f6368">${escapeCardText(oneLine(e.args, 200))}</font>`;
  const summary =
    e.summary.trim() === '' || e.state === 'running' ? '' : `<br>${escapeCardText(oneLine(e.summary, 150))}`;
  // A running command's last output lines, grey and monospace, under its line.
  const tail =
    e.state === 'running' && e.tail
      ? e.tail
          .split('\n')
          .map(
            (l) => `<br><font color="#5f6368"><code>${escapeCardText(oneLine(l, TAIL_CHARS))}</code></font>`,
          )
          .join('')
      : '';
  return `🛠️ <b>${escapeCardText(oneLine(e.name, 80))}</b>${args} ${TOOL_MARK[e.state]}${runningFor(e)}${summary}${tail}`;
}

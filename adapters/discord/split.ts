/**
 * Splitting long text into Discord messages (shared/DISCORD-NOTES.md "Limits"). Pure: no I/O.
 *
 * Rules, in order of preference: split after a blank line, then after a newline, then after a space or tab;
 * otherwise cut hard. Never inside a surrogate pair (nor before a joiner/variation selector/combining mark),
 * never inside a protected span — `<@id>`, `<#id>`, `<:emoji:id>`, `<t:…>`, `</cmd:id>`, a markdown link, a URL,
 * a run of backticks, an inline code span, `**…**`, `||…||`, `__…__`, `~~…~~` (one line, up to a whole message) —
 * unless that span alone is longer than a whole message. A chunk that ends inside a ``` block gets a closing
 * fence, and the next chunk reopens the block with the same language; a chunk never ends right after a block's
 * opening line (a first line longer than the budget is hard-cut instead of leaving an empty block). No chunk is empty or whitespace-only (such pieces are dropped: Discord
 * would refuse them and shows nothing for them anyway).
 */

import { escapeMarkdown } from 'discord.js';

/** Discord's limit on message content, in UTF-16 code units (Discord counts characters; never fewer). */
export const DISCORD_MAX_CONTENT = 2000;

/** One chunk: `text` = `prefix` + `body` + `suffix`, where `body` = `input.slice(start, end)`. */
export interface SplitChunk {
  text: string;
  /** A reopened fence (```` ```lang\n ````) or ''. */
  prefix: string;
  body: string;
  /** A closing fence (```` ``` ```` or ```` \n``` ````) or ''. */
  suffix: string;
  start: number;
  end: number;
}

/** Longest language tag carried over to a reopened fence; longer tags reopen a bare ```` ``` ````. */
const MAX_LANG = 16;
/** Smallest supported limit: room for the longest reopened fence, a closing fence and some text. */
const MIN_LENGTH = 32;

const FENCE_TOKEN = /`{3,}/g;
/**
 * Longest inner text of a `**`, `||`, `__` or `~~` span kept whole: a whole message minus its four markers and a
 * reopened fence, so any such span that fits in one message is moved whole instead of being cut open.
 */
const MAX_EMPHASIS = DISCORD_MAX_CONTENT - 4 - (MAX_LANG + 4);
const PROTECTED = new RegExp(
  [
    '`{3,}',
    '<a?:\\w{1,32}:\\d{1,25}>',
    '<(?:@[!&]?|#)\\d{1,25}>',
    '<t:-?\\d{1,17}(?::[tTdDfFR])?>',
    '</[^\\s<>:]{1,32}(?: [^\\s<>:]{1,32}){0,2}:\\d{1,25}>',
    '\\[[^\\[\\]\\n]{0,256}\\]\\(<?[^\\s()<>]{0,512}>?\\)',
    '<https?://[^\\s<>`]{1,512}>',
    'https?://[^\\s<>`]{1,512}',
    '`[^`\\n]{1,256}`',
    // Emphasis spans up to a whole message: cutting one open would show a spoiler in clear or leak `**` markers.
    `\\*\\*[^\\n]{1,${MAX_EMPHASIS}}?\\*\\*`,
    `\\|\\|[^\\n]{1,${MAX_EMPHASIS}}?\\|\\|`,
    `__[^\\n]{1,${MAX_EMPHASIS}}?__`,
    `~~[^\\n]{1,${MAX_EMPHASIS}}?~~`,
  ].join('|'),
  'g',
);

/**
 * Splits `text` into message contents of at most `maxLength` characters (see the module comment for the rules).
 * @param maxLength UTF-16 code units per chunk, default {@link DISCORD_MAX_CONTENT}; at least 32
 * @returns the chunks in order; [] when `text` is blank
 * @throws RangeError when `maxLength` is below 32
 */
export function splitMessage(text: string, maxLength: number = DISCORD_MAX_CONTENT): string[] {
  return splitMessageChunks(text, maxLength).map((c) => c.text);
}

/** {@link splitMessage} with the parts of every chunk, for callers and tests that need the offsets. */
export function splitMessageChunks(text: string, maxLength: number = DISCORD_MAX_CONTENT): SplitChunk[] {
  if (!Number.isInteger(maxLength) || maxLength < MIN_LENGTH)
    throw new RangeError(`maxLength must be an integer >= ${MIN_LENGTH}`);
  const spans = protectedSpans(text);
  const chunks: SplitChunk[] = [];
  let start = 0;
  let fence: FenceState = { open: false, lang: '' };
  while (start < text.length) {
    const prefix = fence.open ? `\`\`\`${fence.lang.length <= MAX_LANG ? fence.lang : ''}\n` : '';
    let budget = maxLength - prefix.length;
    let end = chooseCut(text, start, budget, spans, fence);
    let after = scanFences(text.slice(start, end), fence);
    if (
      after.open &&
      prefix.length + (end - start) + closingFence(text.slice(start, end)).length > maxLength
    ) {
      budget -= 4;
      end = chooseCut(text, start, budget, spans, fence);
      after = scanFences(text.slice(start, end), fence);
    }
    if (after.open && end < text.length) {
      // Do not end a chunk right after an opening fence line: move that line to the next chunk.
      const opener = openerLineStart(text, start, end, fence);
      if (opener !== null && text.slice(start, opener).trim() !== '') {
        end = opener;
        after = scanFences(text.slice(start, end), fence);
      }
    }
    const body = text.slice(start, end);
    const suffix = after.open ? closingFence(body) : '';
    const chunkText = prefix + body + suffix;
    if (chunkText.trim() !== '') chunks.push({ text: chunkText, prefix, body, suffix, start, end });
    start = end;
    fence = after;
  }
  return chunks;
}

interface FenceState {
  open: boolean;
  /** Language of the open block ('' when none). */
  lang: string;
}

/** The fence state after `s`, starting from `from`: every run of 3+ backticks toggles it. */
function scanFences(s: string, from: FenceState): FenceState {
  let { open, lang } = from;
  FENCE_TOKEN.lastIndex = 0;
  for (let m = FENCE_TOKEN.exec(s); m !== null; m = FENCE_TOKEN.exec(s)) {
    if (open) {
      open = false;
      lang = '';
    } else {
      open = true;
      const rest = /^([^\n`]*)\n/.exec(s.slice(m.index + m[0].length));
      const tag = rest?.[1]?.trim() ?? '';
      lang = /^[A-Za-z0-9_+#.-]+$/.test(tag) ? tag : '';
    }
  }
  return { open, lang };
}

function closingFence(body: string): string {
  return body.endsWith('\n') ? '```' : '\n```';
}

/**
 * When the block open at `end` was opened by a fence line inside [start, end) with nothing after that line, the
 * index where that line starts; otherwise null.
 */
function openerLineStart(text: string, start: number, end: number, before: FenceState): number | null {
  const body = text.slice(start, end);
  const lastToken = body.lastIndexOf('```');
  if (lastToken < 0) return null;
  const lineStart = body.lastIndexOf('\n', lastToken) + 1;
  if (body.slice(lineStart, lastToken).trim() !== '') return null;
  const afterToken = body.slice(lastToken).replace(/^`+/, '');
  if (!/^[^\n`]*\n?$/.test(afterToken)) return null;
  // The token must be an opener: the state just before it is closed.
  const beforeLine = scanFences(body.slice(0, lineStart), before);
  return beforeLine.open ? null : start + lineStart;
}

interface Span {
  start: number;
  end: number;
}

function protectedSpans(text: string): Span[] {
  const spans: Span[] = [];
  PROTECTED.lastIndex = 0;
  for (let m = PROTECTED.exec(text); m !== null; m = PROTECTED.exec(text)) {
    spans.push({ start: m.index, end: m.index + m[0].length });
    if (m[0].length === 0) PROTECTED.lastIndex++;
  }
  return spans;
}

/** The protected span strictly containing cut position `p` (start < p < end), if any. */
function spanAround(spans: Span[], p: number): Span | null {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = spans[mid];
    if (!s) break;
    if (s.end <= p) lo = mid + 1;
    else if (s.start >= p) hi = mid - 1;
    else return s;
  }
  return null;
}

/** True when cutting between text[p-1] and text[p] would tear a character or a cluster apart. */
function tearsCharacter(text: string, p: number): boolean {
  if (p <= 0 || p >= text.length) return false;
  const before = text.charCodeAt(p - 1);
  const after = text.charCodeAt(p);
  if (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) return true;
  if (before === 0x200d) return true; // zero-width joiner: the next character belongs to the cluster
  return (
    after === 0x200d ||
    (after >= 0xfe00 && after <= 0xfe0f) ||
    (after >= 0x0300 && after <= 0x036f) ||
    after === 0x20e3
  );
}

function isSafeCut(text: string, p: number, spans: Span[]): boolean {
  return spanAround(spans, p) === null && !tearsCharacter(text, p);
}

/** Minimum fill (fraction of the budget) for a split at a blank line, a newline and a space. */
const MIN_FILL = [0.5, 0.3, 0.1] as const;

/**
 * Where the chunk starting at `start` ends: the whole rest when it fits, else the best split point within
 * `budget` characters (see the module comment); `fence` is the block state at `start`. Always > start.
 */
function chooseCut(text: string, start: number, budget: number, spans: Span[], fence: FenceState): number {
  const limit = start + budget;
  if (text.length <= limit) return text.length;
  const kinds: ((p: number) => boolean)[] = [
    (p) => text[p - 1] === '\n' && text[p - 2] === '\n' && p - 2 >= start,
    (p) => text[p - 1] === '\n',
    (p) => text[p - 1] === ' ' || text[p - 1] === '\t',
  ];
  // A split point must leave something visible in the chunk (whitespace-only chunks are dropped).
  let solid = start;
  while (solid < limit && /\s/.test(text[solid] ?? '')) solid++;
  const best: (number | null)[] = kinds.map(() => null);
  for (let p = limit; p > solid; p--) {
    for (let k = 0; k < kinds.length; k++) {
      if (best[k] === null && kinds[k]?.(p) && isSafeCut(text, p, spans)) best[k] = p;
    }
    if (best.every((b) => b !== null)) break;
  }
  for (let k = 0; k < kinds.length; k++) {
    const p = best[k];
    if (p != null && p - start >= budget * (MIN_FILL[k] ?? 0)) return p;
  }
  // A short split is still better than a hard cut, unless it would end the chunk with a fence opener line: that
  // chunk would be an empty code block (a long first line in a block is hard-cut instead).
  for (const p of best) if (p != null && !endsWithFenceOpener(text, start, p, fence)) return p;
  return hardCut(text, start, solid, limit, spans);
}

/** True when the last non-blank line of text[start, p) is a ``` line that opens a block (`fence`: state at start). */
function endsWithFenceOpener(text: string, start: number, p: number, fence: FenceState): boolean {
  const body = text.slice(start, p).replace(/\s+$/, '');
  const lineStart = body.lastIndexOf('\n') + 1;
  if (!/^\s*`{3,}[^\n`]*$/.test(body.slice(lineStart))) return false;
  return scanFences(body, fence).open;
}

/**
 * Escapes Discord markdown in one line of free text shown inside a status message (a model's thought), so a
 * ``` or `**` in it cannot turn the following status lines into a code block or bold text. Uses discord.js
 * `escapeMarkdown` (code blocks, inline code, bold, italics, underline, strike, spoilers, headings, lists,
 * masked links).
 */
export function escapeStatusText(s: string): string {
  return escapeMarkdown(s, { heading: true, bulletedList: true, numberedList: true, maskedLink: true });
}

/**
 * A cut at or before `limit` that respects spans and characters when possible, and leaves something visible
 * (cut > `solid`, the first non-whitespace index) when possible; always > start.
 */
function hardCut(text: string, start: number, solid: number, limit: number, spans: Span[]): number {
  const span = spanAround(spans, limit);
  const from = span && span.start > solid ? span.start : limit;
  for (let q = from; q > solid; q--) if (!tearsCharacter(text, q) && spanAround(spans, q) === null) return q;
  // Inside one span longer than a message: cut anywhere that keeps characters whole.
  for (let q = limit; q > solid; q--) if (!tearsCharacter(text, q)) return q;
  for (let q = limit; q > start; q--) if (!tearsCharacter(text, q)) return q;
  return Math.max(start + 1, limit);
}

/**
 * Splitting long text into a chat platform's messages. Pure: no I/O. Every channel uses it with its own limit
 * and length unit (adapters/kit/channel.ts `ChannelFeatures`: Discord 2000 UTF-16 code units, Google Chat 4096
 * characters, WeChat 2048 UTF-8 bytes) and, for Markdown channels, the spans its dialect must never cut.
 *
 * Rules, in order of preference: split after a blank line, then after a newline, then after a space or tab;
 * otherwise cut hard. Never inside a character (a surrogate pair, nor before a joiner/variation selector/combining
 * mark), never inside a protected span (the caller's patterns, e.g. {@link markdownProtectedPatterns}) unless
 * that span alone is longer than a whole message. With `codeFences`, a chunk that ends inside a ``` block gets a
 * closing fence and the next chunk reopens the block with the same language; a chunk never ends right after a
 * block's opening line (a first line longer than the budget is hard-cut instead of leaving an empty block). No
 * chunk is empty or whitespace-only (such pieces are dropped: platforms refuse them or show nothing).
 */
import type { LengthUnit } from './channel.ts';

/** One chunk: `text` = `prefix` + `body` + `suffix`, where `body` = `input.slice(start, end)`. */
export interface SplitChunk {
  text: string;
  /** A reopened fence (```` ```lang\n ````) or ''. */
  prefix: string;
  body: string;
  /** A closing fence (```` ``` ```` or ```` \n``` ````) or ''. */
  suffix: string;
  /** UTF-16 offsets of `body` in the input. */
  start: number;
  end: number;
}

/** How to split. */
export interface SplitOptions {
  /** Longest chunk, in `unit`; at least 32. */
  maxLength: number;
  /** How the platform counts; default `utf16`. */
  unit?: LengthUnit;
  /**
   * Regular-expression sources of spans never cut (one alternation, tried in order at each position; make the
   * first a run of 3+ backticks when `codeFences` is on, so a fence is never read as inline code). Default none.
   */
  protectedPatterns?: readonly string[];
  /** Close a ``` block at a chunk's end and reopen it in the next chunk (Markdown channels). Default false. */
  codeFences?: boolean;
}

/** Longest language tag carried over to a reopened fence; longer tags reopen a bare ```` ``` ````. */
const MAX_LANG = 16;
/** Smallest supported limit: room for the longest reopened fence, a closing fence and some text. */
const MIN_LENGTH = 32;

const FENCE_TOKEN = /`{3,}/g;

/** The length of `s` in `unit`. */
export function measure(s: string, unit: LengthUnit = 'utf16'): number {
  if (unit === 'utf16') return s.length;
  if (unit === 'utf8_bytes') return Buffer.byteLength(s, 'utf8');
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * The spans common Markdown must keep whole — a fence's backticks, platform-specific tokens (`platform`, e.g.
 * Discord's `<@id>`), a Markdown link, a URL, an inline code span, and one-line `**…**`, `||…||`, `__…__`,
 * `~~…~~` spans up to a whole message of `maxLength` (cutting one open shows a spoiler in clear or leaks markers).
 */
export function markdownProtectedPatterns(maxLength: number, platform: readonly string[] = []): string[] {
  // A whole message minus four markers and a reopened fence: such a span that fits one message moves whole.
  const maxEmphasis = maxLength - 4 - (MAX_LANG + 4);
  return [
    '`{3,}',
    ...platform,
    '\\[[^\\[\\]\\n]{0,256}\\]\\(<?[^\\s()<>]{0,512}>?\\)',
    '<https?://[^\\s<>`]{1,512}>',
    'https?://[^\\s<>`]{1,512}',
    '`[^`\\n]{1,256}`',
    `\\*\\*[^\\n]{1,${maxEmphasis}}?\\*\\*`,
    `\\|\\|[^\\n]{1,${maxEmphasis}}?\\|\\|`,
    `__[^\\n]{1,${maxEmphasis}}?__`,
    `~~[^\\n]{1,${maxEmphasis}}?~~`,
  ];
}

/**
 * Splits `text` into message contents of at most `maxLength` `unit`s (see the module comment for the rules).
 * @returns the chunks in order; [] when `text` is blank
 * @throws RangeError when `maxLength` is below 32
 */
export function splitText(text: string, opts: SplitOptions): string[] {
  return splitTextChunks(text, opts).map((c) => c.text);
}

const regexCache = new Map<string, RegExp>();

function protectedRegex(patterns: readonly string[]): RegExp | null {
  if (patterns.length === 0) return null;
  const source = patterns.join('|');
  let re = regexCache.get(source);
  if (!re) {
    re = new RegExp(source, 'g');
    regexCache.set(source, re);
  }
  return re;
}

/** {@link splitText} with the parts of every chunk, for callers and tests that need the offsets. */
export function splitTextChunks(text: string, opts: SplitOptions): SplitChunk[] {
  const { maxLength } = opts;
  if (!Number.isInteger(maxLength) || maxLength < MIN_LENGTH)
    throw new RangeError(`maxLength must be an integer >= ${MIN_LENGTH}`);
  const m: Measure = { unit: opts.unit ?? 'utf16', fences: opts.codeFences ?? false };
  const spans = protectedSpans(text, protectedRegex(opts.protectedPatterns ?? []));
  const chunks: SplitChunk[] = [];
  let start = 0;
  let fence: FenceState = CLOSED;
  while (start < text.length) {
    const prefix = fence.open ? `\`\`\`${fence.lang.length <= MAX_LANG ? fence.lang : ''}\n` : '';
    let budget = maxLength - measure(prefix, m.unit);
    let end = chooseCut(text, start, budget, spans, fence, m);
    let after = scanFences(text.slice(start, end), fence, m);
    if (
      after.open &&
      measure(prefix, m.unit) +
        measure(text.slice(start, end), m.unit) +
        measure(closingFence(text.slice(start, end)), m.unit) >
        maxLength
    ) {
      budget -= 4;
      end = chooseCut(text, start, budget, spans, fence, m);
      after = scanFences(text.slice(start, end), fence, m);
    }
    if (after.open && end < text.length) {
      // Do not end a chunk right after an opening fence line: move that line to the next chunk.
      const opener = openerLineStart(text, start, end, fence, m);
      if (opener !== null && text.slice(start, opener).trim() !== '') {
        end = opener;
        after = scanFences(text.slice(start, end), fence, m);
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

/** How lengths are counted and whether fences are tracked. */
interface Measure {
  unit: LengthUnit;
  fences: boolean;
}

interface FenceState {
  open: boolean;
  /** Language of the open block ('' when none). */
  lang: string;
}

const CLOSED: FenceState = { open: false, lang: '' };

/** The fence state after `s`, starting from `from`: every run of 3+ backticks toggles it. */
function scanFences(s: string, from: FenceState, m: Measure): FenceState {
  if (!m.fences) return CLOSED;
  let { open, lang } = from;
  FENCE_TOKEN.lastIndex = 0;
  for (let t = FENCE_TOKEN.exec(s); t !== null; t = FENCE_TOKEN.exec(s)) {
    if (open) {
      open = false;
      lang = '';
    } else {
      open = true;
      const rest = /^([^\n`]*)\n/.exec(s.slice(t.index + t[0].length));
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
function openerLineStart(
  text: string,
  start: number,
  end: number,
  before: FenceState,
  m: Measure,
): number | null {
  const body = text.slice(start, end);
  const lastToken = body.lastIndexOf('```');
  if (lastToken < 0) return null;
  const lineStart = body.lastIndexOf('\n', lastToken) + 1;
  if (body.slice(lineStart, lastToken).trim() !== '') return null;
  const afterToken = body.slice(lastToken).replace(/^`+/, '');
  if (!/^[^\n`]*\n?$/.test(afterToken)) return null;
  // The token must be an opener: the state just before it is closed.
  const beforeLine = scanFences(body.slice(0, lineStart), before, m);
  return beforeLine.open ? null : start + lineStart;
}

interface Span {
  start: number;
  end: number;
}

function protectedSpans(text: string, re: RegExp | null): Span[] {
  const spans: Span[] = [];
  if (!re) return spans;
  re.lastIndex = 0;
  for (let t = re.exec(text); t !== null; t = re.exec(text)) {
    spans.push({ start: t.index, end: t.index + t[0].length });
    if (t[0].length === 0) re.lastIndex++;
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

/**
 * The largest index p with text[start, p) at most `budget` units long (UTF-16 offsets; never inside a surrogate
 * pair for the other units).
 */
function limitIndex(text: string, start: number, budget: number, unit: LengthUnit): number {
  if (unit === 'utf16') return Math.min(text.length, start + budget);
  let used = 0;
  let p = start;
  while (p < text.length) {
    const cp = text.codePointAt(p) ?? 0;
    const units = cp > 0xffff ? 2 : 1;
    const cost = unit === 'codepoints' ? 1 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (used + cost > budget) break;
    used += cost;
    p += units;
  }
  return p;
}

/** Minimum fill (fraction of the budget) for a split at a blank line, a newline and a space. */
const MIN_FILL = [0.5, 0.3, 0.1] as const;

/**
 * Where the chunk starting at `start` ends: the whole rest when it fits, else the best split point within
 * `budget` units (see the module comment); `fence` is the block state at `start`. Always > start.
 */
function chooseCut(
  text: string,
  start: number,
  budget: number,
  spans: Span[],
  fence: FenceState,
  m: Measure,
): number {
  const limit = limitIndex(text, start, budget, m.unit);
  if (limit >= text.length) return text.length;
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
    if (p != null && measure(text.slice(start, p), m.unit) >= budget * (MIN_FILL[k] ?? 0)) return p;
  }
  // A short split is still better than a hard cut, unless it would end the chunk with a fence opener line: that
  // chunk would be an empty code block (a long first line in a block is hard-cut instead).
  for (const p of best) if (p != null && !endsWithFenceOpener(text, start, p, fence, m)) return p;
  return hardCut(text, start, solid, limit, spans);
}

/** True when the last non-blank line of text[start, p) is a ``` line that opens a block (`fence`: state at start). */
function endsWithFenceOpener(text: string, start: number, p: number, fence: FenceState, m: Measure): boolean {
  if (!m.fences) return false;
  const body = text.slice(start, p).replace(/\s+$/, '');
  const lineStart = body.lastIndexOf('\n') + 1;
  if (!/^\s*`{3,}[^\n`]*$/.test(body.slice(lineStart))) return false;
  return scanFences(body, fence, m).open;
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

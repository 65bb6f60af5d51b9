import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DISCORD_MAX_CONTENT,
  escapeStatusText,
  splitMessage,
  splitMessageChunks,
  type SplitChunk,
} from './split.ts';

const fenceTokens = (s: string) => (s.match(/`{3,}/g) ?? []).length;
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Pieces that stress the rules: fences with languages, emoji (surrogate pairs, ZWJ), mentions, links, long words. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }) },
  { weight: 4, arbitrary: fc.constantFrom(' ', ' ', '\n', '\n\n', '\t') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '```',
      '```ts\n',
      '```python\n',
      '\n```\n',
      '```averyveryverylonglanguagename\n',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom('😀', '👍🏽', '👩‍💻', '🇯🇵', 'é', 'e\u0301', '漢字', '1\ufe0f\u20e3') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<@123456789012345678>',
      '<:kesoku:123456789012345678>',
      '<t:1700000000:R>',
      '[docs](https://example.com/a/b)',
      'https://example.com/x?y=1',
      '`code`',
      '**bold**',
      '||secret||',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'grapheme-ascii', minLength: 40, maxLength: 400 })
      .map((s) => s.replace(/\s/g, 'x')),
  },
);
const text = fc.array(piece, { maxLength: 400 }).map((parts) => parts.join(''));
const maxLength = fc.integer({ min: 32, max: 400 });

function checkChunks(input: string, max: number, chunks: SplitChunk[]): void {
  let pos = 0;
  for (const c of chunks) {
    expect(c.text.length).toBeLessThanOrEqual(max);
    expect(c.text).toBe(c.prefix + c.body + c.suffix);
    expect(c.body).toBe(input.slice(c.start, c.end));
    expect(c.text.trim()).not.toBe('');
    expect(c.prefix === '' || /^```[A-Za-z0-9_+#.-]*\n$/.test(c.prefix)).toBe(true);
    expect(['', '```', '\n```']).toContain(c.suffix);
    expect(fenceTokens(c.text) % 2).toBe(0);
    // Gaps between chunks are dropped whitespace only.
    expect(input.slice(pos, c.start).trim()).toBe('');
    pos = c.end;
    // Never a torn surrogate pair at a boundary.
    if (c.start > 0)
      expect(isHigh(input.charCodeAt(c.start - 1)) && isLow(input.charCodeAt(c.start))).toBe(false);
  }
  expect(input.slice(pos).trim()).toBe('');
}

describe('splitMessage', () => {
  it('keeps every chunk within the limit, balanced, gap-free and without torn characters (property)', () => {
    fc.assert(
      fc.property(text, maxLength, (input, max) => {
        checkChunks(input, max, splitMessageChunks(input, max));
      }),
      { numRuns: 400 },
    );
  });

  it('gives back the input exactly, modulo the added fence lines, except trailing whitespace (property)', () => {
    fc.assert(
      fc.property(text, maxLength, (input, max) => {
        fc.pre(!/\s{32,}/.test(input));
        const chunks = splitMessageChunks(input, max);
        if (input.trim() === '') expect(chunks).toEqual([]);
        else {
          // Only trailing whitespace may be left out (a whitespace-only last piece is never sent).
          const bodies = chunks.map((c) => c.body).join('');
          expect(bodies).toBe(input.slice(0, bodies.length));
          expect(input.slice(bodies.length).trim()).toBe('');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never splits inside a mention, a custom emoji, a timestamp or a markdown link when a space is available (property)', () => {
    const token = fc.constantFrom(
      '<@123456789012345678>',
      '<:kesoku:123456789012345678>',
      '<t:1700000000:R>',
      '[the docs](https://example.com/docs)',
    );
    const words = fc
      .array(fc.oneof(token, fc.constantFrom('word', 'longerword', 'x')), { minLength: 1, maxLength: 300 })
      .map((w) => w.join(' '));
    fc.assert(
      fc.property(words, fc.integer({ min: 64, max: 300 }), (input, max) => {
        for (const c of splitMessage(input, max)) {
          expect(c).not.toMatch(/<[@:t][^>]*$/);
          expect(c).not.toMatch(/^[^<]*\d>/);
          expect(c).not.toMatch(/\[[^\]]*$/);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('returns short text unchanged and blank text as no chunk', () => {
    expect(splitMessage('hello')).toEqual(['hello']);
    expect(splitMessage('   \n\n ')).toEqual([]);
    expect(splitMessage('x'.repeat(DISCORD_MAX_CONTENT))).toEqual(['x'.repeat(DISCORD_MAX_CONTENT)]);
  });

  it('prefers a blank line, then a newline, then a space', () => {
    const para = (n: number) => `${'word '.repeat(n).trim()}.`;
    const input = `${para(150)}\n\n${para(150)}\n${para(100)}`;
    const chunks = splitMessage(input, 1000);
    expect(chunks[0]).toBe(`${para(150)}\n\n`);
    expect(chunks[1]).toBe(`${para(150)}\n`);
    const noNewlines = 'abc '.repeat(600);
    expect(splitMessage(noNewlines, 1000).every((c) => c.endsWith(' '))).toBe(true);
  });

  it('closes a code block at the end of a chunk and reopens it with the same language', () => {
    const code = Array.from({ length: 300 }, (_, i) => `console.log("line ${i}");`).join('\n');
    const input = `Here is the script:\n\n\`\`\`ts\n${code}\n\`\`\`\nDone.`;
    const chunks = splitMessage(input);
    expect(chunks.length).toBeGreaterThan(2);
    for (const [i, c] of chunks.entries()) {
      expect(c.length).toBeLessThanOrEqual(2000);
      expect(fenceTokens(c) % 2).toBe(0);
      if (i > 0 && i < chunks.length - 1) expect(c.startsWith('```ts\n')).toBe(true);
      if (i < chunks.length - 1) expect(c.endsWith('```')).toBe(true);
    }
    const lines = chunks
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('console.log'));
    expect(lines).toHaveLength(300);
  });

  it('does not leave an opening fence alone at the end of a chunk', () => {
    const input = `${'a'.repeat(1990)}\n\`\`\`js\n${'b'.repeat(50)}\n\`\`\``;
    const chunks = splitMessage(input);
    expect(chunks[0]).toBe(`${'a'.repeat(1990)}\n`);
    expect(chunks[1]).toBe(`\`\`\`js\n${'b'.repeat(50)}\n\`\`\``);
  });

  it('cuts a word longer than a message without tearing a surrogate pair', () => {
    const input = '😀'.repeat(1500);
    const chunks = splitMessage(input);
    expect(chunks.join('')).toBe(input);
    for (const c of chunks) expect(isLow(c.charCodeAt(0))).toBe(false);
  });

  it('never cuts a spoiler, bold, underline or strike span open when it fits in one message', () => {
    for (const mark of ['||', '**', '__', '~~']) {
      const span = `${mark}${'word '.repeat(72)}end${mark}`; // 363 characters, spaces inside
      const chunks = splitMessage(`${'lead '.repeat(340)}${span} tail`);
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(c.split(mark).length % 2, `${mark} balanced in ${c.slice(-60)}`).toBe(1);
      expect(chunks.some((c) => c.includes(span))).toBe(true);
    }
  });

  it('keeps emphasis spans whole wherever they fall (property)', () => {
    const spanArb = fc.tuple(fc.constantFrom('||', '**', '__', '~~'), fc.integer({ min: 1, max: 1500 })).map(
      ([mark, n]) =>
        `${mark}${
          'ab '
            .repeat(Math.ceil(n / 3))
            .slice(0, n)
            .trim() || 'x'
        }${mark}`,
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), spanArb, (lead, span) => {
        const input = `${'x '.repeat(lead)}${span} after`;
        const chunks = splitMessage(input);
        expect(chunks.some((c) => c.includes(span))).toBe(true);
        for (const c of chunks) expect(c.length).toBeLessThanOrEqual(DISCORD_MAX_CONTENT);
      }),
      { numRuns: 60 },
    );
  });

  it('hard-cuts a code block whose first line is longer than a message instead of sending an empty block', () => {
    const long = 'x'.repeat(3000);
    for (const input of [
      `\`\`\`json\n${long}\n\`\`\``,
      `-# ⏱ 1.0s · 🔧 0 tools · 9 tokens\n\`\`\`json\n${long}\n\`\`\``,
    ]) {
      const chunks = splitMessage(input);
      for (const c of chunks) {
        expect(c.length).toBeLessThanOrEqual(DISCORD_MAX_CONTENT);
        expect(c.replace(/`{3}[a-z]*\n?/g, '').trim(), `empty block: ${JSON.stringify(c)}`).not.toBe('');
        expect(fenceTokens(c) % 2).toBe(0);
      }
      expect(chunks.join('').replace(/\n?```(json)?\n?/g, '')).toContain(long.slice(0, 1900));
    }
  });

  it('escapes markdown in status text so a thought cannot open a code block or bold text', () => {
    const thought = 'try ```js and **this** or ||that|| # now';
    const line = escapeStatusText(thought);
    expect(fenceTokens(line)).toBe(0);
    expect(line).not.toMatch(/(?<!\\)\*\*|(?<!\\)\|\|/);
    expect(line.replace(/\\/g, '')).toBe(thought);
  });

  it('rejects a limit too small for a reopened fence', () => {
    expect(() => splitMessage('x', 10)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { cleanTitle } from './prompts.ts';
import { TITLE_MAX_CHARS, sanitizeTitle, titleProblem } from './session-settings.ts';

describe('titleProblem', () => {
  it('accepts a plain title, emoji and CJK included', () => {
    expect(titleProblem('Deploy notes 🚀 部署')).toBeNull();
  });

  it('refuses escape sequences, C1 controls, line breaks and bidi overrides', () => {
    for (const t of ['\x1b]0;pwned\x07', 'a\u009d0;x\u009cb', 'two\nlines', 'abc\u202Efdp.exe', 'x\u2066y']) {
      expect(titleProblem(t)).toMatch(/control characters/);
    }
  });

  it(`counts code points: ${TITLE_MAX_CHARS} emoji fit, one more does not`, () => {
    expect(titleProblem('😀'.repeat(TITLE_MAX_CHARS))).toBeNull();
    expect(titleProblem('😀'.repeat(TITLE_MAX_CHARS + 1))).toMatch(/1-200/);
  });
});

describe('generated titles follow the same rule', () => {
  it('cleanTitle drops escape sequences, C1 controls, bidi overrides and unstorable characters', () => {
    const cases: [string, string][] = [
      ['\x1b]0;pwned\x07Deploy notes', ']0;pwned Deploy notes'],
      ['Title: "abc\u202Efdp.exe"', 'abc fdp.exe'],
      ['a\u009d0;x\u009cb', 'a 0;x b'],
      ['tab\there\rand\u2066isolate', 'tab here and isolate'],
      ['nul\u0000and\ud800lone', 'nul\u2400and\uFFFDlone'],
    ];
    for (const [raw, want] of cases) {
      const t = cleanTitle(raw);
      expect(t, JSON.stringify(raw)).toBe(want);
      expect(titleProblem(t)).toBeNull();
    }
  });

  it('a title of nothing but controls is no title', () => {
    expect(cleanTitle('\x1b\x07\u202E')).toBeNull();
    expect(sanitizeTitle(' \x1b ')).toBeNull();
  });

  it(`sanitizeTitle cuts to ${TITLE_MAX_CHARS} code points`, () => {
    const t = sanitizeTitle('😀'.repeat(TITLE_MAX_CHARS + 5)) ?? '';
    expect([...t]).toHaveLength(TITLE_MAX_CHARS);
    expect(titleProblem(t)).toBeNull();
  });
});

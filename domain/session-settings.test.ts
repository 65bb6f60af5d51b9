import { describe, expect, it } from 'vitest';
import { TITLE_MAX_CHARS, titleProblem } from './session-settings.ts';

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

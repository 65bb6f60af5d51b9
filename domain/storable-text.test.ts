import { describe, expect, it } from 'vitest';
import { NUL_REPLACEMENT, hasUnstorableText, storableJson, storableText } from './storable-text.ts';

describe('storable text', () => {
  it('replaces NUL with the symbol for null and unpaired surrogates with U+FFFD, keeping pairs', () => {
    expect(storableText('a\u0000b')).toBe(`a${NUL_REPLACEMENT}b`);
    expect(storableText('x\ud800y\udc00z')).toBe('x\uFFFDy\uFFFDz');
    expect(storableText('emoji 😀 stays')).toBe('emoji 😀 stays');
    expect(hasUnstorableText('plain')).toBe(false);
    expect(hasUnstorableText('\u0000')).toBe(true);
  });

  it('walks JSON values, keys included, and says whether it replaced anything', () => {
    const clean = { a: ['x', 1, null, { b: true }] };
    expect(storableJson(clean)).toEqual({ value: clean, replaced: false });
    expect(storableJson(clean).value).toBe(clean);
    expect(storableJson({ 'k\u0000': ['v\u0000', { w: '\ud83d' }] })).toEqual({
      value: { [`k${NUL_REPLACEMENT}`]: [`v${NUL_REPLACEMENT}`, { w: '\uFFFD' }] },
      replaced: true,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { WECHAT_MAX_TEXT_BYTES, splitUtf8, toPlainText } from './text.ts';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('WeChat text', () => {
  it('strips Markdown to plain text and keeps link addresses', () => {
    const plain = toPlainText(
      '# Result\n\nThe **tests** pass; see `npm test` and [the docs](https://example.com/a).\n\n- one\n- two\n\n```sh\nnpm test\n```',
    );
    expect(plain).toBe(
      'Result\n\nThe tests pass; see npm test and the docs (https://example.com/a).\n\n- one\n- two\n\nnpm test',
    );
  });

  it('splits multi-byte Chinese text by UTF-8 bytes, losing nothing and never cutting a character', () => {
    const text = '测试结果：全部通过。'.repeat(200); // 30 bytes per repetition, 6000 bytes
    const chunks = splitUtf8(text);
    expect(chunks.length).toBe(3);
    for (const c of chunks) expect(bytes(c)).toBeLessThanOrEqual(WECHAT_MAX_TEXT_BYTES);
    expect(chunks.join('')).toBe(text);
    // Cut after a sentence mark, not in the middle of a sentence.
    for (const c of chunks.slice(0, -1)) expect(c.endsWith('。')).toBe(true);
    // A limit counted in characters would have put 2048 characters (6144 bytes) in one chunk.
    expect(chunks.every((c) => c.length < 2048)).toBe(true);
  });

  it('prefers paragraph and line breaks, and keeps emoji clusters whole', () => {
    const para = 'a'.repeat(1500);
    expect(splitUtf8(`${para}\n\n${para}`)).toEqual([para, para]);
    const family = '👨‍👩‍👧';
    const chunks = splitUtf8(family.repeat(10), 40);
    expect(chunks.join('')).toBe(family.repeat(10));
    for (const c of chunks) {
      expect(bytes(c)).toBeLessThanOrEqual(40);
      expect(c.split(family).join('')).toBe('');
    }
  });

  it('hard-cuts one long word on a character boundary', () => {
    const word = '汉'.repeat(1000); // 3000 bytes, no break opportunity
    const chunks = splitUtf8(word);
    expect(chunks.map(bytes)).toEqual([2046, 954]);
    expect(chunks.join('')).toBe(word);
  });
});

// Google Chat text is split by its own rules: Chat's mention tokens are kept whole at a cut.
import { describe, expect, it } from 'vitest';
import { splitChatText } from './sink.ts';

describe('splitChatText', () => {
  it('never cuts a <users/…> mention, and keeps every character', () => {
    const mention = '<users/112233445566778899>';
    for (let pad = 20; pad < 40; pad++) {
      const text = `${'a'.repeat(pad)}${mention} ${'b'.repeat(30)}`;
      const chunks = splitChatText(text, 48);
      for (const c of chunks) expect(c.length).toBeLessThanOrEqual(48);
      expect(
        chunks.some((c) => c.includes(mention)),
        chunks.join(' | '),
      ).toBe(true);
      expect(chunks.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    }
  });
});

// Splitting by the platform's unit (UTF-8 bytes, code points) keeps every character and tears none.
import { describe, expect, it } from 'vitest';
import { measure, splitText } from './split.ts';

describe('splitText', () => {
  it('splits by UTF-8 bytes and by code points without losing or tearing text', () => {
    const text = `${'漢字かな交じり文。'.repeat(300)}\n\n${'😀 emoji '.repeat(400)}`;
    const bytes = splitText(text, { maxLength: 2048, unit: 'utf8_bytes' });
    expect(bytes.length).toBeGreaterThan(1);
    for (const c of bytes) expect(measure(c, 'utf8_bytes')).toBeLessThanOrEqual(2048);
    expect(bytes.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    for (const c of bytes) expect(c.isWellFormed()).toBe(true);
    const points = splitText(text, { maxLength: 1000, unit: 'codepoints' });
    for (const c of points) expect(measure(c, 'codepoints')).toBeLessThanOrEqual(1000);
    expect(points.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    // Plain text: a ``` is just text (no fences added).
    const plain = splitText(`\`\`\`\n${'line\n'.repeat(100)}`, { maxLength: 64, unit: 'utf8_bytes' });
    expect(plain.slice(1).every((c) => !c.startsWith('```'))).toBe(true);
  });
});

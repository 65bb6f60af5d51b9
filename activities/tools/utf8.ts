/** Cutting UTF-8 byte buffers without splitting a character (the decoders would turn the halves into U+FFFD). */

/** Largest j ≤ i such that `buf[0, j)` does not end inside a UTF-8 character (assuming `buf` starts on one). */
export function utf8CutBack(buf: Uint8Array, i: number): number {
  let lead = i;
  while (lead > 0 && i - lead < 4 && (buf[lead - 1]! & 0xc0) === 0x80) lead--;
  if (lead === 0) return i;
  const b = buf[lead - 1]!;
  const width = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead - 1 + width > i ? lead - 1 : i;
}

/** Smallest j ≥ i such that `buf[j, …)` does not start inside a UTF-8 character (skips at most 3 bytes). */
export function utf8CutForward(buf: Uint8Array, i: number): number {
  let j = i;
  while (j < buf.length && j - i < 3 && (buf[j]! & 0xc0) === 0x80) j++;
  return j;
}

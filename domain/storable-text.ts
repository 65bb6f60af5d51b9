/**
 * Text that Postgres can store. A `text` column refuses the NUL character (U+0000), and `jsonb` refuses both
 * `\u0000` and unpaired UTF-16 surrogates (`\ud800` without its partner); tool output (`printf 'a\000b'`)
 * and model text can contain either. Before anything is stored it passes through here: NUL becomes
 * {@link NUL_REPLACEMENT} (the visible "symbol for null"), an unpaired surrogate becomes U+FFFD, and the
 * caller marks the row (`metadata.text_replaced = true`) so people and tools can tell.
 *
 * Pure module: no I/O, importable by workflow code.
 */

/** What a NUL character is replaced with: U+2400 SYMBOL FOR NULL. */
export const NUL_REPLACEMENT = '\u2400';

// NUL, or a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this finds
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Whether `s` holds a character Postgres text or jsonb would refuse. */
export function hasUnstorableText(s: string): boolean {
  UNSTORABLE.lastIndex = 0;
  const found = UNSTORABLE.test(s);
  UNSTORABLE.lastIndex = 0;
  return found;
}

/** `s` with NUL replaced by {@link NUL_REPLACEMENT} and unpaired surrogates by U+FFFD. */
export function storableText(s: string): string {
  if (!hasUnstorableText(s)) return s;
  return s.replace(UNSTORABLE, (c) => (c === '\u0000' ? NUL_REPLACEMENT : '\uFFFD'));
}

/**
 * A JSON value with every string (object keys included) made storable.
 * @returns the value (the same object when nothing changed) and whether anything was replaced
 */
export function storableJson<T>(value: T): { value: T; replaced: boolean } {
  let replaced = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const s = storableText(v);
      if (s !== v) replaced = true;
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k) as string, walk(x)]));
    }
    return v;
  };
  const out = walk(value) as T;
  return { value: replaced ? out : value, replaced };
}

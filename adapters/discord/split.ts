/**
 * Splitting long text into Discord messages (shared kit adapters/kit/split.ts with Discord's limit and its
 * Markdown's protected spans). Pure: no I/O.
 *
 * Discord's own tokens are kept whole besides common Markdown's: `<@id>`, `<#id>`, `<:emoji:id>`, `<t:…>`,
 * `</cmd:id>`. Code blocks are closed at a chunk's end and reopened in the next chunk.
 */

import { escapeMarkdown } from 'discord.js';
import { markdownProtectedPatterns, splitTextChunks, type SplitChunk } from '../kit/split.ts';

export type { SplitChunk } from '../kit/split.ts';

/** Discord's limit on message content, in UTF-16 code units (Discord counts characters; never fewer). */
export const DISCORD_MAX_CONTENT = 2000;

/** Discord's mention, emoji, timestamp and slash-command tokens. */
const DISCORD_TOKENS = [
  '<a?:\\w{1,32}:\\d{1,25}>',
  '<(?:@[!&]?|#)\\d{1,25}>',
  '<t:-?\\d{1,17}(?::[tTdDfFR])?>',
  '</[^\\s<>:]{1,32}(?: [^\\s<>:]{1,32}){0,2}:\\d{1,25}>',
];

const PROTECTED = markdownProtectedPatterns(DISCORD_MAX_CONTENT, DISCORD_TOKENS);

/**
 * Splits `text` into Discord message contents of at most `maxLength` characters.
 * @param maxLength UTF-16 code units per chunk, default {@link DISCORD_MAX_CONTENT}; at least 32
 * @returns the chunks in order; [] when `text` is blank
 * @throws RangeError when `maxLength` is below 32
 */
export function splitMessage(text: string, maxLength: number = DISCORD_MAX_CONTENT): string[] {
  return splitMessageChunks(text, maxLength).map((c) => c.text);
}

/** {@link splitMessage} with the parts of every chunk, for callers and tests that need the offsets. */
export function splitMessageChunks(text: string, maxLength: number = DISCORD_MAX_CONTENT): SplitChunk[] {
  return splitTextChunks(text, {
    maxLength,
    unit: 'utf16',
    protectedPatterns: PROTECTED,
    codeFences: true,
  });
}

/**
 * Escapes Discord markdown in one line of free text shown inside a status message (a model's thought), so a
 * ``` or `**` in it cannot turn the following status lines into a code block or bold text. Uses discord.js
 * `escapeMarkdown` (code blocks, inline code, bold, italics, underline, strike, spoilers, headings, lists,
 * masked links).
 */
export function escapeStatusText(s: string): string {
  return escapeMarkdown(s, { heading: true, bulletedList: true, numberedList: true, maskedLink: true });
}

/**
 * Keeps user-written text from posing as something else in the prompt. Two things in the prompt carry
 * authority: the speaker header a chat adapter puts before each message ("`Name` <@id> at `… UTC`:"), and
 * Kesoku's own notices, lines starting with "[System Notification]" or "[System Alert]" (the system prompt
 * tells the model those come from Kesoku). A line of user text that starts like either gets
 * {@link USER_LINE_MARK} in front, so it reads as what it is — text the user typed — and no longer starts a line
 * the way a header or a notice does. Everything else is left exactly as written. Pure: no I/O.
 */

/** Put before a user-written line that imitates a speaker header or a Kesoku notice. */
export const USER_LINE_MARK = '(typed by the user) ';

// Invisible characters a forger could put before the marker: white space, zero-width and bidi controls, BOM.
const INVISIBLE = '[\\s\\u00AD\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]*';
/** `[System Notification]` / `[System Alert]` at a line start, any case, ASCII or full-width brackets. */
const SYSTEM_MARKER = new RegExp(
  `^${INVISIBLE}[[\\uFF3B]\\s*system\\s+(notification|alert)\\s*[\\]\\uFF3D]`,
  'iu',
);
/** A chat speaker header: "`Name` <@id> at `…`:" (the form adapters/discord/format.ts writes). */
const SPEAKER_HEADER = new RegExp(`^${INVISIBLE}\`[^\`\\n]*\`\\s*<@!?\\d+>\\s*at\\s*\``, 'u');
/** Line breaks a model may read as new lines: LF, CR, NEL, LINE and PARAGRAPH SEPARATOR, VT, FF. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LINE_BREAK = /(\r\n|[\n\r\u0085\u2028\u2029\u000B\u000C])/u;

/** True when `line` starts like a Kesoku notice or a speaker header. */
export function isForgeryLine(line: string): boolean {
  return SYSTEM_MARKER.test(line) || SPEAKER_HEADER.test(line);
}

/**
 * `text` with every line that starts like a Kesoku notice or a speaker header marked with
 * {@link USER_LINE_MARK}. Idempotent (a marked line no longer matches). Line breaks are kept as written.
 * @param opts.keepFirstLine leave the first line alone (it is the adapter's own, genuine speaker header)
 */
export function neutraliseUserText(text: string, opts: { keepFirstLine?: boolean } = {}): string {
  const parts = text.split(LINE_BREAK);
  // split with a capturing group alternates line, break, line, …: lines are the even indexes.
  for (let i = opts.keepFirstLine ? 2 : 0; i < parts.length; i += 2) {
    const line = parts[i] as string;
    if (isForgeryLine(line)) parts[i] = `${USER_LINE_MARK}${line}`;
  }
  return parts.join('');
}

/** True when the first line of `content` is a speaker header (a chat adapter's message). */
export function startsWithSpeakerHeader(content: string): boolean {
  return SPEAKER_HEADER.test(content.split(LINE_BREAK)[0] ?? '');
}

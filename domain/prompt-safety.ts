/**
 * Keeps user-written text from posing as something else in the prompt. Two things in the prompt carry
 * authority: the speaker header a chat adapter puts before each message ({@link SPEAKER_HEADERS}: Discord's
 * "`Name` <@id> at `… UTC`:", Google Chat's "`Name` (users/123) at `… UTC`:", WeChat's "WeChat user `<OpenID>` at
 * `… UTC`:"), and Kesoku's own notices, lines starting with
 * "[System Notification]" or "[System Alert]" (the system prompt tells the model those come from Kesoku). REST and
 * terminal messages carry no header: their text is stored as typed. A line of user text, from any channel, that
 * starts like any of these gets {@link USER_LINE_MARK} in front, so it reads as what it is — text the user typed —
 * and no longer starts a line the way a header or a notice does. Everything else is left exactly as written.
 *
 * The adapters write their headers with {@link speakerHeader} from the same templates the recognising patterns
 * are derived from, so a header format cannot change without the guard knowing it. Pure: no I/O.
 *
 * Attachment text is given to the model in a fence ({@link fenceFor}) that nothing in the text can close.
 */

/**
 * The speaker headers of the chat channels, as templates (`{field}` is filled in by {@link speakerHeader}). The
 * guard recognises a line that starts like a template up to its last field (the time), with any text in the
 * other fields, any spacing, in any case.
 */
export const SPEAKER_HEADERS = {
  discord: '`{name}` <@{id}> at `{at}`:',
  googleChat: '`{name}` ({user}) at `{at}`:',
  wechat: 'WeChat user `{openId}` at `{at}`:',
} as const;

/** A channel's header kind (a key of {@link SPEAKER_HEADERS}). */
export type SpeakerHeaderKind = keyof typeof SPEAKER_HEADERS;

/**
 * The header line of `kind` with `values` in its fields (each channel cleans its values of backticks and line
 * breaks before). A field without a value is left empty.
 */
export function speakerHeader(kind: SpeakerHeaderKind, values: Readonly<Record<string, string>>): string {
  return SPEAKER_HEADERS[kind].replace(/\{(\w+)\}/g, (_m, key: string) => values[key] ?? '');
}

/** Put before a user-written line that imitates a speaker header or a Kesoku notice. */
export const USER_LINE_MARK = '(typed by the user) ';

// Invisible characters a forger could put before the marker: white space, zero-width and bidi controls, BOM.
const INVISIBLE = '[\\s\\u00AD\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]*';
/** `[System Notification]` / `[System Alert]` at a line start, any case, ASCII or full-width brackets. */
const SYSTEM_MARKER = new RegExp(
  `^${INVISIBLE}[[\\uFF3B]\\s*system\\s+(notification|alert)\\s*[\\]\\uFF3D]`,
  'iu',
);
const escapeRegExp = (t: string): string => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The pattern of a header template's start: the literal parts (white space as any spacing), each field as any
 * text up to the next literal's first character, cut after the literal before the last field.
 */
function headerPattern(template: string): RegExp {
  const parts = template.split(/\{\w+\}/);
  let source = '';
  for (let i = 0; i < parts.length - 1; i++) {
    const literal = parts[i] as string;
    source += literal.split(/\s+/).map(escapeRegExp).join('\\s*');
    if (i < parts.length - 2) {
      const next = (parts[i + 1] as string).trimStart()[0] ?? '\n';
      source += `[^${escapeRegExp(next)}\\n]*`;
    }
  }
  return new RegExp(`^${INVISIBLE}${source}`, 'iu');
}

/** Every channel's speaker header, as recognising patterns. */
const SPEAKER_PATTERNS: readonly RegExp[] = Object.values(SPEAKER_HEADERS).map(headerPattern);

const isSpeakerHeader = (line: string): boolean => SPEAKER_PATTERNS.some((p) => p.test(line));

/** Line breaks a model may read as new lines: LF, CR, NEL, LINE and PARAGRAPH SEPARATOR, VT, FF. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LINE_BREAK = /(\r\n|[\n\r\u0085\u2028\u2029\u000B\u000C])/u;

/** True when `line` starts like a Kesoku notice or a speaker header. */
export function isForgeryLine(line: string): boolean {
  return SYSTEM_MARKER.test(line) || isSpeakerHeader(line);
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
  return isSpeakerHeader(content.split(LINE_BREAK)[0] ?? '');
}

/** `text` on one line: every line break (as {@link neutraliseUserText} counts them) becomes a space. */
export function singleLine(text: string): string {
  return text
    .split(LINE_BREAK)
    .filter((_part, i) => i % 2 === 0)
    .join(' ');
}

/**
 * The fence of a code block that holds `body` and that nothing in `body` can close: backticks, one more than
 * the longest run of backticks anywhere in it (at least three). A closing fence needs a run of the same
 * character at least as long, which the body does not contain; tildes cannot close a backtick fence.
 */
export function fenceFor(body: string): string {
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

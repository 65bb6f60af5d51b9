/**
 * The session settings a user can change — mode and title — and their rules, in one place for the REST API,
 * the chat adapters and the session workflow's update validators.
 *
 * Pure module: importable by workflow code.
 */
import { textProblem } from './inbound.ts';

/**
 * How a session treats a message that arrives while a turn runs: `interrupt` cancels the running user turn and
 * runs only the newest waiting message; `queue` runs every message in arrival order.
 */
export const SESSION_MODES = ['interrupt', 'queue'] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

/** The mode of a new session. */
export const DEFAULT_SESSION_MODE: SessionMode = 'interrupt';

export function isSessionMode(value: unknown): value is SessionMode {
  return typeof value === 'string' && (SESSION_MODES as readonly string[]).includes(value);
}

/** Where a session's title came from: none yet, generated after the first turn, or set by the user. */
export type TitleSource = 'default' | 'auto' | 'user';

/** Longest title, in code points, after trimming. */
export const TITLE_MAX_CHARS = 200;

/** C0 and C1 controls and bidi overrides: a title is printed in terminals and chat headers, one line, as typed. */
// eslint-disable-next-line no-control-regex
const TITLE_CONTROLS = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

/**
 * Why `title` cannot be a session title, or null: 1-200 code points after trimming, storable text, and no control
 * characters (an escape sequence in a title would act on every terminal that prints it).
 */
export function titleProblem(title: unknown): string | null {
  if (typeof title !== 'string') return 'title must be a string';
  const t = title.trim();
  if (t.length === 0 || [...t].length > TITLE_MAX_CHARS)
    return `title must be 1-${TITLE_MAX_CHARS} characters`;
  if (TITLE_CONTROLS.test(t))
    return 'title must not contain control characters (line breaks, escape sequences, bidi overrides)';
  const bad = textProblem(t);
  return bad ? `title ${bad}` : null;
}

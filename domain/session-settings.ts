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

/** Why `title` cannot be a session title, or null: 1-200 code points after trimming, storable text. */
export function titleProblem(title: unknown): string | null {
  if (typeof title !== 'string') return 'title must be a string';
  const t = title.trim();
  if (t.length === 0 || [...t].length > TITLE_MAX_CHARS) return `title must be 1-${TITLE_MAX_CHARS} characters`;
  const bad = textProblem(t);
  return bad ? `title ${bad}` : null;
}

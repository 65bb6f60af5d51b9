/**
 * What the page keeps in the browser, and where:
 * - the bearer token in **session storage** (this tab only, gone when the tab closes; never in a URL, a cookie or
 *   local storage), so the API's principal rules apply to the page exactly as to any client with that token;
 * - the messages not sent yet (the outbox, adapters/web/src/outbox.ts) in session storage too, so a reload of the
 *   tab sends them once (their ids are idempotency keys);
 * - in **local storage**, only what holds no secret: the theme, and the revision seen per session (unread marks).
 * The page's settings from the server (limits, whether tokens are needed) are in a `<meta name="kesoku-config">`
 * tag that api/routes/web.ts fills in.
 */

const TOKEN_KEY = 'kesoku.token';
const SEEN_KEY = 'kesoku.seen';
const THEME_KEY = 'kesoku.theme';
const OUTBOX_KEY = 'kesoku.outbox';

/** Storage that may be unavailable (private modes, quotas): every access is guarded. */
function read(store: Storage, key: string): string | null {
  try {
    return store.getItem(key);
  } catch {
    return null;
  }
}

function write(store: Storage, key: string, value: string | null): void {
  try {
    if (value === null) store.removeItem(key);
    else store.setItem(key, value);
  } catch {
    // Not kept: the page still works for this tab's life.
  }
}

export const tokenStore = {
  get: (): string | null => read(sessionStorage, TOKEN_KEY),
  set: (token: string | null): void => write(sessionStorage, TOKEN_KEY, token),
};

export const outboxStore = {
  get: (): string | null => read(sessionStorage, OUTBOX_KEY),
  set: (json: string | null): void => write(sessionStorage, OUTBOX_KEY, json),
};

/** The revision last seen per session id. */
export const seenStore = {
  all(): Record<string, number> {
    try {
      const parsed = JSON.parse(read(localStorage, SEEN_KEY) ?? '{}') as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, number>) : {};
    } catch {
      return {};
    }
  },
  set(sessionId: string, revision: number): void {
    const all = seenStore.all();
    if ((all[sessionId] ?? -1) >= revision) return;
    all[sessionId] = revision;
    // Bounded: the 500 most recently written ids.
    const entries = Object.entries(all);
    const kept = entries.length > 500 ? Object.fromEntries(entries.slice(-500)) : all;
    write(localStorage, SEEN_KEY, JSON.stringify(kept));
  },
};

export type ThemeChoice = 'auto' | 'light' | 'dark';

export const themeStore = {
  get(): ThemeChoice {
    const v = read(localStorage, THEME_KEY);
    return v === 'light' || v === 'dark' ? v : 'auto';
  },
  set(choice: ThemeChoice): void {
    write(localStorage, THEME_KEY, choice === 'auto' ? null : choice);
    applyTheme(choice);
  },
};

/** Sets `data-theme` on the root element (absent: the system's `prefers-color-scheme`). */
export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** The server's settings for the page (api/routes/web.ts `PageConfig`). */
export interface PageConfig {
  /** True when the API needs a bearer token. */
  auth: boolean;
  limits: {
    /** Largest file sent inline, decoded bytes. */
    attachmentBytes: number;
    /** Files per message. */
    attachments: number;
    /** Largest request body, bytes. */
    bodyBytes: number;
    /** Largest message text, UTF-8 bytes. */
    contentBytes: number;
  };
}

const DEFAULT_CONFIG: PageConfig = {
  auth: false,
  limits: { attachmentBytes: 180 * 1024, attachments: 16, bodyBytes: 256 * 1024, contentBytes: 64 * 1024 },
};

/** The config of the `<meta name="kesoku-config">` tag; the defaults when it is missing or unreadable. */
export function pageConfig(): PageConfig {
  const raw = document.querySelector('meta[name="kesoku-config"]')?.getAttribute('content');
  if (!raw) return DEFAULT_CONFIG;
  try {
    const parsed = JSON.parse(raw) as Partial<PageConfig>;
    return { auth: parsed.auth === true, limits: { ...DEFAULT_CONFIG.limits, ...parsed.limits } };
  } catch {
    return DEFAULT_CONFIG;
  }
}

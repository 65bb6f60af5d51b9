/**
 * Command-line options and environment of `npm run chat` (adapters/cli/main.ts). Pure: argv and env come in.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ID_PATTERN, LIMITS } from '../../domain/inbound.ts';

/** Everything the client needs to start. Durations in seconds. */
export interface CliOptions {
  /** The session to talk to. */
  session: string;
  /** No `--session` was given: `session` is a fresh id made here. */
  sessionGenerated: boolean;
  /** API base URL without a trailing slash. */
  url: string;
  /** Bearer token, when one is configured. */
  token: string | undefined;
  /** Who the sent messages are from: `$USER`, else "you". */
  sender: string;
  /** Show the running turn live; undefined = when stdout is a terminal. */
  live: boolean | undefined;
  /** Messages of an existing session's history printed on start. */
  history: number;
  /** Piped input: how long to wait for each turn to end. */
  turnTimeoutS: number;
  /** Print final replies as written instead of rendering their Markdown (which happens only on a terminal). */
  plain: boolean;
  help: boolean;
}

export type ParsedOptions = { ok: true; options: CliOptions } | { ok: false; error: string };

/** The `--help` text. */
export const USAGE = `Usage: npm run chat [-- options]

Talk to Kesoku from the terminal through its REST API.

Options:
  --session NAME    the session to join or create (default: a new one, cli-<date>-<random>)
  --url URL         the Kesoku API (default: $KESOKU_API_URL, else http://127.0.0.1:$KESOKU_API_PORT or :3000)
  --live, --no-live show the running turn live (default: only when stdout is a terminal)
  --history N       messages of an existing session to show on start (default 10)
  --timeout S       piped input: seconds to wait for each turn to end (default 300)
  --plain           print replies as written (default: Markdown rendered when stdout is a terminal)
  -h, --help        this text

Environment: KESOKU_API_TOKEN (or the admin's, else the first, token of KESOKU_API_TOKENS) is sent as the bearer token;
FORCE_COLOR=1 keeps colours when the output is piped.

With piped input each line is sent after the previous line's turn ended, and the client exits after the last
one: printf 'run: ls\\n/quit\\n' | npm run chat -- --session demo

Type /help in the chat for its commands.`;

/**
 * The token to send from `KESOKU_API_TOKENS` (`name:token,…`): the `admin` entry's when there is one (it
 * reaches chat-channel sessions too), else the first entry's.
 */
export function tokenFromList(list: string): string | undefined {
  const entries = list
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => {
      const colon = t.indexOf(':');
      return colon > 0
        ? { name: t.slice(0, colon), token: t.slice(colon + 1).trim() }
        : { name: '', token: t };
    });
  return (entries.find((e) => e.name === 'admin') ?? entries[0])?.token;
}

/** The API the client talks to when neither `--url`, `KESOKU_API_URL` nor `KESOKU_API_PORT` says otherwise. */
export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/**
 * The command that starts the terminal client on `url` (and joins `session`): `--url` is named only when the URL
 * is not {@link DEFAULT_API_URL}, so the command works as printed whatever the environment of the next shell.
 * Session ids (domain/inbound.ts ID_PATTERN) and http URLs without spaces need no shell quoting; others are quoted.
 */
export function chatCommand(url: string, session?: string): string {
  const base = url.replace(/\/+$/, '');
  const args = [
    ...(session !== undefined ? ['--session', shellWord(session)] : []),
    ...(base !== DEFAULT_API_URL ? ['--url', shellWord(base)] : []),
  ];
  return args.length > 0 ? `npm run chat -- ${args.join(' ')}` : 'npm run chat';
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9_.:@/%+=,-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** A fresh session id: `cli-<yyyymmdd>-<6 hex>`. */
export function newSessionId(now: Date = new Date()): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '');
  return `cli-${date}-${randomBytes(3).toString('hex')}`;
}

/** Parses argv (without node and the script) and the environment. Never throws. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      allowNegative: true,
      options: {
        session: { type: 'string' },
        url: { type: 'string' },
        live: { type: 'boolean' },
        history: { type: 'string' },
        timeout: { type: 'string' },
        plain: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  const session = values.session?.trim();
  if (session !== undefined && !ID_PATTERN.test(session)) {
    return { ok: false, error: `--session: session ids are 1-128 characters of A-Z a-z 0-9 _ . : @ -` };
  }
  const url = (values.url ?? env.KESOKU_API_URL ?? '').trim() || `http://127.0.0.1:${apiPort(env)}`;
  if (!/^https?:\/\/[^/]/.test(url)) return { ok: false, error: `--url: not an http(s) URL: ${url}` };
  const history = count(values.history, 10, 0, 1000);
  if (history === null) return { ok: false, error: '--history: a whole number from 0 to 1000' };
  const turnTimeoutS = count(values.timeout, 300, 1, 86_400);
  if (turnTimeoutS === null) return { ok: false, error: '--timeout: seconds, from 1 to 86400' };
  const token = env.KESOKU_API_TOKEN?.trim() || tokenFromList(env.KESOKU_API_TOKENS ?? '') || undefined;
  const user = (env.USER ?? env.USERNAME ?? '').trim();
  return {
    ok: true,
    options: {
      session: session ?? newSessionId(),
      sessionGenerated: session === undefined,
      url: url.replace(/\/+$/, ''),
      token,
      sender: (user || 'you').slice(0, LIMITS.maxSenderLength),
      live: values.live,
      history,
      turnTimeoutS,
      plain: values.plain === true,
      help: values.help === true,
    },
  };
}

function apiPort(env: NodeJS.ProcessEnv): string {
  const port = env.KESOKU_API_PORT?.trim();
  return port && /^\d{1,5}$/.test(port) && port !== '0' ? port : '3000';
}

function count(value: string | undefined, fallback: number, min: number, max: number): number | null {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim())) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}

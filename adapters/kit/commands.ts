/**
 * The chat-command rule shared by every channel (the terminal client and the chat adapters): when a line of
 * user text is a command, and which commands take an argument.
 *
 * A message is a command only when the WHOLE message is one:
 * - commands without an argument (`/stop`, `/compact`, `/schedules`, and each channel's own such as `/help`, `/new`, `/quit`)
 *   match only bare: `/stop the nginx service after the backup` is ordinary text for the agent;
 * - `/title <text>` takes the rest of the message (1-`TITLE_MAX_CHARS` code points, the session-title rule of
 *   domain/session-settings.ts); a bare `/title` is a usage error;
 * - `/mode interrupt|queue`, `/locale en|zh` and `/approval off|writes|all` take exactly one word; a bare form or one unknown word is a usage
 *   error, while more words (`/mode of transport: which is cheaper?`) are ordinary text;
 * - `/memory` lists what the agent remembers about the sender, `/memory forget <id>` forgets one entry; one other
 *   word is a usage error, more words ordinary text; `/link` (bare) asks for a code linking the sender to a principal;
 * - anything else starting with `/` (`/etc/hosts lacks a line`, `/usr/bin/env please`) is ordinary text, except
 *   a single bare word of letters (`/hlep`), which is reported as `unknown` so a channel may point at its help.
 * Matching of the command word is case-insensitive. Leading and trailing white space is ignored.
 */
import type { SessionLocale } from '../../domain/failures.ts';
import type { SessionMode } from '../../workflows/definitions.ts';
import { TITLE_MAX_CHARS } from '../../domain/session-settings.ts';
import { isApprovalPolicy, type ApprovalPolicy } from '../../domain/tool-approval.ts';

/** Names of the session commands every channel offers. */
export const SESSION_COMMANDS = [
  'stop',
  'compact',
  'title',
  'mode',
  'locale',
  'approval',
  'schedules',
  'memory',
  'link',
  'kill',
] as const;

/** A parsed command. `local` is one of the channel's own argument-less commands (`extraBare`). */
export type ParsedCommand =
  | { name: 'stop' }
  | { name: 'compact' }
  | { name: 'schedules' }
  | { name: 'title'; title: string }
  | { name: 'mode'; mode: SessionMode }
  | { name: 'locale'; locale: SessionLocale }
  | { name: 'approval'; policy: ApprovalPolicy }
  | { name: 'memory'; forget?: string }
  | { name: 'link' }
  | { name: 'kill'; jobId: string }
  | { name: 'usage'; command: 'title' | 'mode' | 'locale' | 'approval' | 'memory' | 'kill' }
  | { name: 'local'; command: string }
  | { name: 'unknown'; word: string };

/** The usage line for a command with an argument (Markdown code spans). */
export function commandUsage(command: 'title' | 'mode' | 'locale' | 'approval' | 'memory' | 'kill'): string {
  switch (command) {
    case 'memory':
      return 'Usage: `/memory` (what I remember about you) or `/memory forget <id>`.';
    case 'title':
      return `Usage: \`/title <text>\` (1-${TITLE_MAX_CHARS} characters).`;
    case 'mode':
      return 'Usage: `/mode interrupt` or `/mode queue`.';
    case 'locale':
      return 'Usage: `/locale en` or `/locale zh`.';
    case 'approval':
      return 'Usage: `/approval off`, `/approval writes` (commands and file writes ask first) or `/approval all`.';
    case 'kill':
      return 'Usage: `/kill <job id>` (the ids `/jobs` lists).';
  }
}

/**
 * The command in `text`, or null when it is ordinary text (see the module comment for the rule).
 * @param extraBare the channel's own argument-less command names, lower case without the slash (e.g. `help`)
 */
export function parseChatCommand(text: string, extraBare: readonly string[] = []): ParsedCommand | null {
  const m = /^\/([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  const name = (m[1] ?? '').toLowerCase();
  const arg = (m[2] ?? '').trim();
  const oneWord = arg !== '' && !/\s/.test(arg);
  switch (name) {
    case 'stop':
    case 'compact':
    case 'schedules':
      return arg === '' ? { name } : null;
    case 'title':
      if (arg === '' || [...arg].length > TITLE_MAX_CHARS) return { name: 'usage', command: 'title' };
      return { name: 'title', title: arg };
    case 'mode': {
      if (arg !== '' && !oneWord) return null;
      const mode = arg.toLowerCase();
      return mode === 'interrupt' || mode === 'queue'
        ? { name: 'mode', mode }
        : { name: 'usage', command: 'mode' };
    }
    case 'locale': {
      if (arg !== '' && !oneWord) return null;
      const locale = arg.toLowerCase();
      return locale === 'en' || locale === 'zh'
        ? { name: 'locale', locale }
        : { name: 'usage', command: 'locale' };
    }
    case 'approval': {
      if (arg !== '' && !oneWord) return null;
      const policy = arg.toLowerCase();
      return isApprovalPolicy(policy) ? { name: 'approval', policy } : { name: 'usage', command: 'approval' };
    }
    case 'memory': {
      if (arg === '') return { name: 'memory' };
      const words = arg.split(/\s+/);
      if (words.length === 2 && words[0]!.toLowerCase() === 'forget')
        return { name: 'memory', forget: words[1]! };
      return oneWord ? { name: 'usage', command: 'memory' } : null;
    }
    case 'link':
      return arg === '' ? { name: 'link' } : null;
    case 'kill':
      if (arg !== '' && !oneWord) return null;
      return arg === '' ? { name: 'usage', command: 'kill' } : { name: 'kill', jobId: arg };
    default:
      if (arg !== '') return null;
      return extraBare.includes(name)
        ? { name: 'local', command: name }
        : { name: 'unknown', word: `/${name}` };
  }
}

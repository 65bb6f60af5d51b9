/**
 * `npm run kesoku -- <command>`: operator commands.
 *
 *   pairing list                 open pairing codes and paired chat users
 *   pairing approve <code>       approve a code a chat user was given; they may then talk to the agent
 *   pairing revoke <channel>:<user id>
 *                                remove a paired user; `<channel>` is a chat channel of adapters/registry.ts
 *                                (`discord`, `google_chat`, `wechat`), e.g. `discord:123456789012345678`
 *   --help (-h, help)            every command with one line each, and examples
 *
 * With `DATABASE_URL` set the commands work on that database directly. Without it (the embedded Postgres of
 * `npm start`) they go through the running REST API at `KESOKU_API_URL` (default http://127.0.0.1:3000) with
 * `KESOKU_API_TOKEN`; `pairing revoke` needs `DATABASE_URL`.
 *
 * Exit codes: 0 done, 1 refused (unknown or expired code, nothing to revoke), 2 usage or configuration error,
 * 3 the database or the API did not answer.
 */
import {
  approvePairing,
  listPairings,
  revokePairing,
  PairingError,
  type PairedUser,
  type PendingPairing,
} from '../db/pairings.ts';
import { createPool } from '../db/pool.ts';
import { CHANNELS, channelById } from '../adapters/registry.ts';

const USAGE = `usage: npm run kesoku -- pairing list
       npm run kesoku -- pairing approve <code>
       npm run kesoku -- pairing revoke <channel>:<user id>
       npm run kesoku -- --help`;

/** `--help`: every command with one line each, examples, where the data comes from, the exit codes. */
export function helpText(): string {
  const channels = CHANNELS.map((c) => c.id).join(', ');
  return `Kesoku operator commands.

usage: npm run kesoku -- <command> [argument]

commands:
  pairing list                        list open pairing codes and paired chat users
  pairing approve <code>              approve the code a chat user was given; they may then talk to the agent
  pairing revoke <channel>:<user id>  remove a paired chat user (channels: ${channels}; needs DATABASE_URL)
  help                                this text (also --help, -h)

examples:
  npm run kesoku -- pairing list
  npm run kesoku -- pairing approve K7QX4M2P
  DATABASE_URL=postgres://127.0.0.1:5432/kesoku npm run kesoku -- pairing revoke discord:123456789012345678

With DATABASE_URL the commands work on that database; without it (the embedded Postgres of npm start) they go
through the running REST API at KESOKU_API_URL (default http://127.0.0.1:3000) with KESOKU_API_TOKEN.
Exit codes: 0 done, 1 refused (unknown or expired code, nothing to revoke), 2 usage or configuration error,
3 the database or the API did not answer.
`;
}

const HELP_ARGS: ReadonlySet<string> = new Set(['--help', '-h', 'help']);

/** A failure with the exit code to leave with. */
class CliError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

interface Listing {
  pending: PendingPairing[];
  paired: PairedUser[];
}

/** How the commands reach the pairing data: Postgres directly, or the REST API. */
interface PairingBackend {
  list(): Promise<Listing>;
  approve(code: string): Promise<{ user: PairedUser; already: boolean }>;
  revoke(chatbotId: string, userId: string): Promise<boolean>;
  close(): Promise<void>;
}

function databaseBackend(url: string): PairingBackend {
  const pool = createPool(url, { max: 2 });
  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PairingError) throw new CliError(err.kind === 'invalid' ? 2 : 1, err.message);
      if ((err as { code?: string }).code === '42P01')
        throw new CliError(
          3,
          'the database has no pairing tables yet: start Kesoku once (it migrates the database)',
        );
      throw new CliError(
        3,
        `the database did not answer: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };
  return {
    list: () => wrap(() => listPairings(pool)),
    approve: (code) => wrap(() => approvePairing(pool, code, 'cli')),
    revoke: (chatbotId, userId) => wrap(() => revokePairing(pool, chatbotId, userId)),
    close: () => pool.end(),
  };
}

function apiBackend(baseUrl: string, token: string | undefined): PairingBackend {
  const call = async (method: string, path: string): Promise<Record<string, unknown>> => {
    let res: globalThis.Response;
    try {
      res = await fetch(new URL(path, baseUrl), {
        method,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new CliError(
        3,
        `the Kesoku API at ${baseUrl} did not answer (${err instanceof Error ? err.message : String(err)}); ` +
          'is `npm start` running? Or set DATABASE_URL to work on the database directly.',
      );
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.ok) return body;
    const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${res.status}`;
    throw new CliError(res.status === 401 ? 2 : res.status >= 500 ? 3 : res.status === 400 ? 2 : 1, detail);
  };
  return {
    list: async () => (await call('GET', '/v1/admin/pairings')) as unknown as Listing,
    async approve(code) {
      const body = await call('POST', `/v1/admin/pairings/${encodeURIComponent(code)}/approve`);
      return { user: body.approved as PairedUser, already: body.already_approved === true };
    },
    revoke: async () => {
      throw new CliError(2, 'pairing revoke works on the database: set DATABASE_URL');
    },
    close: async () => undefined,
  };
}

function printListing(out: NodeJS.WriteStream, l: Listing): void {
  out.write(`Open pairing codes (${l.pending.length}):\n`);
  for (const p of l.pending)
    out.write(`  ${p.code}  ${p.chatbot_id}:${p.user_id}  ${p.user_name ?? ''}  expires ${p.expires_at}\n`);
  out.write(`Paired users (${l.paired.length}):\n`);
  for (const u of l.paired)
    out.write(
      `  ${u.chatbot_id}:${u.user_id}  ${u.user_name ?? ''}  approved ${u.approved_at} (${u.approved_by})\n`,
    );
}

/**
 * Reads `<channel>:<user id>`; the channel must be one of adapters/registry.ts CHANNELS (a user id alone is
 * refused: the same id may be paired on several channels).
 * @throws CliError (exit 2) naming the channels when the channel is missing or unknown, or the user id is empty
 */
function pairedUserOf(arg: string): { chatbotId: string; userId: string } {
  const channels = CHANNELS.map((c) => c.id).join(', ');
  const sep = arg.indexOf(':');
  if (sep <= 0)
    throw new CliError(
      2,
      `pairing revoke needs <channel>:<user id>, e.g. discord:${arg || '123456789012345678'} (channels: ${channels})`,
    );
  const chatbotId = arg.slice(0, sep);
  const userId = arg.slice(sep + 1);
  if (!channelById(chatbotId))
    throw new CliError(2, `unknown channel "${chatbotId}" (channels: ${channels})`);
  if (userId === '') throw new CliError(2, `pairing revoke needs a user id after "${chatbotId}:"`);
  return { chatbotId, userId };
}

/** Runs one command line. @returns the exit code */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [group, command, arg, ...rest] = argv;
  if (argv.length === 1 && group !== undefined && HELP_ARGS.has(group)) {
    process.stdout.write(helpText());
    return 0;
  }
  if (group !== 'pairing' || !command || rest.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const databaseUrl = env.DATABASE_URL?.trim();
  const backend = databaseUrl
    ? databaseBackend(databaseUrl)
    : apiBackend(
        env.KESOKU_API_URL?.trim() || 'http://127.0.0.1:3000',
        env.KESOKU_API_TOKEN?.trim() || undefined,
      );
  try {
    switch (command) {
      case 'list':
        if (arg !== undefined) throw new CliError(2, USAGE);
        printListing(process.stdout, await backend.list());
        return 0;
      case 'approve': {
        if (!arg) throw new CliError(2, USAGE);
        const { user, already } = await backend.approve(arg);
        process.stdout.write(
          `${already ? 'Already approved' : 'Approved'}: ${user.user_name ?? user.user_id} ` +
            `(${user.chatbot_id}:${user.user_id}) may talk to the agent now.\n`,
        );
        return 0;
      }
      case 'revoke': {
        if (!arg) throw new CliError(2, USAGE);
        const { chatbotId, userId } = pairedUserOf(arg);
        if (!(await backend.revoke(chatbotId, userId)))
          throw new CliError(1, `${chatbotId}:${userId} is not a paired user`);
        process.stdout.write(`Revoked: ${chatbotId}:${userId} is no longer paired.\n`);
        return 0;
      }
      default:
        throw new CliError(2, USAGE);
    }
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    process.stderr.write(`kesoku: ${err.message}\n`);
    return err.exitCode;
  } finally {
    await backend.close();
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`kesoku: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(3);
    },
  );
}

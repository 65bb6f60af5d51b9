/**
 * `npx kesoku <command>` (also `npm run kesoku -- <command>`): setup and operator commands.
 *
 *   onboard                      find a model, write it to .env, test it (bin/commands/onboard.ts)
 *   doctor                       check the setup, each problem with its fix (bin/commands/doctor.ts)
 *   status                       what runs, sessions, queue, last errors (bin/commands/status.ts)
 *   pairing list                 open pairing codes and paired chat users
 *   pairing approve <code>       approve a code a chat user was given; they may then talk to the agent
 *   pairing revoke <channel>:<user id>
 *                                remove a paired user; `<channel>` is a chat channel of adapters/registry.ts
 *                                (`discord`, `google_chat`, `wechat`), e.g. `discord:123456789012345678`
 *   --help (-h, help)            every command with one line each, and examples
 *
 * Every command reads the settings file (.env) first. With `DATABASE_URL` set the pairing commands work on that
 * database directly. Without it (the embedded Postgres of `npm start`) they go through the running REST API at
 * `KESOKU_API_URL` (default http://127.0.0.1:$KESOKU_API_PORT) with `KESOKU_API_TOKEN` (else the admin token of
 * `KESOKU_API_TOKENS`); `pairing revoke` needs `DATABASE_URL`.
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
import { loadEnvFile } from '../infra/env-file.ts';
import { apiTarget } from './commands/common.ts';
import { doctor } from './commands/doctor.ts';
import { onboard } from './commands/onboard.ts';
import { status } from './commands/status.ts';
import { cleanName } from '../adapters/cli/render.ts';

const USAGE = `usage: npx kesoku onboard | doctor | status [--help]
       npx kesoku pairing list
       npx kesoku pairing approve <code>
       npx kesoku pairing revoke <channel>:<user id>
       npx kesoku --help`;

/** `--help`: every command with one line each, examples, where the data comes from, the exit codes. */
export function helpText(): string {
  const channels = CHANNELS.map((c) => c.id).join(', ');
  return `Kesoku setup and operator commands.

usage: npx kesoku <command> [argument]   (or: npm run kesoku -- <command> [argument])

commands:
  onboard                             find a model (provider key or local Ollama), write .env, make a test call
  doctor                              check the setup; names each problem and its fix (exit 1 on problems)
  status                              what runs, whether it answers, sessions and queue, last errors
  pairing list                        list open pairing codes and paired chat users
  pairing approve <code>              approve the code a chat user was given; they may then talk to the agent
  pairing revoke <channel>:<user id>  remove a paired chat user (channels: ${channels}; needs DATABASE_URL)
  help                                this text (also --help, -h); <command> --help for one command

examples:
  npx kesoku onboard --yes
  npx kesoku doctor
  npx kesoku pairing list
  npx kesoku pairing approve K7QX4M2P
  DATABASE_URL=postgres://127.0.0.1:5432/kesoku npx kesoku pairing revoke discord:123456789012345678

Every command reads .env in the checkout first (KESOKU_ENV_FILE names another file). With DATABASE_URL the
pairing commands work on that database; without it (the embedded Postgres of npm start) they go through the
running REST API at KESOKU_API_URL (default http://127.0.0.1:$KESOKU_API_PORT) with KESOKU_API_TOKEN.
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
  // Names and ids are the strangers' own: terminal escapes and line breaks in them are removed.
  const c = (v: string | null | undefined) => cleanName(v ?? '');
  out.write(`Open pairing codes (${l.pending.length}):\n`);
  for (const p of l.pending)
    out.write(
      `  ${c(p.code)}  ${c(p.chatbot_id)}:${c(p.user_id)}  ${c(p.user_name)}  expires ${c(p.expires_at)}\n`,
    );
  out.write(`Paired users (${l.paired.length}):\n`);
  for (const u of l.paired)
    out.write(
      `  ${c(u.chatbot_id)}:${c(u.user_id)}  ${c(u.user_name)}  approved ${c(u.approved_at)} (${c(u.approved_by)})\n`,
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
  if (group === 'onboard') return onboard(argv.slice(1), env);
  if (group === 'doctor') return doctor(argv.slice(1));
  if (group === 'status') return status(argv.slice(1));
  if (group === 'pairing' && command !== undefined && HELP_ARGS.has(command) && argv.length === 2) {
    process.stdout.write(helpText());
    return 0;
  }
  if (group !== 'pairing' || !command || rest.length > 0) {
    const unknown = group !== undefined && group !== 'pairing' ? `kesoku: unknown command "${group}"\n` : '';
    process.stderr.write(`${unknown}${USAGE}\n`);
    return 2;
  }
  const databaseUrl = env.DATABASE_URL?.trim();
  const target = apiTarget(env);
  const backend = databaseUrl ? databaseBackend(databaseUrl) : apiBackend(target.url, target.token);
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
          `${already ? 'Already approved' : 'Approved'}: ${cleanName(user.user_name ?? user.user_id)} ` +
            `(${cleanName(user.chatbot_id)}:${cleanName(user.user_id)}) may talk to the agent now.\n`,
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
        throw new CliError(2, `unknown pairing command "${command}"\n${USAGE}`);
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
  try {
    // onboard reads and writes the settings file itself, telling the file's values from the environment's.
    if (process.argv[2] !== 'onboard') loadEnvFile();
  } catch (err) {
    process.stderr.write(`kesoku: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`kesoku: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(3);
    },
  );
}

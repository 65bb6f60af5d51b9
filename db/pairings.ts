/**
 * Pairing of chat users (tables `chat_pairing_requests` and `chat_paired_users`, migration 0004): an unknown
 * user of a chat adapter gets a one-time code; an operator approves the code (CLI `npm run kesoku -- pairing
 * approve <code>` or `POST /v1/admin/pairings/{code}/approve`); the user is then kept as paired for that chatbot.
 *
 * Times come from Postgres's clock (`now()`), so every process (adapter, API, CLI) agrees on expiry.
 */
import { randomInt } from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

/** Why a pairing operation was refused. */
export type PairingErrorKind = 'unknown_code' | 'expired' | 'capacity' | 'invalid';

/** A refused pairing operation, with a kind callers map to an answer (CLI exit code, HTTP status). */
export class PairingError extends Error {
  readonly kind: PairingErrorKind;
  constructor(kind: PairingErrorKind, message: string) {
    super(message);
    this.name = 'PairingError';
    this.kind = kind;
  }
}

/** Letters and digits without look-alikes (no I, O, 0, 1): 32 symbols, 8 of them = 40 bits. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;

/** A fresh random pairing code (crypto RNG). */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * The canonical form of a code typed by an operator: upper case, spaces and dashes removed.
 * @throws PairingError invalid when it cannot be a code
 */
export function normalizePairingCode(input: string): string {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== PAIRING_CODE_LENGTH || [...code].some((c) => !CODE_ALPHABET.includes(c)))
    throw new PairingError(
      'invalid',
      `"${input}" is not a pairing code (${PAIRING_CODE_LENGTH} letters and digits; codes never use I, O, 0 or 1)`,
    );
  return code;
}

/** Settings of {@link requestPairing}. Durations in ms. */
export interface PairingRequestOptions {
  chatbotId: string;
  userId: string;
  userName?: string | null;
  channelId?: string | null;
  /** How long a code stays valid. Default one hour. */
  ttlMs?: number;
  /** The user is told the same code again at most this often. Default 10 minutes. */
  notifyIntervalMs?: number;
  /**
   * Open (unexpired, unapproved) requests per chatbot beyond which no new code is issued; default none. A
   * chatbot-wide cap is one strangers can fill with many accounts, locking everyone else out of pairing: the
   * bound that holds by default is per account (one open code, a new one only after it expired).
   */
  maxOpen?: number;
}

export const PAIRING_DEFAULTS = { ttlMs: 60 * 60_000, notifyIntervalMs: 10 * 60_000 } as const;

/** The open request of a user after {@link requestPairing}. */
export interface PairingTicket {
  code: string;
  expiresAt: Date;
  /** True when the user should be told the code now (a new code, or the last notice is old enough). */
  notify: boolean;
  /** True when this call issued the code. */
  issued: boolean;
}

/**
 * Gives `userId` its open pairing code: the same one while it is valid (not a new one per message), a new one
 * when there is none or it expired; so one account holds at most one open request and is issued at most one code
 * per `ttlMs`, and is told its code at most once per `notifyIntervalMs`. Serialised per user with an advisory
 * lock, so two messages at once get one code. Old expired requests of the chatbot (over a day) are deleted on
 * the way.
 * @throws PairingError capacity when `maxOpen` is set and the chatbot already has that many open requests
 */
export async function requestPairing(pool: Pool, o: PairingRequestOptions): Promise<PairingTicket> {
  const ttlMs = o.ttlMs ?? PAIRING_DEFAULTS.ttlMs;
  const notifyMs = o.notifyIntervalMs ?? PAIRING_DEFAULTS.notifyIntervalMs;
  const maxOpen = o.maxOpen;
  return withTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pairing:${o.chatbotId}:${o.userId}`]);
    const open = await c.query<{ code: string; expires_at: Date; notify: boolean }>(
      `SELECT code, expires_at,
              (last_notified_at IS NULL OR last_notified_at <= now() - make_interval(secs => $3::float8 / 1000)) AS notify
         FROM chat_pairing_requests
        WHERE chatbot_id = $1 AND user_id = $2 AND approved_at IS NULL AND expires_at > now()`,
      [o.chatbotId, o.userId, notifyMs],
    );
    const row = open.rows[0];
    if (row) {
      if (row.notify)
        await c.query(
          'UPDATE chat_pairing_requests SET last_notified_at = now() WHERE chatbot_id = $1 AND user_id = $2',
          [o.chatbotId, o.userId],
        );
      return { code: row.code, expiresAt: row.expires_at, notify: row.notify, issued: false };
    }
    await c.query(
      `DELETE FROM chat_pairing_requests WHERE chatbot_id = $1 AND expires_at < now() - interval '1 day'`,
      [o.chatbotId],
    );
    if (maxOpen !== undefined) {
      const count = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM chat_pairing_requests
          WHERE chatbot_id = $1 AND approved_at IS NULL AND expires_at > now()`,
        [o.chatbotId],
      );
      if ((count.rows[0]?.n ?? 0) >= maxOpen)
        throw new PairingError('capacity', `${o.chatbotId} already has ${maxOpen} open pairing requests`);
    }
    for (let attempt = 0; ; attempt++) {
      const code = newPairingCode();
      await c.query('SAVEPOINT pairing_code');
      try {
        const r = await c.query<{ expires_at: Date }>(
          `INSERT INTO chat_pairing_requests
                  (chatbot_id, user_id, code, user_name, channel_id, expires_at, last_notified_at)
           VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::float8 / 1000), now())
           ON CONFLICT (chatbot_id, user_id) DO UPDATE
              SET code = EXCLUDED.code, user_name = EXCLUDED.user_name, channel_id = EXCLUDED.channel_id,
                  created_at = now(), expires_at = EXCLUDED.expires_at, last_notified_at = now(), approved_at = NULL
           RETURNING expires_at`,
          [o.chatbotId, o.userId, code, o.userName ?? null, o.channelId ?? null, ttlMs],
        );
        await c.query('RELEASE SAVEPOINT pairing_code');
        return { code, expiresAt: r.rows[0]?.expires_at ?? new Date(), notify: true, issued: true };
      } catch (err) {
        // A code collision (unique violation) draws again; anything else is a real failure.
        await c.query('ROLLBACK TO SAVEPOINT pairing_code');
        if ((err as { code?: string }).code !== '23505' || attempt >= 5) throw err;
      }
    }
  });
}

/** Whether `userId` is a paired user of `chatbotId`. */
export async function isPaired(q: Queryable, chatbotId: string, userId: string): Promise<boolean> {
  const r = await q.query('SELECT 1 FROM chat_paired_users WHERE chatbot_id = $1 AND user_id = $2', [
    chatbotId,
    userId,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** A paired user. */
export interface PairedUser {
  chatbot_id: string;
  user_id: string;
  user_name: string | null;
  approved_by: 'cli' | 'api';
  approved_at: string;
}

/** An open pairing request (unexpired, unapproved). */
export interface PendingPairing {
  code: string;
  chatbot_id: string;
  user_id: string;
  user_name: string | null;
  channel_id: string | null;
  created_at: string;
  expires_at: string;
}

/**
 * Approves `code`: its user becomes paired (`approvedBy` is `cli` or `api`). Approving an already approved code
 * again answers the same user (`already: true`) and changes nothing.
 * @throws PairingError invalid | unknown_code | expired
 */
export async function approvePairing(
  pool: Pool,
  codeInput: string,
  approvedBy: PairedUser['approved_by'],
): Promise<{ user: PairedUser; already: boolean }> {
  const code = normalizePairingCode(codeInput);
  return withTransaction(pool, async (c) => {
    const r = await c.query<{
      chatbot_id: string;
      user_id: string;
      user_name: string | null;
      approved_at: Date | null;
      expired: boolean;
    }>(
      `SELECT chatbot_id, user_id, user_name, approved_at, expires_at <= now() AS expired
         FROM chat_pairing_requests WHERE code = $1 FOR UPDATE`,
      [code],
    );
    const req = r.rows[0];
    if (!req) throw new PairingError('unknown_code', `there is no pairing request with code ${code}`);
    if (req.approved_at === null && req.expired)
      throw new PairingError(
        'expired',
        `pairing code ${code} has expired: the user gets a new one when they write to the bot again`,
      );
    if (req.approved_at === null)
      await c.query('UPDATE chat_pairing_requests SET approved_at = now() WHERE code = $1', [code]);
    const existing = await c.query<PairedUser>(
      `SELECT chatbot_id, user_id, user_name, approved_by, to_json(approved_at)#>>'{}' AS approved_at
         FROM chat_paired_users WHERE chatbot_id = $1 AND user_id = $2`,
      [req.chatbot_id, req.user_id],
    );
    if (existing.rows[0]) return { user: existing.rows[0], already: req.approved_at !== null };
    const ins = await c.query<PairedUser>(
      `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ($1, $2, $3, $4)
       RETURNING chatbot_id, user_id, user_name, approved_by, to_json(approved_at)#>>'{}' AS approved_at`,
      [req.chatbot_id, req.user_id, req.user_name, approvedBy],
    );
    return { user: ins.rows[0] as PairedUser, already: false };
  });
}

/** Open pairing requests and paired users, newest first. */
export async function listPairings(
  q: Queryable,
): Promise<{ pending: PendingPairing[]; paired: PairedUser[] }> {
  const pending = await q.query<PendingPairing>(
    `SELECT code, chatbot_id, user_id, user_name, channel_id,
            to_json(created_at)#>>'{}' AS created_at, to_json(expires_at)#>>'{}' AS expires_at
       FROM chat_pairing_requests WHERE approved_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC`,
  );
  const paired = await q.query<PairedUser>(
    `SELECT chatbot_id, user_id, user_name, approved_by, to_json(approved_at)#>>'{}' AS approved_at
       FROM chat_paired_users ORDER BY approved_at DESC`,
  );
  return { pending: pending.rows, paired: paired.rows };
}

/** Removes a paired user (their next message is treated as from a stranger). @returns whether one was removed */
export async function revokePairing(q: Queryable, chatbotId: string, userId: string): Promise<boolean> {
  const r = await q.query('DELETE FROM chat_paired_users WHERE chatbot_id = $1 AND user_id = $2', [
    chatbotId,
    userId,
  ]);
  return (r.rowCount ?? 0) > 0;
}

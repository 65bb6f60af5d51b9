/**
 * People (domain/people.ts, migration 0030): links from chat users to API principals, made with a one-time code a
 * chat user gets from `/link` and a principal confirms over REST (`POST /v1/me/links`). Times come from Postgres's
 * clock, so every process agrees on expiry.
 */
import { randomInt } from 'node:crypto';
import {
  chatUserPerson,
  principalPerson,
  sharedScopeOf,
  type PersonKey,
  type SharedScope,
} from '../domain/people.ts';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

/** Why a link code was refused. */
export type LinkErrorKind = 'invalid' | 'unknown_code' | 'expired' | 'used';

/** A refused link confirmation, with a kind the HTTP layer maps to an answer. */
export class LinkError extends Error {
  readonly kind: LinkErrorKind;
  constructor(kind: LinkErrorKind, message: string) {
    super(message);
    this.name = 'LinkError';
    this.kind = kind;
  }
}

/** Letters and digits without look-alikes (no I, O, 0, 1). */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Characters of a link code (40 bits). */
export const LINK_CODE_LENGTH = 8;
/** How long a link code stays valid, in ms. */
export const LINK_CODE_TTL_MS = 15 * 60 * 1000;

/**
 * Issues a fresh one-time code for chat user `userId` of `chatbotId`; earlier unused codes of that user stop working.
 * @returns the code and its expiry (ISO 8601)
 */
export async function issueLinkCode(
  pool: Pool,
  opts: { chatbotId: string; userId: string; userName?: string | null; ttlMs?: number },
): Promise<{ code: string; expiresAt: string }> {
  let code = '';
  for (let i = 0; i < LINK_CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return withTransaction(pool, async (c) => {
    await c.query(
      `UPDATE person_link_codes SET expires_at = now() WHERE chatbot_id = $1 AND user_id = $2 AND used_at IS NULL AND expires_at > now()`,
      [opts.chatbotId, opts.userId],
    );
    const r = await c.query<{ expires_at: Date }>(
      `INSERT INTO person_link_codes (code, chatbot_id, user_id, user_name, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000)) RETURNING expires_at`,
      [code, opts.chatbotId, opts.userId, opts.userName ?? null, opts.ttlMs ?? LINK_CODE_TTL_MS],
    );
    return { code, expiresAt: r.rows[0]!.expires_at.toISOString() };
  });
}

/** A confirmed link. */
export interface PersonLink {
  chatbot_id: string;
  user_id: string;
  principal: string;
  linked_at: string;
}

/**
 * Confirms `input` (a code typed by a person: case and dashes ignored) for `principal`: the code's chat user is
 * linked to it from now on (a new link replaces an older one of that chat user). A code works once.
 * @throws LinkError invalid (not a code), unknown_code, expired, used (already confirmed)
 */
export async function confirmLinkCode(pool: Pool, input: string, principal: string): Promise<PersonLink> {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== LINK_CODE_LENGTH || [...code].some((ch) => !CODE_ALPHABET.includes(ch)))
    throw new LinkError('invalid', `"${input}" is not a link code (${LINK_CODE_LENGTH} letters and digits)`);
  return withTransaction(pool, async (c) => {
    const r = await c.query<{ chatbot_id: string; user_id: string; used_at: Date | null; expired: boolean }>(
      `SELECT chatbot_id, user_id, used_at, expires_at <= now() AS expired FROM person_link_codes WHERE code = $1 FOR UPDATE`,
      [code],
    );
    const row = r.rows[0];
    if (!row)
      throw new LinkError('unknown_code', `no link code ${code} was issued; send /link in the chat again`);
    if (row.used_at)
      throw new LinkError('used', `link code ${code} was already used; send /link again for a new one`);
    if (row.expired)
      throw new LinkError('expired', `link code ${code} has expired; send /link again for a new one`);
    await c.query(`UPDATE person_link_codes SET used_at = now(), used_by = $2 WHERE code = $1`, [
      code,
      principal,
    ]);
    const l = await c.query<{ linked_at: Date }>(
      `INSERT INTO person_links (chatbot_id, user_id, principal) VALUES ($1, $2, $3)
       ON CONFLICT (chatbot_id, user_id) DO UPDATE SET principal = EXCLUDED.principal, linked_at = now()
       RETURNING linked_at`,
      [row.chatbot_id, row.user_id, principal],
    );
    return {
      chatbot_id: row.chatbot_id,
      user_id: row.user_id,
      principal,
      linked_at: l.rows[0]!.linked_at.toISOString(),
    };
  });
}

/** The principal a chat user is linked to, or null. */
export async function linkedPrincipal(
  q: Queryable,
  chatbotId: string,
  userId: string,
): Promise<string | null> {
  const r = await q.query<{ principal: string }>(
    'SELECT principal FROM person_links WHERE chatbot_id = $1 AND user_id = $2',
    [chatbotId, userId],
  );
  return r.rows[0]?.principal ?? null;
}

/** The chat users linked to `principal`, oldest link first. */
export async function linksOf(q: Queryable, principal: string): Promise<PersonLink[]> {
  const r = await q.query<{ chatbot_id: string; user_id: string; principal: string; linked_at: Date }>(
    'SELECT chatbot_id, user_id, principal, linked_at FROM person_links WHERE principal = $1 ORDER BY linked_at',
    [principal],
  );
  return r.rows.map((l) => ({ ...l, linked_at: l.linked_at.toISOString() }));
}

/**
 * The principal owning session `sessionId` (`session_owners`) with every person key of it, in one round trip.
 * @returns null when no principal owns the session (a chat session)
 */
export async function sessionPrincipal(
  q: Queryable,
  sessionId: string,
): Promise<{ principal: string; persons: PersonKey[] } | null> {
  const r = await q.query<{ principal: string; chatbot_id: string | null; user_id: string | null }>(
    `SELECT o.principal, l.chatbot_id, l.user_id FROM session_owners o
       LEFT JOIN person_links l ON l.principal = o.principal
      WHERE o.session_id = $1 ORDER BY l.linked_at`,
    [sessionId],
  );
  const principal = r.rows[0]?.principal;
  if (principal === undefined) return null;
  const linked = r.rows.flatMap((l) =>
    l.chatbot_id !== null && l.user_id !== null ? [chatUserPerson(l.chatbot_id, l.user_id)] : [],
  );
  return { principal, persons: [principalPerson(principal), ...linked] };
}

/** Every person key of `principal`: its own and those of the chat users linked to it. */
export async function personKeysOfPrincipal(q: Queryable, principal: string): Promise<PersonKey[]> {
  const links = await linksOf(q, principal);
  return [principalPerson(principal), ...links.map((l) => chatUserPerson(l.chatbot_id, l.user_id))];
}

/**
 * Where chat user `userId` of `chatbotId` keeps memory: the linked principal's keys when linked (their own
 * chat key included), else the chat user's own key.
 */
export async function personOfChatUser(
  q: Queryable,
  chatbotId: string,
  userId: string,
): Promise<{ person: PersonKey; persons: PersonKey[]; principal: string | null }> {
  const principal = await linkedPrincipal(q, chatbotId, userId);
  if (principal)
    return {
      person: principalPerson(principal),
      persons: await personKeysOfPrincipal(q, principal),
      principal,
    };
  const person = chatUserPerson(chatbotId, userId);
  return { person, persons: [person], principal: null };
}

/** The IANA time zone `principal` set (`PATCH /v1/me`), or null when none. */
export async function principalZone(q: Queryable, principal: string): Promise<string | null> {
  const r = await q.query<{ timezone: string | null }>(
    'SELECT timezone FROM principal_settings WHERE principal = $1',
    [principal],
  );
  return r.rows[0]?.timezone ?? null;
}

/** Sets (a canonical IANA zone) or clears (null) `principal`'s time zone. */
export async function setPrincipalZone(q: Queryable, principal: string, zone: string | null): Promise<void> {
  await q.query(
    `INSERT INTO principal_settings (principal, timezone) VALUES ($1, $2)
     ON CONFLICT (principal) DO UPDATE SET timezone = EXCLUDED.timezone, updated_at = now()`,
    [principal, zone],
  );
}

/**
 * The shared memory scope of session `sessionId` among the configured `scopes` (KESOKU_MEMORY_SHARED_SCOPES,
 * domain/people.ts `sharedScopeOf`): the session's own, else that of the channel its row names.
 * @returns the scope's person key, or null when none covers the session (also for a session with no row yet,
 *   unless the session itself is configured)
 */
export async function sessionSharedScope(
  q: Queryable,
  scopes: ReadonlySet<SharedScope>,
  sessionId: string,
): Promise<PersonKey | null> {
  if (scopes.size === 0) return null;
  const r = await q.query<{ chatbot_id: string; channel_id: string }>(
    'SELECT chatbot_id, channel_id FROM sessions WHERE id = $1',
    [sessionId],
  );
  const row = r.rows[0];
  return sharedScopeOf(scopes, sessionId, row?.chatbot_id ?? '', row?.channel_id ?? '');
}

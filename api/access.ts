/**
 * Which sessions an API principal reaches. The rules:
 * - an admin principal reaches every session;
 * - a session created through the REST API belongs to the principal that created it (a row in
 *   `session_owners`, written before the first message is submitted); other non-admin principals get 404;
 * - the REST API creates sessions on one of the {@link REST_CHATBOTS}: `api` (any HTTP client) or `cli` (the
 *   terminal client, which acknowledges what it printed; docs/message-model.md §5.3 CLI column);
 * - chat-channel sessions (any other chatbot, e.g. `<channel>:<id>`) and REST sessions without an owner
 *   (created before owners were recorded) are reachable only by admins;
 * - nobody creates a session through REST under a chat channel's id prefix (each channel descriptor's
 *   `sessionPrefix`, adapters/registry.ts), so a REST caller cannot squat a channel's future session.
 * A refusal is always the same 404 as an unknown session, so a principal learns nothing about others' ids.
 */
import type { Response } from 'express';
import type { Pool } from '../db/pool.ts';
import { getSession, getSessionView, type SessionRow, type SessionView } from '../db/sessions.ts';
import { chatSessionPrefixes } from '../adapters/registry.ts';
import { principalOf, type Principal } from './auth.ts';
import { HttpProblem } from './problems.ts';

/** The default chatbot of sessions created through the REST API. */
export const API_CHATBOT = 'api';

/** The terminal client's chatbot (`npm run chat`): a REST client that marks what it printed `delivered`. */
export const CLI_CHATBOT = 'cli';

/** The chatbots a REST caller may create a session on (`channel` of `POST …/messages`), the default first. */
export const REST_CHATBOTS = [API_CHATBOT, CLI_CHATBOT] as const;
export type RestChatbot = (typeof REST_CHATBOTS)[number];

/** True when sessions of `chatbotId` are created and owned through the REST API. */
export function isRestChatbot(chatbotId: string): chatbotId is RestChatbot {
  return (REST_CHATBOTS as readonly string[]).includes(chatbotId);
}

/**
 * The caller of a `/v1` request, as api/auth.ts authenticate() recorded it.
 * @throws HttpProblem unauthorized (401) when no principal was recorded (a route mounted outside `/v1`)
 */
export function callerOf(res: Response): Principal {
  const p = principalOf(res);
  if (!p) throw new HttpProblem('unauthorized', 'this route needs an authenticated caller');
  return p;
}

/**
 * The 404 of a session the caller cannot reach. An admin reaches every session, so for it the session does not
 * exist. For anyone else the answer is the same whether the session does not exist or is another principal's
 * or a chat channel's, so it reveals nothing, and it gives no hint to create the session that a first message
 * could not follow.
 */
const notFound = (sessionId: string, principal: Principal) =>
  new HttpProblem(
    'session_not_found',
    principal.admin
      ? `session ${sessionId} does not exist; a session is created by its first message (POST /v1/sessions/${sessionId}/messages)`
      : `session ${sessionId} was not found for this token`,
  );

/** The principal that owns `sessionId`, or null when no principal does. */
export async function sessionOwner(pool: Pool, sessionId: string): Promise<string | null> {
  const r = await pool.query<{ principal: string }>(
    'SELECT principal FROM session_owners WHERE session_id = $1',
    [sessionId],
  );
  return r.rows[0]?.principal ?? null;
}

/** True when `principal` may see and act on `session` (whose owner is `owner`). */
export function mayAccess(
  principal: Principal,
  session: Pick<SessionRow, 'chatbot_id'>,
  owner: string | null,
): boolean {
  if (principal.admin) return true;
  return isRestChatbot(session.chatbot_id) && owner === principal.name;
}

/**
 * The session row when `principal` may reach it.
 * @throws HttpProblem session_not_found (404) when the session does not exist or is not the principal's
 */
export async function requireSessionRowFor(
  pool: Pool,
  principal: Principal,
  sessionId: string,
): Promise<SessionRow> {
  const session = await getSession(pool, sessionId);
  if (!session) throw notFound(sessionId, principal);
  if (!principal.admin && !mayAccess(principal, session, await sessionOwner(pool, sessionId)))
    throw notFound(sessionId, principal);
  return session;
}

/** As {@link requireSessionRowFor}, with the live figures (status, queue length). */
export async function requireSessionFor(
  pool: Pool,
  principal: Principal,
  sessionId: string,
): Promise<SessionView> {
  const view = await getSessionView(pool, sessionId);
  if (!view) throw notFound(sessionId, principal);
  if (!principal.admin && !mayAccess(principal, view, await sessionOwner(pool, sessionId)))
    throw notFound(sessionId, principal);
  return view;
}

/** Default of `KESOKU_MAX_SESSIONS_PER_PRINCIPAL`: sessions one non-admin principal may create. */
export const DEFAULT_SESSIONS_PER_PRINCIPAL = 1000;

/**
 * Checks that `principal` may submit a message to `sessionId`, claiming the session for it when the session
 * does not exist yet. The claim is one `INSERT … ON CONFLICT DO NOTHING`, so of two principals racing for a
 * new id exactly one wins and the other gets 404. A claim whose submit then fails stays: the id remains the
 * claimant's, which is what a retry of the same request needs. A non-admin principal claims at most
 * `maxSessions` ids (every session is a workflow and a workspace); admins are not limited.
 * @param opts.maxSessions default {@link DEFAULT_SESSIONS_PER_PRINCIPAL}
 * @returns the session row, or null when the session does not exist yet (it is now claimed for `principal`)
 * @throws HttpProblem session_not_found (404) when the session is another principal's, a chat channel's
 *   (non-admins), or would be created under a chat-channel prefix; too_many_sessions (429) when a non-admin
 *   principal already has `maxSessions` sessions
 */
export async function authorizeSubmit(
  pool: Pool,
  principal: Principal,
  sessionId: string,
  opts: { maxSessions?: number } = {},
): Promise<SessionRow | null> {
  const session = await getSession(pool, sessionId);
  const reserved = chatSessionPrefixes().find((p) => sessionId.startsWith(p));
  // Under a chat channel's prefix a non-admin gets one answer whether the channel's session exists or not.
  const reservedProblem = () =>
    new HttpProblem(
      'session_not_found',
      `session ${sessionId} ${principal.admin ? 'does not exist' : 'was not found for this token'}; ids starting with ${reserved} belong to a chat channel, which creates them`,
    );
  if (session) {
    if (!mayAccess(principal, session, await sessionOwner(pool, sessionId)))
      throw reserved ? reservedProblem() : notFound(sessionId, principal);
    return session;
  }
  if (reserved) throw reservedProblem();
  const max = opts.maxSessions ?? DEFAULT_SESSIONS_PER_PRINCIPAL;
  // One statement: the count and the claim see the same rows (concurrent claims may pass the limit by a few).
  const claimed = await pool.query(
    `INSERT INTO session_owners (session_id, principal)
     SELECT $1, $2 WHERE $3 OR (SELECT count(*) FROM session_owners WHERE principal = $2) < $4
     ON CONFLICT (session_id) DO NOTHING`,
    [sessionId, principal.name, principal.admin, max],
  );
  if (claimed.rowCount === 0 && !principal.admin && (await sessionOwner(pool, sessionId)) === null)
    throw new HttpProblem(
      'too_many_sessions',
      `this token already has ${max} sessions, the most one principal may create (KESOKU_MAX_SESSIONS_PER_PRINCIPAL); ` +
        'go on in one of them',
      { extensions: { limit: max } },
    );
  const owner = await sessionOwner(pool, sessionId);
  if (owner !== principal.name && !principal.admin) throw notFound(sessionId, principal);
  return null;
}

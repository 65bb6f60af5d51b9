/**
 * Signed push requests a chat adapter's endpoint has taken (table `chat_push_nonces`, migration 0016), so that a
 * captured request replayed within its freshness window is refused by every adapter process, not only by the one
 * that saw it first. Rows outlive their window by {@link NONCE_GRACE_S} (clocks of the adapter and of Postgres may
 * differ) and are then deleted by {@link forgetExpiredPushNonces}.
 */
import type { Queryable } from './pool.ts';

/** How long a row is kept after its request stopped being accepted, seconds. */
export const NONCE_GRACE_S = 300;

/**
 * Claims the signed request `nonceKey` of chatbot `chatbotId`, accepted until `expiresAt`.
 * @returns true for the first claim (take the request), false when the request was taken before (a replay)
 * @throws the database error when Postgres cannot be reached (nothing is claimed then)
 */
export async function claimPushNonce(
  q: Queryable,
  chatbotId: string,
  nonceKey: string,
  expiresAt: Date,
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO chat_push_nonces (chatbot_id, nonce_key, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (chatbot_id, nonce_key) DO NOTHING`,
    [chatbotId, nonceKey, expiresAt],
  );
  return r.rowCount === 1;
}

/**
 * Deletes the claims of chatbot `chatbotId` whose request stopped being accepted over {@link NONCE_GRACE_S} ago.
 * @returns how many were deleted
 */
export async function forgetExpiredPushNonces(q: Queryable, chatbotId: string): Promise<number> {
  const r = await q.query(
    `DELETE FROM chat_push_nonces WHERE chatbot_id = $1 AND expires_at < now() - make_interval(secs => $2)`,
    [chatbotId, NONCE_GRACE_S],
  );
  return r.rowCount ?? 0;
}

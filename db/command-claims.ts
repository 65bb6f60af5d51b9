/**
 * Claims of chat-command messages (table `chat_command_claims`, migration 0015). A chat command typed in a
 * platform message is answered by its adapter and never stored as a Kesoku message, so nothing else tells a
 * later delivery of the same message (a catch-up after a restart, a second adapter process, a gateway replay)
 * that it was already handled. The adapter claims the message before it runs the command; only the first claim
 * succeeds, in every process, so the command runs and is answered at most once.
 */
import type { Queryable } from './pool.ts';

/** How long claims are kept, days; a catch-up never goes back that far (adapters/discord/catch-up.ts). */
export const COMMAND_CLAIM_RETENTION_DAYS = 30;

/**
 * Claims command message `messageId` (the platform's id) of chatbot `chatbotId`.
 * @returns true for the first claim of the message (run the command), false when it was claimed before
 * @throws the database error when Postgres cannot be reached (nothing is claimed then)
 */
export async function claimCommandMessage(
  q: Queryable,
  chatbotId: string,
  messageId: string,
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO chat_command_claims (chatbot_id, message_id) VALUES ($1, $2)
     ON CONFLICT (chatbot_id, message_id) DO NOTHING`,
    [chatbotId, messageId],
  );
  return r.rowCount === 1;
}

/**
 * Deletes the claims of chatbot `chatbotId` older than {@link COMMAND_CLAIM_RETENTION_DAYS}.
 * @returns how many were deleted
 */
export async function forgetOldCommandClaims(q: Queryable, chatbotId: string): Promise<number> {
  const r = await q.query(
    `DELETE FROM chat_command_claims
      WHERE chatbot_id = $1 AND claimed_at < now() - make_interval(days => $2)`,
    [chatbotId, COMMAND_CLAIM_RETENTION_DAYS],
  );
  return r.rowCount ?? 0;
}

/**
 * Pushes a chat adapter acknowledged before they were taken (table `chat_held_pushes`, migration 0050): written
 * before the early acknowledgement, deleted once the handling ended, and read back when the adapter starts, so a
 * push the platform was told was received is handled even if the adapter stopped in between.
 */
import type { Queryable } from './pool.ts';

/**
 * Holds `push` (a JSON value) under its key. Holding it again keeps the first row.
 * @throws the database error when Postgres cannot be reached (nothing is held then: do not acknowledge)
 */
export async function holdPush(
  q: Queryable,
  chatbotId: string,
  pushKey: string,
  push: unknown,
): Promise<void> {
  await q.query(
    `INSERT INTO chat_held_pushes (chatbot_id, push_key, push) VALUES ($1, $2, $3)
     ON CONFLICT (chatbot_id, push_key) DO NOTHING`,
    [chatbotId, pushKey, JSON.stringify(push)],
  );
}

/** Forgets a held push once its handling ended. */
export async function releasePush(q: Queryable, chatbotId: string, pushKey: string): Promise<void> {
  await q.query('DELETE FROM chat_held_pushes WHERE chatbot_id = $1 AND push_key = $2', [chatbotId, pushKey]);
}

/** The pushes of `chatbotId` still held, oldest first. */
export async function listHeldPushes(q: Queryable, chatbotId: string): Promise<unknown[]> {
  const r = await q.query<{ push: unknown }>(
    'SELECT push FROM chat_held_pushes WHERE chatbot_id = $1 ORDER BY held_at',
    [chatbotId],
  );
  return r.rows.map((row) => row.push);
}

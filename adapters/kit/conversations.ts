/**
 * Which conversation (session) a chat place is in now, for every chat adapter: a place (a Discord channel, thread
 * or DM, a WeChat user, …) starts in generation 0, its base session (e.g. `discord:<channel id>`); `/new` moves it
 * to the next generation, session `<base session id>:<n>`, which starts with an empty history while the old
 * session stays readable. The generation lives in Postgres (`chat_conversations`, keyed by chatbot and place), so
 * every adapter process and restart agrees; places that never used `/new` have no row. The session's `channel_id`
 * stays the place's id, so replies and live status are unchanged.
 *
 * `/new` carries a key (the command's update id). The key of the command that started the current conversation
 * is kept (`started_by`), so the same command delivered again (a replay, a catch-up after a restart, a second
 * adapter process) starts no further conversation.
 */
import type { Pool } from '../../db/pool.ts';
import type { SessionAddress } from '../../workflows/definitions.ts';

/** The session address of a place in conversation `generation` (0: the place's first, its `base` address). */
export function conversationAddressOf(base: SessionAddress, generation: number): SessionAddress {
  return generation === 0 ? base : { ...base, sessionId: `${base.sessionId}:${generation}` };
}

/** The current conversation of each place of one chatbot. */
export interface Conversations {
  /** The session address `placeId` uses now. */
  current(placeId: string): Promise<SessionAddress>;
  /**
   * Moves `placeId` to a new conversation. With `key` (the command's update id), a second call with the key that
   * started the current conversation changes nothing and reports `repeated: true`.
   * @returns the old and the new address
   */
  startNew(
    placeId: string,
    key?: string,
  ): Promise<{ previous: SessionAddress; next: SessionAddress; repeated: boolean }>;
}

/**
 * Conversations of chatbot `chatbotId` kept in `pool` (table chat_conversations); `baseAddress` is the place's
 * generation-0 session (its `chatbotId` must be `chatbotId`).
 */
export function createConversations(
  pool: Pool,
  chatbotId: string,
  baseAddress: (placeId: string) => SessionAddress,
): Conversations {
  async function generation(placeId: string): Promise<number> {
    const r = await pool.query<{ generation: number }>(
      'SELECT generation FROM chat_conversations WHERE chatbot_id = $1 AND channel_id = $2',
      [chatbotId, placeId],
    );
    return r.rows[0]?.generation ?? 0;
  }
  return {
    async current(placeId) {
      return conversationAddressOf(baseAddress(placeId), await generation(placeId));
    },
    async startNew(placeId, key) {
      // The row lock of ON CONFLICT makes "already started by this key?" and the bump one atomic step.
      const r = await pool.query<{ generation: number }>(
        `INSERT INTO chat_conversations (chatbot_id, channel_id, generation, started_by) VALUES ($1, $2, 1, $3)
         ON CONFLICT (chatbot_id, channel_id)
         DO UPDATE SET generation = chat_conversations.generation + 1, started_at = now(),
                       started_by = EXCLUDED.started_by
         WHERE EXCLUDED.started_by IS NULL OR chat_conversations.started_by IS DISTINCT FROM EXCLUDED.started_by
         RETURNING generation`,
        [chatbotId, placeId, key ?? null],
      );
      const bumped = r.rows[0]?.generation;
      const next = bumped ?? (await generation(placeId));
      const base = baseAddress(placeId);
      return {
        previous: conversationAddressOf(base, next - 1),
        next: conversationAddressOf(base, next),
        repeated: bumped === undefined,
      };
    },
  };
}

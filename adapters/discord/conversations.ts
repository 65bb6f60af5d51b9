/**
 * Which conversation (session) a Discord channel is in now. A channel starts in generation 0, the session
 * `discord:<channel id>` (ids.ts); `/new` moves it to the next generation, session `discord:<channel id>:<n>`, which
 * starts with an empty history while the old session stays readable. The generation lives in Postgres
 * (`chat_conversations`), so every adapter process and restart agrees; channels that never used `/new` have no row.
 * The session's `channel_id` stays the Discord channel, so replies, live status and catch-up are unchanged.
 */
import type { Pool } from '../../db/pool.ts';
import type { SessionAddress } from '../../workflows/definitions.ts';
import { DISCORD_CHATBOT_ID, discordSessionAddress } from './ids.ts';

/** The session address of `channelId` in conversation `generation` (0: the channel's first). */
export function conversationAddress(channelId: string, generation: number): SessionAddress {
  const base = discordSessionAddress(channelId);
  return generation === 0 ? base : { ...base, sessionId: `${base.sessionId}:${generation}` };
}

/** The current conversation of each channel. */
export interface Conversations {
  /** The session address `channelId` uses now. */
  current(channelId: string): Promise<SessionAddress>;
  /** Moves `channelId` to a new conversation. @returns the old and the new address */
  startNew(channelId: string): Promise<{ previous: SessionAddress; next: SessionAddress }>;
}

/** Conversations kept in `pool` (table chat_conversations). */
export function createConversations(pool: Pool): Conversations {
  async function generation(channelId: string): Promise<number> {
    const r = await pool.query<{ generation: number }>(
      'SELECT generation FROM chat_conversations WHERE chatbot_id = $1 AND channel_id = $2',
      [DISCORD_CHATBOT_ID, channelId],
    );
    return r.rows[0]?.generation ?? 0;
  }
  return {
    async current(channelId) {
      return conversationAddress(channelId, await generation(channelId));
    },
    async startNew(channelId) {
      const r = await pool.query<{ generation: number }>(
        `INSERT INTO chat_conversations (chatbot_id, channel_id, generation) VALUES ($1, $2, 1)
         ON CONFLICT (chatbot_id, channel_id)
         DO UPDATE SET generation = chat_conversations.generation + 1, started_at = now()
         RETURNING generation`,
        [DISCORD_CHATBOT_ID, channelId],
      );
      const next = r.rows[0]?.generation ?? 1;
      return {
        previous: conversationAddress(channelId, next - 1),
        next: conversationAddress(channelId, next),
      };
    },
  };
}

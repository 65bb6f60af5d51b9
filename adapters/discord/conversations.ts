/**
 * Which conversation (session) a Discord channel is in now. A channel starts in generation 0, the session
 * `discord:<channel id>` (ids.ts); `/new` moves it to the next generation, session `discord:<channel id>:<n>`, which
 * starts with an empty history while the old session stays readable. The generation lives in Postgres
 * (`chat_conversations`), so every adapter process and restart agrees; channels that never used `/new` have no row.
 * The session's `channel_id` stays the Discord channel, so replies, live status and catch-up are unchanged.
 *
 * `/new` is typed or run as a slash command; each carries a key (its update id). The key of the command that
 * started the current conversation is kept (`started_by`), so the same command delivered again (a gateway replay,
 * a catch-up fetch after a restart, a second adapter process) starts no further conversation.
 */
import type { Pool } from '../../db/pool.ts';
import type { SessionAddress } from '../../workflows/definitions.ts';
import { DISCORD_CHATBOT_ID, discordSessionAddress } from './ids.ts';

/** The session address of `channelId` in conversation `generation` (0: the channel's first). */
export function conversationAddress(channelId: string, generation: number): SessionAddress {
  const base = discordSessionAddress(channelId);
  return generation === 0 ? base : { ...base, sessionId: `${base.sessionId}:${generation}` };
}

/**
 * The Discord channel (or thread, or DM channel) of a session made by {@link conversationAddress}
 * (`discord:<id>` or `discord:<id>:<n>`), else null.
 */
export function conversationChannelOf(sessionId: string): string | null {
  return /^discord:(\d{1,25})(?::\d+)?$/.exec(sessionId)?.[1] ?? null;
}

/** The current conversation of each channel. */
export interface Conversations {
  /** The session address `channelId` uses now. */
  current(channelId: string): Promise<SessionAddress>;
  /**
   * Moves `channelId` to a new conversation. With `key` (the command's update id), a second call with the key
   * that started the current conversation changes nothing and reports `repeated: true`.
   * @returns the old and the new address
   */
  startNew(
    channelId: string,
    key?: string,
  ): Promise<{ previous: SessionAddress; next: SessionAddress; repeated: boolean }>;
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
    async startNew(channelId, key) {
      // The row lock of ON CONFLICT makes "already started by this key?" and the bump one atomic step.
      const r = await pool.query<{ generation: number }>(
        `INSERT INTO chat_conversations (chatbot_id, channel_id, generation, started_by) VALUES ($1, $2, 1, $3)
         ON CONFLICT (chatbot_id, channel_id)
         DO UPDATE SET generation = chat_conversations.generation + 1, started_at = now(),
                       started_by = EXCLUDED.started_by
         WHERE EXCLUDED.started_by IS NULL OR chat_conversations.started_by IS DISTINCT FROM EXCLUDED.started_by
         RETURNING generation`,
        [DISCORD_CHATBOT_ID, channelId, key ?? null],
      );
      const bumped = r.rows[0]?.generation;
      const next = bumped ?? (await generation(channelId));
      return {
        previous: conversationAddress(channelId, next - 1),
        next: conversationAddress(channelId, next),
        repeated: bumped === undefined,
      };
    },
  };
}

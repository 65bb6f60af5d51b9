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
 *
 * Every conversation is a session workflow and a workspace, so one chat user starts at most
 * `newPerUserPerDay` of them with `/new` in 24 hours (KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY, table
 * `chat_conversation_starts`); past it `/new` is answered with {@link ConversationLimitError}'s text.
 */
import type { Pool } from '../../db/pool.ts';
import type { SessionAddress } from '../../workflows/definitions.ts';

/** Default of `KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY`: new conversations one chat user may start per 24 hours. */
export const DEFAULT_NEW_CONVERSATIONS_PER_DAY = 50;

/** `/new` refused: the user started the most conversations allowed in the last 24 hours. `message` is for them. */
export class ConversationLimitError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(
      `⚠️ You started ${limit} new conversations in the last 24 hours, the most one person may ` +
        '(KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY). Go on in this one, or try `/new` again later.',
    );
    this.name = 'ConversationLimitError';
    this.limit = limit;
  }
}

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
    userId?: string,
  ): Promise<{ previous: SessionAddress; next: SessionAddress; repeated: boolean }>;
}

/**
 * Conversations of chatbot `chatbotId` kept in `pool` (table chat_conversations); `baseAddress` is the place's
 * generation-0 session (its `chatbotId` must be `chatbotId`). `startNew` with the user's platform id counts the
 * start against their limit (`opts.newPerUserPerDay`, default {@link DEFAULT_NEW_CONVERSATIONS_PER_DAY}) and
 * throws {@link ConversationLimitError} past it.
 */
export function createConversations(
  pool: Pool,
  chatbotId: string,
  baseAddress: (placeId: string) => SessionAddress,
  opts: { newPerUserPerDay?: number } = {},
): Conversations {
  const perDay = opts.newPerUserPerDay ?? DEFAULT_NEW_CONVERSATIONS_PER_DAY;
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
    async startNew(placeId, key, userId) {
      if (userId !== undefined) {
        const r = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM chat_conversation_starts
            WHERE chatbot_id = $1 AND user_id = $2 AND started_at > now() - interval '24 hours'`,
          [chatbotId, userId],
        );
        if ((r.rows[0]?.n ?? 0) >= perDay) throw new ConversationLimitError(perDay);
      }
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
      if (bumped !== undefined && userId !== undefined)
        await pool.query('INSERT INTO chat_conversation_starts (chatbot_id, user_id) VALUES ($1, $2)', [
          chatbotId,
          userId,
        ]);
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

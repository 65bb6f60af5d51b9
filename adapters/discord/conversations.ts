/**
 * Which conversation (session) a Discord channel is in now (adapters/kit/conversations.ts): a channel starts in
 * generation 0, the session `discord:<channel id>` (ids.ts); `/new` moves it to the next generation, session
 * `discord:<channel id>:<n>`, which starts with an empty history while the old session stays readable. The
 * session's `channel_id` stays the Discord channel, so replies, live status and catch-up are unchanged. A `/new`
 * delivered twice starts one conversation (the kit keeps the key of the command that started the current one).
 */
import type { Pool } from '../../db/pool.ts';
import type { SessionAddress } from '../../workflows/definitions.ts';
import {
  conversationAddressOf,
  createConversations as createChatConversations,
  type Conversations,
} from '../kit/conversations.ts';
import { DISCORD_CHATBOT_ID, discordSessionAddress } from './ids.ts';

export type { Conversations } from '../kit/conversations.ts';

/** The session address of `channelId` in conversation `generation` (0: the channel's first). */
export function conversationAddress(channelId: string, generation: number): SessionAddress {
  return conversationAddressOf(discordSessionAddress(channelId), generation);
}

/**
 * The Discord channel (or thread, or DM channel) of a session made by {@link conversationAddress}
 * (`discord:<id>` or `discord:<id>:<n>`), else null.
 */
export function conversationChannelOf(sessionId: string): string | null {
  return /^discord:(\d{1,25})(?::\d+)?$/.exec(sessionId)?.[1] ?? null;
}

/**
 * Conversations of Discord channels kept in `pool` (table chat_conversations); a user starts at most
 * `newPerUserPerDay` with `/new` per 24 hours (kit/conversations.ts).
 */
export function createConversations(pool: Pool, newPerUserPerDay?: number): Conversations {
  return createChatConversations(pool, DISCORD_CHATBOT_ID, discordSessionAddress, {
    ...(newPerUserPerDay === undefined ? {} : { newPerUserPerDay }),
  });
}

/**
 * How Discord things map to Kesoku ids. Pure.
 *
 * - A session per channel, thread or DM: `discord:<channel or thread id>` (chatbot_id "discord", channel_id the
 *   same Discord id).
 * - An inbound message's Kesoku id is `discord-<message snowflake>`: a gateway replay of the same Discord message
 *   submits the same id, which the session de-duplicates (message ids are idempotency keys).
 */
import type { SessionAddress } from '../../workflows/definitions.ts';

/** The chatbot id of Discord sessions (docs/message-model.md §3 `chatbot_id`). */
export const DISCORD_CHATBOT_ID = 'discord';

/** The session of a Discord channel, thread or DM channel. */
export function discordSessionAddress(channelOrThreadId: string): SessionAddress {
  return {
    sessionId: `discord:${channelOrThreadId}`,
    chatbotId: DISCORD_CHATBOT_ID,
    channelId: channelOrThreadId,
  };
}

/** The Kesoku message id of a Discord message. */
export function inboundIdFor(discordMessageId: string): string {
  return `discord-${discordMessageId}`;
}

/** The Discord message id inside a Kesoku id made by {@link inboundIdFor}, else null. */
export function discordIdOfInbound(kesokuId: string): string | null {
  return /^discord-(\d{1,25})$/.exec(kesokuId)?.[1] ?? null;
}

/**
 * The Temporal update id of a chat command typed in Discord message `discordMessageId`: the same message
 * delivered twice (a gateway replay, a second adapter process) makes the same update id, and Temporal runs an
 * update with a known id only once, so a replayed `/compact` is not queued twice.
 */
export function commandUpdateIdFor(discordMessageId: string): string {
  return `discord-command-${discordMessageId}`;
}

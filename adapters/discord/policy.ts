/**
 * Who may talk to Kesoku on Discord and when it answers. Pure.
 *
 * Access is the shared chat access rule (domain/access-policy.ts), with guilds as its groups:
 * - `DISCORD_ALLOW_ALL=true`: everyone everywhere (mode `open`; a loud warning at start-up).
 * - Any of `DISCORD_ALLOWED_GUILDS`, `DISCORD_ALLOWED_CHANNELS`, `DISCORD_ALLOWED_USERS` set: the allowlists
 *   decide (mode `lists`), strangers get no answer; paired users count as listed users.
 * - Otherwise (the default): pairing. Paired users are allowed; anyone else who writes a DM or mentions the bot is
 *   sent a pairing code by DM (never in the guild channel) and nothing else happens.
 *
 * Answering (`DISCORD_RESPOND`): always in DMs; in guilds when the bot is mentioned; with `always`, also to
 * every message in the channels listed in `DISCORD_ALLOWED_CHANNELS` (and their threads), or in every allowed
 * channel when no channel is listed.
 */
import {
  accessPolicy,
  decideAccess,
  inListedChannel,
  type AccessPolicy,
  type ChatPlace,
} from '../../domain/access-policy.ts';
import { DISCORD_CHATBOT_ID } from './ids.ts';

export interface DiscordPolicy {
  access: AccessPolicy;
  respond: 'mention' | 'always';
}

/** Builds the policy from the configuration (infra/config.ts). */
export function discordPolicy(cfg: {
  DISCORD_ALLOWED_GUILDS: readonly string[];
  DISCORD_ALLOWED_CHANNELS: readonly string[];
  DISCORD_ALLOWED_USERS: readonly string[];
  DISCORD_RESPOND: 'mention' | 'always';
  DISCORD_ALLOW_ALL?: boolean;
}): DiscordPolicy {
  return {
    access: accessPolicy({
      allowAll: cfg.DISCORD_ALLOW_ALL ?? false,
      groups: cfg.DISCORD_ALLOWED_GUILDS,
      channels: cfg.DISCORD_ALLOWED_CHANNELS,
      users: cfg.DISCORD_ALLOWED_USERS,
    }),
    respond: cfg.DISCORD_RESPOND,
  };
}

/** Where a message was posted and by whom. */
export interface MessagePlace {
  guildId: string | null;
  /** The channel, thread or DM channel id. */
  channelId: string;
  /** For a thread, its parent channel. */
  parentId: string | null;
  userId: string;
  isDM: boolean;
}

/** The channel-neutral place of a Discord message (chatbot `discord`, guilds as groups). */
export function chatPlaceOf(place: MessagePlace): ChatPlace {
  return {
    chatbotId: DISCORD_CHATBOT_ID,
    userId: place.userId,
    channelId: place.channelId,
    parentId: place.parentId,
    groupId: place.guildId,
    isDirect: place.isDM,
  };
}

/** Whether `place` is allowed (see the module comment); `paired`: its user is a paired user. */
export function isAllowed(p: DiscordPolicy, place: MessagePlace, paired = false): boolean {
  return decideAccess(p.access, chatPlaceOf(place), paired) === 'allowed';
}

/** Whether Kesoku answers an allowed message (see the module comment). */
export function isAddressed(p: DiscordPolicy, place: MessagePlace, mentionsBot: boolean): boolean {
  if (place.isDM || mentionsBot) return true;
  return p.respond === 'always' && (p.access.channels.size === 0 || inListedChannel(p.access, place));
}

/**
 * Who may talk to Kesoku on Discord and when it answers. Pure.
 *
 * Allowlists (`DISCORD_ALLOWED_GUILDS`, `DISCORD_ALLOWED_CHANNELS`, `DISCORD_ALLOWED_USERS`): with none set,
 * everyone everywhere is allowed. Once any is set, access is denied by default and every list that is set must
 * match: the user must be listed (when users are listed); a guild message must come from a listed guild (when
 * guilds are listed) and from a listed channel — a thread matches through its parent too — (when channels are
 * listed). Guild and channel lists do not apply to DMs: a DM is allowed when its user is listed, or when its DM
 * channel id is listed in `DISCORD_ALLOWED_CHANNELS`.
 *
 * Answering (`DISCORD_RESPOND`): always in DMs; in guilds when the bot is mentioned; with `always`, also to
 * every message in the channels listed in `DISCORD_ALLOWED_CHANNELS` (and their threads), or in every allowed
 * channel when no channel is listed.
 */

export interface DiscordPolicy {
  guilds: ReadonlySet<string>;
  channels: ReadonlySet<string>;
  users: ReadonlySet<string>;
  respond: 'mention' | 'always';
}

/** Builds the policy from the configuration's lists (infra/config.ts). */
export function discordPolicy(cfg: {
  DISCORD_ALLOWED_GUILDS: readonly string[];
  DISCORD_ALLOWED_CHANNELS: readonly string[];
  DISCORD_ALLOWED_USERS: readonly string[];
  DISCORD_RESPOND: 'mention' | 'always';
}): DiscordPolicy {
  return {
    guilds: new Set(cfg.DISCORD_ALLOWED_GUILDS),
    channels: new Set(cfg.DISCORD_ALLOWED_CHANNELS),
    users: new Set(cfg.DISCORD_ALLOWED_USERS),
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

/** Whether `place` passes the allowlists (see the module comment). */
export function isAllowed(p: DiscordPolicy, place: MessagePlace): boolean {
  if (p.guilds.size === 0 && p.channels.size === 0 && p.users.size === 0) return true;
  if (p.users.size > 0 && !p.users.has(place.userId)) return false;
  if (place.isDM) return p.users.size > 0 || p.channels.has(place.channelId);
  if (p.guilds.size > 0 && !(place.guildId !== null && p.guilds.has(place.guildId))) return false;
  if (p.channels.size > 0 && !inListedChannel(p, place)) return false;
  return true;
}

/** Whether Kesoku answers an allowed message (see the module comment). */
export function isAddressed(p: DiscordPolicy, place: MessagePlace, mentionsBot: boolean): boolean {
  if (place.isDM || mentionsBot) return true;
  return p.respond === 'always' && (p.channels.size === 0 || inListedChannel(p, place));
}

function inListedChannel(p: DiscordPolicy, place: MessagePlace): boolean {
  return p.channels.has(place.channelId) || (place.parentId !== null && p.channels.has(place.parentId));
}

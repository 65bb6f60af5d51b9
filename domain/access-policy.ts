/**
 * Who may talk to the agent through a chat adapter (Discord today; any chat platform with users, channels and
 * an optional group such as a Discord guild). Pure: the paired-user lookup is done by the caller.
 *
 * Three modes, chosen by configuration:
 * - `open` (explicit opt-in, e.g. `DISCORD_ALLOW_ALL=true`): everyone everywhere is allowed.
 * - `lists` (any allowlist set): the allowlists decide as follows, and strangers get no answer. The user must be
 *   listed (when users are listed); a group message must come from a listed group (when groups are listed) and
 *   from a listed channel — a thread matches through its parent too — (when channels are listed). Group and
 *   channel lists do not apply to direct messages: a direct message is allowed when its user is listed, or when
 *   its channel id is listed. Paired users count as listed users (pairing adds users on top of the lists; the
 *   group and channel lists still bound where they may talk).
 * - `pairing` (the default: no list set, no opt-in): paired users are allowed everywhere the bot is; anyone else
 *   is answered only with a pairing code (see {@link AccessDecision}).
 */

/** How access is decided (see the module comment). */
export type AccessMode = 'open' | 'lists' | 'pairing';

/** The access configuration of one chatbot. */
export interface AccessPolicy {
  mode: AccessMode;
  /** Allowed group ids (Discord guilds); used in mode `lists`. */
  groups: ReadonlySet<string>;
  /** Allowed channel ids (a thread matches through its parent); used in mode `lists`. */
  channels: ReadonlySet<string>;
  /** Allowed platform user ids; used in mode `lists`. */
  users: ReadonlySet<string>;
}

/**
 * Builds a policy: `open` when `allowAll`, else `lists` when any list is non-empty, else `pairing`.
 */
export function accessPolicy(o: {
  allowAll: boolean;
  groups?: readonly string[];
  channels?: readonly string[];
  users?: readonly string[];
}): AccessPolicy {
  const groups = new Set(o.groups ?? []);
  const channels = new Set(o.channels ?? []);
  const users = new Set(o.users ?? []);
  const mode: AccessMode = o.allowAll
    ? 'open'
    : groups.size + channels.size + users.size > 0
      ? 'lists'
      : 'pairing';
  return { mode, groups, channels, users };
}

/** Where a chat message was posted and by whom. */
export interface ChatPlace {
  /** The chatbot (adapter instance) the message came through, e.g. `discord`. */
  chatbotId: string;
  /** The platform user id of the sender. */
  userId: string;
  /** The channel, thread or direct-message channel id. */
  channelId: string;
  /** For a thread, its parent channel. */
  parentId: string | null;
  /** The group (Discord guild) of a group message; null for direct messages. */
  groupId: string | null;
  /** A one-to-one conversation with the bot. */
  isDirect: boolean;
}

/**
 * What a message gets: `allowed` (handled as usual), `pairing` (the sender is told a pairing code and nothing
 * else happens), `denied` (ignored, no answer).
 */
export type AccessDecision = 'allowed' | 'pairing' | 'denied';

/**
 * Decides access for a message at `place`; `paired` is whether its sender is a paired user of the chatbot.
 */
export function decideAccess(p: AccessPolicy, place: ChatPlace, paired: boolean): AccessDecision {
  switch (p.mode) {
    case 'open':
      return 'allowed';
    case 'pairing':
      return paired ? 'allowed' : 'pairing';
    case 'lists':
      return passesLists(p, place, paired) ? 'allowed' : 'denied';
  }
}

/** The allowlist rule of mode `lists` (module comment); `paired` counts as a listed user. */
export function passesLists(p: AccessPolicy, place: ChatPlace, paired: boolean): boolean {
  const userListed = paired || p.users.has(place.userId);
  if (p.users.size > 0 && !userListed) return false;
  if (place.isDirect) return userListed || p.channels.has(place.channelId);
  if (p.groups.size > 0 && !(place.groupId !== null && p.groups.has(place.groupId))) return false;
  if (p.channels.size > 0 && !inListedChannel(p, place)) return false;
  return true;
}

/** Whether the place is a listed channel or a thread of one. */
export function inListedChannel(
  p: Pick<AccessPolicy, 'channels'>,
  place: Pick<ChatPlace, 'channelId' | 'parentId'>,
): boolean {
  return p.channels.has(place.channelId) || (place.parentId !== null && p.channels.has(place.parentId));
}

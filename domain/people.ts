/**
 * Who is talking (docs/memory.md "People"): one notion of a person used by memory, `/link` and `GET /v1/me`.
 * A person is a REST principal, or a chat user (a Discord user, a Google Chat user, a WeChat follower) of one
 * chatbot; a chat user linked to a principal is that principal. Sessions without either (a turn submitted
 * straight to the workflow, a cron prompt) keep memory per session. Pure; no I/O.
 */

/** A person's key as stored in `memory_entries.person`: `principal:<name>`, `chat:<chatbot>:<user>` or `session:<id>`. */
export type PersonKey = string;

/** The key of an API principal. */
export const principalPerson = (name: string): PersonKey => `principal:${name}`;

/** The key of a chat user of `chatbotId` (the platform's user id, InboundMessage `senderId`). */
export const chatUserPerson = (chatbotId: string, userId: string): PersonKey => `chat:${chatbotId}:${userId}`;

/** The key of a session that has no known person. */
export const sessionPerson = (sessionId: string): PersonKey => `session:${sessionId}`;

/**
 * A shared memory scope as configured (KESOKU_MEMORY_SHARED_SCOPES, docs/memory.md "Shared scope"):
 * `session:<session id>`, or `channel:<chatbot id>:<channel id>` for every session of one channel.
 */
export type SharedScope = string;

/** The key under which the entries of shared scope `scope` are stored. */
export const sharedPerson = (scope: SharedScope): PersonKey => `shared:${scope}`;

/**
 * The shared scope a turn of `sessionId` on `chatbotId`/`channelId` writes to and recalls from, among the
 * configured `scopes`: the session's own, else its channel's; null when neither is configured (memory then stays
 * per person).
 */
export function sharedScopeOf(
  scopes: ReadonlySet<SharedScope>,
  sessionId: string,
  chatbotId: string,
  channelId: string,
): PersonKey | null {
  for (const scope of [`session:${sessionId}`, `channel:${chatbotId}:${channelId}`])
    if (scopes.has(scope)) return sharedPerson(scope);
  return null;
}

/** Who is speaking in a turn: the person whose memory is read and written, and a name for the model. */
export interface Speaker {
  /** Where new entries go: the principal when there is one (directly or by a link), else the chat user. */
  person: PersonKey;
  /** Every key whose entries belong to this person: `person` plus chat users linked to it (entries from before the link). */
  persons: PersonKey[];
  /** A human-readable name: the principal's name, the chat user's display name, or the sender. */
  name: string;
  /** The principal behind the speaker, if any. */
  principal: string | null;
  /**
   * The shared scope of the session or channel, when one is configured ({@link sharedScopeOf}): its entries are
   * recalled by everyone there, and written only on request (`remember {shared: true}`). Absent: none.
   */
  shared?: PersonKey | null;
}

/** The keys a speaker recalls from: their own, then the shared scope's when there is one. */
export function recallKeys(s: Pick<Speaker, 'persons' | 'shared'>): PersonKey[] {
  return s.shared ? [...s.persons, s.shared] : s.persons;
}

/**
 * Who is speaking in a turn (domain/people.ts): the REST principal owning the session, else the chat user who
 * sent the turn's trigger (followed to the principal it is linked to), else the session itself.
 */
import type { Message } from '../../domain/message.ts';
import {
  principalPerson,
  sessionPerson,
  sharedScopeOf,
  type SharedScope,
  type Speaker,
} from '../../domain/people.ts';
import { personOfChatUser, sessionPrincipal } from '../../db/people.ts';
import type { Queryable } from '../../db/pool.ts';

/**
 * The speaker of the turn whose trigger is `trigger` in `sessionId`, with the shared scope among `sharedScopes`
 * (KESOKU_MEMORY_SHARED_SCOPES) that covers the session or the trigger's channel.
 * A session created over REST belongs to its principal (`session_owners`), whoever the message's free-form `sender`
 * claims to be; a chat session's speaker is the trigger's platform user (`metadata.sender_id` of its chatbot).
 */
export async function speakerOf(
  q: Queryable,
  sessionId: string,
  trigger: Message | null,
  sharedScopes: ReadonlySet<SharedScope> = new Set(),
): Promise<Speaker> {
  const shared = sharedScopeOf(
    sharedScopes,
    sessionId,
    trigger?.chatbot_id ?? 'api',
    trigger?.channel_id ?? sessionId,
  );
  return { ...(await personOf(q, sessionId, trigger)), shared };
}

async function personOf(q: Queryable, sessionId: string, trigger: Message | null): Promise<Speaker> {
  const owner = await sessionPrincipal(q, sessionId);
  if (owner) {
    const { principal, persons } = owner;
    return { person: principalPerson(principal), persons, name: principal, principal };
  }
  const userId = trigger?.metadata?.sender_id;
  if (trigger && typeof userId === 'string' && userId !== '') {
    const who = await personOfChatUser(q, trigger.chatbot_id, userId);
    return { ...who, name: trigger.sender || who.principal || userId };
  }
  const person = sessionPerson(sessionId);
  return { person, persons: [person], name: trigger?.sender ?? 'user', principal: null };
}

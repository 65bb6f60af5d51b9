/**
 * The chat side of what the agent knows (docs/memory.md): `/memory` lists the sender's remembered entries and,
 * where the conversation has a shared scope (KESOKU_MEMORY_SHARED_SCOPES), the shared ones; `/memory forget <id>`
 * forgets one of either; `/link` gives the sender a one-time code that an API principal confirms
 * (`POST /v1/me/links`), after which the sender's memory is that principal's on every channel.
 */
import { forgetEntry, searchEntries, type MemoryEntry } from '../../db/memory.ts';
import { LINK_CODE_TTL_MS, issueLinkCode, personOfChatUser, sessionSharedScope } from '../../db/people.ts';
import type { Pool } from '../../db/pool.ts';
import type { SharedScope } from '../../domain/people.ts';

/** Entries `/memory` lists, of the sender's own and of the shared scope each. */
export const MEMORY_LISTED = 20;

/** The answers of `/memory` and `/link` for one channel; each resolves to the text to answer with. */
export interface KnowledgeCommands {
  /** `/memory` typed by `sender` in `sessionId`. */
  list(sender: string, sessionId: string): Promise<string>;
  /** `/memory forget <id>` typed by `sender` in `sessionId`: the sender's entry or one of the shared scope's. */
  forget(sender: string, id: string, sessionId: string): Promise<string>;
  link(sender: string): Promise<string>;
}

const lines = (entries: readonly MemoryEntry[]) => entries.map((e) => `\`${e.id}\` ${e.text}`);
const latest = (entries: readonly MemoryEntry[]) =>
  entries.length === MEMORY_LISTED ? `, the latest ${MEMORY_LISTED}` : '';

/**
 * The commands for chatbot `chatbotId` (the `chatbot_id` of its messages, e.g. `discord`).
 * @param sharedScopes the configured shared scopes (KESOKU_MEMORY_SHARED_SCOPES); default none
 */
export function createKnowledgeCommands(
  pool: Pool,
  chatbotId: string,
  sharedScopes: ReadonlySet<SharedScope> = new Set(),
): KnowledgeCommands {
  return {
    async list(sender, sessionId) {
      const [who, shared] = await Promise.all([
        personOfChatUser(pool, chatbotId, sender),
        sessionSharedScope(pool, sharedScopes, sessionId),
      ]);
      const [own, common] = await Promise.all([
        searchEntries(pool, { persons: who.persons, limit: MEMORY_LISTED }),
        shared ? searchEntries(pool, { persons: [shared], limit: MEMORY_LISTED }) : Promise.resolve([]),
      ]);
      if (own.length === 0 && common.length === 0)
        return shared
          ? '🧠 I remember nothing about you, and nothing is shared in this conversation yet.'
          : '🧠 I remember nothing about you yet.';
      const text =
        own.length === 0
          ? ['🧠 I remember nothing about you yet.']
          : [`🧠 What I remember about you (newest first${latest(own)}):`, ...lines(own)];
      if (common.length > 0)
        text.push(
          `👥 Shared with everyone in this conversation (newest first${latest(common)}):`,
          ...lines(common),
        );
      text.push('Forget one with `/memory forget <id>`.');
      return text.join('\n');
    },
    async forget(sender, id, sessionId) {
      const [who, shared] = await Promise.all([
        personOfChatUser(pool, chatbotId, sender),
        sessionSharedScope(pool, sharedScopes, sessionId),
      ]);
      const persons = shared ? [...who.persons, shared] : who.persons;
      const e = await forgetEntry(pool, { id, persons, by: `${chatbotId}:${sender}` });
      if (e) return `🗑️ Forgotten${e.shared ? ' (it was shared with everyone here)' : ''}: ${e.text}`;
      return shared
        ? `⚠️ I have no entry \`${id}\` about you or shared here (\`/memory\` lists them).`
        : `⚠️ I have no entry \`${id}\` about you (\`/memory\` lists them).`;
    },
    async link(sender) {
      const { code } = await issueLinkCode(pool, { chatbotId, userId: sender });
      const minutes = Math.round(LINK_CODE_TTL_MS / 60_000);
      return (
        `🔗 Your link code: \`${code}\` (valid for ${minutes} minutes, once). Confirm it with your Kesoku API token: ` +
        `\`POST /v1/me/links {"code": "${code}"}\`. Then what I remember follows you on every channel.`
      );
    },
  };
}

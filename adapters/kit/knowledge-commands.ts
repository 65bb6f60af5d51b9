/**
 * The chat side of what the agent knows (docs/memory.md): `/memory` lists the sender's remembered entries,
 * `/memory forget <id>` forgets one, `/link` gives the sender a one-time code that an API principal confirms
 * (`POST /v1/me/links`), after which the sender's memory is that principal's on every channel.
 */
import { forgetEntry, searchEntries } from '../../db/memory.ts';
import { LINK_CODE_TTL_MS, issueLinkCode, personOfChatUser } from '../../db/people.ts';
import type { Pool } from '../../db/pool.ts';

/** Entries `/memory` lists. */
export const MEMORY_LISTED = 20;

/** The answers of `/memory` and `/link` for one channel; each resolves to the text to answer with. */
export interface KnowledgeCommands {
  list(sender: string): Promise<string>;
  forget(sender: string, id: string): Promise<string>;
  link(sender: string): Promise<string>;
}

/** The commands for chatbot `chatbotId` (the `chatbot_id` of its messages, e.g. `discord`). */
export function createKnowledgeCommands(pool: Pool, chatbotId: string): KnowledgeCommands {
  return {
    async list(sender) {
      const who = await personOfChatUser(pool, chatbotId, sender);
      const entries = await searchEntries(pool, { persons: who.persons, limit: MEMORY_LISTED });
      if (entries.length === 0) return '🧠 I remember nothing about you yet.';
      return [
        `🧠 What I remember about you (newest first${entries.length === MEMORY_LISTED ? `, the latest ${MEMORY_LISTED}` : ''}):`,
        ...entries.map((e) => `\`${e.id}\` ${e.text}`),
        'Forget one with `/memory forget <id>`.',
      ].join('\n');
    },
    async forget(sender, id) {
      const who = await personOfChatUser(pool, chatbotId, sender);
      const e = await forgetEntry(pool, { id, persons: who.persons, by: `${chatbotId}:${sender}` });
      return e
        ? `🗑️ Forgotten: ${e.text}`
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

/**
 * `/memory` and `/memory forget` (adapters/kit/knowledge-commands.ts) on real Postgres: in a conversation with a
 * shared scope (KESOKU_MEMORY_SHARED_SCOPES, by session or by channel) a person sees their own entries and the
 * shared ones, never another person's own, and may forget a shared one; elsewhere only their own are listed and
 * a shared entry's id is as unknown as another person's.
 */
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { rememberEntry } from '../../db/memory.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { chatUserPerson, sharedPerson } from '../../domain/people.ts';
import { createKnowledgeCommands } from './knowledge-commands.ts';

let pool: Pool;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'));
});
afterAll(async () => pool?.end());

let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${Date.now()}-${++n}`;

/** A session row of chatbot `chat` on `channel`, as a chat ingress creates it. */
async function session(id: string, channel: string): Promise<void> {
  await pool.query('INSERT INTO sessions (id, chatbot_id, channel_id) VALUES ($1, $2, $3)', [
    id,
    'chat',
    channel,
  ]);
}

describe('/memory with a shared scope', () => {
  it('lists the sender’s own and the shared entries, never another person’s, and forgets a shared one', async () => {
    const channel = unique('c-team');
    const [s1, s2] = [unique('s-team-1'), unique('s-team-2')];
    await session(s1, channel);
    await session(s2, channel);
    const scope = `channel:chat:${channel}`;
    const commands = createKnowledgeCommands(pool, 'chat', new Set([scope]));
    const standup = await rememberEntry(pool, {
      person: sharedPerson(scope),
      text: 'The standup is at 9:30.',
      author: 'Ann',
    });
    await rememberEntry(pool, {
      person: chatUserPerson('chat', 'ann'),
      text: 'Ann badge 4471',
      author: 'Ann',
    });
    await rememberEntry(pool, {
      person: chatUserPerson('chat', 'ben'),
      text: 'Ben likes tea',
      author: 'Ben',
    });

    // Ben, in another session of the same channel: his own and the shared one, not Ann's.
    const bens = await commands.list('ben', s2);
    expect(bens).toContain('Ben likes tea');
    expect(bens).toMatch(
      /Shared with everyone in this conversation[^\n]*\n`m[0-9a-f]+` The standup is at 9:30\./,
    );
    expect(bens).not.toContain('4471');

    // Elsewhere (a session of another channel) the shared entry is neither listed nor forgettable.
    const elsewhere = unique('s-other');
    await session(elsewhere, unique('c-other'));
    expect(await commands.list('ben', elsewhere)).not.toContain('standup');
    expect(await commands.forget('ben', standup.id, elsewhere)).toMatch(/^⚠️ I have no entry/);

    // In the channel anyone there may forget it; then nobody there sees it.
    expect(await commands.forget('ben', standup.id, s2)).toBe(
      '🗑️ Forgotten (it was shared with everyone here): The standup is at 9:30.',
    );
    expect(await commands.list('ann', s1)).not.toContain('standup');
    expect(await commands.list('ann', s1)).toContain('Ann badge 4471');
  });

  it('a session scope covers a session that has no row yet; without any scope only the sender’s own are listed', async () => {
    const fresh = unique('s-fresh');
    const scope = `session:${fresh}`;
    await rememberEntry(pool, {
      person: sharedPerson(scope),
      text: 'Shared plan: ship Friday',
      author: 'Ann',
    });
    expect(await createKnowledgeCommands(pool, 'chat', new Set([scope])).list('cy', fresh)).toContain(
      'Shared plan: ship Friday',
    );
    expect(await createKnowledgeCommands(pool, 'chat').list('cy', fresh)).toBe(
      '🧠 I remember nothing about you yet.',
    );
  });
});

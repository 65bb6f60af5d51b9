/**
 * Memory search (db/memory.ts `searchEntries`) on real Postgres: any word of the query matches, best match
 * first; quotes, backslashes and tsquery operators in the query are plain text; a query without words (only
 * punctuation) or in a script without spaces matches by substring; forgotten and other persons' entries never.
 */
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { forgetEntry, rememberEntry, searchEntries } from './memory.ts';
import { createPool, type Pool } from './pool.ts';

let pool: Pool;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'));
});
afterAll(async () => pool?.end());

let n = 0;
const person = () => `test:${process.pid}-${Date.now()}-${++n}`;
const texts = async (persons: string[], query: string) =>
  (await searchEntries(pool, { persons, query, limit: 50 })).map((e) => e.text);

describe('searchEntries', () => {
  it('matches any word, best first; operators, quotes and backslashes are only text', async () => {
    const p = person();
    for (const text of [
      'Coffee: black, no sugar.',
      'Tea and coffee in the morning, coffee again at noon.',
      "O'Brien's desk is by the window.",
      'The path is C:\\tools\\bin.',
      'Unrelated note about bicycles.',
    ])
      await rememberEntry(pool, { person: p, text, author: 't' });
    const coffee = await texts([p], 'coffee');
    expect(coffee).toHaveLength(2);
    expect(coffee[0]).toMatch(/^Tea and coffee/); // two occurrences rank higher
    expect(await texts([p], "bicycles & !coffee | ' ) (:*")).toEqual(
      expect.arrayContaining(['Unrelated note about bicycles.', 'Coffee: black, no sugar.']),
    );
    expect(await texts([p], "o'brien's")).toEqual(["O'Brien's desk is by the window."]);
    expect(await texts([p], 'C:\\tools\\bin')).toEqual(['The path is C:\\tools\\bin.']);
    expect(await texts([p], 'nothing-like-this')).toEqual([]);
  });

  it('without words (punctuation only) or without spaces it matches by substring', async () => {
    const p = person();
    await rememberEntry(pool, { person: p, text: '我喜欢喝乌龙茶', author: 't' });
    await rememberEntry(pool, { person: p, text: 'Ship it!!! now', author: 't' });
    expect(await texts([p], '乌龙茶')).toEqual(['我喜欢喝乌龙茶']);
    expect(await texts([p], '!!!')).toEqual(['Ship it!!! now']);
    expect(await texts([p], '%')).toEqual([]); // LIKE wildcards are escaped
  });

  it('a long query is cut to its first words and still matches; others’ and forgotten entries never', async () => {
    const [p, other] = [person(), person()];
    const kept = await rememberEntry(pool, { person: p, text: 'alpha fact', author: 't' });
    const gone = await rememberEntry(pool, { person: p, text: 'alpha forgotten', author: 't' });
    await rememberEntry(pool, { person: other, text: 'alpha of someone else', author: 't' });
    await forgetEntry(pool, { id: gone.id, persons: [p], by: 't' });
    const long = ['alpha', ...Array.from({ length: 200 }, (_, i) => `w${i}`)].join(' ');
    expect(await texts([p], long)).toEqual([kept.text]);
  });
});

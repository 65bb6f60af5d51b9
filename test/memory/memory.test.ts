/**
 * Knowledge memory on the real stack (Temporal dev server, Postgres, worker, fake model recording what it
 * receives, REST API with two principals): what one person's turn remembers is recalled into a later session of
 * the same person and never reaches another principal, neither in the prompt nor over REST.
 */
import { describe, expect, it } from 'vitest';
import type { ApiToken } from '../../api/auth.ts';
import type { FakeRequest } from '../fakes/model-server.ts';
import { uniqueId } from '../support/stack.ts';
import { expectProblem, useHarness, type Json } from '../api/support.ts';

const tok = (c: string) => c.repeat(40);
const TOKENS: ApiToken[] = [
  { name: 'alice', token: tok('a'), admin: false },
  { name: 'bob', token: tok('b'), admin: false },
  { name: 'admin', token: tok('z'), admin: true },
];
const as = (name: 'alice' | 'bob' | 'admin') => ({
  authorization: `Bearer ${TOKENS.find((t) => t.name === name)!.token}`,
});

const h = useHarness({ api: { tokens: TOKENS } });

/** The wire messages of a request as [role, text]. */
const wire = (r: FakeRequest | undefined) =>
  (r?.body?.messages ?? []).map((m) => [
    m.role,
    typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
  ]);

/** Posts `content` to `session` as `who` and waits for the reply. */
async function say(who: 'alice' | 'bob', session: string, content: string): Promise<Json> {
  const r = await h.client.post(`/v1/sessions/${session}/messages`, { content, wait: 60 }, as(who));
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe('knowledge memory', () => {
  it('a fact remembered in one session is recalled in a later session of the same principal, and never for another', async () => {
    const first = uniqueId('s-mem1');
    h.stack.script(
      first,
      {
        kind: 'tool_calls',
        calls: [{ name: 'remember', arguments: { text: 'Alice drinks her coffee black, no sugar.' } }],
      },
      { kind: 'text', text: 'Noted.' },
    );
    await say('alice', first, 'Please remember: I drink my coffee black, no sugar.');
    const stored = await h.stack.messages(first);
    const result = stored.find((m) => m.type === 'tool_result');
    expect(result?.content).toMatch(/^Remembered \[m[0-9a-f]{12} r1\] Alice drinks her coffee black/);

    // A later session of alice: the entry is in the runtime context of the last user message, once.
    const later = uniqueId('s-mem2');
    await say('alice', later, 'How do I take my coffee?');
    const msgs = wire(h.stack.requestsOf(later)[0]);
    expect(msgs[0]?.[0]).toBe('system');
    expect(msgs.filter(([role]) => role === 'system')).toHaveLength(1);
    const lastUser = msgs.at(-1);
    expect(lastUser?.[0]).toBe('user');
    expect(lastUser?.[1]).toMatch(/^How do I take my coffee\?\n\n\[Runtime Context\]\n/);
    expect(lastUser?.[1]).toContain('- Speaking: alice');
    expect(lastUser?.[1]).toContain('Alice drinks her coffee black, no sugar.');
    const conversation = msgs.filter(([role]) => role !== 'system').map(([, t]) => t);
    expect(conversation.join('\n').split('[Runtime Context]')).toHaveLength(2);

    // bob, asking the same thing: nothing of alice's in his prompt, nor in his GET /v1/memory.
    const bobs = uniqueId('s-mem3');
    await say('bob', bobs, 'How do I take my coffee?');
    const bobPrompt = JSON.stringify(h.stack.requestsOf(bobs));
    expect(bobPrompt).toContain('- Speaking: bob');
    expect(bobPrompt).not.toContain('black, no sugar');
    const bobList = await h.client.get('/v1/memory?q=coffee', as('bob'));
    expect(bobList.body).toEqual({ entries: [] });

    // alice sees and searches hers; bob cannot delete it (404 like an unknown id); alice can.
    const aliceList = await h.client.get('/v1/memory?q=coffee', as('alice'));
    const entries = aliceList.body.entries as Json[];
    expect(entries.map((e) => e.text)).toEqual(['Alice drinks her coffee black, no sugar.']);
    expect(entries[0]).toMatchObject({ author: 'alice', session_id: first, revision: 1 });
    expect(entries[0]?.source_message_id).toBe(
      stored.find((m) => m.type === 'text' && m.role === 'user')?.id,
    );
    const id = entries[0]?.id as string;
    expectProblem(
      await h.client.request('DELETE', `/v1/memory/${id}`, { headers: as('bob') }),
      404,
      'not-found',
    );
    const del = await h.client.request('DELETE', `/v1/memory/${id}`, { headers: as('alice') });
    expect(del.status).toBe(200);
    expect((await h.client.get('/v1/memory', as('alice'))).body).toEqual({ entries: [] });
  });

  it('the prompt is system once, history, then the last user message with the runtime context once — also on an overflow retry', async () => {
    const s = uniqueId('s-order');
    await say('alice', s, 'first question');
    h.stack.script(s, { kind: 'context_overflow' }, { kind: 'text', text: 'recovered' });
    await say('alice', s, 'second question');
    // The overflowed request and its retry (after the compaction request, which is not a turn step).
    const steps = h.stack
      .requestsOf(s)
      .map(wire)
      .filter((msgs) => msgs.at(-1)?.[1]?.startsWith('second question'));
    expect(steps).toHaveLength(2);
    for (const msgs of steps) {
      expect(msgs.filter(([role]) => role === 'system')).toHaveLength(1);
      expect(msgs[0]?.[0]).toBe('system');
      const last = msgs.at(-1);
      expect(last?.[0]).toBe('user');
      expect(last?.[1]).toMatch(/^second question\n\n\[Runtime Context\]\n/);
      const conversation = msgs.filter(([role]) => role !== 'system').map(([, t]) => t);
      expect(conversation.join('\n').split('[Runtime Context]')).toHaveLength(2);
    }
  });

  it('the exact prompt of a session is for admins only: its owner and others get 403, an admin the input', async () => {
    const s = uniqueId('s-prompt');
    await say('alice', s, 'what is in my prompt?');
    for (const who of ['alice', 'bob'] as const) {
      const refused = expectProblem(
        await h.client.get(`/v1/admin/sessions/${s}/prompt`, as(who)),
        403,
        'forbidden',
      );
      expect(JSON.stringify(refused)).not.toContain('what is in my prompt?');
    }
    const shown = await h.client.get(`/v1/admin/sessions/${s}/prompt`, as('admin'));
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.session_id).toBe(s);
    expect(JSON.stringify(shown.body.input)).toContain('what is in my prompt?');
  });

  it('two sessions of one person remembering 20 entries each at the same time keep all 40', async () => {
    const [a, b] = [uniqueId('s-cc-a'), uniqueId('s-cc-b')];
    const calls = (tag: string) =>
      Array.from({ length: 20 }, (_, i) => ({
        name: 'remember',
        arguments: { text: `parallel fact ${tag}-${i}` },
      }));
    h.stack.script(a, { kind: 'tool_calls', calls: calls('a') }, { kind: 'text', text: 'ok a' });
    h.stack.script(b, { kind: 'tool_calls', calls: calls('b') }, { kind: 'text', text: 'ok b' });
    await Promise.all([say('bob', a, 'remember twenty things'), say('bob', b, 'remember twenty more')]);
    const list = await h.client.get('/v1/memory?limit=200', as('bob'));
    const texts = (list.body.entries as Json[])
      .map((e) => e.text as string)
      .filter((t) => t.startsWith('parallel'));
    expect(texts).toHaveLength(40);
    expect(new Set(texts).size).toBe(40);
  });

  it('bad memory input is a clear tool error; bad REST input a problem', async () => {
    const s = uniqueId('s-bad');
    h.stack.script(
      s,
      {
        kind: 'tool_calls',
        calls: [
          { name: 'remember', arguments: { text: 'x'.repeat(2001) } },
          { name: 'forget', arguments: { id: 'm000000000000' } },
        ],
      },
      { kind: 'text', text: 'fine' },
    );
    await say('alice', s, 'try bad things');
    const results = (await h.stack.messages(s)).filter((m) => m.type === 'tool_result').map((m) => m.content);
    expect(results.sort()).toEqual([
      expect.stringMatching(/^Error: the text is 2001 characters; one entry holds at most 2000/),
      expect.stringMatching(/^Error: there is no memory entry m000000000000 of this person/),
    ]);
    expectProblem(await h.client.get(`/v1/memory?limit=0`, as('alice')), 400, 'validation');
    expectProblem(await h.client.get(`/v1/memory?q=${'a'.repeat(501)}`, as('alice')), 400, 'validation');
  });
});

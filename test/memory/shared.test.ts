/**
 * The shared memory scope on the real stack (Temporal dev server, Postgres, worker, fake model recording what it
 * receives): in a session configured as shared (KESOKU_MEMORY_SHARED_SCOPES), what one person stores with
 * `remember {shared: true}` is recalled by a second person there, while each person's own entries stay theirs —
 * in the prompt and in `recall`. Where nothing is configured, `shared` is a tool error and nothing is shared.
 * Over REST, `GET /v1/memory?session=` lists a session's shared entries (marked `shared`) for whoever may see the
 * session, and `DELETE …?session=` forgets one; anyone else gets a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiToken } from '../../api/auth.ts';
import type { ApiServer } from '../../api/server.ts';
import { ApiClient, expectProblem, startApiFor, type Json } from '../api/support.ts';
import type { FakeRequest } from '../fakes/model-server.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const shared = uniqueId('s-shared');
const channel = uniqueId('s-chan');
const restShared = uniqueId('s-rest-shared');
const scopes = [`session:${shared}`, `channel:api:${channel}`, `session:${restShared}`];

// Principals of this file only: the database is shared with the other test files, whose principals have memory.
const PRINCIPALS = { alice: uniqueId('alice'), bob: uniqueId('bob') };
const TOKENS: ApiToken[] = [
  { name: PRINCIPALS.alice, token: 'c'.repeat(40), admin: false },
  { name: PRINCIPALS.bob, token: 'd'.repeat(40), admin: false },
];
const as = (who: 'alice' | 'bob') => ({
  authorization: `Bearer ${TOKENS.find((t) => t.name === PRINCIPALS[who])!.token}`,
});

let stack: Stack;
let api: ApiServer;
let client: ApiClient;
beforeAll(async () => {
  stack = await startStack({ memorySharedScopes: scopes });
  api = await startApiFor(stack, { tokens: TOKENS, app: { memorySharedScopes: scopes } });
  client = new ApiClient(api.url);
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

const ann = { senderId: 'u-ann', sender: 'Ann' };
const ben = { senderId: 'u-ben', sender: 'Ben' };

/** Sends `content` as `who` in `session` and waits for the turn to end. */
async function say(session: string, who: typeof ann, content: string): Promise<void> {
  const r = await stack.submit(session, content, who);
  expect((await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'])).status).toBe(
    'processed',
  );
}

/** The last user message of a request (the one carrying the runtime context). */
const lastUser = (r: FakeRequest | undefined) =>
  String([...(r?.body?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '');

const toolResults = async (session: string) =>
  (await stack.messages(session)).filter((m) => m.type === 'tool_result').map((m) => m.content);

describe('the shared memory scope', () => {
  it("a second person in a shared session recalls the shared entries, never the first person's own", async () => {
    stack.script(
      shared,
      {
        kind: 'tool_calls',
        calls: [
          {
            name: 'remember',
            arguments: { text: 'The team standup is at 9:30 in room Kiwi.', shared: true },
          },
          { name: 'remember', arguments: { text: "Ann's badge number is 4471." } },
        ],
      },
      { kind: 'text', text: 'Noted both.' },
    );
    await say(shared, ann, 'remember the standup for everyone, and my badge number for me');
    expect((await toolResults(shared)).every((t) => t.startsWith('Remembered ['))).toBe(true);

    stack.script(
      shared,
      { kind: 'tool_calls', calls: [{ name: 'recall', arguments: { query: 'standup badge number' } }] },
      { kind: 'text', text: 'Here is what I know.' },
    );
    await say(shared, ben, 'when is the standup and what is the badge number?');
    const bens = stack.requestsOf(shared).filter((r) => lastUser(r).startsWith('when is the standup'));
    expect(bens.length).toBeGreaterThan(0);
    // The session's history is shared (Ann's tool call is in it); what memory recalls for Ben is not hers.
    for (const r of bens) {
      const context = lastUser(r).slice(lastUser(r).indexOf('[Runtime Context]'));
      expect(context).toContain('- Speaking: Ben');
      expect(context).toContain('The team standup is at 9:30 in room Kiwi.');
      expect(context).not.toContain('4471');
    }
    const recalled = (await toolResults(shared)).at(-1) ?? '';
    expect(recalled).toContain('The team standup is at 9:30 in room Kiwi.');
    expect(recalled).not.toContain('4471');

    // Ann still has her own entry.
    await say(shared, ann, 'what is my badge number?');
    expect(lastUser(stack.requestsOf(shared).at(-1))).toContain("Ann's badge number is 4471.");
  });

  it('a channel configured as shared shares across its people too', async () => {
    stack.script(
      channel,
      {
        kind: 'tool_calls',
        calls: [{ name: 'remember', arguments: { text: 'Deploys freeze on Fridays.', shared: true } }],
      },
      { kind: 'text', text: 'Noted.' },
    );
    await say(channel, ann, 'everyone should know: no deploys on Fridays');
    await say(channel, ben, 'can I deploy on Fridays?');
    expect(lastUser(stack.requestsOf(channel).at(-1))).toContain('Deploys freeze on Fridays.');
  });

  it('where no shared scope is configured, remember {shared} is a tool error and nothing is shared', async () => {
    const plain = uniqueId('s-plain');
    stack.script(
      plain,
      {
        kind: 'tool_calls',
        calls: [{ name: 'remember', arguments: { text: 'The standup moved to 10:00.', shared: true } }],
      },
      { kind: 'text', text: 'Could not share it.' },
    );
    await say(plain, ann, 'tell everyone the standup moved');
    expect(await toolResults(plain)).toEqual([
      expect.stringMatching(/^Error: this conversation has no shared memory/),
    ]);
    await say(plain, ben, 'when is the standup?');
    const prompt = lastUser(stack.requestsOf(plain).at(-1));
    expect(prompt).toContain('- Speaking: Ben');
    expect(prompt).not.toContain('standup is at 9:30');
    expect(prompt).not.toContain('moved to 10:00');
  });

  it('GET /v1/memory?session= lists the session’s shared entries for who may see it; DELETE …?session= forgets one', async () => {
    stack.script(
      restShared,
      {
        kind: 'tool_calls',
        calls: [
          { name: 'remember', arguments: { text: 'The release train leaves on Thursdays.', shared: true } },
          { name: 'remember', arguments: { text: 'Alice parks in bay 12.' } },
        ],
      },
      { kind: 'text', text: 'Noted.' },
    );
    const posted = await client.post(
      `/v1/sessions/${restShared}/messages`,
      { content: 'remember the release day for everyone, and my parking bay', wait: 60 },
      as('alice'),
    );
    expect(posted.status, posted.text).toBe(200);

    // Without `session`: only alice's own. With it: hers and the shared one, each marked.
    const own = (await client.get('/v1/memory', as('alice'))).body.entries as Json[];
    expect(own.map((e) => [e.text, e.shared])).toEqual([['Alice parks in bay 12.', false]]);
    const withShared = await client.get(`/v1/memory?session=${restShared}`, as('alice'));
    expect(withShared.status, withShared.text).toBe(200);
    const entries = withShared.body.entries as Json[];
    expect(entries.map((e) => [e.text, e.shared]).sort()).toEqual([
      ['Alice parks in bay 12.', false],
      ['The release train leaves on Thursdays.', true],
    ]);

    // bob may not see the session: its shared scope is a 404 to him, like the session itself.
    expectProblem(await client.get(`/v1/memory?session=${restShared}`, as('bob')), 404, 'session-not-found');
    const sharedId = entries.find((e) => e.shared)?.id as string;
    expectProblem(
      await client.request('DELETE', `/v1/memory/${sharedId}?session=${restShared}`, { headers: as('bob') }),
      404,
      'session-not-found',
    );
    // alice cannot forget it without naming the session; with it she can.
    expectProblem(
      await client.request('DELETE', `/v1/memory/${sharedId}`, { headers: as('alice') }),
      404,
      'not-found',
    );
    const del = await client.request('DELETE', `/v1/memory/${sharedId}?session=${restShared}`, {
      headers: as('alice'),
    });
    expect(del.status, del.text).toBe(200);
    expect((del.body.forgotten as Json).shared).toBe(true);
    const after = (await client.get(`/v1/memory?session=${restShared}`, as('alice'))).body.entries as Json[];
    expect(after.map((e) => e.text)).toEqual(['Alice parks in bay 12.']);
    expectProblem(await client.get('/v1/memory?session=', as('alice')), 400, 'validation');
  });
});

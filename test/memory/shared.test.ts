/**
 * The shared memory scope on the real stack (Temporal dev server, Postgres, worker, fake model recording what it
 * receives): in a session configured as shared (KESOKU_MEMORY_SHARED_SCOPES), what one person stores with
 * `remember {shared: true}` is recalled by a second person there, while each person's own entries stay theirs —
 * in the prompt and in `recall`. Where nothing is configured, `shared` is a tool error and nothing is shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fakes/model-server.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const shared = uniqueId('s-shared');
const channel = uniqueId('s-chan');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    memorySharedScopes: [`session:${shared}`, `channel:api:${channel}`],
  });
});
afterAll(async () => stack?.stop());

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
});

// REST API v1: sessions on channel `cli` (the terminal client) — created by the first message's `channel`, every
// message stored with chatbot `cli`, nothing marked delivered by the server, and the client's acknowledgement of
// what it printed (POST …/deliveries): legal transitions only, idempotent, owner-checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import type { ApiServer } from '../../api/server.ts';
import { uniqueId } from '../support/stack.ts';
import { ApiClient, expectProblem, startApiFor, useHarness, type Json } from './support.ts';

const h = useHarness();

let secured: ApiServer;
let alice: ApiClient;
let bob: ApiClient;
let admin: ApiClient;

beforeAll(async () => {
  secured = await startApiFor(h.stack, {
    tokens: [
      { name: 'alice', token: 'tok-alice', admin: false },
      { name: 'bob', token: 'tok-bob', admin: false },
      { name: 'admin', token: 'tok-admin', admin: true },
    ],
  });
  alice = new ApiClient(secured.url, { authorization: 'Bearer tok-alice' });
  bob = new ApiClient(secured.url, { authorization: 'Bearer tok-bob' });
  admin = new ApiClient(secured.url, { authorization: 'Bearer tok-admin' });
});

afterAll(async () => {
  await secured?.close();
});

async function history(client: ApiClient, session: string): Promise<Message[]> {
  const res = await client.get<{ messages: Message[] }>(`/v1/sessions/${session}/messages`);
  expect(res.status).toBe(200);
  return res.body.messages;
}

/** A `cli` session with one finished tool turn (`run: echo …`). */
async function cliSessionWithToolTurn(client: ApiClient = h.client): Promise<string> {
  const session = uniqueId('cli');
  const res = await client.post(`/v1/sessions/${session}/messages`, {
    content: 'run: echo acked',
    channel: 'cli',
    wait: 30,
  });
  expect(res.status, res.text).toBe(200);
  return session;
}

describe('sessions on channel cli', () => {
  it('stores every message with chatbot cli and leaves delivery to the client: the reply stays pending, tool messages responded', async () => {
    const session = await cliSessionWithToolTurn();
    const info = await h.client.get(`/v1/sessions/${session}`);
    expect(info.body).toMatchObject({ chatbot_id: 'cli', channel_id: session, status: 'idle' });
    const messages = await history(h.client, session);
    expect(messages.map((m) => m.chatbot_id)).toEqual(messages.map(() => 'cli'));
    const byType = (t: Message['type'], role?: Message['role']) =>
      messages.filter((m) => m.type === t && (role === undefined || m.role === role));
    expect(byType('text', 'user').map((m) => m.status)).toEqual(['processed']);
    expect(byType('thought').map((m) => m.status)).toEqual(['responded']);
    expect(byType('tool_call').map((m) => m.status)).toEqual(['responded']);
    expect(byType('tool_result').map((m) => m.status)).toEqual(['responded']);
    const reply = byType('text', 'assistant');
    expect(reply.map((m) => [m.content, m.status])).toEqual([['Done: acked', 'pending']]);
  });

  it('marks what the client printed delivered (pending → delivered, responded → delivered), idempotently', async () => {
    const session = await cliSessionWithToolTurn();
    const messages = await history(h.client, session);
    const trigger = messages.find((m) => m.role === 'user') as Message;
    const shown = messages.filter((m) => m.role !== 'user').map((m) => m.id);
    const path = `/v1/sessions/${session}/deliveries`;

    const first = await h.client.post<{ revision: number; messages: Json[] }>(path, {
      ids: [...shown, trigger.id, shown[0]],
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.messages).toEqual([
      ...shown.map((id) => ({ id, status: 'delivered' })),
      { id: trigger.id, status: 'processed' },
    ]);
    const after = await history(h.client, session);
    expect(after.filter((m) => m.role !== 'user').map((m) => m.status)).toEqual(shown.map(() => 'delivered'));
    expect(after.find((m) => m.id === trigger.id)?.status).toBe('processed');

    // Again: nothing changes, not even the revision.
    const again = await h.client.post<{ revision: number; messages: Json[] }>(path, { ids: shown });
    expect(again.status).toBe(200);
    expect(again.body.revision).toBe(first.body.revision);
    expect(again.body.messages.map((m) => m.status)).toEqual(shown.map(() => 'delivered'));
  });

  it('refuses bad acknowledgements with a problem and changes nothing', async () => {
    const session = await cliSessionWithToolTurn();
    const path = `/v1/sessions/${session}/deliveries`;
    const reply = (await history(h.client, session)).find((m) => m.role === 'assistant' && m.type === 'text');
    expect(reply?.status).toBe('pending');

    const unknown = expectProblem(
      await h.client.post(path, { ids: [reply?.id, 'no-such-message'] }),
      400,
      'validation',
    );
    expect(unknown.field).toBe('ids.1');
    // A message of another session is unknown here too.
    const other = await cliSessionWithToolTurn();
    const foreign = (await history(h.client, other))[0] as Message;
    expectProblem(await h.client.post(path, { ids: [foreign.id] }), 400, 'validation');
    expectProblem(await h.client.post(path, { ids: [] }), 400, 'validation');
    expectProblem(await h.client.post(path, { ids: 'x' }), 400, 'validation');
    expectProblem(await h.client.post(path, { ids: [reply?.id], extra: 1 }), 400, 'validation');
    expectProblem(
      await h.client.request('POST', path, { body: 'ids=1', headers: { 'content-type': 'text/plain' } }),
      415,
    );
    expectProblem(
      await h.client.post(`/v1/sessions/${uniqueId('nobody')}/deliveries`, { ids: ['x'] }),
      404,
      'session-not-found',
    );
    expect((await history(h.client, session)).find((m) => m.id === reply?.id)?.status).toBe('pending');

    // An `api` session's messages are delivered by the server: no acknowledgements there.
    const api = uniqueId('s');
    expect((await h.client.post(`/v1/sessions/${api}/messages`, { content: 'hi', wait: 30 })).status).toBe(
      200,
    );
    const apiReply = (await history(h.client, api)).find((m) => m.role === 'assistant') as Message;
    expect(apiReply.status).toBe('delivered');
    expectProblem(
      await h.client.post(`/v1/sessions/${api}/deliveries`, { ids: [apiReply.id] }),
      409,
      'conflict',
    );
  });

  it('keeps a session on the channel its first message chose; only api and cli may be chosen', async () => {
    const session = await cliSessionWithToolTurn();
    const clash = expectProblem(
      await h.client.post(`/v1/sessions/${session}/messages`, { content: 'x', channel: 'api' }),
      409,
      'conflict',
    );
    expect(clash.field).toBe('channel');
    // Without `channel`, or with the session's own, a message joins the session on its channel.
    const more = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'again',
      wait: 30,
    });
    expect(more.status).toBe(200);
    expect(more.body.message.chatbot_id).toBe('cli');
    for (const channel of ['discord', 'google_chat', 'system', 'CLI']) {
      const bad = expectProblem(
        await h.client.post(`/v1/sessions/${uniqueId('s')}/messages`, { content: 'x', channel }),
        400,
        'validation',
      );
      expect(bad.field).toBe('channel');
    }
    // The default stays `api`.
    const plain = uniqueId('s');
    await h.client.post(`/v1/sessions/${plain}/messages`, { content: 'x', wait: 30 });
    expect((await h.client.get(`/v1/sessions/${plain}`)).body.chatbot_id).toBe('api');
  });

  it('belongs to the principal that created it: others get 404 for the session and its deliveries', async () => {
    const session = await cliSessionWithToolTurn(alice);
    const ids = (await history(alice, session)).filter((m) => m.role !== 'user').map((m) => m.id);
    const path = `/v1/sessions/${session}/deliveries`;

    expectProblem(await bob.post(path, { ids }), 404, 'session-not-found');
    expectProblem(await bob.get(`/v1/sessions/${session}`), 404, 'session-not-found');
    expectProblem(
      await bob.post(`/v1/sessions/${session}/messages`, { content: 'mine now', channel: 'cli' }),
      404,
      'session-not-found',
    );
    expect((await history(alice, session)).every((m) => m.status !== 'delivered')).toBe(true);

    const own = await alice.post<{ messages: Json[] }>(path, { ids });
    expect(own.status).toBe(200);
    expect(own.body.messages.every((m) => m.status === 'delivered')).toBe(true);
    expect((await admin.post(path, { ids })).status).toBe(200);
    const listed = await alice.get<{ sessions: Json[] }>('/v1/sessions?limit=100');
    expect(listed.body.sessions.map((s) => s.id)).toContain(session);
  });
});

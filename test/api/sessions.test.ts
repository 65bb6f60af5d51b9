// REST API v1: session resources — read, rename and change mode through the workflow, stop, compact, list.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import { expectProblem, useHarness, type Json } from './support.ts';

const h = useHarness();

/** A session with one finished turn. */
async function sessionWithTurn(content = 'hello'): Promise<string> {
  const session = uniqueId('s');
  const res = await h.client.post(`/v1/sessions/${session}/messages`, { content, wait: 30 });
  expect(res.status).toBe(200);
  return session;
}

describe('GET /v1/sessions/{id}', () => {
  it('returns the session with status, queue length, revision and mode', async () => {
    const session = await sessionWithTurn();
    const res = await h.client.get(`/v1/sessions/${session}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: session,
      chatbot_id: 'api',
      channel_id: session,
      status: 'idle',
      queue_length: 0,
      mode: 'interrupt',
      turn_count: 1,
    });
    expect(['default', 'auto']).toContain(res.body.title_source);
    const history = await h.client.get<{ revision: number }>(`/v1/sessions/${session}/messages`);
    expect(res.body.revision).toBe(history.body.revision);
  });

  it('answers 404 for an unknown session and 400 for an invalid id', async () => {
    expectProblem(await h.client.get(`/v1/sessions/${uniqueId('nobody')}`), 404, 'session-not-found');
    for (const bad of ['bad%20id', 'x'.repeat(129), 'semi%3Bcolon', '%C3%A9t%C3%A9']) {
      const problem = expectProblem(await h.client.get(`/v1/sessions/${bad}`), 400, 'invalid-session-id');
      expect(problem.field).toBe('sessionId');
    }
    expectProblem(
      await h.client.post('/v1/sessions/bad%20id/messages', { content: 'hi' }),
      400,
      'invalid-session-id',
    );
    expectProblem(await h.client.get('/v1/sessions/bad%20id/events'), 400, 'invalid-session-id');
  });
});

describe('PATCH /v1/sessions/{id}', () => {
  it('renames the session and changes its mode through the workflow', async () => {
    const session = await sessionWithTurn();
    const res = await h.client.patch(`/v1/sessions/${session}`, { title: '  Project plan  ', mode: 'queue' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: session,
      title: 'Project plan',
      title_source: 'user',
      mode: 'queue',
    });
    const state = await h.stack.sessions.state(session);
    expect(state).toMatchObject({ title: 'Project plan', mode: 'queue' });
    const again = await h.client.get(`/v1/sessions/${session}`);
    expect(again.body).toMatchObject({ title: 'Project plan', mode: 'queue' });
  });

  it('rejects empty, unknown and invalid fields with 400, unknown sessions with 404', async () => {
    const session = await sessionWithTurn();
    expectProblem(await h.client.patch(`/v1/sessions/${session}`, {}), 400, 'validation');
    expect(
      expectProblem(await h.client.patch(`/v1/sessions/${session}`, { mode: 'fast' }), 400, 'validation')
        .field,
    ).toBe('mode');
    expect(
      expectProblem(await h.client.patch(`/v1/sessions/${session}`, { title: '' }), 400, 'validation').field,
    ).toBe('title');
    expect(
      expectProblem(
        await h.client.patch(`/v1/sessions/${session}`, { title: 'x'.repeat(201) }),
        400,
        'validation',
      ).field,
    ).toBe('title');
    expect(
      expectProblem(await h.client.patch(`/v1/sessions/${session}`, { name: 'x' }), 400, 'validation').field,
    ).toBe('name');
    // Before a first message a PATCH creates the session (below), but never under a chat channel's prefix.
    expect(
      expectProblem(
        await h.client.patch(`/v1/sessions/discord:${uniqueId('nobody')}`, { title: 'x' }),
        404,
        'session-not-found',
      ).detail,
    ).toContain('belong to a chat channel');
  });

  it("before the session's first message: creates it with the settings, which the first turn keeps", async () => {
    const session = uniqueId('early');
    const res = await h.client.patch(`/v1/sessions/${session}`, { title: ' Set early ', mode: 'queue' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: session,
      chatbot_id: 'api',
      title: 'Set early',
      title_source: 'user',
      mode: 'queue',
      turn_count: 0,
      status: 'idle',
    });
    expect((await h.client.get(`/v1/sessions/${session}/messages`)).body).toMatchObject({ messages: [] });
    // The first message's workflow starts from the stored settings: no generated title replaces the user's.
    const first = await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    expect(first.status).toBe(200);
    expect(await h.stack.sessions.state(session)).toMatchObject({
      mode: 'queue',
      title: 'Set early',
      titleSource: 'user',
    });
    const after = await h.client.get(`/v1/sessions/${session}`);
    expect(after.body).toMatchObject({
      title: 'Set early',
      title_source: 'user',
      mode: 'queue',
      turn_count: 1,
    });
    // A second PATCH is an ordinary change through the workflow.
    expect((await h.client.patch(`/v1/sessions/${session}`, { mode: 'interrupt' })).body).toMatchObject({
      mode: 'interrupt',
    });
    expect((await h.stack.sessions.state(session)).mode).toBe('interrupt');
  });

  it('before the first message, `channel` chooses the chatbot as the first message would; a mismatch is a 409', async () => {
    const session = uniqueId('early');
    const res = await h.client.patch(`/v1/sessions/${session}`, { mode: 'queue', channel: 'cli' });
    expect(res.body).toMatchObject({ chatbot_id: 'cli', mode: 'queue' });
    expectProblem(
      await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hi', channel: 'api' }),
      409,
      'conflict',
    );
    expectProblem(await h.client.patch(`/v1/sessions/${session}`, { mode: 'queue', channel: 'api' }), 409);
    const first = await h.client.post(`/v1/sessions/${session}/messages`, {
      content: 'hi',
      channel: 'cli',
      wait: 30,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ message: { chatbot_id: 'cli' } });
  });
});

describe('POST /v1/sessions/{id}/stop', () => {
  it("answers stopped=false when no turn is running, also before a session's first message; 404 for a chat channel's", async () => {
    const session = await sessionWithTurn();
    // The reply is committed (and the question processed) by the model step; the workflow notices a moment later.
    await expect.poll(async () => (await h.stack.sessions.state(session)).status).toBe('idle');
    const res = await h.client.post(`/v1/sessions/${session}/stop`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ stopped: false });
    const early = await h.client.post(`/v1/sessions/${uniqueId('nobody')}/stop`);
    expect(early.status).toBe(200);
    expect(early.body).toEqual({ stopped: false });
    const channel = expectProblem(
      await h.client.post(`/v1/sessions/discord:${uniqueId('x')}/stop`),
      404,
      'session-not-found',
    );
    expect(channel.detail).toContain('belong to a chat channel');
  });

  it('cancels a running turn: the message ends interrupted', async () => {
    const session = uniqueId('s');
    const accepted = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'sleep: 10',
    });
    await h.stack.waitForStatus(accepted.body.message.id, ['processing']);
    const res = await h.client.post(`/v1/sessions/${session}/stop`);
    expect(res.body).toEqual({ stopped: true });
    const done = await h.stack.waitForStatus(accepted.body.message.id, ['interrupted', 'processed', 'error']);
    expect(done.status).toBe('interrupted');
  });
});

describe('POST /v1/sessions/{id}/compact', () => {
  it('queues a compaction prompt and answers 202 with its id', async () => {
    const session = await sessionWithTurn('remember the number 7');
    const res = await h.client.post<{ message_id: string }>(`/v1/sessions/${session}/compact`);
    expect(res.status).toBe(202);
    const id = res.body.message_id;
    const prompt = await h.stack.waitForStatus(id, ['processed', 'error', 'interrupted']);
    expect(prompt).toMatchObject({ role: 'user', sender: 'System', status: 'processed' });
    expect(prompt.metadata?.is_compaction).toBe(true);
    expectProblem(
      await h.client.post(`/v1/sessions/${uniqueId('nobody')}/compact`),
      404,
      'session-not-found',
    );
  });
});

describe('GET /v1/sessions', () => {
  it('lists sessions newest first, page by page with next_cursor', async () => {
    const mine = [await sessionWithTurn('one'), await sessionWithTurn('two'), await sessionWithTurn('three')];
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: Json } = await h.client.get(
        `/v1/sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      const sessions = res.body.sessions as { id: string; updated_at: string }[];
      expect(sessions.length).toBeLessThanOrEqual(2);
      seen.push(...sessions.map((s) => s.id));
      cursor = res.body.next_cursor as string | null;
      pages++;
    } while (cursor && pages < 500);
    expect(seen).toEqual(expect.arrayContaining(mine));
    expect(new Set(seen).size).toBe(seen.length);
    const firstPage = await h.client.get<{ sessions: { updated_at: string }[] }>('/v1/sessions');
    const times = firstPage.body.sessions.map((s) => Date.parse(s.updated_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('rejects a bad limit or cursor with 400', async () => {
    expect(expectProblem(await h.client.get('/v1/sessions?limit=0'), 400, 'validation').field).toBe('limit');
    expect(expectProblem(await h.client.get('/v1/sessions?limit=101'), 400, 'validation').field).toBe(
      'limit',
    );
    expect(
      expectProblem(await h.client.get('/v1/sessions?cursor=not-a-cursor'), 400, 'validation').field,
    ).toBe('cursor');
  });
});

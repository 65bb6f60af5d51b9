// REST API v1: posting messages (accept, idempotency, wait, queue limits) and reading history.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import { eventually, expectProblem, replyWhen, useHarness, type ApiResponse } from './support.ts';

const h = useHarness();

interface Accepted {
  message: Message;
  queue_position: number;
  duplicate: boolean;
}
interface TurnResult {
  message: Message;
  reply: Message | null;
  notices: string[];
}
interface History {
  revision: number;
  messages: Message[];
  has_more?: boolean;
}

const messagesPath = (s: string) => `/v1/sessions/${s}/messages`;

describe('POST /v1/sessions/{id}/messages', () => {
  it('accepts the first message with 202, creating the session, and a GET right after shows it', async () => {
    const session = uniqueId('s');
    const res = await h.client.post<Accepted>(messagesPath(session), { content: 'hello api' });
    expect(res.status).toBe(202);
    expect(res.body.queue_position).toBe(0);
    expect(res.body.duplicate).toBe(false);
    expect(res.body.message).toMatchObject({
      session_id: session,
      chatbot_id: 'api',
      channel_id: session,
      sender: 'api',
      role: 'user',
      type: 'text',
      status: 'pending_agent',
      content: 'hello api',
      turn_id: res.body.message.id,
    });
    const history = await h.client.get<History>(messagesPath(session));
    expect(history.body.messages.map((m) => m.id)).toContain(res.body.message.id);
    const done = await h.stack.waitForStatus(res.body.message.id, ['processed', 'error', 'interrupted']);
    expect(done.status).toBe('processed');
  });

  it('answers a repeated id with 202 and the stored message, queueing nothing twice', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    const first = await h.client.post<Accepted>(messagesPath(session), {
      id,
      content: 'only once',
      sender: 'alice',
    });
    expect(first.status).toBe(202);
    await h.stack.waitForStatus(id, ['processed']);
    const again = await h.client.post<Accepted>(messagesPath(session), {
      id,
      content: 'only once',
      sender: 'alice',
    });
    expect(again.status).toBe(202);
    expect(again.body.duplicate).toBe(true);
    expect(again.body.message).toMatchObject({ id, sender: 'alice', status: 'processed' });
    const all = await h.stack.messages(session);
    expect(all.filter((m) => m.id === id)).toHaveLength(1);
    expect(
      all.filter((m) => m.role === 'assistant' && m.sender === 'Kesoku' && m.turn_id === id),
    ).toHaveLength(1);
  });

  it('answers 409 for a repeated id with other content or attachments, keeping the first message', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    expect((await h.client.post(messagesPath(session), { id, content: 'first words' })).status).toBe(202);
    const changed = await h.client.post(messagesPath(session), { id, content: 'other words' });
    const problem = expectProblem(changed, 409, 'conflict');
    expect(problem.detail).toContain(`message id ${id} was already used with different content`);
    expect(problem.message_id).toBe(id);
    const withFile = await h.client.post(messagesPath(session), {
      id,
      content: 'first words',
      attachments: [{ name: 'a.txt', url: 'https://example.com/a.txt' }],
    });
    expect(expectProblem(withFile, 409, 'conflict').detail).toContain('different attachments');
    const same = await h.client.post<Accepted>(messagesPath(session), { id, content: 'first words' });
    expect(same.status).toBe(202);
    expect(same.body.duplicate).toBe(true);
    const stored = (await h.stack.messages(session)).filter((m) => m.id === id);
    expect(stored.map((m) => m.content)).toEqual(['first words']);
  });

  it('concurrent posts of one id with different contents: one is stored, the same content is a duplicate, the rest 409', async () => {
    const session = uniqueId('s');
    // The session exists first, so every post races on the workflow's admission, not on its creation.
    await h.client.post(messagesPath(session), { content: 'hello', wait: 30 });
    const id = uniqueId('m');
    const contents = ['one', 'two', 'one', 'three', 'two', 'one'];
    const answers = await Promise.all(
      contents.map((content) => h.client.post<Accepted>(messagesPath(session), { id, content })),
    );
    const stored = (await h.stack.messages(session)).filter((m) => m.id === id);
    expect(stored).toHaveLength(1);
    const winner = stored[0]?.content;
    answers.forEach((res, i) => {
      if (contents[i] === winner) {
        expect(res.status, contents[i]).toBe(202);
        expect(res.body.message.content).toBe(winner);
      } else {
        expectProblem(res as unknown as ApiResponse, 409, 'conflict');
      }
    });
    // At most one answer says "new": when the store write of the first admission timed out on a loaded machine
    // after it committed, its retry finds the row and the answer says `duplicate` (stored once either way, above).
    expect(answers.filter((r) => r.status === 202 && !r.body.duplicate).length).toBeLessThanOrEqual(1);
  });

  it('with wait, answers 200 with the processed message and its final reply', async () => {
    const session = uniqueId('s');
    const res = await h.client.post<TurnResult>(messagesPath(session), { content: 'hello there', wait: 30 });
    expect(res.status).toBe(200);
    expect(res.body.message.status).toBe('processed');
    expect(res.body.notices).toEqual([]);
    expect(res.body.reply).toMatchObject({
      role: 'assistant',
      type: 'text',
      sender: 'Kesoku',
      status: 'delivered',
      content: 'echo: hello there',
      parent_id: res.body.message.id,
      turn_id: res.body.message.id,
    });
  });

  it('with wait, returns the reply of a tool turn after the tool ran', async () => {
    const session = uniqueId('s');
    const res = await h.client.post<TurnResult>(messagesPath(session), { content: 'run: echo hi', wait: 30 });
    expect(res.status).toBe(200);
    expect(res.body.message.status).toBe('processed');
    expect(res.body.reply?.content).toBe('Done: hi');
    const history = await h.client.get<History>(messagesPath(session));
    const types = history.body.messages.map((m) => m.type);
    expect(types).toEqual(expect.arrayContaining(['tool_call', 'tool_result']));
    expect(types.at(-1)).toBe('text');
  });

  it('with wait, returns the crash notice of a failed turn', async () => {
    const session = uniqueId('s');
    const restore = replyWhen(h.stack, 'this will fail', { kind: 'error', status: 400 });
    const res = await h.client
      .post<TurnResult>(messagesPath(session), { content: 'this will fail', wait: 30 })
      .finally(restore);
    expect(res.status).toBe(200);
    expect(res.body.message.status).toBe('error');
    expect(res.body.reply).toMatchObject({
      role: 'assistant',
      type: 'text',
      sender: 'Kesoku',
      turn_id: res.body.message.id,
    });
    expect(typeof res.body.reply?.metadata?.failure_kind).toBe('string');
    expect(res.body.reply?.content).not.toMatch(/Fake error/);
  });

  it('with wait, reports a stopped turn by its status and notices, without a reply', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    const waiting = h.client.post<TurnResult>(messagesPath(session), { id, content: 'sleep: 10', wait: 30 });
    await h.stack.waitForStatus(id, ['processing']);
    const stop = await h.client.post<{ stopped: boolean }>(`/v1/sessions/${session}/stop`);
    expect(stop.status).toBe(200);
    expect(stop.body.stopped).toBe(true);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.message.status).toBe('interrupted');
    // The stop notice is the turn's system log (docs/message-model.md §5.3, `live` on REST): it comes with the
    // turn, not as the reply; the Notification message itself is in the history.
    expect(res.body.reply).toBeNull();
    expect(res.body.notices).toEqual(['⏹️ Stopped.']);
    const history = await h.client.get<History>(messagesPath(session));
    expect(history.body.messages.find((m) => m.id === `${id}:notice`)).toMatchObject({
      sender: 'Notification',
      content: '⏹️ Stopped.',
    });
  });

  it('answers 504 when the turn does not end within wait, and the message is still processed later', async () => {
    const session = uniqueId('s');
    const started = Date.now();
    const res = await h.client.post(messagesPath(session), { content: 'sleep: 5', wait: 1 });
    const problem = expectProblem(res, 504, 'wait-timeout');
    expect(Date.now() - started).toBeLessThan(4000);
    const id = problem.message_id as string;
    expect(typeof id).toBe('string');
    const done = await h.stack.waitForStatus(id, ['processed', 'error', 'interrupted'], 30_000);
    expect(done.status).toBe('processed');
    const reply = (await h.stack.messages(session)).find(
      (m) => m.turn_id === id && m.sender === 'Kesoku' && m.type === 'text',
    );
    expect(reply?.content).toBe('slept 5s');
  });

  it('rejects invalid bodies with 400 naming the field', async () => {
    const session = uniqueId('s');
    const cases: [unknown, string, RegExp?][] = [
      [{}, 'content', /is required/],
      [{ content: 42 }, 'content', /expected string/],
      [{ content: 'hi', attachments: [{ name: 7, size: 3 }] }, 'attachments.0.name', /expected string/],
      [{ content: '   ' }, 'content'],
      [{ content: 'x'.repeat(64 * 1024 + 1) }, 'content'],
      [{ content: 'hi', id: 'has space' }, 'id'],
      [{ content: 'hi', sender: '' }, 'sender'],
      // A sender is printed before the message on one line: a line break would let it fake the agent's line.
      [{ content: 'hi', sender: 'x ›\nKesoku' }, 'sender', /one line/],
      [{ content: 'hi', sender: 'bob\u001b[2J' }, 'sender', /one line/],
      [{ content: 'hi', wait: 301 }, 'wait'],
      [{ content: 'hi', wait: 1.5 }, 'wait'],
      [{ content: 'hi', attachments: [{ size: 3 }] }, 'attachments.0.name'],
      [{ content: 'hi', colour: 'red' }, 'colour'],
    ];
    for (const [body, field, detail] of cases) {
      const res = await h.client.post(messagesPath(session), body);
      const problem = expectProblem(res, 400, 'validation');
      expect(problem.field, JSON.stringify(body).slice(0, 80)).toBe(field);
      expect(problem.detail).toContain(field);
      if (detail) expect(problem.detail).toMatch(detail);
    }
    const notJson = await h.client.request('POST', messagesPath(session), {
      body: 'content=hi',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(notJson, 415, 'unsupported-media-type');
    // Nothing was stored for any of them: the session was never created.
    expectProblem(await h.client.get(`/v1/sessions/${session}`), 404, 'session-not-found');
  });

  it('accepts attachments and stores them on the message metadata', async () => {
    const session = uniqueId('s');
    const res = await h.client.post<Accepted>(messagesPath(session), {
      content: '',
      attachments: [
        { name: 'notes.txt', content_type: 'text/plain', size: 12, url: 'https://example.com/notes.txt' },
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.message.metadata?.attachments).toEqual([
      { name: 'notes.txt', content_type: 'text/plain', size: 12, url: 'https://example.com/notes.txt' },
    ]);
  });

  it('answers 409 when the message id is already used by another session', async () => {
    const id = uniqueId('m');
    expect((await h.client.post(messagesPath(uniqueId('s')), { id, content: 'first' })).status).toBe(202);
    const other = uniqueId('s');
    expectProblem(await h.client.post(messagesPath(other), { id, content: 'second' }), 409, 'conflict');
    expectProblem(await h.client.get(`/v1/sessions/${other}`), 404, 'session-not-found');
  });

  it('answers 429 for the 33rd waiting message of a queue-mode session, keeping every accepted one', async () => {
    const session = uniqueId('s');
    const first = await h.client.post<Accepted>(messagesPath(session), { content: 'sleep: 20' });
    expect(first.status).toBe(202);
    const patched = await h.client.patch(`/v1/sessions/${session}`, { mode: 'queue' });
    expect(patched.body.mode).toBe('queue');
    await h.stack.waitForStatus(first.body.message.id, ['processing']);

    const accepted: string[] = [];
    for (let i = 1; i <= 32; i++) {
      const res = await h.client.post<Accepted>(messagesPath(session), { content: `queued ${i}` });
      expect(res.status, res.text).toBe(202);
      expect(res.body.queue_position).toBe(i);
      accepted.push(res.body.message.id);
    }
    const rejectedId = uniqueId('m');
    const full = await h.client.post(messagesPath(session), { id: rejectedId, content: 'one too many' });
    expectProblem(full, 429, 'queue-full');
    expect(full.headers.get('retry-after')).toBe('5');

    const history = await h.client.get<History>(messagesPath(session));
    const byId = new Map(history.body.messages.map((m) => [m.id, m]));
    for (const id of accepted) expect(byId.get(id)?.status).toBe('pending_agent');
    expect(byId.has(rejectedId)).toBe(false);
    const view = await h.client.get(`/v1/sessions/${session}`);
    expect(view.body).toMatchObject({ status: 'processing', queue_length: 32, mode: 'queue' });
    await h.client.post(`/v1/sessions/${session}/stop`);
  });
});

describe('GET /v1/sessions/{id}/messages', () => {
  it('returns the history in phased order with the session revision', async () => {
    const session = uniqueId('s');
    await h.client.post(messagesPath(session), { content: 'run: echo phased', wait: 30 });
    const res = await h.client.get<History>(messagesPath(session));
    expect(res.status).toBe(200);
    const view = await h.client.get<{ revision: number }>(`/v1/sessions/${session}`);
    expect(res.body.revision).toBe(view.body.revision);
    expect(res.body.messages.map((m) => `${m.role}/${m.type}`)).toEqual([
      'user/text',
      'assistant/thought',
      'tool/tool_call',
      'tool/tool_result',
      'assistant/text',
    ]);
  });

  it('with after_revision, returns only what was committed after that revision', async () => {
    const session = uniqueId('s');
    const turn1 = await h.client.post<TurnResult>(messagesPath(session), { content: 'first turn', wait: 30 });
    const before = await h.client.get<History>(messagesPath(session));
    const turn2 = await h.client.post<TurnResult>(messagesPath(session), {
      content: 'second turn',
      wait: 30,
    });
    const delta = await h.client.get<History>(
      `${messagesPath(session)}?after_revision=${before.body.revision}`,
    );
    expect(delta.status).toBe(200);
    const ids = delta.body.messages.map((m) => m.id);
    expect(ids).toContain(turn2.body.message.id);
    expect(ids).toContain(turn2.body.reply?.id);
    expect(ids).not.toContain(turn1.body.message.id);
    expect(ids).not.toContain(turn1.body.reply?.id);
    for (const m of delta.body.messages) expect(m.revision).toBeGreaterThan(before.body.revision);
    const full = await h.client.get<History>(messagesPath(session));
    expect(delta.body.revision).toBe(full.body.revision);
    const nothing = await h.client.get<History>(
      `${messagesPath(session)}?after_revision=${full.body.revision}`,
    );
    expect(nothing.body).toMatchObject({ revision: full.body.revision, messages: [] });
  });

  it('pages a delta with limit without losing messages', async () => {
    const session = uniqueId('s');
    await h.client.post(messagesPath(session), { content: 'run: echo paging', wait: 30 });
    const full = await h.client.get<History>(messagesPath(session));
    const seen = new Map<string, Message>();
    let after = 0;
    for (let i = 0; i < 50; i++) {
      const page = await h.client.get<History>(`${messagesPath(session)}?after_revision=${after}&limit=1`);
      for (const m of page.body.messages) seen.set(m.id, m);
      if (page.body.revision === after && !page.body.has_more) break;
      expect(page.body.revision).toBeGreaterThanOrEqual(after);
      after = page.body.revision;
      if (!page.body.has_more && after === full.body.revision) break;
    }
    expect(after).toBe(full.body.revision);
    expect([...seen.keys()].sort()).toEqual(full.body.messages.map((m) => m.id).sort());
    for (const m of full.body.messages) expect(seen.get(m.id)?.status).toBe(m.status);
  });

  it('rejects bad query parameters and unknown sessions', async () => {
    const session = uniqueId('s');
    await h.client.post(messagesPath(session), { content: 'exists' });
    expect(
      expectProblem(await h.client.get(`${messagesPath(session)}?after_revision=-1`), 400, 'validation')
        .field,
    ).toBe('after_revision');
    expect(
      expectProblem(await h.client.get(`${messagesPath(session)}?limit=0`), 400, 'validation').field,
    ).toBe('limit');
    expect(
      expectProblem(await h.client.get(`${messagesPath(session)}?limit=abc`), 400, 'validation').field,
    ).toBe('limit');
    expectProblem(await h.client.get(messagesPath(uniqueId('nope'))), 404, 'session-not-found');
    await eventually(
      async () => (await h.client.get<{ status: string }>(`/v1/sessions/${session}`)).body.status === 'idle',
    );
  });
});

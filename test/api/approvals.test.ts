// REST API v1: tool-call approvals — the calls waiting on GET session, the SSE event, the decision route with
// its problems, and the per-session policy (PATCH approval).
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import { ApiClient, expectProblem, openEvents, startApiFor, useHarness, type Json } from './support.ts';

const h = useHarness({ stack: { approvals: { policy: 'writes', timeoutS: 600, autoApprove: ['uname *'] } } });

interface PendingJson {
  call_id: string;
  tool_name: string;
  subject: string;
}

async function pendingOf(session: string): Promise<PendingJson[]> {
  const res = await h.client.get<{ pending_approvals: PendingJson[] }>(`/v1/sessions/${session}`);
  expect(res.status).toBe(200);
  return res.body.pending_approvals;
}

async function waitForPending(session: string): Promise<PendingJson> {
  let found: PendingJson | undefined;
  await expect
    .poll(
      async () => {
        found = (await pendingOf(session))[0];
        return found !== undefined;
      },
      { timeout: 20_000, interval: 100 },
    )
    .toBe(true);
  return found as PendingJson;
}

async function waitTurnEnd(session: string, messageId: string): Promise<Message[]> {
  let messages: Message[] = [];
  await expect
    .poll(
      async () => {
        messages = (await h.client.get<{ messages: Message[] }>(`/v1/sessions/${session}/messages`)).body
          .messages;
        return messages.find((m) => m.id === messageId)?.status;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toMatch(/^(processed|interrupted|error)$/);
  return messages;
}

describe('tool-call approval over REST', () => {
  it('GET session lists the waiting call, SSE announces it, POST approval approves it once', async () => {
    const session = uniqueId('s');
    // The first message creates the session; the event stream then watches the second.
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    const stream = await openEvents(h.api.url, `/v1/sessions/${session}/events`);
    try {
      const posted = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
        content: 'run: echo via-rest',
      });
      expect(posted.status).toBe(202);
      const requested = await stream.waitFor((e) => e.event === 'approval_requested', 20_000);
      expect(requested.data).toMatchObject({
        session_id: session,
        tool_name: 'run_shell_command',
        subject: 'echo via-rest',
      });
      const pending = await waitForPending(session);
      expect(pending).toMatchObject({ call_id: (requested.data as Json).call_id, subject: 'echo via-rest' });

      const path = `/v1/sessions/${session}/tool-calls/${pending.call_id}/approval`;
      const ok = await h.client.post(path, { decision: 'approve' });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ call_id: pending.call_id, decision: 'approve', by: 'api:local' });

      const messages = await waitTurnEnd(session, posted.body.message.id);
      expect(messages.find((m) => m.id === posted.body.message.id)?.status).toBe('processed');
      const call = messages.find((m) => m.id === pending.call_id);
      expect(call?.metadata).toMatchObject({
        approval: { state: 'approved', by: 'api:local', decision: 'approve', subject: 'echo via-rest' },
      });
      expect(messages.find((m) => m.parent_id === pending.call_id)?.content).toContain('via-rest');
      expect(await pendingOf(session)).toEqual([]);
      // Decided: a second decision is a conflict.
      expectProblem(await h.client.post(path, { decision: 'deny' }), 409, 'conflict');
    } finally {
      stream.close();
    }
  });

  it('a wait ends as soon as the turn waits for approval: 202 names the call, a decision with wait gets the reply', async () => {
    const session = uniqueId('s');
    const started = Date.now();
    const res = await h.client.post<Json>(`/v1/sessions/${session}/messages`, {
      content: 'run: echo waits-for-you',
      wait: 60,
    });
    expect(res.status).toBe(202);
    // Not the full wait: the answer comes once the call waits, not at the time-out.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(res.body).toMatchObject({ state: 'waiting_for_approval', message: { status: 'processing' } });
    const pending = res.body.pending_approvals as PendingJson[];
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ tool_name: 'run_shell_command', subject: 'echo waits-for-you' });
    const route = `/v1/sessions/${session}/tool-calls/${pending[0]?.call_id}/approval`;
    expect(res.body.detail).toContain('waiting for approval of run_shell_command `echo waits-for-you`');
    expect(res.body.detail).toContain(`POST ${route}`);

    const decided = await h.client.post<{ message: Message; reply: Message }>(route, {
      decision: 'approve',
      wait: 60,
    });
    expect(decided.status).toBe(200);
    expect(decided.body.message).toMatchObject({ id: (res.body.message as Message).id, status: 'processed' });
    expect(decided.body.reply.content).toContain('waits-for-you');
    // Decided: the call's turn is over, and the decision route says so.
    expectProblem(await h.client.post(route, { decision: 'deny', wait: 5 }), 409, 'conflict');
  });

  it('two calls of one step: a decision with wait answers 202 for the other, then 200', async () => {
    const session = uniqueId('s');
    const res = await h.client.post<Json>(`/v1/sessions/${session}/messages`, {
      content: 'run2: echo first-one ;; echo second-one',
      wait: 60,
    });
    expect(res.status).toBe(202);
    // The calls of one step are asked one after the other: the answer lists those waiting at that moment.
    const [firstCall] = res.body.pending_approvals as PendingJson[];
    expect(firstCall?.subject).toBe('echo first-one');
    const call = (p: PendingJson | undefined) => `/v1/sessions/${session}/tool-calls/${p?.call_id}/approval`;
    const first = await h.client.post<Json>(call(firstCall), { decision: 'deny', wait: 60 });
    expect(first.status).toBe(202);
    const [secondCall, ...more] = first.body.pending_approvals as PendingJson[];
    expect(more).toEqual([]);
    expect(secondCall?.subject).toBe('echo second-one');
    const second = await h.client.post<{ reply: Message }>(call(secondCall), {
      decision: 'approve',
      wait: 60,
    });
    expect(second.status).toBe(200);
    expect(second.body.reply.content).toContain('second-one');
    expectProblem(await h.client.post(call(firstCall), { decision: 'approve', wait: 61 * 5 }), 400);
  });

  it('a decision right after another: the call decided first but not yet recorded is not listed as waiting', async () => {
    const session = uniqueId('s');
    const res = await h.client.post<Json>(`/v1/sessions/${session}/messages`, {
      content: 'run2: echo first-late ;; echo second-late',
      wait: 60,
    });
    expect(res.status).toBe(202);
    const [firstCall] = res.body.pending_approvals as PendingJson[];
    const call = (p: PendingJson | undefined) => `/v1/sessions/${session}/tool-calls/${p?.call_id}/approval`;
    // A row lock on the first call's message holds its turn's write of the decision: its stored approval
    // keeps reading `pending` while the second decision is taken.
    const lock = await h.stack.pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT 1 FROM messages WHERE id = $1 FOR UPDATE', [firstCall?.call_id]);
      const first = await h.client.post<Json>(call(firstCall), { decision: 'deny', wait: 60 });
      expect(first.status).toBe(202);
      const [secondCall] = first.body.pending_approvals as PendingJson[];
      expect(secondCall?.subject).toBe('echo second-late');
      const second = h.client.post<{ reply: Message }>(call(secondCall), { decision: 'approve', wait: 60 });
      await new Promise((r) => setTimeout(r, 1500));
      await lock.query('COMMIT');
      const answered = await second;
      expect(answered.status).toBe(200);
      expect(answered.body.reply.content).toContain('second-late');
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
    }
  });

  it('a message queued behind a turn waiting for approval: its wait runs out with a 504 naming the call', async () => {
    const session = uniqueId('s');
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    expect((await h.client.patch(`/v1/sessions/${session}`, { mode: 'queue' })).status).toBe(200);
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'run: echo blocks-the-queue' });
    const blocking = await waitForPending(session);
    const res = await h.client.post(`/v1/sessions/${session}/messages`, { content: 'after it', wait: 3 });
    const problem = expectProblem(res, 504, 'wait-timeout');
    expect(problem.pending_approvals).toMatchObject([{ call_id: blocking.call_id }]);
    const route = `/v1/sessions/${session}/tool-calls/${blocking.call_id}/approval`;
    expect(problem.detail).toContain(
      'it is waiting for approval of run_shell_command `echo blocks-the-queue`',
    );
    expect(problem.detail).toContain(`POST ${route}`);
    expect((await h.client.post(route, { decision: 'approve' })).status).toBe(200);
    const messages = await waitTurnEnd(session, problem.message_id as string);
    expect(messages.find((m) => m.id === problem.message_id)?.status).toBe('processed');
  });

  it('answers 404 for an unknown call, 400 for a bad decision and 404 for another session', async () => {
    const session = uniqueId('s');
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    expectProblem(
      await h.client.post(`/v1/sessions/${session}/tool-calls/nope/approval`, { decision: 'approve' }),
      404,
      'not-found',
    );
    expectProblem(
      await h.client.post(`/v1/sessions/${session}/tool-calls/nope/approval`, { decision: 'maybe' }),
      400,
    );
    expectProblem(
      await h.client.post(`/v1/sessions/${uniqueId('nobody')}/tool-calls/x/approval`, { decision: 'deny' }),
      404,
      'session-not-found',
    );
  });

  it('PATCH approval off: the session runs commands without asking; null restores the default', async () => {
    const session = uniqueId('s');
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    const patched = await h.client.patch(`/v1/sessions/${session}`, { approval: 'off' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ approval: 'off', pending_approvals: [] });
    const ran = await h.client.post<{ reply: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: echo no-asking',
      wait: 30,
    });
    expect(ran.status).toBe(200);
    expect(ran.body.reply.content).toContain('no-asking');

    expect((await h.client.patch(`/v1/sessions/${session}`, { approval: null })).body).toMatchObject({
      approval: null,
    });
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'run: echo asks-again' });
    const pending = await waitForPending(session);
    expect(pending.subject).toBe('echo asks-again');
    const denied = await h.client.post(`/v1/sessions/${session}/tool-calls/${pending.call_id}/approval`, {
      decision: 'deny',
    });
    expect(denied.status).toBe(200);
    expectProblem(await h.client.patch(`/v1/sessions/${session}`, { approval: 'sometimes' }), 400);
  });
});

describe('the approval state of a session', () => {
  it('GET and PATCH show the policy in force and the approve patterns, the session’s apart from the configured', async () => {
    const session = uniqueId('s');
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    expect((await h.client.get(`/v1/sessions/${session}`)).body).toMatchObject({
      approval: null,
      approval_in_force: 'writes',
      approve_patterns: { session: [], configured: ['uname *'] },
    });
    // A configured pattern approves without asking.
    const unasked = await h.client.post<{ reply: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: uname -s',
      wait: 30,
    });
    expect(unasked.status).toBe(200);
    // An `always` adds the session's own pattern.
    const posted = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: ls -la',
    });
    const pending = await waitForPending(session);
    expect(pending.subject).toBe('ls -la');
    const path = `/v1/sessions/${session}/tool-calls/${pending.call_id}/approval`;
    expect((await h.client.post(path, { decision: 'always' })).status).toBe(200);
    await waitTurnEnd(session, posted.body.message.id);
    expect((await h.client.get(`/v1/sessions/${session}`)).body).toMatchObject({
      approval_in_force: 'writes',
      approve_patterns: { session: ['ls *'], configured: ['uname *'] },
    });
    // The session's own policy wins over KESOKU_TOOL_APPROVAL; null gives it back.
    expect((await h.client.patch(`/v1/sessions/${session}`, { approval: 'all' })).body).toMatchObject({
      approval: 'all',
      approval_in_force: 'all',
      approve_patterns: { session: ['ls *'], configured: ['uname *'] },
    });
    expect((await h.client.patch(`/v1/sessions/${session}`, { approval: null })).body).toMatchObject({
      approval: null,
      approval_in_force: 'writes',
    });
  });

  it('without KESOKU_TOOL_APPROVAL the policy in force is the channel’s default: writes for api, off for cli', async () => {
    // An API that knows no configured policy (the worker's stays `writes`; only the API's report is checked).
    const bare = await startApiFor(h.stack, { app: { approvals: {} } });
    try {
      const client = new ApiClient(bare.url);
      const api = uniqueId('s');
      const cli = uniqueId('s');
      await client.post(`/v1/sessions/${api}/messages`, { content: 'hello', wait: 30 });
      await client.post(`/v1/sessions/${cli}/messages`, { content: 'hello', channel: 'cli', wait: 30 });
      expect((await client.get(`/v1/sessions/${api}`)).body).toMatchObject({
        approval_in_force: 'writes',
        approve_patterns: { session: [], configured: [] },
      });
      expect((await client.get(`/v1/sessions/${cli}`)).body).toMatchObject({ approval_in_force: 'off' });
      expect((await client.patch(`/v1/sessions/${cli}`, { approval: 'all' })).body).toMatchObject({
        approval_in_force: 'all',
      });
    } finally {
      await bare.close();
    }
  });

  it('PATCH approval before the first message applies to the first turn', async () => {
    const session = uniqueId('early');
    const patched = await h.client.patch(`/v1/sessions/${session}`, { approval: 'off' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ approval: 'off', approval_in_force: 'off', pending_approvals: [] });
    const ran = await h.client.post<{ reply: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: echo first-turn-unasked',
      wait: 30,
    });
    expect(ran.status).toBe(200);
    expect(ran.body.reply.content).toContain('first-turn-unasked');
  });
});

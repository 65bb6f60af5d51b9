/**
 * The turn engine on the real dev server and real Postgres with the fake model server:
 * plain turns, tool turns, parallel tool calls, metrics, de-duplication, titles and Web UI metadata.
 */
import { workflowMetadataQuery } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSession } from '../../db/sessions.ts';
import { sessionWorkflowId, titleWorkflowId } from '../../workflows/definitions.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { recordHistory } from '../support/histories.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

const ENDED = ['processed', 'error', 'interrupted'] as const;

describe('a plain turn', () => {
  it('stores the question, answers it, delivers the reply and marks the question processed', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'hello there');
    expect(r.message).toMatchObject({
      status: 'pending_agent',
      role: 'user',
      type: 'text',
      chatbot_id: 'api',
      sender: 'tester',
    });
    expect(r.queue_position).toBe(0);
    const done = await stack.waitForStatus(r.message.id, [...ENDED]);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.map((m) => [m.role, m.type, m.status])).toEqual([
      ['user', 'text', 'processed'],
      ['assistant', 'text', 'delivered'],
    ]);
    const reply = msgs[1];
    expect(reply?.content).toBe('echo: hello there');
    expect(reply?.parent_id).toBe(r.message.id);
    expect(reply?.metadata?.turn_metrics).toMatchObject({ session_turns: 1, turn_tool_calls: 0 });
    expect(reply?.metadata?.turn_metrics?.turn_tokens).toBeGreaterThan(0);
    expect(reply?.metadata?.turn_metrics?.context_tokens).toBeGreaterThan(0);
    await recordHistory('plain-turn', stack.client, sessionWorkflowId(session));
  });

  it('generates a title after the first completed turn', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'plan the trip to Tokyo please');
    await stack.waitForStatus(r.message.id, ['processed']);
    await expect
      .poll(async () => (await getSession(stack.pool, session))?.title, { timeout: 15_000 })
      .toBe('plan the trip');
    expect((await getSession(stack.pool, session))?.title_source).toBe('auto');
    await expect
      .poll(async () => (await stack.sessions.state(session)).title, { timeout: 5_000 })
      .toBe('plan the trip');
  });
});

describe('title race (docs/message-flow.md §12, §15)', () => {
  it('a title the user sets during the first turn stays; the late automatic title does not overwrite it', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'slow_text', text: 'a slow first answer', chunkDelayMs: 300 });
    const r = await stack.submit(session, 'first question of the session');
    await stack.waitForStatus(r.message.id, ['processing']);
    expect(await stack.sessions.setTitle(session, 'My own title')).toEqual({ title: 'My own title' });
    await stack.waitForStatus(r.message.id, ['processed']);
    // The title workflow is not started for a user-titled session; wait long enough for one to have run.
    await new Promise((res) => setTimeout(res, 1500));
    const row = await getSession(stack.pool, session);
    expect(row).toMatchObject({ title: 'My own title', title_source: 'user' });
    expect((await stack.sessions.state(session)).title).toBe('My own title');
  });

  it('a rename while the title is being generated wins over the late automatic title', async () => {
    const session = uniqueId('s');
    const question = `race question ${session}`;
    const isTitleRequest = (q: {
      body?: { messages?: { role: string; content?: unknown }[]; tools?: unknown[] };
    }) =>
      !q.body?.tools?.length &&
      JSON.stringify(q.body?.messages ?? []).includes(question) &&
      JSON.stringify(q.body).includes('title');
    stack.scriptWhen(isTitleRequest, {
      kind: 'slow_text',
      text: 'Title: An automatic title',
      chunkDelayMs: 400,
    });
    const r = await stack.submit(session, question);
    await stack.waitForStatus(r.message.id, ['processed']);
    await expect
      .poll(() => stack.fake.chatRequests().some(isTitleRequest), { timeout: 10_000, interval: 50 })
      .toBe(true);
    await stack.sessions.setTitle(session, 'Chosen by the user');
    const result = await stack.client.workflow.getHandle(titleWorkflowId(session)).result();
    expect(result).toBeNull();
    expect(await getSession(stack.pool, session)).toMatchObject({
      title: 'Chosen by the user',
      title_source: 'user',
    });
    expect((await stack.sessions.state(session)).title).toBe('Chosen by the user');
  });

  it('the conditional commit refuses an automatic title once the user has set one', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'hello world again');
    await stack.waitForStatus(r.message.id, ['processed']);
    await expect
      .poll(async () => (await getSession(stack.pool, session))?.title_source, { timeout: 10_000 })
      .toBe('auto');
    await stack.sessions.setTitle(session, 'Renamed');
    const { setAutoTitle } = await import('../../db/sessions.ts');
    expect(await setAutoTitle(stack.pool, session, 'late automatic title')).toBe(false);
    expect((await getSession(stack.pool, session))?.title).toBe('Renamed');
  });
});

describe('title attempts', () => {
  const titleRequestsFor =
    (question: string) =>
    (q: { body?: { messages?: { role: string; content?: unknown }[]; tools?: unknown[] } }) =>
      !q.body?.tools?.length &&
      JSON.stringify(q.body?.messages ?? []).includes(question) &&
      JSON.stringify(q.body).includes('title');

  it('a model that never gives a usable title is asked three times, not after every turn', async () => {
    const session = uniqueId('s');
    const question = `untitled question ${session}`;
    const isTitleRequest = titleRequestsFor(question);
    stack.scriptWhen(
      isTitleRequest,
      ...Array.from({ length: 6 }, () => ({ kind: 'text' as const, text: 'Title: ""' })),
    );
    for (const [i, text] of [question, 'two', 'three', 'four', 'five'].entries()) {
      const r = await stack.submit(session, text);
      await stack.waitForStatus(r.message.id, ['processed']);
      // Each attempt runs beside the next turn; let the ones owed so far be asked before the next message.
      const owed = Math.min(i + 1, 3);
      await expect
        .poll(() => stack.fake.chatRequests().filter(isTitleRequest).length, { timeout: 10_000 })
        .toBe(owed);
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(stack.fake.chatRequests().filter(isTitleRequest)).toHaveLength(3);
    expect(await getSession(stack.pool, session)).toMatchObject({ title_source: 'default' });
  });

  it('a title stored by an attempt the session never heard of reaches it with the next attempt, unasked', async () => {
    const session = uniqueId('s');
    const question = `lost title question ${session}`;
    const isTitleRequest = titleRequestsFor(question);
    stack.scriptWhen(isTitleRequest, { kind: 'text', text: 'Title: ""' });
    const r = await stack.submit(session, question);
    await stack.waitForStatus(r.message.id, ['processed']);
    await expect
      .poll(() => stack.fake.chatRequests().filter(isTitleRequest).length, { timeout: 10_000 })
      .toBe(1);
    // As if an attempt committed its title and its signal to the session was lost.
    const { setAutoTitle } = await import('../../db/sessions.ts');
    await expect
      .poll(async () => setAutoTitle(stack.pool, session, 'Stored meanwhile'), { timeout: 10_000 })
      .toBe(true);
    expect((await stack.sessions.state(session)).titleSource).toBe('default');
    const next = await stack.submit(session, 'and another thing');
    await stack.waitForStatus(next.message.id, ['processed']);
    await expect
      .poll(async () => (await stack.sessions.state(session)).title, { timeout: 10_000 })
      .toBe('Stored meanwhile');
    expect((await stack.sessions.state(session)).titleSource).toBe('auto');
    expect(stack.fake.chatRequests().filter(isTitleRequest)).toHaveLength(1);
  });
});

describe('tool turns', () => {
  it('runs a shell tool call and answers from its output', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo hi from the shell');
    const done = await stack.waitForStatus(r.message.id, [...ENDED]);
    expect(done.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.map((m) => `${m.role}/${m.type}/${m.status}`)).toEqual([
      'user/text/processed',
      'assistant/thought/responded',
      'tool/tool_call/responded',
      'tool/tool_result/responded',
      'assistant/text/delivered',
    ]);
    const [, thought, call, result, reply] = msgs;
    expect(thought?.content).toBe('I will run `echo hi from the shell`.');
    expect(call?.metadata).toMatchObject({
      tool_name: 'run_shell_command',
      tool_arguments: { command: 'echo hi from the shell' },
    });
    expect(result).toMatchObject({ sender: 'run_shell_command', parent_id: call?.id });
    expect(result?.content).toBe('=== STDOUT ===\nhi from the shell\n=== STDERR ===\n');
    expect(result?.metadata?.tool_result).toBe('hi from the shell');
    expect(reply?.content).toBe('Done: hi from the shell');
    expect(reply?.metadata?.turn_metrics).toMatchObject({ turn_tool_calls: 1 });
    await recordHistory('tool-turn', stack.client, sessionWorkflowId(session));
  });

  it('runs two tool calls of one step in parallel', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run2: sleep 1; echo first ;; sleep 1; echo second');
    const started = Date.now();
    await stack.waitForStatus(r.message.id, ['processed']);
    const msgs = await stack.messages(session);
    const calls = msgs.filter((m) => m.type === 'tool_call');
    const results = msgs.filter((m) => m.type === 'tool_result');
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((c) => c.step))).toEqual(new Set([0]));
    expect(results.map((m) => m.metadata?.tool_result).sort()).toEqual(['first', 'second']);
    // Both one-second commands ran at the same time: well under the two seconds a serial run needs, plus overhead.
    const resultTimes = results.map((m) => Date.parse(m.created_at));
    expect(Math.abs((resultTimes[0] ?? 0) - (resultTimes[1] ?? 0))).toBeLessThan(800);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('shows the running step in the Web UI current details and keeps content out of search attributes', async () => {
    const session = uniqueId('s');
    const r = await stack.submit(session, 'run: sleep 2; echo slow');
    const handle = stack.client.workflow.getHandle(sessionWorkflowId(session));
    await expect
      .poll(async () => (await handle.query(workflowMetadataQuery)).currentDetails ?? '', {
        timeout: 10_000,
        interval: 100,
      })
      .toContain('step 0: run_shell_command');
    const running = await handle.describe();
    expect(running.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['KesokuChatbotId', 'api'],
        ['KesokuChannelId', session],
        ['KesokuSessionStatus', 'processing'],
      ]),
    );
    await stack.waitForStatus(r.message.id, ['processed']);
    await expect
      .poll(
        async () =>
          (await handle.describe()).typedSearchAttributes
            .getAll()
            .find((p) => p.key.name === 'KesokuSessionStatus')?.value,
      )
      .toBe('idle');
    const desc = await handle.describe();
    const values = JSON.stringify(desc.typedSearchAttributes.getAll());
    expect(values).not.toContain('slow');
    expect(await desc.staticSummary()).toContain(session);
  });
});

describe('/compact', () => {
  it('runs a compaction turn with the spec prompt row; the next turn sees the summary instead of the history', async () => {
    const session = uniqueId('s');
    for (const text of ['the first fact is apples', 'the second fact is pears']) {
      await stack.waitForStatus((await stack.submit(session, text)).message.id, ['processed']);
    }
    stack.script(session, { kind: 'text', text: 'SUMMARY: apples and pears' });
    const { message_id } = await stack.sessions.compact(session);
    const prompt = await stack.waitForStatus(message_id, ['processed', 'error', 'interrupted']);
    expect(prompt).toMatchObject({
      role: 'user',
      type: 'text',
      sender: 'System',
      status: 'processed',
      metadata: { is_compaction: true },
    });
    expect(prompt.content.startsWith('[System Notification] The user manually requested compaction')).toBe(
      true,
    );
    const summary = (await stack.messages(session)).find(
      (m) => m.turn_id === message_id && m.role === 'assistant',
    );
    expect(summary).toMatchObject({ content: 'SUMMARY: apples and pears', status: 'delivered' });
    expect(typeof summary?.metadata?.compacted_through_seq).toBe('number');

    const after = await stack.submit(session, 'what do you remember?');
    await stack.waitForStatus(after.message.id, ['processed']);
    const sent = JSON.stringify(stack.requestsOf(session).at(-1)?.body?.messages);
    expect(sent).toContain('SUMMARY: apples and pears');
    expect(sent).not.toContain('the first fact is apples');
  });
});

describe('message ids are idempotency keys', () => {
  it('a repeated id is acknowledged with the stored message and never queued twice', async () => {
    const session = uniqueId('s');
    const id = uniqueId('dup');
    const first = await stack.submit(session, 'only once', { id });
    const second = await stack.submit(session, 'only once', { id });
    expect(second.duplicate).toBe(true);
    expect(second.message.id).toBe(first.message.id);
    await stack.waitForStatus(id, ['processed']);
    const third = await stack.submit(session, 'only once', { id });
    expect(third.duplicate).toBe(true);
    expect(third.message.status).toBe('processed');
    const msgs = await stack.messages(session);
    expect(msgs.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(msgs.filter((m) => m.role === 'assistant')).toHaveLength(1);
  });

  it('a userMessage signal sent straight to Temporal admits nothing; the session goes on', async () => {
    const session = uniqueId('s');
    const first = await stack.submit(session, 'via update');
    await stack.waitForStatus(first.message.id, ['processed']);
    const handle = stack.sessions.handle(session);
    const msg = {
      id: uniqueId('sig'),
      content: 'via signal',
      sender: 'tester',
      receivedAt: new Date().toISOString(),
    };
    const { userMessageSignal } = await import('../../workflows/definitions.ts');
    await handle.signal(userMessageSignal, msg);
    const after = await stack.submit(session, 'after the signal');
    await stack.waitForStatus(after.message.id, ['processed']);
    const msgs = await stack.messages(session);
    expect(msgs.find((m) => m.id === msg.id)).toBeUndefined();
    expect(msgs.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'via update',
      'after the signal',
    ]);
    expect(msgs.some((m) => m.content.includes('via signal'))).toBe(false);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });
});

/**
 * Model failures end turns cleanly (docs/message-flow.md §13): the empty-reply nudge, context
 * overflow recovery, retried 5xx, an invalid key without a retry storm, a hanging call timing out, and the
 * crash notice's presentation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLocale } from '../../db/sessions.ts';
import { EMPTY_REPLY_NUDGE } from '../../domain/factories.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { recordHistory } from '../support/histories.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ llm: { requestTimeoutMs: 1_500 } });
});
afterAll(async () => stack?.stop());

const ENDED = ['processed', 'interrupted', 'error'] as const;

describe('empty model output', () => {
  it('gets the nudge (system, transpiled to a user turn) and another try; the empty answer is never delivered', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'empty' });
    const r = await stack.submit(session, 'say something');
    expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('processed');
    const msgs = await stack.messages(session);
    const nudge = msgs.find((m) => m.role === 'system');
    expect(nudge).toMatchObject({
      sender: 'System',
      type: 'text',
      status: 'responded',
      content: EMPTY_REPLY_NUDGE,
    });
    // The nudge follows the question directly, so the two user turns merge (roles alternate, docs/message-model.md §5.4).
    const retry = stack.requestsOf(session)[1]?.body?.messages ?? [];
    // The runtime context (activities/knowledge/context.ts) comes once, after both.
    expect(retry.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/\n\n\[Runtime Context\]\n/),
    });
    expect(String(retry.at(-1)?.content).split('\n\n[Runtime Context]\n')[0]).toBe(
      `say something\n\n[System Notification]\n${EMPTY_REPLY_NUDGE}`,
    );
    const replies = msgs.filter((m) => m.sender === 'Kesoku' && m.type === 'text');
    expect(replies).toHaveLength(1);
    expect(replies[0]?.content).toMatch(/^echo: say something/);
    await recordHistory('nudge', stack.client, sessionWorkflowId(session));
  });

  it('fails with a clear notice after the nudges are used up', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'empty' }, { kind: 'empty' }, { kind: 'empty' });
    const r = await stack.submit(session, 'say something');
    expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('error');
    const msgs = await stack.messages(session);
    expect(msgs.filter((m) => m.role === 'system')).toHaveLength(2);
    const notice = msgs.find((m) => m.role === 'assistant' && m.metadata?.failure_kind);
    await expect
      .poll(async () => (await stack.messages(session)).find((m) => m.id === notice?.id)?.status)
      .toBe('delivered');
    expect(notice?.content).toBe(
      '⚠️ Something went wrong while handling your request: the model returned an empty reply several times.',
    );
  });
});

describe('context overflow', () => {
  it('is recovered once through the preparation path (compaction), then the turn completes', async () => {
    const session = uniqueId('s');
    const warmup = await stack.submit(session, 'some earlier context');
    await stack.waitForStatus(warmup.message.id, ['processed']);
    stack.script(
      session,
      { kind: 'context_overflow' },
      { kind: 'text', text: 'SUMMARY of the earlier context' },
    );
    const r = await stack.submit(session, 'now a big question');
    expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('processed');
    const sent = stack
      .requestsOf(session)
      .map((q) => q.body?.messages ?? [])
      .slice(1);
    expect(sent).toHaveLength(3); // overflow, compaction, retried step
    const retried = JSON.stringify(sent[2]);
    expect(retried).toContain('SUMMARY of the earlier context');
    expect(retried).not.toContain('echo: some earlier context');
    // One preparation path: the retried request has the system prompt once, first, as the first request had.
    const systems = (msgs: NonNullable<(typeof sent)[number]>) => msgs.filter((m) => m.role === 'system');
    for (const request of [sent[0], sent[2]]) {
      expect(systems(request ?? [])).toHaveLength(1);
      expect(request?.[0]?.role).toBe('system');
    }
    expect(retried.split('# System Instructions').length - 1).toBe(1);
    const userTurns = (sent[2] ?? []).filter(
      (m) => m.role === 'user' && JSON.stringify(m.content).includes('now a big question'),
    );
    expect(userTurns).toHaveLength(1);
    const msgs = await stack.messages(session);
    expect(msgs.find((m) => m.metadata?.compacted_through_seq !== undefined)?.status).toBe('delivered');
    const notice = msgs.find((m) => m.sender === 'Notification');
    expect(notice?.content).toBe('🔄 Chat history was compacted automatically.');
    expect(notice?.status).toBe('delivered');
    expect(msgs.find((m) => m.sender === 'Kesoku' && m.parent_id === r.message.id)?.content).toBe(
      'echo: now a big question',
    );
    await recordHistory('overflow-recovered', stack.client, sessionWorkflowId(session));
  });

  it('a second overflow fails the turn cleanly with the overflow notice', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'context_overflow' }, { kind: 'context_overflow' });
    const r = await stack.submit(session, 'too big');
    const ended = await stack.waitForStatus(r.message.id, [...ENDED]);
    expect(ended.status).toBe('error');
    expect(ended.metadata?.failure_kind).toBe('provider:context_overflow');
    expect(stack.requestsOf(session)).toHaveLength(2);
    const msgs = await stack.messages(session);
    expect(msgs.find((m) => m.role === 'assistant' && m.metadata?.failure_kind)?.content).toContain(
      'too long for the model',
    );
    // The session is usable afterwards.
    const next = await stack.submit(session, 'small one');
    expect((await stack.waitForStatus(next.message.id, [...ENDED])).status).toBe('processed');
  });
});

describe('provider errors', () => {
  it('retries a 500 twice with backoff, then succeeds', async () => {
    const session = uniqueId('s');
    stack.script(
      session,
      { kind: 'error', status: 500, body: { error: { message: 'upstream exploded: secret sk-live-123' } } },
      { kind: 'error', status: 500 },
    );
    const r = await stack.submit(session, 'are you ok?');
    expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('processed');
    const sent = stack.requestsOf(session);
    expect(sent).toHaveLength(3); // 3 attempts of the one step
    expect(sent[1]!.receivedAt - sent[0]!.receivedAt).toBeGreaterThanOrEqual(900);
    const msgs = await stack.messages(session);
    expect(JSON.stringify(msgs)).not.toContain('exploded');
    expect(msgs.at(-1)?.content).toBe('echo: are you ok?');
  });

  it('a hanging model call ends by timeout as an error, and the session moves on', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    const r = await stack.submit(session, 'hello?');
    const ended = await stack.waitForStatus(r.message.id, [...ENDED], 40_000);
    expect(ended.status).toBe('error');
    expect(ended.metadata?.failure_kind).toBe('provider:timeout');
    const msgs = await stack.messages(session);
    expect(msgs.find((m) => m.role === 'assistant' && m.metadata?.failure_kind)?.content).toContain(
      'did not answer in time',
    );
    const next = await stack.submit(session, 'again');
    expect((await stack.waitForStatus(next.message.id, [...ENDED])).status).toBe('processed');
  }, 60_000);

  it('presents the crash notice in Chinese for a zh session', async () => {
    const session = uniqueId('s');
    const first = await stack.submit(session, 'hi');
    await stack.waitForStatus(first.message.id, ['processed']);
    await setLocale(stack.pool, session, 'zh-CN');
    stack.script(session, { kind: 'empty' }, { kind: 'empty' }, { kind: 'empty' });
    const r = await stack.submit(session, '你好');
    expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('error');
    const notice = (await stack.messages(session)).find(
      (m) => m.role === 'assistant' && m.metadata?.failure_kind,
    );
    expect(notice?.content).toBe('⚠️ 处理您的请求时发生异常: 模型多次返回空回复。');
  });
});

describe('an invalid API key', () => {
  it('gives one error notice and no retry storm', async () => {
    const bad = await startStack({ apiKey: 'the-right-key', llm: { apiKey: 'a-wrong-key' } });
    try {
      const session = uniqueId('s');
      const r = await bad.submit(session, 'hello');
      const ended = await bad.waitForStatus(r.message.id, [...ENDED]);
      expect(ended.status).toBe('error');
      expect(ended.metadata?.failure_kind).toBe('provider:auth');
      await new Promise((res) => setTimeout(res, 2_000));
      expect(bad.fake.chatRequests()).toHaveLength(1);
      const msgs = await bad.messages(session);
      const notices = msgs.filter((m) => m.role === 'assistant' && m.metadata?.failure_kind);
      expect(notices).toHaveLength(1);
      const notice = notices[0];
      expect(notice?.content).toContain('rejected the API key');
      expect(notice?.content).not.toContain('a-wrong-key');
      await recordHistory('invalid-key', bad.client, sessionWorkflowId(session));
    } finally {
      await bad.stop();
    }
  });
});

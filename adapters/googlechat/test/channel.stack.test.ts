/**
 * The Google Chat channel against its fake, on the real stack (docs/message-model.md §4.3, §5.3 Google Chat
 * column): an event in → the reply in the right thread; a tool turn's one intermediate card patched in place
 * ⏳ → ✅/❌; a retried create that posts once; a long reply split at 4096 characters; a bad token refused with
 * nothing stored.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { getMessage } from '../../../db/messages.ts';
import { getSession } from '../../../db/sessions.ts';
import { sessionWorkflowId } from '../../../workflows/definitions.ts';
import { googleChatChannel } from '../channel.ts';
import { ChatTokenError, createTokenVerifier } from '../auth.ts';
import { googleChatConfigSchema, tokenCheckOf } from '../config.ts';
import { createLogger } from '../../../infra/logger.ts';
import { messageEvent, type FakeChatMessage } from './fake-server.ts';
import { startGoogleChatBench, type GoogleChatBench } from './harness.ts';

let bench: GoogleChatBench;
beforeAll(async () => {
  bench = await startGoogleChatBench();
});
afterAll(async () => bench?.stop());
afterEach(() => bench.fake.clearFailures());

/** A fresh space (ids unique across test processes sharing one database). */
function newSpace(): string {
  return `spaces/S${randomBytes(6).toString('hex')}`;
}

/** Bot messages in `thread`, in creation order. */
function inThread(space: string, thread: string): FakeChatMessage[] {
  return bench.fake.messagesIn(space).filter((m) => m.thread.name === thread);
}

const textOf = (m: FakeChatMessage) => m.text ?? '';
const cardJson = (state: { cardsV2?: unknown[] }) => JSON.stringify(state.cardsV2 ?? []);

describe('Google Chat channel', () => {
  it('answers a message in its thread and marks it delivered; a re-sent event is not run twice', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T1`;
    const event = messageEvent({ space, thread, messageId: 'M1.M1', text: 'hello from chat' });
    const res = await bench.fake.postEvent(bench.endpoint, event);
    expect(res).toEqual({ status: 200, body: '{}' });
    const inbound = await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M1.M1`, ['processed']);
    expect(inbound.chatbot_id).toBe('google_chat');
    expect(inbound.session_id).toBe(`googlechat:${space.slice(7)}:T1`);
    expect(inbound.content).toContain('hello from chat');
    const replies = await bench.fake.waitFor(() => {
      const r = inThread(space, thread);
      return r.length > 0 ? r : null;
    });
    expect(replies).toHaveLength(1);
    expect(textOf(replies[0] as FakeChatMessage)).toContain('echo:');
    expect(textOf(replies[0] as FakeChatMessage)).toContain('hello from chat');
    expect(replies[0]?.clientAssignedMessageId).toMatch(/^client-[0-9a-f]{56}$/);
    const session = await getSession(bench.stack.pool, inbound.session_id);
    expect(session?.channel_id).toBe(thread);
    const reply = (await bench.stack.messages(inbound.session_id)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    expect(reply?.status).toBe('delivered');

    // Chat re-sends an event it got no answer for: the same message id, de-duplicated by the session.
    expect((await bench.fake.postEvent(bench.endpoint, event)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(inThread(space, thread)).toHaveLength(1);
    expect((await bench.stack.messages(inbound.session_id)).filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('shows a tool turn in one card patched in place, ⏳ then ✅ and ❌, then the reply', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T2`;
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M2', text: 'run2: echo gchat-ok ;; exit 3' }),
    );
    const inbound = await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M2`, ['processed']);
    const messages = await bench.fake.waitFor(() => {
      const all = inThread(space, thread);
      return all.some((m) => textOf(m).includes('Done:')) ? all : null;
    }, 30_000);
    const cards = messages.filter((m) => m.cardsV2 !== undefined);
    expect(cards).toHaveLength(1);
    const card = cards[0] as FakeChatMessage;
    expect(messages.indexOf(card)).toBe(0);
    // The card's last patch follows the reply (it waits for the edit throttle, the reply does not).
    await bench.fake.waitFor(() => !cardJson(card).includes('⏳'), 30_000, 'the final card');
    // Created with both tools running, then patched in place: at the end one ✅ and one ❌, nothing ⏳.
    expect(cardJson(card.history[0] ?? {})).toContain('⏳');
    expect(card.history.length).toBeGreaterThanOrEqual(2);
    const last = cardJson(card);
    expect(last).not.toContain('⏳');
    expect(last).toContain('✅');
    expect(last).toContain('❌');
    expect(last).toContain('gchat-ok');
    expect(last).toContain('"collapsible":true');
    const patches = bench.fake.calls.filter((c) => c.route === 'patch' && c.path === `/v1/${card.name}`);
    expect(patches.length).toBe(card.history.length - 1);
    expect(patches.every((c) => c.query.updateMask === 'cardsV2')).toBe(true);
    const finalReplies = messages.filter((m) => m.text !== undefined);
    expect(finalReplies).toHaveLength(1);
    // Thoughts, tool calls and results were rendered, so they are delivered.
    const stored = await bench.stack.messages(inbound.session_id);
    const intermediate = stored.filter((m) => m.type === 'tool_call' || m.type === 'tool_result');
    expect(intermediate).toHaveLength(4);
    expect(intermediate.every((m) => m.status === 'delivered')).toBe(true);
  });

  it("shows a running command's last output line in the card while it runs, gone once it is done", async () => {
    const space = newSpace();
    const thread = `${space}/threads/T9`;
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({
        space,
        thread,
        messageId: 'M9',
        text: 'run: echo gchat-first; sleep 4; echo gchat-done',
      }),
    );
    const card = await bench.fake.waitFor(
      () => inThread(space, thread).find((m) => cardJson(m).includes('<code>gchat-first</code>')),
      30_000,
    );
    expect(cardJson(card)).toContain('⏳');
    await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M9`, ['processed']);
    await bench.fake.waitFor(() => (cardJson(card).includes('✅') ? true : null), 15_000);
    expect(cardJson(card)).not.toContain('<code>gchat-first</code>');
  });

  it('shows the stop notice in the turn’s card (the running tool ⏹️), with no message of its own', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T7`;
    const turnId = `googlechat-${space.slice(7)}-M7`;
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M7', text: 'run: sleep 30' }),
    );
    const card = await bench.fake.waitFor(
      () => inThread(space, thread).find((m) => cardJson(m).includes('⏳')),
      30_000,
    );
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M7b', text: '/stop' }),
    );
    const confirmation = await bench.fake.waitFor(
      () => inThread(space, thread).find((m) => /Stopping|Nothing is running/.test(textOf(m))),
      30_000,
    );
    expect(textOf(confirmation)).toBe('⏹️ Stopping the current turn.');
    expect((await bench.stack.waitForStatus(turnId, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    expect((await bench.stack.waitForStatus(`${turnId}:notice`, ['delivered'])).sender).toBe('Notification');
    const last = cardJson(card);
    expect(last).toContain('⏹️ Stopped.');
    expect(last).not.toContain('⏳');
    expect(inThread(space, thread).filter((m) => textOf(m).includes('Stopped.'))).toEqual([]);
  });

  it('posts the stop notice as a message of its own when the card cannot be patched', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T8`;
    const turnId = `googlechat-${space.slice(7)}-M8`;
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M8', text: 'run: sleep 30' }),
    );
    const card = await bench.fake.waitFor(
      () => inThread(space, thread).find((m) => cardJson(m).includes('⏳')),
      30_000,
    );
    bench.fake.failNext('patch', { kind: 'error', status: 403 }, 10);
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M8b', text: '/stop' }),
    );
    const confirmation = await bench.fake.waitFor(
      () => inThread(space, thread).find((m) => /Stopping|Nothing is running/.test(textOf(m))),
      30_000,
    );
    expect(textOf(confirmation)).toBe('⏹️ Stopping the current turn.');
    expect((await bench.stack.waitForStatus(`${turnId}:notice`, ['delivered'])).status).toBe('delivered');
    expect(cardJson(card)).not.toContain('Stopped.');
    const own = inThread(space, thread).filter((m) => textOf(m) === '⏹️ Stopped.');
    expect(own).toHaveLength(1);
  });

  it('posts a reply once when the create was applied but its response lost (the retry meets ALREADY_EXISTS)', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T3`;
    bench.fake.failNext('create', { kind: 'after_write', status: 500 });
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M3', text: 'lost answer' }),
    );
    const inbound = await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M3`, ['processed']);
    const stored = await poll(async () => {
      const r = (await bench.stack.messages(inbound.session_id)).find(
        (m) => m.role === 'assistant' && m.type === 'text',
      );
      return r?.status === 'delivered' ? r : null;
    }, 'reply delivered');
    expect(stored.content).toContain('lost answer');
    expect(inThread(space, thread)).toHaveLength(1);
    const creates = bench.fake.calls.filter(
      (c) => c.route === 'create' && c.path === `/v1/${space}/messages`,
    );
    expect(creates.map((c) => c.status)).toEqual([500, 409]);
    expect(new Set(creates.map((c) => c.query.messageId)).size).toBe(1);
  });

  it('splits a long reply at 4096 characters into ordered messages in the thread', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T4`;
    const sessionId = `googlechat:${space.slice(7)}:T4`;
    const paragraph = (i: number) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(40).trim()}.`;
    const text = Array.from({ length: 8 }, (_, i) => paragraph(i)).join('\n\n');
    expect(text.length).toBeGreaterThan(2 * 4096);
    bench.stack.script(sessionId, { kind: 'text', text });
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M4', text: 'long please' }),
    );
    await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M4`, ['processed']);
    const chunks = await bench.fake.waitFor(() => {
      const all = inThread(space, thread);
      return all.length >= 3 ? all : null;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(inThread(space, thread)).toHaveLength(3);
    for (const c of chunks) expect(Array.from(textOf(c)).length).toBeLessThanOrEqual(4096);
    const joined = chunks.map(textOf).join('');
    // The first line is the turn metrics; the rest is the reply, whole and in order, cut between paragraphs
    // (about 1100 characters each: three fit in 4096).
    expect(joined).toMatch(/^_⏱ .* tokens_\n/);
    expect(joined.slice(joined.indexOf('\n') + 1)).toBe(text);
    for (const c of chunks.slice(0, -1)) expect(textOf(c)).toMatch(/\n\n$/);
    expect(new Set(chunks.map((c) => c.clientAssignedMessageId)).size).toBe(3);
  });

  it('refuses events with a missing, forged, foreign or expired token and stores nothing', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T5`;
    const event = messageEvent({ space, thread, messageId: 'M5', text: 'let me in' });
    const attempts = [
      null,
      'not-a-jwt',
      { foreignKey: true },
      { audience: '999' },
      { issuer: 'someone@example.com' },
      { expiresInS: -600 },
    ] as const;
    for (const token of attempts) {
      const res = await bench.fake.postEvent(bench.endpoint, event, token);
      expect(res.status, JSON.stringify(token)).toBe(401);
    }
    await new Promise((r) => setTimeout(r, 500));
    const sessionId = `googlechat:${space.slice(7)}:T5`;
    expect(await getSession(bench.stack.pool, sessionId)).toBeNull();
    expect(await getMessage(bench.stack.pool, `googlechat-${space.slice(7)}-M5`)).toBeNull();
    await expect(
      bench.stack.client.workflow.getHandle(sessionWorkflowId(sessionId)).describe(),
    ).rejects.toThrow(WorkflowNotFoundError);
    expect(inThread(space, thread)).toHaveLength(0);
    // The same event with a good token goes through.
    expect((await bench.fake.postEvent(bench.endpoint, event)).status).toBe(200);
    await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M5`, ['processed']);
  });

  it('checks endpoint-URL tokens as Google ID tokens issued to Chat’s service account', async () => {
    const audience = 'https://kesoku.example.com/googlechat/events';
    const config = googleChatConfigSchema.parse({
      GOOGLE_CHAT_AUDIENCE: audience,
      GOOGLE_CHAT_JWKS_URL: bench.fake.jwksUrl,
    });
    const check = tokenCheckOf(config);
    if (!check) throw new Error('no token check');
    const verify = createTokenVerifier(check);
    const idToken = (claims: Record<string, unknown>, issuer = 'https://accounts.google.com') =>
      bench.fake.signToken({ audience, issuer, claims }).then((t) => `Bearer ${t}`);
    const chat = { email: 'chat@system.gserviceaccount.com', email_verified: true };
    await expect(verify(await idToken(chat))).resolves.toBeUndefined();
    await expect(verify(await idToken(chat, 'accounts.google.com'))).resolves.toBeUndefined();
    await expect(verify(await idToken({ ...chat, email_verified: false }))).rejects.toThrow(ChatTokenError);
    await expect(verify(await idToken({ email: 'x@evil.example', email_verified: true }))).rejects.toThrow(
      ChatTokenError,
    );
    await expect(verify(await idToken(chat, 'chat@system.gserviceaccount.com'))).rejects.toThrow(
      ChatTokenError,
    );
  });

  it('keeps a direct message space as one session and runs a whole-message command on it', async () => {
    const space = newSpace();
    const first = messageEvent({ space, messageId: 'D1', text: 'hi in a DM', dm: true });
    await bench.fake.postEvent(bench.endpoint, first);
    const inbound = await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-D1`, ['processed']);
    expect(inbound.session_id).toBe(`googlechat:${space.slice(7)}`);
    expect((await getSession(bench.stack.pool, inbound.session_id))?.channel_id).toBe(space);
    await bench.fake.waitFor(() =>
      bench.fake.messagesIn(space).find((m) => textOf(m).includes('hi in a DM')),
    );
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, messageId: 'D2', text: '/mode queue', dm: true }),
    );
    const confirmation = await bench.fake.waitFor(() =>
      bench.fake.messagesIn(space).find((m) => textOf(m).includes('Mode: queue')),
    );
    expect(confirmation).toBeDefined();
    // A command is not a message for the agent.
    expect(await getMessage(bench.stack.pool, `googlechat-${space.slice(7)}-D2`)).toBeNull();
    expect(bench.fake.messagesIn(space)).toHaveLength(2);
    // `/status` (the same command code as Discord's) shows the session; `/new` is not offered here.
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, messageId: 'D3', text: '/status', dm: true }),
    );
    const status = await bench.fake.waitFor(() =>
      bench.fake.messagesIn(space).find((m) => textOf(m).includes('turns: 1')),
    );
    expect(textOf(status)).toMatch(/Idle[\s\S]*mode: queue/);
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, messageId: 'D4', text: '/new', dm: true }),
    );
    await bench.fake.waitFor(() =>
      bench.fake.messagesIn(space).find((m) => textOf(m).includes('not available')),
    );
    expect(await getMessage(bench.stack.pool, `googlechat-${space.slice(7)}-D4`)).toBeNull();
  });

  it('by default (no lists) answers a stranger in a DM with a pairing code only, and in a space with a notice', async () => {
    const pairingChannel = await googleChatChannel.start({
      config: { ...bench.config, GOOGLE_CHAT_ALLOWED_USERS: [] },
      dataDir: bench.stack.dataDir,
      pool: bench.stack.pool,
      sessions: bench.stack.sessions,
      logger: createLogger('googlechat-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
    });
    try {
      // Two strangers: a user who was just answered is not answered again within ten minutes.
      const stranger = { name: `users/9${randomBytes(4).readUInt32BE(0)}`, displayName: 'Stranger' };
      const other = { name: `users/8${randomBytes(4).readUInt32BE(0)}`, displayName: 'Other' };
      const dm = newSpace();
      await bench.fake.postEvent(
        pairingChannel.url as string,
        messageEvent({ space: dm, messageId: 'P1', text: 'let me talk', dm: true, user: stranger }),
      );
      const code = await bench.fake.waitFor(() => bench.fake.messagesIn(dm)[0]);
      expect(textOf(code)).toMatch(/pairing code is \*[A-Z0-9]{6,}\*/);
      const room = newSpace();
      const thread = `${room}/threads/P2`;
      await bench.fake.postEvent(
        pairingChannel.url as string,
        messageEvent({ space: room, thread, messageId: 'P2', text: 'me too', user: other }),
      );
      const notice = await bench.fake.waitFor(() => inThread(room, thread)[0]);
      expect(textOf(notice)).toContain('direct message');
      expect(textOf(notice)).not.toMatch(/pairing code is/);
      expect(await getMessage(bench.stack.pool, `googlechat-${dm.slice(7)}-P1`)).toBeNull();
      expect(await getMessage(bench.stack.pool, `googlechat-${room.slice(7)}-P2`)).toBeNull();
    } finally {
      await pairingChannel.stop();
    }
  });

  it('ignores a user outside the allowlist without an answer', async () => {
    const space = newSpace();
    const thread = `${space}/threads/T6`;
    const res = await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({
        space,
        thread,
        messageId: 'M6',
        text: 'hi',
        user: { name: 'users/666', displayName: 'Mallory' },
      }),
    );
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await getMessage(bench.stack.pool, `googlechat-${space.slice(7)}-M6`)).toBeNull();
    expect(inThread(space, thread)).toHaveLength(0);
  });
});

/** Polls an async condition every 50 ms until it returns a value (not null/undefined). */
async function poll<T>(
  fn: () => Promise<T | null | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

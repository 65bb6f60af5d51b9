/**
 * The WeChat channel against the fake WeChat and a real stack (Temporal, Postgres, fake model, worker): URL
 * verification, pushes in safe mode (plain mode: test/security/wechat.test.ts), de-duplication of re-pushes,
 * refused signatures, and delivery through the customer-service API (chunks by bytes, retries, token refresh,
 * silent intermediate messages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitUtf8, toPlainText, WECHAT_MAX_TEXT_BYTES } from '../text.ts';
import { GREETING_TEXT, UNSUPPORTED_TEXT } from '../ingress.ts';
import { NEW_CONVERSATION_TEXT } from '../../kit/command-dispatch.ts';
import { listPlatformPosts } from '../../../db/deliveries.ts';
import type { Message } from '../../../domain/message.ts';
import { newOpenId } from './fake-server.ts';
import { startWechat, wechatChannel } from '../channel.ts';
import { benchLogger, startWechatBench, type WechatBench } from './harness.ts';

let bench: WechatBench;

beforeAll(async () => {
  bench = await startWechatBench({}, { retryIntervalMs: 0 });
});
afterAll(async () => {
  await bench?.stop();
});

const sessionOf = (openId: string) => `wechat:${openId}`;

/** Waits until the session's final reply is `delivered` and returns the session's messages. */
async function untilReplied(openId: string, msgId: string): Promise<Message[]> {
  await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed', 'error', 'interrupted'], 45_000);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const all = await bench.stack.messages(sessionOf(openId));
    const reply = all.find((m) => m.role === 'assistant' && m.type === 'text');
    if (reply && reply.status === 'delivered') return all;
    if (Date.now() > deadline) throw new Error(`no delivered reply in ${sessionOf(openId)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('WeChat channel', () => {
  it('answers the server URL verification only when the signature matches', async () => {
    const ok = await bench.fake.verifyUrl({ echostr: '4075181314397890557' });
    expect(ok).toEqual({ status: 200, body: '4075181314397890557' });
    const bad = await bench.fake.verifyUrl({ echostr: '4075181314397890557', badSignature: true });
    expect(bad.status).toBe(401);
    expect(bad.body).not.toContain('4075181314397890557');
  });

  // Plain mode (no EncodingAESKey) is test/security/wechat.test.ts's: with a key, only safe-mode pushes are taken.
  it('runs a plain turn from a safe-mode (encrypted) push', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'The **build** is green.' });
    const { msgId, attempts } = await bench.fake.push({
      from: user,
      content: 'How is the build?',
      safe: true,
    });
    // `success` once the message is stored; a submission slower than WeChat's 5 s (a cold worker on a busy
    // machine) leaves the push unanswered, WeChat pushes it again, and the re-push is answered.
    expect(attempts.at(-1)).toEqual({ status: 200, body: 'success', unanswered: false });
    expect(attempts.slice(0, -1).every((a) => a.unanswered)).toBe(true);
    const all = await untilReplied(user, msgId as string);
    const inbound = all.find((m) => m.id === `wechat-${msgId}`);
    expect(inbound).toMatchObject({
      chatbot_id: 'wechat',
      channel_id: user,
      sender: user,
      status: 'processed',
    });
    expect(inbound?.content).toContain('How is the build?');
    // Plain text, Markdown stripped, to the user who wrote.
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 10_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual(['The build is green.']);
  });

  it('sends nothing but the final text of a tool turn; thoughts and tool messages end delivered', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(
      sessionOf(user),
      {
        kind: 'tool_calls',
        reasoning: 'I should look at the date first.',
        text: 'Checking the date.',
        calls: [{ name: 'run_shell_command', arguments: { command: 'echo wechat-tool-ok' } }],
      },
      { kind: 'text', text: 'Done: wechat-tool-ok.' },
    );
    const { msgId } = await bench.fake.push({ from: user, content: 'Run the check' });
    const all = await untilReplied(user, msgId as string);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 10_000, 'the reply');
    const intermediate = all.filter(
      (m) => m.type === 'thought' || m.type === 'tool_call' || m.type === 'tool_result',
    );
    expect(intermediate.map((m) => m.type).sort()).toEqual(['thought', 'tool_call', 'tool_result']);
    // presentProgress runs after each step: the last tool result may be marked a moment after the reply.
    const deadline = Date.now() + 10_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      const now = await bench.stack.messages(sessionOf(user));
      statuses = now
        .filter((m) => m.type === 'thought' || m.type === 'tool_call' || m.type === 'tool_result')
        .map((m) => m.status);
      if (statuses.every((s) => s === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(statuses).toHaveLength(3);
    expect(statuses.every((s) => s === 'delivered')).toBe(true);
    expect(bench.fake.sentTo(user)).toEqual(['Done: wechat-tool-ok.']);
  });

  it('handles a message WeChat pushed four times (answers lost) once', async () => {
    const user = await bench.pairedUser();
    const before = (await bench.outcomes()).duplicate ?? 0;
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Only once.' });
    const { msgId, attempts } = await bench.fake.push({ from: user, content: 'Say it once', loseAnswers: 3 });
    expect(attempts).toHaveLength(4);
    await untilReplied(user, msgId as string);
    // An image re-pushed the same way gets one answer; a command re-pushed runs once.
    await bench.fake.push({
      from: user,
      msgType: 'image',
      fields: { PicUrl: 'http://x/y.jpg', MediaId: 'm1' },
      loseAnswers: 2,
    });
    await bench.fake.push({ from: user, content: '/title Renamed once', loseAnswers: 2 });
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length >= 3, 15_000, 'three answers');
    await new Promise((r) => setTimeout(r, 500));
    expect(bench.fake.sentTo(user)).toEqual([
      'Only once.',
      UNSUPPORTED_TEXT,
      expect.stringContaining('Renamed once'),
    ]);
    const inbound = (await bench.stack.messages(sessionOf(user))).filter((m) => m.role === 'user');
    expect(inbound.map((m) => m.id)).toEqual([`wechat-${msgId}`]);
    expect(bench.stack.requestsOf(sessionOf(user))).toHaveLength(1);
    expect((await bench.outcomes()).duplicate).toBe(before + 3 + 2 + 2);
  });

  it('refuses a push with a bad signature or msg_signature and stores nothing', async () => {
    const user = await bench.pairedUser();
    const plain = await bench.fake.push({ from: user, content: 'forged', badSignature: true });
    expect(plain.attempts[0]?.status).toBe(401);
    const safe = await bench.fake.push({ from: user, content: 'forged', safe: true, badMsgSignature: true });
    expect(safe.attempts[0]?.status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(await bench.stack.messages(sessionOf(user))).toEqual([]);
    const { rows } = await bench.stack.pool.query('SELECT 1 FROM sessions WHERE id = $1', [sessionOf(user)]);
    expect(rows).toHaveLength(0);
    expect(bench.fake.sentTo(user)).toEqual([]);
    expect(bench.stack.requestsOf(sessionOf(user))).toHaveLength(0);
  });

  it('refuses a correctly signed push whose timestamp is more than five minutes off (a replay) and stores nothing', async () => {
    const user = await bench.pairedUser();
    const now = Math.floor(Date.now() / 1000);
    const captured = await bench.fake.push({ from: user, content: 'replayed', signedAt: now - 6 * 60 });
    expect(captured.attempts).toEqual([{ status: 401, body: 'stale timestamp', unanswered: false }]);
    const safe = await bench.fake.push({ from: user, content: 'replayed', safe: true, signedAt: now - 3600 });
    expect(safe.attempts[0]?.status).toBe(401);
    const future = await bench.fake.push({ from: user, content: 'early', signedAt: now + 6 * 60 });
    expect(future.attempts[0]?.status).toBe(401);
    const garbled = await bench.fake.push({ from: user, content: 'nan', signedAt: Number.NaN });
    expect(garbled.attempts[0]?.status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(await bench.stack.messages(sessionOf(user))).toEqual([]);
    expect(bench.fake.sentTo(user)).toEqual([]);
    expect(bench.stack.requestsOf(sessionOf(user))).toHaveLength(0);

    // Within the bound (WeChat's own re-pushes come within seconds) a push is taken.
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Taken.' });
    const recent = await bench.fake.push({ from: user, content: 'recent', signedAt: now - 4 * 60 });
    expect(recent.attempts[0]).toMatchObject({ status: 200, body: 'success' });
    await untilReplied(user, recent.msgId as string);
  });

  it('splits a long Chinese reply by UTF-8 bytes into ordered plain chunks', async () => {
    const user = await bench.pairedUser();
    const paragraph =
      '## 结果\n\n测试全部**通过**，没有发现任何回归问题。'.repeat(1) + '日志显示一切正常。'.repeat(120);
    const text = `${paragraph}\n\n${'第二段：构建耗时十二秒。'.repeat(100)}`;
    bench.stack.script(sessionOf(user), { kind: 'text', text });
    const { msgId } = await bench.fake.push({ from: user, content: '报告一下' });
    await untilReplied(user, msgId as string);
    const expected = splitUtf8(toPlainText(text));
    expect(expected.length).toBeGreaterThanOrEqual(3);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length >= expected.length, 10_000, 'all chunks');
    const got = bench.fake.sentTo(user);
    expect(got).toEqual(expected);
    for (const c of got) expect(Buffer.byteLength(c, 'utf8')).toBeLessThanOrEqual(WECHAT_MAX_TEXT_BYTES);
    expect(got.join('').replace(/\s/g, '')).toBe(toPlainText(text).replace(/\s/g, ''));
    expect(got.join('')).not.toContain('**');
  });

  it('retries a failed delivery without sending an already sent chunk again', async () => {
    const user = await bench.pairedUser();
    const text = '第一部分的内容。'.repeat(80) + '\n\n' + '第二部分的内容。'.repeat(80);
    const chunks = splitUtf8(toPlainText(text));
    expect(chunks.length).toBe(2);
    bench.stack.script(sessionOf(user), { kind: 'text', text });
    const callsBefore = bench.fake.sendCalls;
    // The first chunk goes through, the second meets a 502 (not applied); the activity is retried.
    bench.fake.failNext('send', { kind: 'pass' }, { kind: 'http', status: 502, applied: false });
    const { msgId } = await bench.fake.push({ from: user, content: 'Long answer please' });
    const all = await untilReplied(user, msgId as string);
    expect(bench.fake.sentTo(user)).toEqual(chunks);
    expect(bench.fake.sendCalls - callsBefore).toBe(3);
    const reply = all.find((m) => m.role === 'assistant' && m.type === 'text') as Message;
    const posts = await listPlatformPosts(bench.stack.pool, reply.id);
    expect([...posts.keys()].sort()).toEqual([0, 1]);
  });

  it('fetches a new access token when WeChat says the cached one expired', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(
      sessionOf(user),
      { kind: 'text', text: 'First.' },
      { kind: 'text', text: 'Still here.' },
    );
    const first = await bench.fake.push({ from: user, content: 'Hello' });
    await untilReplied(user, first.msgId as string);
    const tokensBefore = bench.fake.tokenRequests;
    const callsBefore = bench.fake.sendCalls;
    expect(tokensBefore).toBeGreaterThan(0);
    bench.fake.expireTokens();
    const second = await bench.fake.push({ from: user, content: 'Are you there?' });
    await bench.stack.waitForStatus(`wechat-${second.msgId}`, ['processed'], 45_000);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length >= 2, 15_000, 'the second reply');
    expect(bench.fake.sentTo(user)).toEqual(['First.', 'Still here.']);
    // One send refused with 42001, one token fetched, the same send repeated with it.
    expect(bench.fake.tokenRequests).toBe(tokensBefore + 1);
    expect(bench.fake.sendAttemptsTo(user)).toBe(2);
    expect(bench.fake.sendCalls).toBe(callsBefore + 2);
  });

  it('records a reply WeChat refuses because the user is unreachable (45015, reply window over) as not delivered, with no fallback and no crash notice', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Too late.' });
    // Only the first send is refused: a plain fallback or a crash notice sent after it would get through here,
    // so any of them shows up below.
    bench.fake.failNext('send', { kind: 'errcode', errcode: 45015, errmsg: 'response out of time limit' });
    const { msgId } = await bench.fake.push({ from: user, content: 'Answer me' });
    const trigger = await bench.stack.waitForStatus(`wechat-${msgId}`, ['processed', 'error'], 45_000);
    // The turn's notice would be stored in the same commit that ends the trigger.
    expect(trigger.status).toBe('error');
    expect(trigger.metadata?.failure_kind).toBe('delivery:unreachable');
    const all = await bench.stack.messages(sessionOf(user));
    expect(all.filter((m) => m.role === 'assistant' && m.type === 'text').map((m) => m.content)).toEqual([
      'Too late.',
    ]);
    const reply = all.find((m) => m.content === 'Too late.');
    expect(reply?.status).toBe('pending');
    expect(reply?.metadata?.delivery_failure).toMatchObject({ reason: 'unreachable', fallback: null });
    // One refused send, no retry, no fallback, nothing else to this user.
    await new Promise((r) => setTimeout(r, 500));
    expect(bench.fake.sendAttemptsTo(user)).toBe(1);
    expect(bench.fake.sentTo(user)).toEqual([]);
  });

  it('greets a new follower, reads a recognised voice message as text and ignores other events', async () => {
    const user = await bench.pairedUser();
    await bench.fake.push({ from: user, msgType: 'event', event: 'subscribe' });
    await bench.fake.push({ from: user, msgType: 'event', event: 'CLICK', fields: { EventKey: 'menu' } });
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 10_000, 'the greeting');
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Heard you.' });
    const voice = await bench.fake.push({
      from: user,
      msgType: 'voice',
      fields: { MediaId: 'v1', Format: 'amr', Recognition: '今天天气怎么样' },
    });
    await untilReplied(user, voice.msgId as string);
    const inbound = (await bench.stack.messages(sessionOf(user))).find(
      (m) => m.id === `wechat-${voice.msgId}`,
    );
    expect(inbound?.content).toContain('今天天气怎么样');
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length >= 2, 10_000, 'the reply');
    expect(bench.fake.sentTo(user)).toEqual([GREETING_TEXT, 'Heard you.']);
  });

  it('answers a stranger with a pairing code and submits nothing', async () => {
    const stranger = newOpenId();
    await bench.fake.push({ from: stranger, content: 'hello?' });
    await bench.fake.waitFor(() => bench.fake.sentTo(stranger).length > 0, 10_000, 'the pairing answer');
    expect(bench.fake.sentTo(stranger)[0]).toMatch(/pairing code is \w+/);
    expect(await bench.stack.messages(sessionOf(stranger))).toEqual([]);
  });

  it('runs typed /status, /new and /help like Discord: a new conversation without the old history', async () => {
    const user = await bench.pairedUser();
    bench.stack.script(sessionOf(user), { kind: 'text', text: 'Noted.' });
    const first = await bench.fake.push({ from: user, content: 'remember the word plum' });
    await untilReplied(user, first.msgId as string);
    // The reply is sent a moment before the workflow ends the turn: wait for idle so /status has one answer.
    await expect
      .poll(async () => (await bench.stack.sessions.state(sessionOf(user))).status, { timeout: 15_000 })
      .toBe('idle');
    const answers = (n: number) =>
      bench.fake.waitFor(() => bench.fake.sentTo(user).length >= n, 10_000, `answer ${n}`);

    await bench.fake.push({ from: user, content: '/status' });
    await answers(2);
    expect(bench.fake.sentTo(user)[1]).toMatch(/Idle[\s\S]*turns: 1/);

    await bench.fake.push({ from: user, content: '/new' });
    await answers(3);
    expect(bench.fake.sentTo(user)[2]).toBe(toPlainText(NEW_CONVERSATION_TEXT));
    const fresh = `${sessionOf(user)}:1`;
    bench.stack.script(fresh, { kind: 'text', text: 'Which word?' });
    const next = await bench.fake.push({ from: user, content: 'which word did I say?' });
    await bench.stack.waitForStatus(`wechat-${next.msgId}`, ['processed', 'error', 'interrupted'], 45_000);
    const stored = (await bench.stack.messages(fresh)).find((m) => m.id === `wechat-${next.msgId}`);
    expect(stored).toMatchObject({ channel_id: user, status: 'processed' });
    const prompt = JSON.stringify(bench.stack.requestsOf(fresh).at(-1)?.body?.messages ?? []);
    expect(prompt).toContain('which word did I say?');
    expect(prompt).not.toContain('plum');
    await answers(4);
    expect(bench.fake.sentTo(user)[3]).toBe('Which word?');

    await bench.fake.push({ from: user, content: '/help' });
    await answers(5);
    for (const c of ['/stop', '/title', '/new', '/status']) expect(bench.fake.sentTo(user)[4]).toContain(c);
    // No command became a message of either conversation.
    for (const sessionId of [sessionOf(user), fresh])
      expect((await bench.stack.messages(sessionId)).some((m) => /\/(new|status|help)/.test(m.content))).toBe(
        false,
      );
  });

  it('answers a command once when its re-push reaches another adapter process (or this one after a restart)', async () => {
    const user = await bench.pairedUser();
    const msgId = '7' + String(Date.now()).padStart(18, '0');
    await bench.fake.push({ from: user, content: '/help', msgId });
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length >= 1, 10_000, 'the /help answer');
    // A second process of the channel (same database, fresh in-process memory) gets WeChat's re-push.
    const config = wechatChannel.configSchema.parse({
      WECHAT_APP_ID: bench.fake.appId,
      WECHAT_APP_SECRET: bench.fake.appSecret,
      WECHAT_TOKEN: bench.fake.token,
      WECHAT_ENCODING_AES_KEY: bench.fake.encodingAesKey,
      WECHAT_API_URL: bench.fake.apiUrl,
      WECHAT_PORT: '0',
    });
    const other = await startWechat({
      config,
      dataDir: bench.stack.dataDir,
      pool: bench.stack.pool,
      sessions: bench.stack.sessions,
      logger: benchLogger(),
    });
    try {
      bench.fake.setEndpoint(other.url as string);
      await bench.fake.push({ from: user, content: '/help', msgId });
      const outcomes = ((await other.health?.())?.outcomes ?? {}) as Record<string, number>;
      expect(outcomes.duplicate).toBe(1);
      expect(outcomes.command ?? 0).toBe(0);
      await new Promise((r) => setTimeout(r, 500));
      expect(bench.fake.sentTo(user)).toHaveLength(1);
    } finally {
      bench.fake.setEndpoint(bench.channel.url as string);
      await other.stop();
    }
  });
});

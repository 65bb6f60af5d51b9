/**
 * Exhaustion by someone Kesoku lets in, on the real stack (Temporal, Postgres, worker, fake model): a REST
 * principal creating sessions without end, holding event streams open or not reading them, asking for huge
 * pages; a chat user starting conversations without end; strangers filling the pairing requests; a model
 * generating without end. Each is answered with the limit named (429 problem+json, a chat message) and costs
 * bounded memory.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelSink } from '../../activities/delivery.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../activities/llm/provider.ts';
import { startWechat, wechatChannel } from '../../adapters/wechat/channel.ts';
import type { ApiToken } from '../../api/auth.ts';
import { backpressuredWriter } from '../../api/routes/events.ts';
import type { ApiServer } from '../../api/server.ts';
import { requestPairing } from '../../db/pairings.ts';
import { createLogger } from '../../infra/logger.ts';
import { newOpenId, startFakeWechat, type FakeWechat } from '../../adapters/wechat/test/fake-server.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { ApiClient, expectProblem, openEvents, startApiFor } from '../api/support.ts';

const tok = (c: string) => c.repeat(40);
// A principal of its own: the test database is shared with other files, whose principals own sessions too.
const TOKENS: ApiToken[] = [
  { name: `limited-${process.pid}-${Date.now()}`, token: tok('a'), admin: false },
  { name: 'admin', token: tok('z'), admin: true },
];
const sinks: Record<string, ChannelSink> = {};

let stack: Stack;
let api: ApiServer;
let alice: ApiClient;
let admin: ApiClient;

beforeAll(async () => {
  stack = await startStack({ sinks });
  api = await startApiFor(stack, {
    tokens: TOKENS,
    app: { limits: { sessionsPerPrincipal: 3, streamsPerPrincipal: 2 } },
  });
  alice = new ApiClient(api.url, { authorization: `Bearer ${tok('a')}` });
  admin = new ApiClient(api.url, { authorization: `Bearer ${tok('z')}` });
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

describe('REST', () => {
  it('a principal creates at most its sessions limit: the next new id is 429 naming the limit; its own go on', async () => {
    const mine = [uniqueId('lim'), uniqueId('lim'), uniqueId('lim')];
    for (const s of mine)
      expect((await alice.post(`/v1/sessions/${s}/messages`, { content: 'hi' })).status).toBe(202);
    const refused = expectProblem(
      await alice.post(`/v1/sessions/${uniqueId('lim')}/messages`, { content: 'one more' }),
      429,
      'too-many-sessions',
    );
    expect(refused.detail).toContain('KESOKU_MAX_SESSIONS_PER_PRINCIPAL');
    expect(refused.limit).toBe(3);
    // Watching a new id would claim it too: refused the same way.
    const events = await fetch(`${api.url}/v1/sessions/${uniqueId('lim')}/events`, {
      headers: { authorization: `Bearer ${tok('a')}` },
    });
    expect(events.status).toBe(429);
    // Existing sessions are unaffected, and admins are not limited.
    expect((await alice.post(`/v1/sessions/${mine[0]}/messages`, { content: 'again' })).status).toBe(202);
    for (let i = 0; i < 4; i++)
      expect((await admin.post(`/v1/sessions/${uniqueId('adm')}/messages`, { content: 'x' })).status).toBe(
        202,
      );
  });

  it('a principal holds at most its streams limit at once: the next is 429; closing one frees a place', async () => {
    const session = uniqueId('streams');
    expect((await admin.post(`/v1/sessions/${session}/messages`, { content: 'hi' })).status).toBe(202);
    const auth = { authorization: `Bearer ${tok('z')}` };
    const a = await openEvents(api.url, `/v1/sessions/${session}/events`, auth);
    const b = await openEvents(api.url, `/v1/sessions/${session}/events`, auth);
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await fetch(`${api.url}/v1/sessions/${session}/events`, { headers: auth });
    expect(third.status).toBe(429);
    const problem = (await third.json()) as { type: string; detail: string };
    expect(problem.type).toBe('urn:kesoku:problem:too-many-streams');
    expect(problem.detail).toContain('KESOKU_MAX_STREAMS_PER_PRINCIPAL');
    a.close();
    await expect
      .poll(async () => {
        const res = await fetch(`${api.url}/v1/sessions/${session}/events`, { headers: auth });
        const status = res.status;
        await res.body?.cancel();
        return status;
      })
      .toBe(200);
    b.close();
  });

  it('a page of messages is at most 1000', async () => {
    const session = uniqueId('page');
    expect((await admin.post(`/v1/sessions/${session}/messages`, { content: 'hi' })).status).toBe(202);
    expectProblem(await admin.get(`/v1/sessions/${session}/messages?limit=10000`), 400, 'validation');
    expect((await admin.get(`/v1/sessions/${session}/messages?limit=1000`)).status).toBe(200);
  });
});

describe('an event stream whose client does not read', () => {
  it('is dropped once its backlog passes the bound, instead of buffering without end', async () => {
    const frame = `event: turn.updated\ndata: ${JSON.stringify({ text: 'x'.repeat(16 * 1024) })}\n\n`;
    const MAX = 256 * 1024;
    let highest = 0;
    let dropped = 0;
    let written = 0;
    const done = new Promise<void>((resolve) => {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const write = backpressuredWriter(res, { maxBacklogBytes: MAX, onDropped: (n) => (dropped = n) });
        const pump = () => {
          // 64 MiB offered: far beyond what the kernel's socket buffers take.
          for (let i = 0; i < 64; i++) {
            if (written >= 64 * 1024 * 1024 || !write(frame)) {
              server.close();
              return resolve();
            }
            written += frame.length;
            highest = Math.max(highest, res.writableLength);
          }
          setImmediate(pump);
        };
        pump();
      });
      server.listen(0, '127.0.0.1', () => {
        // A client that sends its request and then never reads.
        const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
          socket.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
          socket.pause();
        });
        socket.on('error', () => undefined);
        server.once('close', () => socket.destroy());
      });
    });
    await done;
    expect(dropped).toBeGreaterThan(MAX);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(highest).toBeLessThanOrEqual(MAX + frame.length);
  });
});

describe('model output', () => {
  it('every model call carries the output bound (max_tokens)', async () => {
    const session = uniqueId('tokens');
    stack.script(session, { kind: 'text', text: 'short' });
    const res = await admin.post(`/v1/sessions/${session}/messages`, { content: 'hi', wait: 30 });
    expect(res.status).toBe(200);
    const body = stack.requestsOf(session)[0]?.body as Record<string, unknown> | undefined;
    expect(body?.max_tokens).toBe(DEFAULT_MAX_OUTPUT_TOKENS);
  });
});

describe('pairing', () => {
  it('strangers with many accounts cannot use up pairing: each account holds one code, every new one gets its own', async () => {
    const chatbotId = `limits-${process.pid}`;
    const codes = new Set<string>();
    for (let i = 0; i < 150; i++) {
      const t = await requestPairing(stack.pool, { chatbotId, userId: `stranger-${i}` });
      expect(t.issued).toBe(true);
      codes.add(t.code);
    }
    expect(codes.size).toBe(150);
    // The same account asking again gets the same code, and is not told it again so soon.
    const again = await requestPairing(stack.pool, { chatbotId, userId: 'stranger-7' });
    expect(again.issued).toBe(false);
    expect(again.notify).toBe(false);
    const open = await stack.pool.query(
      'SELECT count(*)::int AS n FROM chat_pairing_requests WHERE chatbot_id = $1 AND user_id = $2',
      [chatbotId, 'stranger-7'],
    );
    expect(open.rows[0]?.n).toBe(1);
    // Someone who writes now still gets a code.
    expect((await requestPairing(stack.pool, { chatbotId, userId: 'legitimate' })).issued).toBe(true);
  });
});

describe('chat conversations', () => {
  let fake: FakeWechat;
  beforeAll(async () => {
    fake = await startFakeWechat({ retryIntervalMs: 0, safeByDefault: true });
  });
  afterAll(async () => fake?.close());

  it('a chat user starts at most the limit of new conversations a day; /new past it answers naming the limit', async () => {
    const config = wechatChannel.configSchema.parse({
      WECHAT_APP_ID: fake.appId,
      WECHAT_APP_SECRET: fake.appSecret,
      WECHAT_TOKEN: fake.token,
      WECHAT_ENCODING_AES_KEY: fake.encodingAesKey,
      WECHAT_API_URL: fake.apiUrl,
      WECHAT_PORT: '0',
    });
    const channel = await startWechat({
      config,
      dataDir: stack.dataDir,
      pool: stack.pool,
      sessions: stack.sessions,
      logger: createLogger('limits', process.env.KESOKU_TEST_LOG ?? 'silent'),
      newConversationsPerDay: 2,
    });
    try {
      fake.setEndpoint(channel.url as string);
      const user = newOpenId();
      await stack.pool.query(
        `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('wechat', $1, $1, 'cli')`,
        [user],
      );
      for (let i = 1; i <= 3; i++) {
        await fake.push({ from: user, content: '/new' });
        await fake.waitFor(() => fake.sentTo(user).length >= i, 15_000, `answer ${i}`);
      }
      const answers = fake.sentTo(user);
      expect(answers[2]).toContain('KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY');
      expect(answers[2]).toContain('2 new conversations');
      const gen = await stack.pool.query(
        `SELECT generation FROM chat_conversations WHERE chatbot_id = 'wechat' AND channel_id = $1`,
        [user],
      );
      expect(gen.rows[0]?.generation).toBe(2);
    } finally {
      await channel.stop();
    }
  });
});

// REST API v1 edge cases on the real stack: compressed bodies, an event stream resumed from a revision the
// session never reached, backward paging of the history, attachment files of a refused post, what another
// principal's session and message ids reveal, and the answers of a repeated id with `wait`.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiToken } from '../../api/auth.ts';
import type { ApiServer } from '../../api/server.ts';
import type { Message } from '../../domain/message.ts';
import { attachmentDirFor, sessionAttachmentsDir } from '../../infra/workspace.ts';
import { uniqueId } from '../support/stack.ts';
import {
  ApiClient,
  committed,
  expectProblem,
  openEvents,
  startApiFor,
  useHarness,
  type Json,
} from './support.ts';

const h = useHarness();

interface History {
  revision: number;
  messages: Message[];
  has_more?: boolean;
}
interface Committed {
  revision: number;
  previous_revision: number;
  messages: Message[];
}

const messagesPath = (s: string) => `/v1/sessions/${s}/messages`;

describe('compressed request bodies', () => {
  const encoders: Record<string, (b: Buffer) => Buffer> = {
    gzip: (b) => zlib.gzipSync(b),
    deflate: (b) => zlib.deflateSync(b),
    br: (b) => zlib.brotliCompressSync(b),
  };

  it('accepts a body compressed as its Content-Encoding says', async () => {
    for (const [encoding, encode] of Object.entries(encoders)) {
      const res = await fetch(`${h.api.url}${messagesPath(uniqueId('enc'))}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: encode(Buffer.from(JSON.stringify({ content: `compressed ${encoding}` }))),
      });
      const body = (await res.json()) as { message: Message };
      expect(res.status, encoding).toBe(202);
      expect(body.message.content).toBe(`compressed ${encoding}`);
    }
  });

  it('answers a body that does not decompress with a 400 naming the Content-Encoding', async () => {
    for (const encoding of ['gzip', 'deflate', 'br', 'GZip']) {
      const session = uniqueId('enc');
      const res = await h.client.request('POST', messagesPath(session), {
        body: '{"content":"x"}',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      const problem = expectProblem(res, 400, 'bad-request');
      expect(problem.detail, encoding).toBe(
        `the request body could not be decompressed (Content-Encoding: ${encoding.toLowerCase()})`,
      );
      expectProblem(await h.client.get(`/v1/sessions/${session}`), 404);
    }
    // A truncated gzip stream as well.
    const res = await h.client.request('POST', messagesPath(uniqueId('enc')), {
      body: zlib.gzipSync('{"content":"truncated"}').subarray(0, 12).toString('latin1'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(expectProblem(res, 400, 'bad-request').detail).toMatch(/could not be decompressed/);
  });
});

describe('GET …/events resumed from a revision the session never reached', () => {
  it('restarts at revision 0: the first turn.committed has previous_revision 0 and the whole history', async () => {
    const session = uniqueId('reset');
    await h.client.post(messagesPath(session), { content: 'before the reset', wait: 30 });
    const full = await h.client.get<History>(messagesPath(session));
    const stream = await openEvents(h.api.url, `/v1/sessions/${session}/events`, {
      'last-event-id': '99999',
    });
    try {
      const first = (await stream.waitFor((e) => e.event === 'turn.committed', 20_000))
        .data as unknown as Committed;
      expect(first.previous_revision).toBe(0);
      expect(first.revision).toBe(full.body.revision);
      expect(first.messages.map((m) => m.id)).toEqual(full.body.messages.map((m) => m.id));
      // Later commits follow on from there.
      const next = await h.client.post<{ message: Message }>(messagesPath(session), {
        content: 'after the reset',
      });
      await stream.until((evs) =>
        evs.some(
          (e) =>
            e.event === 'turn.committed' &&
            (e.data as unknown as Committed).messages.some((m) => m.id === next.body.message.id),
        ),
      );
      const all = committed(stream) as unknown as Committed[];
      expect(all[1]?.previous_revision).toBe(first.revision);
    } finally {
      stream.close();
    }
  });
});

describe('GET …/messages without after_revision', () => {
  it('says has_more when older messages exist, and pages back with before_seq', async () => {
    const session = uniqueId('page');
    for (const text of ['one', 'two', 'three']) {
      await h.client.post(messagesPath(session), { content: text, wait: 30 });
    }
    const full = await h.client.get<History>(messagesPath(session));
    expect(full.body.has_more).toBe(false);
    expect(full.body.messages.length).toBeGreaterThanOrEqual(6);

    const seen: string[] = [];
    let page = await h.client.get<History>(`${messagesPath(session)}?limit=2`);
    expect(page.body.has_more).toBe(true);
    expect(page.body.revision).toBe(full.body.revision);
    for (let i = 0; i < 20; i++) {
      seen.unshift(...page.body.messages.map((m) => m.id));
      if (!page.body.has_more) break;
      const oldest = Math.min(...page.body.messages.map((m) => m.seq));
      page = await h.client.get<History>(`${messagesPath(session)}?limit=2&before_seq=${oldest}`);
      expect(page.body.messages.length).toBeGreaterThan(0);
    }
    expect(page.body.has_more).toBe(false);
    expect([...seen].sort()).toEqual(full.body.messages.map((m) => m.id).sort());
    expect(new Set(seen).size).toBe(seen.length);

    expect(
      expectProblem(
        await h.client.get(`${messagesPath(session)}?before_seq=3&after_revision=1`),
        400,
        'validation',
      ).field,
    ).toBe('before_seq');
  });
});

describe('attachment files of a refused post', () => {
  let api: ApiServer;
  let client: ApiClient;
  beforeAll(async () => {
    api = await startApiFor(h.stack, { app: { dataDir: h.stack.dataDir } });
    client = new ApiClient(api.url);
  });
  afterAll(async () => api?.close());

  it("a 429 leaves no attachment files behind, and a repeat of an accepted id keeps the accepted message's files", async () => {
    const session = uniqueId('full');
    const first = await client.post<{ message: Message }>(messagesPath(session), { content: 'sleep: 20' });
    expect(first.status).toBe(202);
    await client.patch(`/v1/sessions/${session}`, { mode: 'queue' });
    await h.stack.waitForStatus(first.body.message.id, ['processing']);
    const file = { name: 'a.txt', content_type: 'text/plain', data: Buffer.from('hello').toString('base64') };
    const kept = uniqueId('m');
    for (let i = 1; i <= 32; i++) {
      const res = await client.post(messagesPath(session), {
        ...(i === 32 ? { id: kept, attachments: [file] } : {}),
        content: `queued ${i}`,
      });
      expect(res.status, res.text).toBe(202);
    }
    const keptDir = attachmentDirFor(h.stack.dataDir, session, kept);
    expect(fs.readdirSync(keptDir)).toEqual(['0-a.txt']);

    const refused = uniqueId('m');
    expectProblem(
      await client.post(messagesPath(session), { id: refused, content: 'too many', attachments: [file] }),
      429,
      'queue-full',
    );
    expect(fs.existsSync(attachmentDirFor(h.stack.dataDir, session, refused))).toBe(false);

    // A repeat of the accepted id is a duplicate (202) and its files stay.
    const again = await client.post<{ duplicate: boolean }>(messagesPath(session), {
      id: kept,
      content: 'queued 32',
      attachments: [file],
    });
    expect(again.body.duplicate).toBe(true);
    expect(fs.readFileSync(`${keptDir}/0-a.txt`, 'utf8')).toBe('hello');
    await client.post(`/v1/sessions/${session}/stop`);
  });

  it('a message id of another session: 409 before any attachment file is written or the session is started', async () => {
    const id = uniqueId('m');
    expect((await client.post(messagesPath(uniqueId('s')), { id, content: 'first' })).status).toBe(202);
    const other = uniqueId('s');
    const file = { name: 'a.txt', content_type: 'text/plain', data: Buffer.from('hello').toString('base64') };
    const refused = expectProblem(
      await client.post(messagesPath(other), { id, content: 'second', attachments: [file] }),
      409,
      'conflict',
    );
    expect(refused.message_id).toBe(id);
    expect(fs.existsSync(sessionAttachmentsDir(h.stack.dataDir, other))).toBe(false);
    expectProblem(await client.get(`/v1/sessions/${other}`), 404, 'session-not-found');
  });
});

describe('two principals', () => {
  const tok = (c: string) => c.repeat(40);
  const TOKENS: ApiToken[] = [
    { name: 'alice', token: tok('a'), admin: false },
    { name: 'bob', token: tok('b'), admin: false },
  ];
  let api: ApiServer;
  let alice: ApiClient;
  let bob: ApiClient;
  beforeAll(async () => {
    api = await startApiFor(h.stack, { tokens: TOKENS });
    alice = new ApiClient(api.url, { authorization: `Bearer ${tok('a')}` });
    bob = new ApiClient(api.url, { authorization: `Bearer ${tok('b')}` });
  });
  afterAll(async () => api?.close());

  it("another principal's session and a missing one answer the same 404, without a hint to create it", async () => {
    const session = uniqueId('alice');
    expect((await alice.post(messagesPath(session), { content: 'mine' })).status).toBe(202);
    const missing = uniqueId('missing');
    const foreign = expectProblem(await bob.get(`/v1/sessions/${session}`), 404, 'session-not-found');
    const absent = expectProblem(await bob.get(`/v1/sessions/${missing}`), 404, 'session-not-found');
    expect(foreign.detail).toBe(`session ${session} was not found for this token`);
    expect(absent.detail).toBe(`session ${missing} was not found for this token`);
    const posted = expectProblem(
      await bob.post(messagesPath(session), { content: 'me too' }),
      404,
      'session-not-found',
    );
    expect(posted.detail).not.toMatch(/POST|created by its first message/);
    expect(posted.detail).toMatch(/was not found for this token/);
  });

  it("a message id another principal used answers the same 409 as one of the caller's own other session", async () => {
    const id = uniqueId('fixed');
    expect((await alice.post(messagesPath(uniqueId('alice')), { id, content: 'a' })).status).toBe(202);
    const own = uniqueId('m');
    expect((await bob.post(messagesPath(uniqueId('bob')), { id: own, content: 'b' })).status).toBe(202);
    const theirs = expectProblem(
      await bob.post(messagesPath(uniqueId('bob')), { id, content: 'b' }),
      409,
      'conflict',
    );
    const mine = expectProblem(
      await bob.post(messagesPath(uniqueId('bob')), { id: own, content: 'b' }),
      409,
      'conflict',
    );
    expect(theirs.detail).not.toMatch(/another session|principal/);
    expect(theirs.detail).toBe(mine.detail);
    expect(theirs.message_id).toBe(id);
  });
});

describe('repeats and missing bodies', () => {
  it('with wait, a repeated id answers 200 with duplicate: true', async () => {
    const session = uniqueId('dup');
    const id = uniqueId('m');
    const first = await h.client.post<Json>(messagesPath(session), { id, content: 'hello', wait: 30 });
    expect(first.status).toBe(200);
    expect(first.body.duplicate).toBe(false);
    const again = await h.client.post<Json>(messagesPath(session), { id, content: 'hello', wait: 30 });
    expect(again.status).toBe(200);
    expect(again.body.duplicate).toBe(true);
    expect((again.body.message as Message).id).toBe(id);
  });

  it('the approval and messages routes answer a missing body or a non-JSON one alike', async () => {
    const session = uniqueId('s');
    await h.client.post(messagesPath(session), { content: 'exists', wait: 30 });
    const routes = [messagesPath(session), `/v1/sessions/${session}/tool-calls/nope:s1:call0/approval`];
    for (const [body, headers] of [
      [undefined, {}],
      ['decision=approve', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['', { 'content-type': 'application/json' }],
    ] as const) {
      const answers = [];
      for (const route of routes) {
        const res = await h.client.request('POST', route, { body, headers });
        expect(res.status, `${route} ${String(body)}`).toBeGreaterThanOrEqual(400);
        answers.push({ status: res.status, type: (res.body as Json).type });
      }
      expect(answers[1], String(body)).toEqual(answers[0]);
    }
  });
});

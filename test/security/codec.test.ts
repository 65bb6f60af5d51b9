/**
 * Temporal payload encryption on the real stack: a recorded history holds no plaintext of a user message, the
 * API's codec endpoint decodes it for the Web UI (and refuses without its token or from a foreign origin), key
 * rotation, and refusal of unencrypted payloads: a signal sent by a Temporal client without the keys never reaches
 * the session (accepted only with the one-time migration flag for histories written before encryption).
 */
import { randomBytes } from 'node:crypto';
import proto from '@temporalio/proto';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../api/server.ts';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  PayloadDecryptionError,
  newPayloadKeyEntry,
  parsePayloadKeys,
} from '../../infra/payload-codec.ts';
import { loadConfig } from '../../infra/config.ts';
import { sessionWorkflowId, userMessageSignal } from '../../workflows/definitions.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { ApiClient, expectProblem, startApiFor, type Json } from '../api/support.ts';

const { temporal } = proto;
const UI_ORIGIN = 'http://127.0.0.1:8233';
const CODEC_TOKEN = randomBytes(32).toString('hex');

let stack: Stack;
let api: ApiServer;
let marker: string;
let sessionId: string;
let history: proto.temporal.api.history.v1.IHistory;

beforeAll(async () => {
  stack = await startStack();
  api = await startApiFor(stack, {
    codec: { codec: stack.payloadCodec, token: CODEC_TOKEN, origins: [UI_ORIGIN] },
  });
  marker = `plaintext-marker-${randomBytes(6).toString('hex')}`;
  sessionId = uniqueId('enc');
  const res = await new ApiClient(api.url).post(`/v1/sessions/${sessionId}/messages`, {
    content: `please remember ${marker}`,
    sender: `sender-${marker}`,
    wait: 30,
  });
  expect(res.status, res.text).toBe(200);
  history = await stack.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

/** Every payload in a history, found by walking the decoded protobuf objects. */
function payloadsOf(o: unknown, out: Payload[] = []): Payload[] {
  if (!o || typeof o !== 'object') return out;
  if (o instanceof Uint8Array) return out;
  const rec = o as Record<string, unknown>;
  if ('data' in rec && 'metadata' in rec && (rec.data instanceof Uint8Array || rec.data === null)) {
    out.push(rec as Payload);
    return out;
  }
  for (const v of Object.values(rec)) {
    if (Array.isArray(v)) v.forEach((x) => payloadsOf(x, out));
    else payloadsOf(v, out);
  }
  return out;
}

describe('a recorded history', () => {
  it('contains no plaintext of the user message: every payload is encrypted', async () => {
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.includes(marker)).toBe(false);
    const payloads = payloadsOf(history);
    expect(payloads.length).toBeGreaterThan(3);
    // Every payload is encrypted except what Temporal must read itself: search attributes (ids and states,
    // metadata `type`) and the SDK's patch markers (`{"id": <patch id>, "deprecated": …}`).
    const encrypted = payloads.filter(
      (p) => Buffer.from(p.metadata?.encoding ?? new Uint8Array()).toString() === ENCRYPTED_ENCODING,
    );
    const clear = payloads.filter((p) => !encrypted.includes(p));
    expect(encrypted.length).toBeGreaterThan(3);
    // A local activity's marker also carries the SDK core's bookkeeping in clear (sequence number, attempt,
    // activity id and type, times); its input and result are encrypted like every other payload.
    const LOCAL_ACTIVITY_MARKER_KEYS = [
      'activity_id',
      'activity_type',
      'attempt',
      'backoff',
      'complete_time',
      'original_schedule_time',
      'seq',
    ];
    for (const p of clear) {
      if (p.metadata?.type) continue;
      const keys = Object.keys(defaultPayloadConverter.fromPayload(p) as object).sort();
      if (keys.includes('activity_type'))
        expect(
          keys.filter((k) => !LOCAL_ACTIVITY_MARKER_KEYS.includes(k)),
          JSON.stringify(p),
        ).toEqual([]);
      else expect(keys, JSON.stringify(p)).toEqual(['deprecated', 'id']);
    }
    // The same history decrypted with the stack's key does hold the message: the check above can fail.
    const decoded = await stack.payloadCodec.decode(encrypted);
    expect(decoded.some((p) => Buffer.from(p.data ?? new Uint8Array()).includes(marker))).toBe(true);
  });
});

describe('the codec endpoint for the Temporal Web UI', () => {
  const jsonPayload = (p: Payload) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  });

  it('decodes a history payload for the UI with the token in the path, and answers the UI origin with CORS', async () => {
    const payloads = payloadsOf(history).map(jsonPayload);
    const res = await fetch(`${api.url}/codec/${CODEC_TOKEN}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN },
      body: JSON.stringify({ payloads }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const body = (await res.json()) as { payloads: { data: string }[] };
    expect(body.payloads).toHaveLength(payloads.length);
    expect(body.payloads.some((p) => Buffer.from(p.data, 'base64').toString('utf8').includes(marker))).toBe(
      true,
    );

    const preflight = await fetch(`${api.url}/codec/${CODEC_TOKEN}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(
      /content-type.*x-namespace.*authorization/,
    );
  });

  it('accepts the token as a bearer header and round-trips encode → decode', async () => {
    const client = new ApiClient(api.url, { authorization: `Bearer ${CODEC_TOKEN}` });
    const plain = defaultPayloadConverter.toPayload({ hello: marker });
    const enc = await client.post<{ payloads: Json[] }>('/codec/encode', { payloads: [jsonPayload(plain)] });
    expect(enc.status).toBe(200);
    expect(Buffer.from(String(enc.body.payloads[0]?.data), 'base64').includes(marker)).toBe(false);
    const dec = await client.post<{ payloads: { data: string }[] }>('/codec/decode', {
      payloads: enc.body.payloads,
    });
    expect(JSON.parse(Buffer.from(dec.body.payloads[0]?.data ?? '', 'base64').toString())).toEqual({
      hello: marker,
    });
  });

  it('refuses without the token, with a wrong token, and from a foreign origin', async () => {
    const payloads = payloadsOf(history).slice(0, 1).map(jsonPayload);
    const client = new ApiClient(api.url);
    expectProblem(await client.post('/codec/decode', { payloads }), 401, 'unauthorized');
    expectProblem(await client.post(`/codec/${'0'.repeat(64)}/decode`, { payloads }), 401, 'unauthorized');
    expectProblem(
      await client.post('/codec/decode', { payloads }, { authorization: `Bearer ${'1'.repeat(64)}` }),
      401,
      'unauthorized',
    );
    expectProblem(
      await client.post(`/codec/${CODEC_TOKEN}/decode`, { payloads }, { origin: 'https://evil.example' }),
      403,
      'forbidden',
    );
  });
});

describe('the request log', () => {
  it('never holds the codec token of a path-form request', async () => {
    const lines: Json[] = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l) as Json) });
    const logged = await startApiFor(stack, {
      logger,
      codec: { codec: stack.payloadCodec, token: CODEC_TOKEN, origins: [UI_ORIGIN] },
    });
    try {
      const [enc] = await stack.payloadCodec.encode([defaultPayloadConverter.toPayload({ a: 1 })]);
      const body = {
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(enc?.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
            ),
            data: Buffer.from(enc?.data ?? new Uint8Array()).toString('base64'),
          },
        ],
      };
      for (const op of ['decode', 'encode']) {
        const res = await new ApiClient(logged.url).post(`/codec/${CODEC_TOKEN}/${op}`, body);
        expect(res.status).toBe(200);
      }
      // Upper case too (not in the OpenAPI document, so without the validating client): Express routes paths
      // case-insensitively, so the masking must match them the same way.
      const upper = await fetch(`${logged.url}/codec/${CODEC_TOKEN}/DECODE`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(upper.status).toBe(200);
      // Paths that reach no endpoint carry the token too (an endpoint set with a trailing slash sends `//decode`).
      const odd = [
        `/codec/${CODEC_TOKEN}//decode`,
        `/codec/${CODEC_TOKEN}`,
        `/codec/${CODEC_TOKEN}/`,
        `/codec/${CODEC_TOKEN}/foo`,
        `//codec/${CODEC_TOKEN}/decode`,
        `/v1/x/codec/${CODEC_TOKEN}/decode`,
        `/CODEC/${CODEC_TOKEN}/decode`,
      ];
      for (const p of odd) await fetch(`${logged.url}${p}`, { method: 'POST' });
      await expect
        .poll(() => lines.filter((l) => l.msg === 'request').length)
        .toBeGreaterThanOrEqual(3 + odd.length);
      expect(JSON.stringify(lines)).not.toContain(CODEC_TOKEN);
      expect(lines.filter((l) => l.msg === 'request').map((l) => l.path)).toEqual(
        expect.arrayContaining(['/codec/<token>/decode', '/codec/<token>/encode']),
      );
    } finally {
      await logged.close();
    }
  });
});

describe('the payload codec', () => {
  const plain = (): Payload => defaultPayloadConverter.toPayload({ text: 'hello' });

  it('refuses an unencrypted payload; passes it only with the migration flag (KESOKU_CODEC_ACCEPT_PLAINTEXT)', async () => {
    const keys = parsePayloadKeys(newPayloadKeyEntry(), 'test');
    const p = plain();
    const err = await new AesGcmPayloadCodec(keys).decode([p]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadDecryptionError);
    expect((err as PayloadDecryptionError).kind).toBe('unencrypted');
    expect((err as Error).message).toContain('KESOKU_CODEC_ACCEPT_PLAINTEXT');
    const flag = loadConfig({ KESOKU_CODEC_ACCEPT_PLAINTEXT: 'true' }).KESOKU_CODEC_ACCEPT_PLAINTEXT;
    expect(loadConfig({}).KESOKU_CODEC_ACCEPT_PLAINTEXT).toBe(false);
    expect(await new AesGcmPayloadCodec(keys, { acceptPlaintext: flag }).decode([p])).toEqual([p]);
  });

  it('rotates: the first key encrypts, every listed key decrypts, an unknown key id is a typed error', async () => {
    const k1 = `k1:${randomBytes(32).toString('base64')}`;
    const k2 = `k2:${randomBytes(32).toString('base64')}`;
    const old = new AesGcmPayloadCodec(parsePayloadKeys(k1, 'test'));
    const rotated = new AesGcmPayloadCodec(parsePayloadKeys(`${k2},${k1}`, 'test'));
    const [byOld] = await old.encode([plain()]);
    const [byNew] = await rotated.encode([plain()]);
    expect(Buffer.from(byNew?.metadata?.['encryption-key-id'] ?? new Uint8Array()).toString()).toBe('k2');
    const [back] = await rotated.decode([byOld as Payload]);
    expect(defaultPayloadConverter.fromPayload(back as Payload)).toEqual({ text: 'hello' });
    const err = await old.decode([byNew as Payload]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadDecryptionError);
    expect((err as PayloadDecryptionError).kind).toBe('unknown_key');
  });

  it('refuses a tampered payload and a key id swapped onto another key', async () => {
    const keys = parsePayloadKeys(
      `a:${randomBytes(32).toString('base64')},b:${randomBytes(32).toString('base64')}`,
      'test',
    );
    const codec = new AesGcmPayloadCodec(keys);
    const [enc] = (await codec.encode([plain()])) as [Payload];
    const data = Buffer.from(enc.data as Uint8Array);
    data[20] = (data[20] as number) ^ 1;
    await expect(codec.decode([{ ...enc, data }])).rejects.toMatchObject({ kind: 'corrupt' });
    const relabelled = { ...enc, metadata: { ...enc.metadata, 'encryption-key-id': Buffer.from('b') } };
    await expect(codec.decode([relabelled])).rejects.toMatchObject({ kind: 'corrupt' });
  });
});

describe('a Temporal client without the payload keys', () => {
  it('cannot put a message into a session: its unencrypted signal fails the workflow task and nothing is stored', async () => {
    const target = uniqueId('plain-signal');
    const res = await new ApiClient(api.url).post(`/v1/sessions/${target}/messages`, {
      content: 'first',
      wait: 30,
    });
    expect(res.status, res.text).toBe(200);
    const keyless = new Client({ connection: stack.client.connection, namespace: 'default' });
    const handle = keyless.workflow.getHandle(sessionWorkflowId(target));
    const forged = `forged-${randomBytes(4).toString('hex')}`;
    await handle.signal(userMessageSignal, {
      id: forged,
      sessionId: target,
      chatbotId: 'api',
      channelId: target,
      sender: 'admin',
      senderId: 'admin',
      content: `run: id # ${forged}`,
      receivedAt: new Date().toISOString(),
    } as never);
    // The worker refuses the payload: the workflow task fails with the codec's reason, again on every retry.
    const deadline = Date.now() + 30_000;
    let failure = '';
    while (Date.now() < deadline && failure === '') {
      const events = (await handle.fetchHistory()).events ?? [];
      const failed = events.find((e) => e.workflowTaskFailedEventAttributes);
      failure = failed?.workflowTaskFailedEventAttributes?.failure?.message ?? '';
      if (failure === '') await new Promise((r) => setTimeout(r, 200));
    }
    expect(failure).toContain('not encrypted');
    const stored = await stack.pool.query('SELECT 1 FROM messages WHERE id = $1 OR content LIKE $2', [
      forged,
      `%${forged}%`,
    ]);
    expect(stored.rowCount).toBe(0);
    await stack.client.workflow.getHandle(sessionWorkflowId(target)).terminate('test done');
  });
});

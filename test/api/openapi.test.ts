// REST API v1: the OpenAPI document describes exactly the routes the app serves, and real answers match it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, listRoutes } from '../../api/app.ts';
import { MESSAGE_TYPES, ROLES, STATUSES } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import { OpenApiValidator, openEvents, useHarness, testLogger, validator, type Json } from './support.ts';

const h = useHarness();
let doc: Json;
beforeAll(async () => {
  const res = await fetch(`${h.api.url}/openapi.json`);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = JSON.parse(await res.text()) as Json;
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Every `$ref` string in a JSON value. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

function resolvePointer(root: Json, pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], root);
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document whose references resolve and whose schemas compile', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect((doc.info as Json).title).toBeTruthy();
    for (const ref of refsIn(doc)) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      expect(resolvePointer(doc, ref), ref).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'doc');
    for (const name of Object.keys((doc.components as Json).schemas as Json)) {
      expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` }), name).not.toThrow();
    }
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (!METHODS.includes(method)) continue;
        const responses = (op as Json).responses as Json;
        expect(Object.keys(responses).length, `${method} ${path}`).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(responses)) {
          const r = (
            (response as Json).$ref ? resolvePointer(doc, (response as Json).$ref as string) : response
          ) as Json;
          expect(r.description, `${method} ${path} ${status}`).toBeTruthy();
          if (Number(status) >= 400)
            expect(Object.keys(r.content as Json)).toEqual(['application/problem+json']);
        }
      }
    }
  });

  it('lists exactly the routes the express app serves', () => {
    const app = createApp({
      pool: h.stack.pool,
      sessions: h.stack.sessions,
      events: h.api.events,
      logger: testLogger(),
      tokens: [],
      codec: { codec: h.stack.payloadCodec, token: 'x'.repeat(32), origins: [] },
      health: async () => ({ temporal: true, postgres: true }),
    });
    const served = listRoutes(app)
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths as Json)
      .flatMap(([path, item]) =>
        Object.keys(item as Json)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    expect(served).toEqual(documented);
    expect(served).toHaveLength(35);
  });

  it('takes the Message enums from the domain model', () => {
    const message = ((doc.components as Json).schemas as Json).Message as Json;
    const props = message.properties as Record<string, Json>;
    expect(props.role?.enum).toEqual([...ROLES]);
    expect(props.type?.enum).toEqual([...MESSAGE_TYPES]);
    expect(props.status?.enum).toEqual([...STATUSES]);
    expect(new OpenApiValidator(doc).doc).toEqual(validator().doc);
  });

  it('matches the real answers of every route', async () => {
    // ApiClient validates each answer against the served document's response schema; here every route is hit.
    const v = new OpenApiValidator(doc);
    const session = uniqueId('s');
    const check = async (method: string, path: string, status: number, json?: unknown) => {
      const res = await h.client.request(method, path, { json, validate: false });
      expect(res.status, `${method} ${path}: ${res.text.slice(0, 300)}`).toBe(status);
      expect(
        v.check(
          method,
          new URL(path, 'http://x').pathname,
          res.status,
          res.headers.get('content-type'),
          res.body,
        ),
      ).toEqual([]);
      return res.body;
    };
    const accepted = await check('POST', `/v1/sessions/${session}/messages`, 202, { content: 'hello' });
    const waited = await check('POST', `/v1/sessions/${session}/messages`, 200, {
      content: 'run: echo schema',
      wait: 30,
    });
    expect((waited.reply as Json).content).toBe('Done: schema');
    await check('POST', `/v1/sessions/${session}/messages`, 202, {
      id: (accepted.message as Json).id,
      content: 'hello',
    });
    await check('GET', `/v1/sessions/${session}/messages`, 200);
    await check('GET', `/v1/sessions/${session}/messages?after_revision=1&limit=2`, 200);
    await check('GET', `/v1/sessions/${session}`, 200);
    await check('PATCH', `/v1/sessions/${session}`, 200, { title: 'Schema check', mode: 'interrupt' });
    await check('POST', `/v1/sessions/${session}/stop`, 200);
    await check('POST', `/v1/sessions/${session}/compact`, 202);
    // A `cli` session's printed messages are acknowledged by its client.
    const cli = uniqueId('cli');
    const cliTurn = await check('POST', `/v1/sessions/${cli}/messages`, 200, {
      content: 'hello',
      channel: 'cli',
      wait: 30,
    });
    const printed = [(cliTurn.reply as Json).id as string];
    await check('POST', `/v1/sessions/${cli}/deliveries`, 200, { ids: printed });
    await check('POST', `/v1/sessions/${session}/deliveries`, 409, { ids: printed });
    await check('GET', '/v1/sessions?limit=5', 200);
    await check('GET', '/healthz', 200);
    await check('GET', '/v1/mcp', 200);
    await check('GET', '/readyz', 200);
    await check('GET', '/livez', 200);
    await check('GET', '/openapi.json', 200);
    await check('GET', `/v1/sessions/${uniqueId('nobody')}`, 404);
    await check('POST', `/v1/sessions/${session}/messages`, 400, { content: '' });
    await check('POST', `/v1/sessions/${uniqueId('s')}/messages`, 504, { content: 'sleep: 2', wait: 1 });

    // The event stream: its frames' data validate against TurnCommittedEvent / TurnUpdatedEvent (openEvents checks).
    const stream = await openEvents(h.api.url, `/v1/sessions/${session}/events`, { 'last-event-id': '0' });
    expect(stream.status).toBe(200);
    expect(
      v.check('GET', `/v1/sessions/${session}/events`, 200, stream.headers.get('content-type'), null),
    ).toEqual([]);
    await stream.until((evs) => evs.some((e) => e.event === 'turn.committed'));
    await check('POST', `/v1/sessions/${session}/messages`, 200, { content: 'stream me', wait: 30 });
    await stream.until((evs) => evs.some((e) => e.event === 'turn.updated'));
    stream.close();
  });
});

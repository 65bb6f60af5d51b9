// REST API v1: the session event stream (SSE) — live turn snapshots, committed deltas with revisions, resume.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import {
  committed,
  eventually,
  expectProblem,
  openEvents,
  replyWhen,
  startApiFor,
  useHarness,
  updates,
  type EventStream,
  type Json,
} from './support.ts';

const h = useHarness();
const open: EventStream[] = [];
afterAll(async () => {
  for (const s of open) s.close();
});

async function events(
  session: string,
  headers: Record<string, string> = {},
  query = '',
  baseUrl = h.api.url,
): Promise<EventStream> {
  const s = await openEvents(baseUrl, `/v1/sessions/${session}/events${query}`, headers);
  open.push(s);
  return s;
}

/** Creates a session with one finished turn; returns its id. */
async function newSession(): Promise<string> {
  const session = uniqueId('s');
  expect(
    (await h.client.post(`/v1/sessions/${session}/messages`, { content: 'warm up', wait: 30 })).status,
  ).toBe(200);
  return session;
}

type Committed = { session_id: string; revision: number; previous_revision: number; messages: Message[] };

/** Revisions strictly increase and every event continues exactly where the previous one ended. */
function expectChained(list: Json[], start: number): void {
  let previous = start;
  for (const e of list as Committed[]) {
    expect(e.previous_revision).toBe(previous);
    expect(e.revision).toBeGreaterThan(e.previous_revision);
    for (const m of e.messages) {
      expect(m.revision).toBeGreaterThan(e.previous_revision);
      expect(m.revision).toBeLessThanOrEqual(e.revision);
    }
    previous = e.revision;
  }
}

describe('GET /v1/sessions/{id}/events', () => {
  it('streams turn.updated snapshots with the text so far and turn.committed events ending with the delivered reply', async () => {
    const session = await newSession();
    const { body: view } = await h.client.get<{ revision: number }>(`/v1/sessions/${session}`);
    const stream = await events(session);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const restore = replyWhen(h.stack, 'count for me', {
      kind: 'text',
      text: 'one two three four five six',
      chunkDelayMs: 150,
    });
    const sent = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'count for me',
    });
    const id = sent.body.message.id;
    await stream.until((evs) =>
      evs.some(
        (e) =>
          e.event === 'turn.committed' &&
          (e.data.messages as Message[]).some(
            (m) =>
              m.turn_id === id && m.type === 'text' && m.role === 'assistant' && m.status === 'delivered',
          ),
      ),
    );
    await stream.until((evs) => evs.some((e) => e.event === 'turn.updated' && e.data.status === 'finished'));
    restore();

    const snaps = updates(stream).filter((u) => u.turn_id === id);
    const texts = snaps.map((u) => u.text as string).filter((t) => t.length > 0);
    expect(texts.length).toBeGreaterThan(1);
    for (const t of texts) expect('one two three four five six'.startsWith(t)).toBe(true);
    expect(texts.at(-1)).toBe('one two three four five six');
    expect(snaps.some((u) => u.status === 'thinking')).toBe(true);
    expect(snaps.at(-1)).toMatchObject({ status: 'finished', outcome: 'processed', session_id: session });
    // Throttled: at most one snapshot per ~100 ms per session.
    const times = stream.events
      .filter((e) => e.event === 'turn.updated' && e.data.status !== 'finished')
      .map((e) => e.receivedAt);
    const span = (times.at(-1) ?? 0) - (times[0] ?? 0);
    expect(times.length).toBeLessThanOrEqual(Math.floor(span / 100) + 2);

    const commits = committed(stream);
    expectChained(commits, view.revision);
    const all = commits.flatMap((c) => c.messages as Message[]);
    expect(all.find((m) => m.id === id)?.status).toBe('pending_agent');
    const last = new Map(all.map((m) => [m.id, m]));
    expect(last.get(id)?.status).toBe('processed');
    const reply = [...last.values()].find(
      (m) => m.turn_id === id && m.role === 'assistant' && m.type === 'text',
    );
    expect(reply).toMatchObject({
      status: 'delivered',
      content: 'one two three four five six',
      sender: 'Kesoku',
    });
    for (const e of stream.events.filter((x) => x.event === 'turn.committed'))
      expect(e.id).toBe(String(e.data.revision));
  });

  it('reports tool progress in turn.updated snapshots', async () => {
    const session = await newSession();
    const stream = await events(session);
    const sent = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: sleep 0.4; echo from-tool',
    });
    await stream.until((evs) => evs.some((e) => e.event === 'turn.updated' && e.data.status === 'finished'));
    const snaps = updates(stream).filter((u) => u.turn_id === sent.body.message.id);
    const withTools = snaps.filter((u) => (u.tools as Json[]).length > 0);
    expect(withTools.length).toBeGreaterThan(0);
    expect(withTools.some((u) => u.status === 'running_tools')).toBe(true);
    const done = withTools.map((u) => (u.tools as Json[])[0]).find((t) => t?.status === 'ok');
    expect(done).toMatchObject({ name: 'run_shell_command', status: 'ok' });
    expect(typeof done?.summary).toBe('string');
    expect(snaps.some((u) => u.step === 1)).toBe(true);
  });

  it("shows a running command's last output lines in turn.updated, live, and not once it finished", async () => {
    const session = await newSession();
    const stream = await events(session);
    const sent = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: echo first-line; sleep 2; echo second-line; sleep 2; echo last-line',
    });
    const tailOf = (u: Json) => ((u.tools as Json[])[0]?.output_tail as string | undefined) ?? '';
    const running = (u: Json) => (u.tools as Json[])[0]?.status === 'running';
    // Before the command ends, a snapshot shows its first line (and then its second) as it runs.
    await stream.until((evs) =>
      evs.some(
        (e) => e.event === 'turn.updated' && running(e.data) && tailOf(e.data).includes('second-line'),
      ),
    );
    const live = updates(stream).filter((u) => u.turn_id === sent.body.message.id && running(u));
    expect(live.some((u) => tailOf(u) === 'first-line')).toBe(true);
    expect(live.some((u) => tailOf(u) === 'first-line\nsecond-line')).toBe(true);
    expect(live.every((u) => !tailOf(u).includes('last-line'))).toBe(true);
    await stream.until((evs) => evs.some((e) => e.event === 'turn.updated' && e.data.status === 'finished'));
    const done = updates(stream)
      .filter((u) => u.turn_id === sent.body.message.id)
      .map((u) => (u.tools as Json[])[0])
      .find((t) => t?.status === 'ok');
    expect(done).toBeDefined();
    expect(done?.output_tail).toBeUndefined();
  });

  it('sends nothing historical without Last-Event-ID', async () => {
    const session = await newSession();
    const stream = await events(session);
    await new Promise((r) => setTimeout(r, 700));
    expect(stream.events).toEqual([]);
    expect(stream.comments).toContain('connected');
  });

  it('with Last-Event-ID, first sends exactly the messages committed after that revision', async () => {
    const session = await newSession();
    const before = await h.client.get<{ revision: number; messages: Message[] }>(
      `/v1/sessions/${session}/messages`,
    );
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'missed while away', wait: 30 });
    const missed = await h.client.get<{ revision: number; messages: Message[] }>(
      `/v1/sessions/${session}/messages?after_revision=${before.body.revision}`,
    );
    expect(missed.body.messages.length).toBeGreaterThan(0);

    for (const [headers, query] of [
      [{ 'last-event-id': String(before.body.revision) }, ''],
      [{}, `?after_revision=${before.body.revision}`],
    ] as const) {
      const stream = await events(session, headers, query);
      await stream.until((evs) => evs.some((e) => e.event === 'turn.committed'));
      const first = committed(stream)[0] as Committed;
      expect(first.previous_revision).toBe(before.body.revision);
      expect(first.revision).toBe(missed.body.revision);
      expect(first.messages.map((m) => m.id)).toEqual(missed.body.messages.map((m) => m.id));
      expect(stream.events[0]?.id).toBe(String(missed.body.revision));
      stream.close();
    }
    expectProblem(
      await h.client.get(`/v1/sessions/${session}/events`, { 'last-event-id': 'abc' }),
      400,
      'validation',
    );
  });

  it("keeps two sessions' events apart", async () => {
    const a = await newSession();
    const b = await newSession();
    const streamA = await events(a);
    const streamB = await events(b);
    await h.client.post(`/v1/sessions/${a}/messages`, { content: 'only for a', wait: 30 });
    await streamA.until((evs) => evs.some((e) => e.event === 'turn.updated' && e.data.status === 'finished'));
    await new Promise((r) => setTimeout(r, 300));
    expect(streamA.events.length).toBeGreaterThan(0);
    for (const e of streamA.events) expect(e.data.session_id).toBe(a);
    expect(streamB.events).toEqual([]);
  });

  it("answers 404 for a chat channel's session and removes subscribers when clients disconnect", async () => {
    expectProblem(
      await h.client.get(`/v1/sessions/discord:${uniqueId('nobody')}/events`),
      404,
      'session-not-found',
    );
    const session = await newSession();
    const base = h.api.events.stats().subscribers;
    const streams = [await events(session), await events(session)];
    expect(h.api.events.stats().subscribers).toBe(base + 2);
    for (const s of streams) s.close();
    await eventually(async () => h.api.events.stats().subscribers === base);
  });

  it('sends keep-alive pings and ends streams when the server closes', async () => {
    const server = await startApiFor(h.stack, { events: { pingIntervalMs: 150 } });
    const session = await newSession();
    const stream = await events(session, {}, '', server.url);
    await stream.until(() => stream.comments.filter((c) => c === 'ping').length >= 2, 5000);
    await server.close();
    await stream.ended;
    expect(server.events.stats()).toEqual({ sessions: 0, subscribers: 0, watchers: 0 });
    // The port is free again.
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) =>
      probe.once('error', reject).listen(server.port, '127.0.0.1', () => resolve()),
    );
    await new Promise((r) => probe.close(r));
  });

  it('catches subscribers up after the notification listener reconnects', async () => {
    const appName = `kesoku-api-${uniqueId('listen')}`;
    const url = new URL(h.stack.databaseUrl);
    url.searchParams.set('application_name', appName);
    const server = await startApiFor(h.stack, { databaseUrl: url.toString() });
    try {
      const session = await newSession();
      const { body: view } = await h.client.get<{ revision: number }>(`/v1/sessions/${session}`);
      const stream = await events(session, {}, '', server.url);
      const killed = await h.stack.pool.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [appName],
      );
      expect(killed.rowCount).toBe(1);
      const res = await h.client.post<{ message: Message; reply: Message }>(
        `/v1/sessions/${session}/messages`,
        { content: 'during the outage', wait: 30 },
      );
      await stream.until((evs) =>
        evs.some(
          (e) =>
            e.event === 'turn.committed' &&
            (e.data.messages as Message[]).some(
              (m) => m.id === res.body.reply.id && m.status === 'delivered',
            ),
        ),
      );
      const commits = committed(stream);
      expectChained(commits, view.revision);
      const ids = new Set(commits.flatMap((c) => (c.messages as Message[]).map((m) => m.id)));
      expect(ids.has(res.body.message.id)).toBe(true);
      await eventually(async () => server.events.connected);
    } finally {
      await server.close();
    }
  });
});

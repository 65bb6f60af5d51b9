// REST API v1: scheduled prompts — real Temporal Schedules on the dev server, real Postgres, the in-process worker.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { SCHEDULE_LIMITS, serverZone, tickMessageId } from '../../domain/schedules.ts';
import { uniqueId } from '../support/stack.ts';
import { expectProblem, useHarness, type Json } from './support.ts';

const h = useHarness();

interface Schedule extends Json {
  id: string;
  timezone: string;
  next_run_at: string | null;
  paused: boolean;
  runs: {
    turn_id: string;
    outcome: string;
    delivered: boolean;
    fired_at: string | null;
    scheduled_at: string;
  }[];
}

const base = (session: string) => `/v1/sessions/${session}/schedules`;

async function create(session: string, body: Json): Promise<Schedule> {
  const res = await h.client.post<Schedule>(base(session), body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const cronMessages = async (session: string): Promise<Message[]> =>
  (await h.stack.messages(session)).filter((m) => m.sender === 'Cronjob');

describe('a one-time scheduled prompt', () => {
  it("fires once, 0-2 s late, as the seed's cron message, and its run says processed and delivered", async () => {
    const session = uniqueId('s');
    const created = await create(session, { prompt: 'Run status diagnostics', in: '3s', timezone: 'UTC' });
    expect(created).toMatchObject({ kind: 'in', spec: '3s', timezone: 'UTC', paused: false });
    expect(created.id).toMatch(/^sch-[0-9a-f]{12}$/);
    const due = Date.parse(created.next_run_at ?? '');
    expect(due).toBeGreaterThan(Date.now());

    await expect.poll(() => cronMessages(session), { timeout: 20_000, interval: 100 }).toHaveLength(1);
    const [msg] = await cronMessages(session);
    // Seed row 定时任务消息: user/text from "Cronjob", is_cronjob, pending_agent → processed.
    expect(msg).toMatchObject({
      id: tickMessageId(created.id, new Date(due)),
      role: 'user',
      type: 'text',
      sender: 'Cronjob',
      chatbot_id: 'api',
      channel_id: session,
      content: 'Run status diagnostics',
    });
    expect(msg!.metadata).toMatchObject({ is_cronjob: true });
    const lateMs = Date.parse(msg!.received_at ?? '') - due;
    expect(lateMs).toBeGreaterThanOrEqual(0);
    // Typically 50–500 ms here; the bound leaves room for a loaded machine (lateness is measured by the bench).
    expect(lateMs).toBeLessThanOrEqual(5000);
    const done = await h.stack.waitForStatus(msg!.id, ['processed', 'error', 'interrupted'], 30_000);
    expect(done.status).toBe('processed');
    // Transpiled into a user turn for the model (the runtime context follows the prompt's words).
    const req = h.stack.requestsOf(session).at(-1);
    expect(req?.body?.messages?.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^Run status diagnostics(\n|$)/),
    });

    await expect
      .poll(
        async () => (await h.client.get<{ schedules: Schedule[] }>(base(session))).body.schedules[0]?.runs[0],
        {
          timeout: 10_000,
        },
      )
      .toMatchObject({ turn_id: msg!.id, outcome: 'processed', delivered: true });
    const listed = (await h.client.get<{ schedules: Schedule[] }>(base(session))).body.schedules;
    expect(listed).toHaveLength(1);
    expect(listed[0]!.next_run_at).toBeNull();
    // Nothing more fires: it was one time.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await cronMessages(session)).toHaveLength(1);
  }, 60_000);
});

describe('time zones', () => {
  it("gives next_run_at at the named zone's wall time, and stores and shows the zone", async () => {
    const session = uniqueId('s');
    const s = await create(session, { prompt: 'morning report', cron: '30 9 * * *', timezone: 'asia/tokyo' });
    expect(s.timezone).toBe('Asia/Tokyo');
    expect(s.next_run_at).toMatch(/T09:30:00\+09:00$/);
    const year = new Date().getUTCFullYear() + 1;
    const ny = await create(session, {
      prompt: 'at noon',
      at: `${year}-07-04T12:00`,
      timezone: 'America/New_York',
    });
    expect(ny.next_run_at).toBe(`${year}-07-04T12:00:00-04:00`);
    const got = await h.client.get<Schedule>(`${base(session)}/${ny.id}`);
    expect(got.body).toMatchObject({ timezone: 'America/New_York', spec: `${year}-07-04T16:00:00.000Z` });
  });
});

describe('bad input changes nothing', () => {
  it('answers 400 naming the field, 404 for an unknown id, 429 past the per-session limit', async () => {
    const session = uniqueId('s');
    const cases: [Json, string][] = [
      [{ prompt: 'x', cron: 'every day please' }, 'cron'],
      [{ prompt: 'x', cron: '61 * * * *' }, 'cron'],
      [{ prompt: 'x', every: 'often' }, 'every'],
      [{ prompt: 'x', every: '5s' }, 'every'],
      [{ prompt: 'x', at: 'tomorrow' }, 'at'],
      [{ prompt: 'x', at: '2001-01-01T00:00:00Z' }, 'at'],
      [{ prompt: 'x', at: '2099-02-30T10:00' }, 'at'],
      [{ prompt: 'x', in: 'soon' }, 'in'],
      [{ prompt: 'x', in: '5m', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ prompt: 'x' }, ''],
      [{ prompt: 'x', in: '5m', every: '1h' }, 'in'],
      [{ prompt: '', in: '5m' }, 'prompt'],
      [{ prompt: 'x'.repeat(SCHEDULE_LIMITS.maxPromptBytes + 1), in: '5m' }, 'prompt'],
      [{ prompt: 'x', in: '5m', color: 'red' }, 'color'],
    ];
    for (const [body, field] of cases) {
      const p = expectProblem(await h.client.post(base(session), body), 400, 'validation');
      if (field) expect(p.field, JSON.stringify(body)).toBe(field);
      else expect(p.field).toBeUndefined();
    }
    expect((await h.client.get<{ schedules: unknown[] }>(base(session))).body.schedules).toEqual([]);

    expectProblem(await h.client.get(`${base(session)}/sch-000000000000`), 404, 'schedule-not-found');
    expectProblem(
      await h.client.request('DELETE', `${base(session)}/sch-000000000000`),
      404,
      'schedule-not-found',
    );
    expectProblem(await h.client.post(`${base(session)}/nope/trigger`, {}), 404, 'schedule-not-found');
    expectProblem(await h.client.get(base(uniqueId('nobody'))), 404, 'session-not-found');

    for (let i = 0; i < SCHEDULE_LIMITS.perSession; i++)
      await create(session, { prompt: `p${i}`, cron: '0 3 * * *', paused: true });
    const p = expectProblem(
      await h.client.post(base(session), { prompt: 'one more', cron: '0 4 * * *' }),
      429,
    );
    expect(p.type).toBe('urn:kesoku:problem:too-many-schedules');
    expect((await h.client.get<{ schedules: unknown[] }>(base(session))).body.schedules).toHaveLength(
      SCHEDULE_LIMITS.perSession,
    );
  }, 60_000);
});

describe('pause, resume, run now, edit in place, delete', () => {
  it('a paused schedule fires only when triggered; an edit keeps the id; a deleted one is gone from Temporal', async () => {
    const session = uniqueId('s');
    const s = await create(session, {
      prompt: 'check the queue',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
    });
    const paused = await h.client.patch<Schedule>(`${base(session)}/${s.id}`, { paused: true });
    expect(paused.body).toMatchObject({ id: s.id, paused: true, next_run_at: null });
    expect((await h.client.post(`${base(session)}/${s.id}/trigger`, {})).status).toBe(202);
    await expect.poll(() => cronMessages(session), { timeout: 15_000 }).toHaveLength(1);
    const [fired] = await cronMessages(session);
    expect(fired!.content).toBe('check the queue');

    const edited = await h.client.patch<Schedule>(`${base(session)}/${s.id}`, {
      prompt: 'check both queues',
      cron: '15 4 * * *',
      paused: false,
    });
    expect(edited.body).toMatchObject({
      id: s.id,
      spec: '15 4 * * *',
      prompt: 'check both queues',
      paused: false,
    });
    expect(edited.body.next_run_at).toMatch(/T04:15:00\+0[12]:00$/);
    const desc = await h.stack.client.schedule.getHandle(`kesoku-schedule:${session}:${s.id}`).describe();
    expect(desc.spec.calendars?.length ?? 0).toBeGreaterThan(0);

    const del = await h.client.request('DELETE', `${base(session)}/${s.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true, schedule_id: s.id });
    expectProblem(await h.client.get(`${base(session)}/${s.id}`), 404, 'schedule-not-found');
    await expect(
      h.stack.client.schedule.getHandle(`kesoku-schedule:${session}:${s.id}`).describe(),
    ).rejects.toThrow();
  }, 60_000);
});

describe('a prompt fired while the session runs a long turn', () => {
  it('is queued behind it and answered after it, once', async () => {
    const session = uniqueId('s');
    const long = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
      content: 'run: sleep 8; echo long-done',
    });
    expect(long.status).toBe(202);
    await h.stack.waitForStatus(long.body.message.id, ['processing']);
    const s = await create(session, { prompt: 'scheduled while busy', in: '2s' });
    await expect.poll(() => cronMessages(session), { timeout: 15_000 }).toHaveLength(1);
    const [cron] = await cronMessages(session);
    // Queued, not interrupting: the long turn is still running.
    expect(cron!.status).toBe('pending_agent');
    expect((await h.stack.messages(session)).find((m) => m.id === long.body.message.id)?.status).toBe(
      'processing',
    );
    const longDone = await h.stack.waitForStatus(
      long.body.message.id,
      ['processed', 'interrupted', 'error'],
      30_000,
    );
    expect(longDone.status).toBe('processed');
    const cronDone = await h.stack.waitForStatus(cron!.id, ['processed', 'interrupted', 'error'], 30_000);
    expect(cronDone.status).toBe('processed');
    const msgs = await h.stack.messages(session);
    const replies = msgs.filter((m) => m.role === 'assistant' && m.type === 'text' && m.turn_id === cron!.id);
    expect(replies).toHaveLength(1);
    // After the long turn's reply.
    const longReply = msgs.find(
      (m) => m.role === 'assistant' && m.type === 'text' && m.turn_id === long.body.message.id,
    );
    expect(msgs.indexOf(replies[0]!)).toBeGreaterThan(msgs.indexOf(longReply!));
    const runs = (await h.client.get<Schedule>(`${base(session)}/${s.id}`)).body.runs;
    expect(runs).toHaveLength(1);
  }, 90_000);
});

describe("the model's schedule tools", () => {
  it('schedule_prompt creates a schedule in the calling session; a turn started by a schedule is refused', async () => {
    const session = uniqueId('s');
    h.stack.script(
      session,
      {
        kind: 'tool_calls',
        calls: [{ name: 'schedule_prompt', arguments: { prompt: 'self check', in: '2s', timezone: 'UTC' } }],
      },
      { kind: 'text', text: 'scheduled it' },
      // The scheduled turn tries to schedule again, then answers.
      {
        kind: 'tool_calls',
        calls: [{ name: 'schedule_prompt', arguments: { prompt: 'again', every: '1h' } }],
      },
      { kind: 'text', text: 'could not' },
    );
    const res = await h.client.post(`/v1/sessions/${session}/messages`, { content: 'remind me', wait: 30 });
    expect(res.status).toBe(200);
    const listed = (await h.client.get<{ schedules: Schedule[] }>(base(session))).body.schedules;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ prompt: 'self check', kind: 'in', timezone: 'UTC' });
    const first = (await h.stack.messages(session)).find((m) => m.type === 'tool_result');
    expect(first?.content).toMatch(new RegExp(`Scheduled\\. ${listed[0]!.id}`));

    await expect.poll(() => cronMessages(session), { timeout: 15_000 }).toHaveLength(1);
    const [cron] = await cronMessages(session);
    await h.stack.waitForStatus(cron!.id, ['processed', 'error', 'interrupted'], 30_000);
    const refused = (await h.stack.messages(session)).filter(
      (m) => m.type === 'tool_result' && m.turn_id === cron!.id,
    );
    expect(refused.map((m) => m.content)).toEqual([
      'Error: a turn started by a schedule cannot create schedules',
    ]);
    expect((await h.client.get<{ schedules: Schedule[] }>(base(session))).body.schedules).toHaveLength(1);
  }, 60_000);
});

describe("the principal's time zone", () => {
  it("PATCH /v1/me sets it; a schedule naming no zone takes it when its session has none, the session's before it", async () => {
    try {
      const set = await h.client.patch<Json>('/v1/me', { timezone: 'asia/tokyo' });
      expect(set.status, set.text).toBe(200);
      expect(set.body).toMatchObject({ timezone: 'Asia/Tokyo' });
      expect((await h.client.get<Json>('/v1/me')).body).toMatchObject({ timezone: 'Asia/Tokyo' });
      const session = uniqueId('s');
      // The caller's session, made by a PATCH before its first message.
      expect((await h.client.patch<Json>(`/v1/sessions/${session}`, { mode: 'queue' })).status).toBe(200);
      const fromPrincipal = await create(session, { prompt: 'Water the plants', every: '1h' });
      expect(fromPrincipal.timezone).toBe('Asia/Tokyo');
      expect(fromPrincipal.next_run_at).toMatch(/\+09:00$/);
      await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: 'Europe/Berlin' });
      expect((await create(session, { prompt: 'Stand-up', every: '1h' })).timezone).toBe('Europe/Berlin');

      // An unknown zone is a 400 naming the field, and changes nothing.
      const bad = await h.client.patch<Json>('/v1/me', { timezone: 'Mars/Olympus' });
      expect(expectProblem(bad, 400).field).toBe('timezone');
      expect((await h.client.get<Json>('/v1/me')).body).toMatchObject({ timezone: 'Asia/Tokyo' });
    } finally {
      expect((await h.client.patch<Json>('/v1/me', { timezone: null })).body).toMatchObject({
        timezone: null,
      });
    }
  });
});

describe("the session's time zone", () => {
  it('PATCH stores it canonical, GET shows it, and new schedules without a zone take it', async () => {
    const session = uniqueId('s');
    // Before the first message a PATCH creates the session with its zone.
    const created = await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: 'europe/berlin' });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ id: session, timezone: 'Europe/Berlin' });
    expect((await h.client.get<Json>(`/v1/sessions/${session}`)).body).toMatchObject({
      timezone: 'Europe/Berlin',
    });

    const inherited = await create(session, { prompt: 'Water the plants', every: '1h' });
    expect(inherited.timezone).toBe('Europe/Berlin');
    expect(inherited.next_run_at).toMatch(/[+-]0[12]:00$/);
    const own = await create(session, { prompt: 'Call Tokyo', every: '1h', timezone: 'Asia/Tokyo' });
    expect(own.timezone).toBe('Asia/Tokyo');

    // A later change applies to schedules created from then on; existing ones keep their zone.
    expect(
      (await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: 'America/New_York' })).body,
    ).toMatchObject({ timezone: 'America/New_York' });
    expect((await create(session, { prompt: 'Stand-up', cron: '0 9 * * 1-5' })).timezone).toBe(
      'America/New_York',
    );
    const listed = (await h.client.get<{ schedules: Schedule[] }>(base(session))).body.schedules;
    expect(listed.find((s) => s.id === inherited.id)?.timezone).toBe('Europe/Berlin');

    // null clears it: the server's default applies again.
    expect((await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: null })).body).toMatchObject({
      timezone: null,
    });
    expect((await create(session, { prompt: 'Stretch', in: 30 })).timezone).toBe(serverZone());
  });

  it('refuses an unknown zone or an offset with a 400 naming the field, and changes nothing', async () => {
    const session = uniqueId('s');
    expect((await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: 'Asia/Tokyo' })).status).toBe(
      200,
    );
    for (const bad of ['Mars/Olympus', '+09:00', 'UTC+9', '', 42]) {
      const res = await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: bad });
      const p = expectProblem(res, 400, 'validation');
      expect(p.field).toBe('timezone');
      expect(String(p.detail)).toMatch(/^timezone: /);
    }
    expect(
      String(
        expectProblem(
          await h.client.patch<Json>(`/v1/sessions/${session}`, { timezone: 'Mars/Olympus' }),
          400,
        ).detail,
      ),
    ).toBe('timezone: "Mars/Olympus" is not a known IANA time zone, e.g. "Asia/Tokyo"');
    // Nothing half-applied: a valid field beside a bad zone is not stored either.
    expectProblem(
      await h.client.patch<Json>(`/v1/sessions/${session}`, { mode: 'queue', timezone: 'Nowhere' }),
      400,
    );
    expect((await h.client.get<Json>(`/v1/sessions/${session}`)).body).toMatchObject({
      timezone: 'Asia/Tokyo',
      mode: 'interrupt',
    });
  });
});

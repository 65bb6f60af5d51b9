/**
 * Schedule rows (the catalogue of scheduled prompts; Temporal Schedules are their clocks) and their runs. A run's
 * outcome and delivery are read from the tick's messages, so they are never stale: the trigger message's status
 * says whether the turn ran, and the turn's reply says whether it was delivered.
 */
import type { Pool, Queryable } from './pool.ts';
import { withTransaction } from './pool.ts';
import type { ScheduleKind, ScheduleRunView } from '../domain/schedules.ts';

export type { ScheduleRunView } from '../domain/schedules.ts';

export interface ScheduleRow {
  id: string;
  session_id: string;
  prompt: string;
  kind: ScheduleKind;
  spec: string;
  timezone: string;
  paused: boolean;
  /** ISO 8601: the one instant of an `at` / `in` schedule. */
  run_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  'id, session_id, prompt, kind, spec, timezone, paused, run_at, created_by, created_at, updated_at';

type Row = Omit<ScheduleRow, 'created_at' | 'updated_at' | 'run_at'> & {
  created_at: Date;
  updated_at: Date;
  run_at: Date | null;
};
const toSchedule = (r: Row): ScheduleRow => ({
  ...r,
  run_at: r.run_at ? r.run_at.toISOString() : null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** A new schedule row. */
export interface NewSchedule {
  id: string;
  sessionId: string;
  prompt: string;
  kind: ScheduleKind;
  spec: string;
  timezone: string;
  paused: boolean;
  runAt: Date | null;
  createdBy: string | null;
}

/**
 * Inserts a schedule unless the session already holds `max`; the session row is locked while counting, so two
 * concurrent creations cannot both take the last place.
 * @returns the row, or null when the session is full
 */
export async function insertSchedule(pool: Pool, s: NewSchedule, max: number): Promise<ScheduleRow | null> {
  return withTransaction(pool, async (c) => {
    await c.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [s.sessionId]);
    const n = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM schedules WHERE session_id = $1', [
      s.sessionId,
    ]);
    if ((n.rows[0]?.n ?? 0) >= max) return null;
    const r = await c.query<Row>(
      `INSERT INTO schedules (id, session_id, prompt, kind, spec, timezone, paused, run_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [s.id, s.sessionId, s.prompt, s.kind, s.spec, s.timezone, s.paused, s.runAt, s.createdBy],
    );
    return toSchedule(r.rows[0] as Row);
  });
}

/** A session's schedules, oldest first. */
export async function listSchedules(q: Queryable, sessionId: string): Promise<ScheduleRow[]> {
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM schedules WHERE session_id = $1 ORDER BY created_at, id`,
    [sessionId],
  );
  return r.rows.map(toSchedule);
}

/** One schedule of a session, or null. */
export async function getSchedule(q: Queryable, sessionId: string, id: string): Promise<ScheduleRow | null> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE session_id = $1 AND id = $2`, [
    sessionId,
    id,
  ]);
  return r.rows[0] ? toSchedule(r.rows[0]) : null;
}

/** Changes a schedule's prompt, timing or pause state. @returns the new row, or null when it is gone */
export async function updateSchedule(
  q: Queryable,
  sessionId: string,
  id: string,
  change: Partial<Pick<NewSchedule, 'prompt' | 'kind' | 'spec' | 'timezone' | 'paused' | 'runAt'>>,
): Promise<ScheduleRow | null> {
  const cols: Record<string, unknown> = {
    prompt: change.prompt,
    kind: change.kind,
    spec: change.spec,
    timezone: change.timezone,
    paused: change.paused,
    run_at: change.runAt,
  };
  const set: string[] = [];
  const values: unknown[] = [sessionId, id];
  for (const [col, v] of Object.entries(cols)) {
    if (v === undefined) continue;
    values.push(v);
    set.push(`${col} = $${values.length}`);
  }
  set.push('updated_at = now()');
  const r = await q.query<Row>(
    `UPDATE schedules SET ${set.join(', ')} WHERE session_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    values,
  );
  return r.rows[0] ? toSchedule(r.rows[0]) : null;
}

/** Deletes a schedule and its runs. @returns whether it existed */
export async function deleteSchedule(q: Queryable, sessionId: string, id: string): Promise<boolean> {
  const r = await q.query('DELETE FROM schedules WHERE session_id = $1 AND id = $2', [sessionId, id]);
  return (r.rowCount ?? 0) > 0;
}

/** A schedule by id alone (the fired workflow knows its session too, but the row may be gone). */
export async function getScheduleById(q: Queryable, id: string): Promise<ScheduleRow | null> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE id = $1`, [id]);
  return r.rows[0] ? toSchedule(r.rows[0]) : null;
}

/**
 * Records a tick once: a second call for the same (schedule, scheduled time) keeps the first record, except that
 * a `fired` outcome replaces a `rejected` one (a retried action that got through).
 */
export async function recordRun(
  q: Queryable,
  run: {
    scheduleId: string;
    scheduledAt: Date;
    messageId: string;
    outcome: 'fired' | 'missed' | 'rejected';
    firedAt: Date | null;
    detail?: string;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO schedule_runs (schedule_id, scheduled_at, message_id, fired_at, outcome, detail)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (schedule_id, scheduled_at) DO UPDATE
       SET outcome = EXCLUDED.outcome, fired_at = EXCLUDED.fired_at, detail = EXCLUDED.detail
       WHERE schedule_runs.outcome = 'rejected' AND EXCLUDED.outcome = 'fired'`,
    [run.scheduleId, run.scheduledAt, run.messageId, run.firedAt, run.outcome, run.detail ?? null],
  );
}

/**
 * The newest runs of each of `scheduleIds` (at most `perSchedule` each, newest first), with the outcome of their
 * turns: the trigger message's status and whether the turn's reply (its assistant text) was delivered.
 */
export async function recentRuns(
  q: Queryable,
  scheduleIds: string[],
  perSchedule: number,
): Promise<Map<string, ScheduleRunView[]>> {
  const out = new Map<string, ScheduleRunView[]>(scheduleIds.map((id) => [id, []]));
  if (scheduleIds.length === 0) return out;
  const r = await q.query<{
    schedule_id: string;
    scheduled_at: Date;
    fired_at: Date | null;
    message_id: string;
    outcome: 'fired' | 'missed' | 'rejected';
    detail: string | null;
    status: string | null;
    delivered: boolean;
  }>(
    `SELECT x.schedule_id, x.scheduled_at, x.fired_at, x.message_id, x.outcome, x.detail, m.status,
            EXISTS (SELECT 1 FROM messages d WHERE d.turn_id = x.message_id AND d.role = 'assistant'
                      AND d.type = 'text' AND d.status = 'delivered')
              AND NOT EXISTS (SELECT 1 FROM messages p WHERE p.turn_id = x.message_id AND p.role = 'assistant'
                      AND p.type = 'text' AND p.status = 'pending') AS delivered
       FROM (SELECT r.*, row_number() OVER (PARTITION BY r.schedule_id ORDER BY r.scheduled_at DESC) AS n
               FROM schedule_runs r WHERE r.schedule_id = ANY($1)) x
       LEFT JOIN messages m ON m.id = x.message_id
      WHERE x.n <= $2
      ORDER BY x.schedule_id, x.scheduled_at DESC`,
    [scheduleIds, perSchedule],
  );
  for (const row of r.rows) {
    const outcome: ScheduleRunView['outcome'] =
      row.outcome !== 'fired'
        ? row.outcome
        : row.status === 'pending_agent' || row.status === null
          ? 'queued'
          : row.status === 'processing'
            ? 'running'
            : (row.status as 'processed' | 'interrupted' | 'error');
    out.get(row.schedule_id)?.push({
      scheduled_at: row.scheduled_at.toISOString(),
      fired_at: row.fired_at ? row.fired_at.toISOString() : null,
      turn_id: row.message_id,
      outcome,
      delivered: row.delivered,
      detail: row.detail,
    });
  }
  return out;
}

/** When the run before `scheduledAt` (of the same schedule) fired, or null when there is none or it did not fire. */
export async function previousFiredAt(
  q: Queryable,
  scheduleId: string,
  scheduledAt: Date,
): Promise<Date | null> {
  const r = await q.query<{ fired_at: Date | null }>(
    `SELECT fired_at FROM schedule_runs WHERE schedule_id = $1 AND scheduled_at < $2
      ORDER BY scheduled_at DESC LIMIT 1`,
    [scheduleId, scheduledAt],
  );
  return r.rows[0]?.fired_at ?? null;
}

/**
 * The zones a new schedule of the session falls back to, in order: the session's own (`sessions.timezone`) and
 * that of the principal that owns it (`principal_settings.timezone` through `session_owners`; chat sessions have
 * no owner). Each null when unset; both null for an unknown session.
 */
export async function sessionZones(
  q: Queryable,
  sessionId: string,
): Promise<{ session: string | null; principal: string | null }> {
  const r = await q.query<{ session: string | null; principal: string | null }>(
    `SELECT s.timezone AS session, p.timezone AS principal
       FROM sessions s
       LEFT JOIN session_owners o ON o.session_id = s.id
       LEFT JOIN principal_settings p ON p.principal = o.principal
      WHERE s.id = $1`,
    [sessionId],
  );
  return { session: r.rows[0]?.session ?? null, principal: r.rows[0]?.principal ?? null };
}

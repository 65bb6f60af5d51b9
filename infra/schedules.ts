/**
 * Scheduled prompts: one Temporal Schedule per job (`kesoku-schedule:<session>:<id>`, its action starts
 * `scheduledPromptWorkflow`), catalogued in Postgres (db/schedules.ts). The REST API, the model tools and the
 * `/schedules` chat command all go through {@link ScheduleService}; docs/schedules.md describes the behaviour.
 *
 * Policies: overlap `BUFFER_ONE` (a tick due while the previous firing is still on its way — a worker crash delayed
 * it — waits and fires after it; further ticks are dropped) and a catch-up window of
 * {@link SCHEDULE_LIMITS.catchupWindowS}. After an outage the buffered tick yields to the caught-up one
 * (activities/schedules.ts), so a missed stretch fires once.
 * Intervals are aligned to the creation time (the first run is one interval after it). One-time jobs are a
 * calendar spec at the exact UTC second with one remaining action.
 */
import { randomBytes } from 'node:crypto';
import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleSpec,
} from '@temporalio/client';
import { MONTHS } from '@temporalio/client';
import { ensureSession, getSession } from '../db/sessions.ts';
import type { Pool } from '../db/pool.ts';
import {
  deleteSchedule,
  getSchedule,
  insertSchedule,
  listSchedules,
  recentRuns,
  sessionZones,
  updateSchedule,
  type ScheduleRow,
} from '../db/schedules.ts';
import {
  SCHEDULE_LIMITS,
  canonicalZone,
  formatInZone,
  parseTiming,
  promptProblem,
  serverZone,
  temporalScheduleId,
  type ScheduleProblem,
  type ScheduleTiming,
  type ScheduleTimingInput,
  type ScheduleRunView,
  type ScheduleView,
} from '../domain/schedules.ts';
import type { Logger } from './logger.ts';

export { describeSchedule, type ScheduleRunView, type ScheduleView } from '../domain/schedules.ts';

/**
 * Workflow task timeout of a tick's workflow, in seconds: how long a task held by a killed worker waits before
 * another worker takes it. Well under {@link SCHEDULE_LIMITS.minEveryS}, so a crash never makes the next tick
 * overlap (and be skipped).
 */
export const TICK_TASK_TIMEOUT_S = 3;

/** How many recent runs a listing shows per schedule. */
export const RUNS_SHOWN = 5;

export type ScheduleErrorKind =
  'invalid' | 'not_found' | 'too_many' | 'conflict' | 'forbidden' | 'unavailable';

/**
 * A refused schedule operation: `invalid` (400, `field` names the field), `not_found` (404), `too_many` (429),
 * `conflict` (409: a one-time schedule that already ran cannot be paused or triggered), `forbidden` (a turn
 * started by a schedule may not create one), `unavailable` (503: Temporal did not answer; nothing changed).
 */
export class ScheduleError extends Error {
  readonly kind: ScheduleErrorKind;
  readonly field: ScheduleProblem['field'];
  constructor(
    kind: ScheduleErrorKind,
    message: string,
    field: ScheduleProblem['field'] = '',
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ScheduleError';
    this.kind = kind;
    this.field = field;
  }
}

/** A creation request (REST body, tool arguments, chat command). */
export interface ScheduleCreateInput extends ScheduleTimingInput {
  prompt: string;
  timezone?: string;
  paused?: boolean;
}

/** A change: pause state, prompt, or a new timing (one of cron/every/at/in) and/or zone. */
export interface ScheduleChangeInput extends ScheduleTimingInput {
  prompt?: string;
  timezone?: string;
  paused?: boolean;
}

export interface ScheduleServiceOptions {
  client: Client;
  pool: Pool;
  /** Task queue of the workers that run `scheduledPromptWorkflow` (the session task queue). */
  taskQueue: string;
  logger: Logger;
  /** The zone of schedules without one, when the session has none either (KESOKU_TIMEZONE); default the server's. */
  defaultZone?: string;
  /** The chatbot of a session a schedule creates before its first message. Default `api`. */
  chatbotId?: string;
  /** Clock, for tests. */
  now?: () => Date;
}

const toTemporalUtcCalendar = (d: Date) => ({
  year: d.getUTCFullYear(),
  month: MONTHS[d.getUTCMonth()] ?? 'JANUARY',
  dayOfMonth: d.getUTCDate(),
  hour: d.getUTCHours(),
  minute: d.getUTCMinutes(),
  second: d.getUTCSeconds(),
});

export class ScheduleService {
  private readonly o: ScheduleServiceOptions;
  constructor(opts: ScheduleServiceOptions) {
    this.o = opts;
  }

  private now(): Date {
    return this.o.now?.() ?? new Date();
  }

  /**
   * The zone a schedule gets: given, else the session's, else its owning principal's (`PATCH /v1/me`), else the
   * configured default, else the server's.
   */
  private async zoneFor(sessionId: string, given: string | undefined): Promise<string> {
    if (given !== undefined) {
      const z = canonicalZone(given);
      if (!z)
        throw new ScheduleError(
          'invalid',
          `timezone "${String(given)}" is not a known IANA time zone`,
          'timezone',
        );
      return z;
    }
    const zones = await sessionZones(this.o.pool, sessionId);
    return (
      canonicalZone(zones.session) ??
      canonicalZone(zones.principal) ??
      canonicalZone(this.o.defaultZone) ??
      serverZone()
    );
  }

  private timing(input: ScheduleTimingInput, zone: string): ScheduleTiming {
    const r = parseTiming(input, zone, this.now());
    if ('problem' in r) throw new ScheduleError('invalid', r.problem.message, r.problem.field);
    return r.timing;
  }

  private spec(t: ScheduleTiming, zone: string, anchor: Date): ScheduleSpec {
    switch (t.kind) {
      case 'cron':
        return { cronExpressions: [t.spec], timezone: zone };
      case 'every': {
        const every = t.everyS ?? 60;
        const offset = Math.floor(anchor.getTime() / 1000) % every;
        return { intervals: [{ every: `${every}s`, offset: `${offset}s` }], timezone: zone };
      }
      case 'at':
      case 'in':
        return { calendars: [toTemporalUtcCalendar(t.runAt ?? anchor)], timezone: 'UTC' };
    }
  }

  private options(sessionId: string, id: string, t: ScheduleTiming, zone: string, paused: boolean) {
    return {
      scheduleId: temporalScheduleId(sessionId, id),
      spec: this.spec(t, zone, this.now()),
      action: {
        type: 'startWorkflow' as const,
        workflowType: 'scheduledPromptWorkflow',
        workflowId: temporalScheduleId(sessionId, id),
        taskQueue: this.o.taskQueue,
        args: [{ sessionId, scheduleId: id }],
        staticSummary: `scheduled prompt ${id} of session ${sessionId}`,
        // A worker killed while firing gives its task back this fast (the firing is a local activity in it).
        workflowTaskTimeout: `${TICK_TASK_TIMEOUT_S}s`,
      },
      policies: {
        overlap: ScheduleOverlapPolicy.BUFFER_ONE,
        catchupWindow: `${SCHEDULE_LIMITS.catchupWindowS}s`,
      },
      state: {
        paused,
        note: `Kesoku scheduled prompt ${id} (session ${sessionId}, ${t.kind} ${t.spec}, ${zone})`,
        ...(t.kind === 'at' || t.kind === 'in' ? { remainingActions: 1 } : {}),
      },
    } satisfies ScheduleOptions;
  }

  /**
   * Creates a schedule in `sessionId` (creating the session row when the session has no message yet).
   * @throws ScheduleError invalid (naming the field) | too_many | unavailable
   */
  async create(
    sessionId: string,
    input: ScheduleCreateInput,
    createdBy: string | null,
  ): Promise<ScheduleView> {
    const p = promptProblem(input.prompt);
    if (p) throw new ScheduleError('invalid', p.message, p.field);
    if (input.paused !== undefined && typeof input.paused !== 'boolean')
      throw new ScheduleError('invalid', 'paused must be true or false', 'paused');
    const zone = await this.zoneFor(sessionId, input.timezone);
    const t = this.timing(input, zone);
    if (!(await getSession(this.o.pool, sessionId)))
      await ensureSession(this.o.pool, {
        id: sessionId,
        chatbotId: this.o.chatbotId ?? 'api',
        channelId: sessionId,
      });
    const id = `sch-${randomBytes(6).toString('hex')}`;
    const paused = input.paused ?? false;
    const row = await insertSchedule(
      this.o.pool,
      {
        id,
        sessionId,
        prompt: input.prompt,
        kind: t.kind,
        spec: t.spec,
        timezone: zone,
        paused,
        runAt: t.runAt ?? null,
        createdBy,
      },
      SCHEDULE_LIMITS.perSession,
    );
    if (!row)
      throw new ScheduleError(
        'too_many',
        `this session already has ${SCHEDULE_LIMITS.perSession} schedules; delete one first`,
      );
    try {
      await this.o.client.schedule.create(this.options(sessionId, id, t, zone, paused));
    } catch (err) {
      await deleteSchedule(this.o.pool, sessionId, id);
      throw this.temporalError(err, t.kind);
    }
    this.o.logger.info({ sessionId, scheduleId: id, kind: t.kind, timezone: zone }, 'schedule created');
    return this.view(row, new Map());
  }

  /** A session's schedules with their next run and recent runs. */
  async list(sessionId: string): Promise<ScheduleView[]> {
    const rows = await listSchedules(this.o.pool, sessionId);
    const runs = await recentRuns(
      this.o.pool,
      rows.map((r) => r.id),
      RUNS_SHOWN,
    );
    return Promise.all(rows.map((r) => this.view(r, runs)));
  }

  /** One schedule. @throws ScheduleError not_found */
  async get(sessionId: string, id: string): Promise<ScheduleView> {
    const row = await this.require(sessionId, id);
    return this.view(row, await recentRuns(this.o.pool, [id], RUNS_SHOWN));
  }

  /**
   * Changes a schedule in place (same id): pause or resume, a new prompt, a new timing or zone.
   * @throws ScheduleError invalid | not_found | conflict (resuming a one-time schedule that ran) | unavailable
   */
  async update(sessionId: string, id: string, change: ScheduleChangeInput): Promise<ScheduleView> {
    const row = await this.require(sessionId, id);
    if (change.prompt !== undefined) {
      const p = promptProblem(change.prompt);
      if (p) throw new ScheduleError('invalid', p.message, p.field);
    }
    if (change.paused !== undefined && typeof change.paused !== 'boolean')
      throw new ScheduleError('invalid', 'paused must be true or false', 'paused');
    const retimed = ['cron', 'every', 'at', 'in'].some(
      (k) => change[k as keyof ScheduleTimingInput] !== undefined,
    );
    const zone =
      change.timezone !== undefined ? await this.zoneFor(sessionId, change.timezone) : row.timezone;
    const t: ScheduleTiming | null = retimed
      ? this.timing(change, zone)
      : change.timezone !== undefined
        ? this.timing(this.asInput(row), zone)
        : null;
    const paused = change.paused ?? row.paused;
    if (!t && change.paused === false && row.run_at && new Date(row.run_at) <= this.now())
      throw new ScheduleError(
        'conflict',
        `this one-time schedule already ran; give a new at or in to run it again`,
      );
    const handle = this.o.client.schedule.getHandle(temporalScheduleId(sessionId, id));
    try {
      if (t) {
        await handle.update(() => this.options(sessionId, id, t, zone, paused));
      } else if (change.paused !== undefined && change.paused !== row.paused) {
        if (change.paused) await handle.pause('paused through Kesoku');
        else await handle.unpause('resumed through Kesoku');
      }
    } catch (err) {
      throw this.temporalError(err, t?.kind ?? row.kind);
    }
    const updated = await updateSchedule(this.o.pool, sessionId, id, {
      ...(change.prompt !== undefined ? { prompt: change.prompt } : {}),
      ...(t ? { kind: t.kind, spec: t.spec, runAt: t.runAt ?? null, timezone: zone } : {}),
      paused,
    });
    if (!updated) throw new ScheduleError('not_found', `there is no schedule ${id} in this session`);
    this.o.logger.info({ sessionId, scheduleId: id, retimed: t !== null, paused }, 'schedule updated');
    return this.get(sessionId, id);
  }

  /** Deletes a schedule (its Temporal Schedule first, then the row). @throws ScheduleError not_found | unavailable */
  async delete(sessionId: string, id: string): Promise<void> {
    await this.require(sessionId, id);
    try {
      await this.o.client.schedule.getHandle(temporalScheduleId(sessionId, id)).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw this.temporalError(err, null);
    }
    await deleteSchedule(this.o.pool, sessionId, id);
    this.o.logger.info({ sessionId, scheduleId: id }, 'schedule deleted');
  }

  /** Fires a schedule now (also a paused one), besides its own timing. @throws ScheduleError not_found | unavailable */
  async trigger(sessionId: string, id: string): Promise<void> {
    await this.require(sessionId, id);
    try {
      // ALLOW_ALL: a manual run is never skipped because a tick is firing.
      await this.o.client.schedule
        .getHandle(temporalScheduleId(sessionId, id))
        .trigger(ScheduleOverlapPolicy.ALLOW_ALL);
    } catch (err) {
      throw this.temporalError(err, null);
    }
    this.o.logger.info({ sessionId, scheduleId: id }, 'schedule triggered');
  }

  /** Deletes every schedule of a session (the session is being removed). */
  async deleteAll(sessionId: string): Promise<number> {
    const rows = await listSchedules(this.o.pool, sessionId);
    for (const r of rows) await this.delete(sessionId, r.id);
    return rows.length;
  }

  private async require(sessionId: string, id: string): Promise<ScheduleRow> {
    const row = typeof id === 'string' ? await getSchedule(this.o.pool, sessionId, id) : null;
    if (!row) throw new ScheduleError('not_found', `there is no schedule ${String(id)} in this session`);
    return row;
  }

  private asInput(row: ScheduleRow): ScheduleTimingInput {
    if (row.kind === 'cron') return { cron: row.spec };
    if (row.kind === 'every') return { every: row.spec };
    return { at: row.run_at ?? row.spec };
  }

  /**
   * When a schedule fires next, as Temporal describes it; null when it is paused, used up or has no next time.
   * Temporal computes a schedule's future action times in a task of its own, so right after a create (longer on
   * a busy server) a describe can come back without them: a cron or interval schedule is described again for up
   * to about 1 s, and a one-time schedule that has not run takes its instant from its row.
   */
  private async nextRun(row: ScheduleRow, ran: boolean): Promise<Date | null> {
    const oneTime = row.kind === 'at' || row.kind === 'in';
    const handle = this.o.client.schedule.getHandle(temporalScheduleId(row.session_id, row.id));
    for (let attempt = 1; ; attempt++) {
      try {
        const d = await handle.describe();
        if (d.state.paused || d.state.remainingActions === 0) return null;
        const next = d.info.nextActionTimes[0];
        if (next) return next;
      } catch (err) {
        this.o.logger.warn({ scheduleId: row.id, err: String(err) }, 'schedule not described');
        break;
      }
      if (oneTime || attempt === 5) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    return oneTime && !row.paused && !ran && row.run_at ? new Date(row.run_at) : null;
  }

  private async view(row: ScheduleRow, runs: Map<string, ScheduleRunView[]>): Promise<ScheduleView> {
    const next = await this.nextRun(row, (runs.get(row.id) ?? []).length > 0);
    return {
      id: row.id,
      session_id: row.session_id,
      prompt: row.prompt,
      kind: row.kind,
      spec: row.spec,
      timezone: row.timezone,
      paused: row.paused,
      next_run_at: next ? formatInZone(next, row.timezone) : null,
      created_at: formatInZone(new Date(row.created_at), row.timezone),
      runs: (runs.get(row.id) ?? []).map((r) => ({
        ...r,
        scheduled_at: formatInZone(new Date(r.scheduled_at), row.timezone),
        fired_at: r.fired_at ? formatInZone(new Date(r.fired_at), row.timezone) : null,
      })),
    };
  }

  /** Temporal's refusal of a spec is the caller's (400 on the timing field); anything else is an outage. */
  private temporalError(err: unknown, kind: ScheduleTiming['kind'] | null): ScheduleError {
    if (err instanceof ScheduleError) return err;
    if (err instanceof ScheduleNotFoundError)
      return new ScheduleError('not_found', 'the schedule is gone from Temporal', '', { cause: err });
    // The SDK turns the server's INVALID_ARGUMENT on a schedule into a TypeError with the server's text.
    const code = (err as { code?: unknown })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
    if ((err instanceof TypeError || code === 3) && kind)
      return new ScheduleError('invalid', `${kind} is not accepted by Temporal: ${shortMessage(err)}`, kind, {
        cause: err,
      });
    this.o.logger.warn({ err: String(err) }, 'schedule operation failed');
    return new ScheduleError('unavailable', 'Temporal did not answer; nothing was changed', '', {
      cause: err,
    });
  }
}

/** A gRPC error's own text, without the status prefix, shortened. */
function shortMessage(err: unknown): string {
  const text = String((err as { details?: unknown })?.details ?? (err as Error)?.message ?? err);
  return text.replace(/^\d+ [A-Z_]+: /, '').slice(0, 200);
}

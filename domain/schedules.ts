/**
 * Scheduled prompts as data: the timing kinds (`cron`, `every`, `at`, `in`), their validation with the field a
 * problem concerns, time zones (validated and canonicalised, instants shown at the zone's wall time), the id of
 * the cron message one tick puts into a session, and the limits. docs/schedules.md describes the behaviour.
 *
 * Pure module (no I/O, only `Intl`): the REST API, the model tools and the chat command share it.
 */
import { LIMITS, textProblem, utf8Length } from './inbound.ts';

/** The ways a schedule's timing is given. */
export const SCHEDULE_KINDS = ['cron', 'every', 'at', 'in'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** Limits of scheduled prompts. Durations carry their unit in the name. */
export const SCHEDULE_LIMITS = {
  /** Schedules one session may hold (a one-time schedule that has fired still counts until it is deleted). */
  perSession: 20,
  /** Shortest `every` interval, in seconds. */
  minEveryS: 10,
  /** Longest `every` interval, in seconds (one year). */
  maxEveryS: 366 * 86_400,
  /** Shortest `in` delay, in seconds. */
  minInS: 1,
  /** Latest one-time run, in seconds from now (five years). */
  maxAheadS: 5 * 366 * 86_400,
  /** Longest cron expression, in characters. */
  maxCronLength: 200,
  /** Prompt size, in bytes of UTF-8: the inbound message limit. */
  maxPromptBytes: LIMITS.maxContentBytes,
  /**
   * How late a tick may still fire, in seconds: a tick missed while Temporal or every worker was down fires once
   * when they are back if that is within this window, else it is recorded `missed` (Temporal's catch-up window and
   * the fired workflow's own check both use it).
   */
  catchupWindowS: 600,
} as const;

/** The sender of a scheduled prompt (docs/message-model.md §3 "定时任务消息"). */
export const CRON_SENDER = 'Cronjob';

/** A timing as a client gives it: exactly one of `cron`, `every`, `at`, `in`. */
export interface ScheduleTimingInput {
  cron?: string;
  /** An interval: `"10s"`, `"5m"`, `"1h30m"`, `"1d"`, or a number of seconds. */
  every?: string | number;
  /** An ISO 8601 date-time; without an offset it is a wall time in the schedule's zone. */
  at?: string;
  /** A delay: a number of minutes, or `"90s"`, `"5m"`, `"2h"`. */
  in?: string | number;
}

/** What is wrong with a schedule request: the field it concerns and the sentence naming it. */
export interface ScheduleProblem {
  field: 'prompt' | 'cron' | 'every' | 'at' | 'in' | 'timezone' | 'paused' | '';
  message: string;
}

/** A validated timing, ready for Temporal. `runAt` is set for one-time kinds; `everyS` for `every`. */
export interface ScheduleTiming {
  kind: ScheduleKind;
  /** The timing as stored and shown: the cron expression, the interval, the ISO instant, the delay. */
  spec: string;
  /** For `at` / `in`: the instant it fires at (whole seconds). */
  runAt?: Date;
  /** For `every`: the interval in seconds. */
  everyS?: number;
}

const problem = (field: ScheduleProblem['field'], message: string): ScheduleProblem => ({ field, message });

/**
 * The canonical IANA name of `zone` (`asia/tokyo` → `Asia/Tokyo`), or null when it is not a zone this runtime
 * knows. Offsets such as `+09:00` are refused: a zone name keeps daylight-saving rules, an offset does not.
 */
export function canonicalZone(zone: unknown): string | null {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return null;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The zone of this process (`TZ`, else the system's), `UTC` when it has none. */
export function serverZone(): string {
  return canonicalZone(Intl.DateTimeFormat().resolvedOptions().timeZone) ?? 'UTC';
}

/** Wall-clock fields of `date` in `zone`. */
function wallFields(date: Date, zone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? '0');
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** The offset of `zone` from UTC at `date`, in minutes (Tokyo: +540). */
export function zoneOffsetMinutes(date: Date, zone: string): number {
  const f = wallFields(date, zone);
  const asUtc = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);
  return Math.round((asUtc - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
}

/**
 * `date` at the wall time of `zone`, ISO 8601 with the zone's offset: `2026-12-01T09:00:00+09:00` (whole
 * seconds; `Z` is never used, so the offset always shows).
 */
export function formatInZone(date: Date, zone: string): string {
  const f = wallFields(date, zone);
  const off = zoneOffsetMinutes(date, zone);
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
  const sign = off < 0 ? '-' : '+';
  return (
    `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}` +
    `${sign}${pad(Math.trunc(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`
  );
}

/**
 * The instant of a wall time in `zone`. In a daylight-saving gap (a wall time that does not exist) the time is
 * moved forward by the gap (02:30 on a spring-forward night where 02:00 jumps to 03:00 is 03:30); in a repeated
 * hour (autumn) the earlier instant is taken.
 */
export function wallTimeToInstant(
  w: { year: number; month: number; day: number; hour: number; minute: number; second: number },
  zone: string,
): Date {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  // The zone's offsets a day before and a day after: around a change they differ, elsewhere they are one.
  const before = zoneOffsetMinutes(new Date(asUtc - 86_400_000), zone) * 60_000;
  const after = zoneOffsetMinutes(new Date(asUtc + 86_400_000), zone) * 60_000;
  const shows = (t: number) => zoneOffsetMinutes(new Date(t), zone) * 60_000 === asUtc - t;
  const valid = [asUtc - before, asUtc - after].filter(shows);
  // None valid: the wall time is in a gap; read with the offset before it, it lands that much later.
  return new Date(valid.length > 0 ? Math.min(...valid) : asUtc - before);
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds in a duration like `90s`, `5m`, `1h30m`, `1d`; null when it is not one. */
export function parseDurationS(text: string): number | null {
  const s = text.trim().toLowerCase();
  if (!/^(\d{1,9}[smhd])+$/.test(s)) return null;
  let total = 0;
  for (const [, n, unit] of s.matchAll(/(\d+)([smhd])/g))
    total += Number(n) * (DURATION_UNITS[unit ?? 's'] ?? 1);
  return total;
}

/** A duration in the shortest exact form: `90` → `1m30s`, `3600` → `1h`. */
export function formatDurationS(totalS: number): string {
  let rest = totalS;
  let out = '';
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

/** What is wrong with a prompt (empty, over the message limit, not storable), or null. */
export function promptProblem(prompt: unknown): ScheduleProblem | null {
  if (typeof prompt !== 'string' || prompt.trim().length === 0) return problem('prompt', 'prompt is empty');
  if (utf8Length(prompt) > SCHEDULE_LIMITS.maxPromptBytes)
    return problem('prompt', `prompt is over ${SCHEDULE_LIMITS.maxPromptBytes} bytes (the message limit)`);
  const bad = textProblem(prompt);
  if (bad) return problem('prompt', `prompt ${bad}`);
  return null;
}

const ISO_WITH_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?$/;

/**
 * Validates a timing. `now` is the current time, `zone` the schedule's canonical zone (for `at` without an
 * offset). One-time instants are rounded up to the next whole second (Temporal matches whole seconds).
 * @returns the timing, or the problem naming its field
 */
export function parseTiming(
  input: ScheduleTimingInput,
  zone: string,
  now: Date,
): { timing: ScheduleTiming } | { problem: ScheduleProblem } {
  const given = SCHEDULE_KINDS.filter((k) => input[k] !== undefined && input[k] !== null);
  if (given.length !== 1)
    return {
      problem: problem(
        given[1] ?? '',
        given.length === 0
          ? 'give one of cron, every, at or in'
          : `give only one of cron, every, at or in (got ${given.join(', ')})`,
      ),
    };
  const kind = given[0] as ScheduleKind;
  const fail = (message: string) => ({ problem: problem(kind, message) });
  const oneTime = (runAtMs: number, spec: string) => {
    const runAt = new Date(Math.ceil(runAtMs / 1000) * 1000);
    if (runAt.getTime() <= now.getTime())
      return fail(`${kind} is in the past (${formatInZone(runAt, zone)})`);
    if (runAt.getTime() - now.getTime() > SCHEDULE_LIMITS.maxAheadS * 1000)
      return fail(`${kind} is more than five years ahead`);
    return { timing: { kind, spec, runAt } };
  };
  switch (kind) {
    case 'cron': {
      const cron = input.cron;
      if (typeof cron !== 'string' || cron.trim().length === 0) return fail('cron must be a cron expression');
      const text = cron.trim().replace(/\s+/g, ' ');
      if (text.length > SCHEDULE_LIMITS.maxCronLength)
        return fail(`cron is over ${SCHEDULE_LIMITS.maxCronLength} characters`);
      if (/^(CRON_)?TZ=/i.test(text)) return fail('cron must not name a zone: give it in timezone');
      const fields = text.split(' ');
      const macro = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/i.test(text);
      if (!macro && (fields.length < 5 || fields.length > 7))
        return fail(
          'cron must have 5 fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5"',
        );
      if (!macro && fields.some((f) => !/^[A-Za-z0-9*?/,#LW-]+$/.test(f)))
        return fail(`cron has an invalid field in "${text}"`);
      return { timing: { kind, spec: text } };
    }
    case 'every': {
      const v = input.every;
      const s = typeof v === 'number' ? (Number.isInteger(v) ? v : null) : parseDurationS(String(v));
      if (s === null) return fail('every must be an interval such as "10s", "5m", "1h30m" or "1d"');
      if (s < SCHEDULE_LIMITS.minEveryS) return fail(`every must be at least ${SCHEDULE_LIMITS.minEveryS}s`);
      if (s > SCHEDULE_LIMITS.maxEveryS) return fail('every must be at most 366d');
      return { timing: { kind, spec: formatDurationS(s), everyS: s } };
    }
    case 'in': {
      const v = input.in;
      const s =
        typeof v === 'number'
          ? Number.isFinite(v) && v > 0
            ? Math.round(v * 60)
            : null
          : /^\d+(\.\d+)?$/.test(String(v).trim())
            ? Math.round(Number(String(v).trim()) * 60)
            : parseDurationS(String(v));
      if (s === null) return fail('in must be a number of minutes, or a delay such as "90s", "5m" or "2h"');
      if (s < SCHEDULE_LIMITS.minInS) return fail(`in must be at least ${SCHEDULE_LIMITS.minInS}s`);
      return oneTime(now.getTime() + s * 1000, formatDurationS(s));
    }
    case 'at': {
      const v = input.at;
      if (typeof v !== 'string') return fail('at must be an ISO 8601 date-time, e.g. "2026-12-24T09:00"');
      const text = v.trim();
      if (ISO_WITH_OFFSET.test(text) && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) {
        const t = Date.parse(text.replace(' ', 'T'));
        if (Number.isNaN(t)) return fail(`at is not a valid date-time: "${text}"`);
        return oneTime(t, new Date(Math.ceil(t / 1000) * 1000).toISOString());
      }
      const m = ISO_LOCAL.exec(text);
      if (!m)
        return fail('at must be an ISO 8601 date-time, e.g. "2026-12-24T09:00" or "2026-12-24T09:00+09:00"');
      const [year, month, day, hour, minute, second] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
      if (
        probe.getUTCFullYear() !== year ||
        probe.getUTCMonth() !== month - 1 ||
        probe.getUTCDate() !== day ||
        hour > 23 ||
        minute > 59 ||
        second > 59
      )
        return fail(`at is not a valid date-time: "${text}"`);
      const instant = wallTimeToInstant({ year, month, day, hour, minute, second }, zone);
      return oneTime(instant.getTime(), instant.toISOString());
    }
  }
}

/**
 * The message id of one tick: `cron.<scheduleId>.<yyyymmddThhmmssZ>` (a valid client message id, without `:`).
 * The scheduled time makes it the same for every retry of that tick's action, so the session admits it once.
 */
export function tickMessageId(scheduleId: string, scheduledAt: Date): string {
  const stamp = scheduledAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `cron.${scheduleId}.${stamp}`;
}

/** Whether a message id is a tick's ({@link tickMessageId}). */
export function isTickMessageId(id: string): boolean {
  return /^cron\.[A-Za-z0-9_-]+\.\d{8}T\d{6}Z$/.test(id);
}

/** Schedule ids Kesoku gives: `sch-` and 12 hex digits. */
export const SCHEDULE_ID_PATTERN = /^sch-[0-9a-f]{12}$/;

/** The Temporal Schedule id of a job: it names the session. */
export function temporalScheduleId(sessionId: string, scheduleId: string): string {
  return `kesoku-schedule:${sessionId}:${scheduleId}`;
}

/** One fired (or missed) tick, with what became of its turn. */
export interface ScheduleRunView {
  /** ISO 8601: the tick's scheduled time. */
  scheduled_at: string;
  /** ISO 8601: when the session accepted the prompt; null when it was not fired. */
  fired_at: string | null;
  /** The cron prompt's message id, which is also its turn's id. */
  turn_id: string;
  /**
   * `queued` (waiting behind another turn), `running`, `processed`, `interrupted`, `error`; `missed` (later
   * than the catch-up window) and `rejected` (the session refused it) for ticks that put nothing in.
   */
  outcome: 'queued' | 'running' | 'processed' | 'interrupted' | 'error' | 'missed' | 'rejected';
  /** True once the turn's reply reached the channel. */
  delivered: boolean;
  detail: string | null;
}

/** A schedule as the API, the tools and the chat command show it. Times are ISO 8601 in the schedule's zone. */
export interface ScheduleView {
  id: string;
  session_id: string;
  prompt: string;
  kind: ScheduleKind;
  /** The timing as given: a cron expression, an interval, an instant, a delay. */
  spec: string;
  timezone: string;
  paused: boolean;
  /** The next run at the zone's wall time, or null (paused, or a one-time schedule that ran). */
  next_run_at: string | null;
  created_at: string;
  /** The newest runs first (at most 5). */
  runs: ScheduleRunView[];
}

/**
 * One line about a schedule, for the model's tools and the `/schedules` chat command:
 * `sch-… · every 10s (Asia/Tokyo) · next 2026-12-01T09:00:00+09:00 · last processed, delivered · "prompt…"`.
 */
export function describeSchedule(v: ScheduleView): string {
  const timing = v.kind === 'in' || v.kind === 'at' ? `once (${v.kind} ${v.spec})` : `${v.kind} ${v.spec}`;
  const next = v.paused ? 'paused' : v.next_run_at ? `next ${v.next_run_at}` : 'no next run';
  const last = v.runs[0];
  const lastText = last
    ? ` · last ${last.scheduled_at}: ${last.outcome}${last.delivered ? ', delivered' : ''}`
    : '';
  const prompt = Array.from(v.prompt.replace(/\s+/g, ' '));
  const shown = prompt.length > 60 ? `${prompt.slice(0, 59).join('')}…` : prompt.join('');
  return `${v.id} · ${timing} (${v.timezone}) · ${next}${lastText} · "${shown}"`;
}

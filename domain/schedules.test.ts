// domain/schedules.ts: the timing kinds and their refusals (naming the field), time zones (canonical names, wall
// times, offsets, daylight-saving gaps and repeated hours), durations, prompts, tick ids and the one-line summary.
import { describe, expect, it } from 'vitest';
import {
  SCHEDULE_LIMITS,
  canonicalZone,
  describeSchedule,
  formatDurationS,
  formatInZone,
  isTickMessageId,
  parseDurationS,
  parseTiming,
  promptProblem,
  tickMessageId,
  temporalScheduleId,
  wallTimeToInstant,
  zoneOffsetMinutes,
  type ScheduleTimingInput,
  type ScheduleView,
} from './schedules.ts';

const NOW = new Date('2026-12-01T00:00:00.200Z');

/** The timing of `input`, failing the test when it is refused. */
function timing(input: ScheduleTimingInput, zone = 'UTC', now = NOW) {
  const r = parseTiming(input, zone, now);
  if ('problem' in r) throw new Error(`refused: ${r.problem.message}`);
  return r.timing;
}

/** The problem of `input`, failing the test when it is accepted. */
function refusal(input: ScheduleTimingInput, zone = 'UTC', now = NOW) {
  const r = parseTiming(input, zone, now);
  if ('timing' in r) throw new Error(`accepted: ${JSON.stringify(r.timing)}`);
  return r.problem;
}

const wall = (y: number, mo: number, d: number, h: number, mi: number, s = 0) => ({
  year: y,
  month: mo,
  day: d,
  hour: h,
  minute: mi,
  second: s,
});

describe('time zones', () => {
  it('canonicalises IANA names whatever their case, and follows links', () => {
    expect(canonicalZone('asia/tokyo')).toBe('Asia/Tokyo');
    expect(canonicalZone('AMERICA/NEW_YORK')).toBe('America/New_York');
    expect(canonicalZone('utc')).toBe('UTC');
    expect(canonicalZone('US/Pacific')).toBe('America/Los_Angeles');
    expect(canonicalZone('Etc/GMT+9')).toBe('Etc/GMT+9');
  });

  it('refuses offsets, unknown names, empty, over-long and non-string zones', () => {
    for (const bad of [
      '+09:00',
      '-0500',
      'UTC+9',
      'GMT+09:00',
      'Mars/Olympus',
      'Asia/Tokio',
      '',
      ' Asia/Tokyo',
    ])
      expect(canonicalZone(bad), bad).toBeNull();
    expect(canonicalZone(`Europe/${'x'.repeat(64)}`)).toBeNull();
    for (const bad of [undefined, null, 9, {}]) expect(canonicalZone(bad)).toBeNull();
  });

  it('gives the offset in minutes, with daylight saving', () => {
    expect(zoneOffsetMinutes(new Date('2026-12-01T00:00:00Z'), 'Asia/Tokyo')).toBe(540);
    expect(zoneOffsetMinutes(new Date('2026-07-01T00:00:00Z'), 'Europe/Berlin')).toBe(120);
    expect(zoneOffsetMinutes(new Date('2026-12-01T00:00:00Z'), 'Europe/Berlin')).toBe(60);
    expect(zoneOffsetMinutes(new Date('2026-12-01T00:00:00Z'), 'America/St_Johns')).toBe(-210);
    expect(zoneOffsetMinutes(new Date('2026-12-01T00:00:00Z'), 'UTC')).toBe(0);
  });

  it("formats an instant at the zone's wall time with its offset, whole seconds, never Z", () => {
    const t = new Date('2026-12-01T00:30:00.789Z');
    expect(formatInZone(t, 'Asia/Tokyo')).toBe('2026-12-01T09:30:00+09:00');
    expect(formatInZone(t, 'America/New_York')).toBe('2026-11-30T19:30:00-05:00');
    expect(formatInZone(t, 'Asia/Kolkata')).toBe('2026-12-01T06:00:00+05:30');
    expect(formatInZone(t, 'America/St_Johns')).toBe('2026-11-30T21:00:00-03:30');
    expect(formatInZone(t, 'UTC')).toBe('2026-12-01T00:30:00+00:00');
    expect(formatInZone(new Date('2026-07-01T12:00:00Z'), 'Europe/Berlin')).toBe('2026-07-01T14:00:00+02:00');
    // Midnight is hour 00, not 24.
    expect(formatInZone(new Date('2026-12-01T15:00:00Z'), 'Asia/Tokyo')).toBe('2026-12-02T00:00:00+09:00');
  });

  it('finds the instant of a wall time, also across a change of offset', () => {
    expect(wallTimeToInstant(wall(2026, 12, 24, 9, 0), 'Asia/Tokyo').toISOString()).toBe(
      '2026-12-24T00:00:00.000Z',
    );
    expect(wallTimeToInstant(wall(2026, 7, 1, 14, 0), 'Europe/Berlin').toISOString()).toBe(
      '2026-07-01T12:00:00.000Z',
    );
    expect(wallTimeToInstant(wall(2026, 1, 1, 0, 0), 'America/New_York').toISOString()).toBe(
      '2026-01-01T05:00:00.000Z',
    );
  });

  it('moves a wall time in a spring-forward gap forward by the gap', () => {
    // 2026-03-29 in Berlin: 02:00 CET is 03:00 CEST; 02:30 does not exist and becomes 03:30 CEST.
    expect(wallTimeToInstant(wall(2026, 3, 29, 2, 30), 'Europe/Berlin').toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    // 2026-03-08 in New York: 02:00 EST is 03:00 EDT; 02:30 becomes 03:30 EDT.
    expect(wallTimeToInstant(wall(2026, 3, 8, 2, 30), 'America/New_York').toISOString()).toBe(
      '2026-03-08T07:30:00.000Z',
    );
  });

  it('takes the earlier instant of a wall time in a repeated autumn hour', () => {
    // 2026-10-25 in Berlin: 02:30 is 00:30Z (CEST) and again 01:30Z (CET).
    expect(wallTimeToInstant(wall(2026, 10, 25, 2, 30), 'Europe/Berlin').toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    // 2026-11-01 in New York: 01:30 is 05:30Z (EDT) and again 06:30Z (EST).
    expect(wallTimeToInstant(wall(2026, 11, 1, 1, 30), 'America/New_York').toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    );
  });
});

describe('durations', () => {
  it('reads s, m, h and d, combined, in any case', () => {
    expect(parseDurationS('90s')).toBe(90);
    expect(parseDurationS('5m')).toBe(300);
    expect(parseDurationS('1h30m')).toBe(5400);
    expect(parseDurationS('1D')).toBe(86_400);
    expect(parseDurationS(' 2h ')).toBe(7200);
    for (const bad of ['', '10', '1.5h', '1 h', '-5m', '5w', 'h', 'soon'])
      expect(parseDurationS(bad), bad).toBeNull();
  });

  it('writes the shortest exact form', () => {
    expect(formatDurationS(90)).toBe('1m30s');
    expect(formatDurationS(3600)).toBe('1h');
    expect(formatDurationS(90_061)).toBe('1d1h1m1s');
    expect(formatDurationS(0)).toBe('0s');
  });
});

describe('parseTiming', () => {
  it('wants exactly one of cron, every, at or in, naming the second one given', () => {
    expect(refusal({})).toEqual({ field: '', message: 'give one of cron, every, at or in' });
    expect(refusal({ cron: '* * * * *', every: '1h' })).toEqual({
      field: 'every',
      message: 'give only one of cron, every, at or in (got cron, every)',
    });
    expect(refusal({ at: '2027-01-01T00:00', in: 5 }).field).toBe('in');
  });

  describe('cron', () => {
    it('takes 5 fields (up to 7) and macros, with the spaces made single', () => {
      expect(timing({ cron: ' 0  9 * *  1-5 ' })).toEqual({ kind: 'cron', spec: '0 9 * * 1-5' });
      expect(timing({ cron: '*/15 * * * *' }).spec).toBe('*/15 * * * *');
      expect(timing({ cron: '0 0 12 ? * MON-FRI' }).spec).toBe('0 0 12 ? * MON-FRI');
      expect(timing({ cron: '@daily' }).spec).toBe('@daily');
      expect(timing({ cron: '@Hourly' }).spec).toBe('@Hourly');
    });

    it('refuses too few or too many fields, bad characters, a zone inside, empty and over-long expressions', () => {
      expect(refusal({ cron: '0 9 * *' })).toEqual({
        field: 'cron',
        message: 'cron must have 5 fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5"',
      });
      expect(refusal({ cron: '0 9 * * * * * *' }).field).toBe('cron');
      expect(refusal({ cron: '0 9 * * $' }).message).toBe('cron has an invalid field in "0 9 * * $"');
      expect(refusal({ cron: 'TZ=Asia/Tokyo 0 9 * * *' }).message).toBe(
        'cron must not name a zone: give it in timezone',
      );
      expect(refusal({ cron: 'CRON_TZ=UTC 0 9 * * *' }).field).toBe('cron');
      expect(refusal({ cron: '   ' }).message).toBe('cron must be a cron expression');
      expect(refusal({ cron: `${'1,'.repeat(100)}1 * * * *` }).message).toBe(
        `cron is over ${SCHEDULE_LIMITS.maxCronLength} characters`,
      );
      expect(refusal({ cron: '@fortnightly' }).field).toBe('cron');
    });
  });

  describe('every', () => {
    it('takes a duration or whole seconds, stored in the shortest form', () => {
      expect(timing({ every: '10s' })).toEqual({ kind: 'every', spec: '10s', everyS: 10 });
      expect(timing({ every: '90m' })).toEqual({ kind: 'every', spec: '1h30m', everyS: 5400 });
      expect(timing({ every: 3600 })).toEqual({ kind: 'every', spec: '1h', everyS: 3600 });
      expect(timing({ every: '366d' }).everyS).toBe(SCHEDULE_LIMITS.maxEveryS);
    });

    it('refuses less than 10 s, more than 366 days, fractions and words', () => {
      expect(refusal({ every: '9s' })).toEqual({ field: 'every', message: 'every must be at least 10s' });
      expect(refusal({ every: 9 }).message).toBe('every must be at least 10s');
      expect(refusal({ every: '367d' }).message).toBe('every must be at most 366d');
      for (const bad of [1.5, '10', 'hourly', ''] as const)
        expect(refusal({ every: bad }).message, String(bad)).toBe(
          'every must be an interval such as "10s", "5m", "1h30m" or "1d"',
        );
    });
  });

  describe('in', () => {
    it('takes minutes (numbers, also as text) or a duration, and rounds the instant up to a whole second', () => {
      expect(timing({ in: 20 })).toEqual({
        kind: 'in',
        spec: '20m',
        runAt: new Date('2026-12-01T00:20:01Z'),
      });
      expect(timing({ in: '1.5' })).toMatchObject({ spec: '1m30s', runAt: new Date('2026-12-01T00:01:31Z') });
      expect(timing({ in: '3s' })).toMatchObject({ spec: '3s', runAt: new Date('2026-12-01T00:00:04Z') });
      const exact = new Date('2026-12-01T00:00:00Z');
      expect(timing({ in: '2h' }, 'UTC', exact).runAt).toEqual(new Date('2026-12-01T02:00:00Z'));
    });

    it('refuses zero, negative, unreadable and over five years', () => {
      expect(refusal({ in: 0 }).message).toBe(
        'in must be a number of minutes, or a delay such as "90s", "5m" or "2h"',
      );
      expect(refusal({ in: -5 }).field).toBe('in');
      expect(refusal({ in: '0s' })).toEqual({ field: 'in', message: 'in must be at least 1s' });
      expect(refusal({ in: 'later' }).field).toBe('in');
      expect(refusal({ in: `${5 * 366 + 1}d` })).toEqual({
        field: 'in',
        message: 'in is more than five years ahead',
      });
    });
  });

  describe('at', () => {
    it("reads a date-time without offset at the zone's wall time", () => {
      expect(timing({ at: '2026-12-24T09:00' }, 'Asia/Tokyo')).toEqual({
        kind: 'at',
        spec: '2026-12-24T00:00:00.000Z',
        runAt: new Date('2026-12-24T00:00:00Z'),
      });
      expect(timing({ at: '2026-12-24 09:00:30' }, 'America/New_York').runAt).toEqual(
        new Date('2026-12-24T14:00:30Z'),
      );
      // In a daylight-saving gap: forward by the gap.
      expect(timing({ at: '2027-03-28T02:30' }, 'Europe/Berlin').runAt).toEqual(
        new Date('2027-03-28T01:30:00Z'),
      );
    });

    it('takes an explicit offset or Z as given, whatever the zone, rounded up to a whole second', () => {
      expect(timing({ at: '2026-12-24T09:00+09:00' }, 'America/New_York').runAt).toEqual(
        new Date('2026-12-24T00:00:00Z'),
      );
      expect(timing({ at: '2026-12-24T00:00:00.5Z' })).toMatchObject({
        spec: '2026-12-24T00:00:01.000Z',
        runAt: new Date('2026-12-24T00:00:01Z'),
      });
    });

    it('refuses the past (shown in the zone), impossible dates, other formats and over five years', () => {
      expect(refusal({ at: '2026-11-30T09:00' }, 'Asia/Tokyo')).toEqual({
        field: 'at',
        message: 'at is in the past (2026-11-30T09:00:00+09:00)',
      });
      expect(refusal({ at: '2026-12-01T00:00:00Z' }).message).toMatch(/^at is in the past/);
      expect(refusal({ at: '2027-02-29T09:00' }).message).toBe(
        'at is not a valid date-time: "2027-02-29T09:00"',
      );
      expect(refusal({ at: '2027-01-01T24:00' }).field).toBe('at');
      expect(refusal({ at: 'tomorrow at nine' }).message).toBe(
        'at must be an ISO 8601 date-time, e.g. "2026-12-24T09:00" or "2026-12-24T09:00+09:00"',
      );
      expect(refusal({ at: '2026-12-24' }).field).toBe('at');
      expect(refusal({ at: '2040-01-01T00:00' })).toEqual({
        field: 'at',
        message: 'at is more than five years ahead',
      });
    });
  });
});

describe('prompts', () => {
  it('refuses empty and over the message limit, and takes the rest', () => {
    expect(promptProblem('Check the backups')).toBeNull();
    expect(promptProblem('  \n ')).toEqual({ field: 'prompt', message: 'prompt is empty' });
    expect(promptProblem(undefined)).toEqual({ field: 'prompt', message: 'prompt is empty' });
    expect(promptProblem('é'.repeat(SCHEDULE_LIMITS.maxPromptBytes / 2))).toBeNull();
    expect(promptProblem('é'.repeat(SCHEDULE_LIMITS.maxPromptBytes / 2 + 1))).toEqual({
      field: 'prompt',
      message: `prompt is over ${SCHEDULE_LIMITS.maxPromptBytes} bytes (the message limit)`,
    });
  });
});

describe('ids', () => {
  it('derives one message id per tick from the scheduled time, and the Temporal id names the session', () => {
    const id = tickMessageId('sch-1a2b3c4d5e6f', new Date('2026-12-01T09:00:00.000Z'));
    expect(id).toBe('cron.sch-1a2b3c4d5e6f.20261201T090000Z');
    expect(isTickMessageId(id)).toBe(true);
    expect(isTickMessageId('cron.sch-1.2026-12-01')).toBe(false);
    expect(isTickMessageId('web-1234')).toBe(false);
    expect(temporalScheduleId('web-1', 'sch-1a2b3c4d5e6f')).toBe('kesoku-schedule:web-1:sch-1a2b3c4d5e6f');
  });
});

describe('describeSchedule', () => {
  const view = (over: Partial<ScheduleView> = {}): ScheduleView => ({
    id: 'sch-1a2b3c4d5e6f',
    session_id: 'web-1',
    prompt: 'Check   the\nbackups',
    kind: 'every',
    spec: '10s',
    timezone: 'Asia/Tokyo',
    paused: false,
    next_run_at: '2026-12-01T09:00:10+09:00',
    created_at: '2026-12-01T09:00:00+09:00',
    runs: [],
    ...over,
  });

  it('gives timing, zone, next run, the last run and the prompt on one line', () => {
    expect(describeSchedule(view())).toBe(
      'sch-1a2b3c4d5e6f · every 10s (Asia/Tokyo) · next 2026-12-01T09:00:10+09:00 · "Check the backups"',
    );
    const run = {
      scheduled_at: '2026-12-01T09:00:00+09:00',
      fired_at: '2026-12-01T09:00:00+09:00',
      turn_id: 'cron.sch-1a2b3c4d5e6f.20261201T000000Z',
      outcome: 'processed' as const,
      delivered: true,
      detail: null,
    };
    expect(describeSchedule(view({ kind: 'in', spec: '3s', next_run_at: null, runs: [run] }))).toBe(
      'sch-1a2b3c4d5e6f · once (in 3s) (Asia/Tokyo) · no next run · last 2026-12-01T09:00:00+09:00: processed, delivered · "Check the backups"',
    );
    expect(describeSchedule(view({ paused: true }))).toContain(' · paused · ');
  });

  it('cuts a long prompt at 60 characters without splitting a character', () => {
    const line = describeSchedule(view({ prompt: '🙂'.repeat(80) }));
    expect(line.endsWith(`"${'🙂'.repeat(59)}…"`)).toBe(true);
  });
});

/**
 * The model's schedule tools — `schedule_prompt`, `list_schedules`, `cancel_schedule` — as a {@link ToolSource}
 * run by the tool activity. They act on the calling session only, through the same {@link ScheduleService} as
 * the REST API and the `/schedules` chat command, so a refusal reads the same everywhere. A turn started by a
 * schedule cannot create schedules (a prompt that schedules itself would never stop).
 */
import { z } from 'zod';
import { getMessage } from '../../db/messages.ts';
import type { Pool } from '../../db/pool.ts';
import { ScheduleError, describeSchedule, type ScheduleService } from '../../infra/schedules.ts';
import type { ModelToolSpec } from '../llm/provider.ts';
import { ToolInputError } from './errors.ts';
import type { ToolContext, ToolSource } from './registry.ts';
import { parseToolArgs, type ToolResult } from './tool.ts';

export const SCHEDULE_TOOL_NAMES = ['schedule_prompt', 'list_schedules', 'cancel_schedule'] as const;

const scheduleArgs = z.strictObject({
  prompt: z.string().describe('What to do at each run; it arrives as a message from "Cronjob".'),
  cron: z
    .string()
    .optional()
    .describe('Cron expression, 5 fields, at the zone\'s wall time, e.g. "0 9 * * 1-5".'),
  every: z.string().optional().describe('Interval, e.g. "10m", "1h", "1d".'),
  at: z.string().optional().describe('One run at an ISO 8601 date-time, e.g. "2026-12-24T09:00".'),
  in: z.string().optional().describe('One run after a delay, e.g. "90s", "20m", "2h".'),
  timezone: z.string().optional().describe('IANA time zone, e.g. "Asia/Tokyo"; default the session\'s.'),
});
const cancelArgs = z.strictObject({
  id: z.string().describe('The schedule id (sch-…) from list_schedules.'),
});
const noArgs = z.strictObject({});

const spec = (name: string, description: string, schema: z.ZodType): ModelToolSpec => {
  const { $schema: _, ...parameters } = z.toJSONSchema(schema, { io: 'input' });
  return { name, description, parameters };
};

/** The schedule tools as the model sees them. */
export const SCHEDULE_TOOL_SPECS: readonly ModelToolSpec[] = [
  spec(
    'schedule_prompt',
    'Schedule a prompt into this conversation: give exactly one of cron, every, at or in. Each run arrives as a ' +
      'message from "Cronjob" and you answer it like a user message. Returns the id and the next run time.',
    scheduleArgs,
  ),
  spec('list_schedules', "List this conversation's schedules with their next and last runs.", noArgs),
  spec('cancel_schedule', "Delete one of this conversation's schedules by id.", cancelArgs),
];

/**
 * The schedule tools for one worker.
 * @param pool reads the calling turn's trigger message (is it a cron prompt?)
 */
export function scheduleTools(schedules: ScheduleService, pool: Pool): ToolSource {
  const names = new Set<string>(SCHEDULE_TOOL_NAMES);
  const refused = (err: ScheduleError): ToolResult => ({
    content: `Error: ${err.message}`,
    summary: err.message.slice(0, 120),
    ok: false,
  });
  return {
    handles: (name) => names.has(name),
    async run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
      const sessionId = ctx.sessionId;
      if (!sessionId) throw new ToolInputError(`${name} needs a session`);
      try {
        if (name === 'schedule_prompt') {
          const args = parseToolArgs(scheduleArgs, rawArgs, name);
          const trigger = ctx.turnId ? await getMessage(pool, ctx.turnId) : null;
          if (trigger?.metadata?.is_cronjob === true)
            throw new ScheduleError('forbidden', 'a turn started by a schedule cannot create schedules');
          const v = await schedules.create(sessionId, args, 'model');
          return { content: `Scheduled. ${describeSchedule(v)}`, summary: `scheduled ${v.id}` };
        }
        if (name === 'list_schedules') {
          parseToolArgs(noArgs, rawArgs, name);
          const all = await schedules.list(sessionId);
          return {
            content: all.length === 0 ? 'No schedules.' : all.map(describeSchedule).join('\n'),
            summary: `${all.length} schedule(s)`,
          };
        }
        const { id } = parseToolArgs(cancelArgs, rawArgs, name);
        await schedules.delete(sessionId, id);
        return { content: `Deleted schedule ${id}.`, summary: `deleted ${id}` };
      } catch (err) {
        if (err instanceof ScheduleError) return refused(err);
        throw err;
      }
    },
  };
}

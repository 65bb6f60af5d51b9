/**
 * `/schedules` for the chat channels: the {@link CommandSessions} member that lists a session's scheduled prompts
 * through the same service as the REST API (infra/schedules.ts).
 */
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import { ScheduleService, type ScheduleView } from '../../infra/schedules.ts';
import type { SessionClient } from '../../infra/session-client.ts';

/**
 * `{ listSchedules }` for a channel's command sessions, on the channel's session client and pool; `{}` (the
 * command answers "not available here") when `sessions` is not a whole session client (a test's stand-in).
 */
export function scheduleCommands(
  sessions: object,
  pool: Pool,
  logger: Logger,
): { listSchedules?(sessionId: string): Promise<ScheduleView[]> } {
  const s = sessions as Partial<Pick<SessionClient, 'client' | 'taskQueue'>>;
  if (!s.client || typeof s.taskQueue !== 'string') return {};
  const service = new ScheduleService({ client: s.client, pool, taskQueue: s.taskQueue, logger });
  return { listSchedules: (sessionId) => service.list(sessionId) };
}

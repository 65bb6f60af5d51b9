/**
 * The firing of scheduled prompts (see {@link ScheduleActivities}): one tick puts the seed's cron message into its
 * session through the session client (update-with-start, so a session without a running workflow gets one).
 */
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { getMessage } from '../db/messages.ts';
import type { Pool } from '../db/pool.ts';
import { getScheduleById, previousFiredAt, recordRun } from '../db/schedules.ts';
import { getSession } from '../db/sessions.ts';
import { CRON_SENDER, SCHEDULE_LIMITS, temporalScheduleId, tickMessageId } from '../domain/schedules.ts';
import type { Logger } from '../infra/logger.ts';
import { SessionClientError, type SessionClient } from '../infra/session-client.ts';
import type { ScheduleActivities, ScheduleFireResult } from '../workflows/activity-contracts.ts';

export interface ScheduleActivityDeps {
  pool: Pool;
  logger: Logger;
  /** Submits the prompt; its task queue is the sessions'. */
  sessions: SessionClient;
  /** Removes the Temporal Schedule of a job whose row is gone. Default: the session client's. */
  client?: Client;
  now?: () => Date;
}

export function createScheduleActivities(d: ScheduleActivityDeps): ScheduleActivities {
  const now = d.now ?? (() => new Date());
  const client = d.client ?? d.sessions.client;
  return {
    async fireScheduledPrompt({ sessionId, scheduleId, scheduledAt }): Promise<ScheduleFireResult> {
      const at = new Date(scheduledAt);
      const messageId = tickMessageId(scheduleId, at);
      const log = d.logger.child({ sessionId, scheduleId, messageId });
      const row = await getScheduleById(d.pool, scheduleId);
      const session = row && row.session_id === sessionId ? await getSession(d.pool, sessionId) : null;
      if (!row || !session) {
        // Deleted (or its session is gone) while the tick was on its way: the clock goes too.
        await client.schedule
          .getHandle(temporalScheduleId(sessionId, scheduleId))
          .delete()
          .catch((err: unknown) => {
            if (!(err instanceof ScheduleNotFoundError)) throw err;
          });
        log.info('schedule gone; its Temporal Schedule was removed');
        return { outcome: 'gone' };
      }
      // An earlier attempt may have put the prompt in and failed before recording it.
      const earlier = await getMessage(d.pool, messageId);
      const lateMs = now().getTime() - at.getTime();
      if (!earlier && lateMs > SCHEDULE_LIMITS.catchupWindowS * 1000) {
        await recordRun(d.pool, {
          scheduleId,
          scheduledAt: at,
          messageId,
          outcome: 'missed',
          firedAt: null,
          detail: `${Math.round(lateMs / 1000)} s late, over the ${SCHEDULE_LIMITS.catchupWindowS} s catch-up window`,
        });
        log.warn({ lateMs }, 'scheduled prompt missed: later than the catch-up window');
        return { outcome: 'missed', messageId };
      }
      // Overlap policy BUFFER_ONE keeps one tick waiting behind a firing that is still on its way. After an outage
      // that waiting tick comes right after the caught-up one: it yields, so a missed stretch fires once. A tick
      // that waited only behind a slow firing (a worker crash) still fires, since its predecessor fired in time.
      if (!earlier) {
        const prev = await previousFiredAt(d.pool, scheduleId, at);
        if (prev && prev.getTime() > at.getTime()) {
          await recordRun(d.pool, {
            scheduleId,
            scheduledAt: at,
            messageId,
            outcome: 'missed',
            firedAt: null,
            detail: 'the tick before it was caught up after this one was due; a missed stretch fires once',
          });
          log.info({ lateMs }, 'scheduled prompt skipped: its predecessor was the catch-up');
          return { outcome: 'missed', messageId };
        }
      }
      const firedAt = earlier?.received_at ? new Date(earlier.received_at) : now();
      try {
        await d.sessions.submit(
          { sessionId, chatbotId: session.chatbot_id, channelId: session.channel_id },
          {
            id: messageId,
            kind: 'cron',
            content: row.prompt,
            sender: CRON_SENDER,
            receivedAt: firedAt.toISOString(),
          },
        );
      } catch (err) {
        if (err instanceof SessionClientError && (err.kind === 'invalid' || err.kind === 'id_taken')) {
          await recordRun(d.pool, {
            scheduleId,
            scheduledAt: at,
            messageId,
            outcome: 'rejected',
            firedAt: null,
            detail: err.message.slice(0, 300),
          });
          throw ApplicationFailure.nonRetryable(
            `the session refused the prompt: ${err.message}`,
            'schedule_rejected',
          );
        }
        // Queue full, Temporal or Postgres away: retried (with backoff) until the session takes it.
        throw err;
      }
      await recordRun(d.pool, { scheduleId, scheduledAt: at, messageId, outcome: 'fired', firedAt });
      log.info({ lateMs }, 'scheduled prompt fired');
      return { outcome: 'fired', messageId };
    },
  };
}

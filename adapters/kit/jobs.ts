/**
 * `/jobs` and `/kill <id>` on every chat channel: the session's background jobs (infra/jobs.ts), answered as
 * short Markdown text. `/stop` never kills a background job; `/kill` does.
 */
import type { Pool } from '../../db/pool.ts';
import type { JobRow } from '../../db/jobs.ts';
import { BackgroundJobs, JobError } from '../../infra/jobs.ts';
import type { SessionClient } from '../../infra/session-client.ts';

/** What the command dispatcher calls; each resolves to the answer text. */
export interface JobCommands {
  list(sessionId: string): Promise<string>;
  kill(sessionId: string, jobId: string): Promise<string>;
}

/** One job as one line: `` `job_…` running · `sleep 60` `` or `` `job_…` succeeded (exit 0) · `make` ``. */
export function jobLine(j: Pick<JobRow, 'id' | 'state' | 'exitCode' | 'command'>): string {
  const exit = j.exitCode === null ? '' : ` (exit ${j.exitCode})`;
  const command = j.command.length > 80 ? `${j.command.slice(0, 79)}…` : j.command;
  return `\`${j.id}\` ${j.state}${exit} · \`${command.replaceAll('`', "'")}\``;
}

/** The job commands on `sessions`' Temporal client and `pool`. */
export function jobCommands(sessions: Pick<SessionClient, 'client' | 'taskQueue'>, pool: Pool): JobCommands {
  const jobs = new BackgroundJobs({ client: sessions.client, pool, taskQueue: sessions.taskQueue });
  return {
    async list(sessionId) {
      const all = await jobs.list(sessionId);
      if (all.length === 0) return 'No background jobs.';
      return ['Background jobs (newest first):', ...all.slice(0, 20).map(jobLine)].join('\n');
    },
    async kill(sessionId, jobId) {
      try {
        const job = await jobs.kill(sessionId, jobId);
        return `⏹️ Killed ${jobLine(job)}`;
      } catch (err) {
        if (err instanceof JobError) return `⚠️ ${err.message}.`;
        throw err;
      }
    },
  };
}

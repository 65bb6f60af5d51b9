/**
 * Dependency health for `GET /healthz`: does Temporal answer (GetSystemInfo) and does Postgres answer
 * (`SELECT 1`), each within a time limit.
 */
import type { Pool } from '../db/pool.ts';
import type { SessionClient } from '../infra/session-client.ts';

/** Whether each dependency answered. */
export interface HealthStatus {
  temporal: boolean;
  postgres: boolean;
}

/** Resolves to `fallback` if `p` does not settle within `ms` (or rejects). */
export async function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([p.catch(() => fallback), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The default health check. `timeoutMs` (default 3000) bounds each probe; both run in parallel.
 * @returns never rejects
 */
export function createHealthCheck(deps: {
  pool: Pool;
  sessions: SessionClient;
  timeoutMs?: number;
}): () => Promise<HealthStatus> {
  const ms = deps.timeoutMs ?? 3000;
  return async () => {
    const connection = deps.sessions.client.connection;
    const [temporal, postgres] = await Promise.all([
      within(
        connection
          .withDeadline(Date.now() + ms, () => connection.workflowService.getSystemInfo({}))
          .then(() => true),
        ms + 500,
        false,
      ),
      within(
        deps.pool.query('SELECT 1').then(() => true),
        ms,
        false,
      ),
    ]);
    return { temporal, postgres };
  };
}

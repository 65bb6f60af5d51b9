/**
 * The active plan of a session (migration 0030, tool `update_plan`, docs/memory.md "Active plan"): the whole list
 * of steps, replaced at each update, with a revision that counts the updates. Kept in Postgres, so it survives
 * continue-as-new and worker restarts, and shown by `GET /v1/sessions/{sessionId}`.
 */
import { PLAN_STATUSES, type PlanStepStatus } from '../domain/plan-view.ts';
import type { Queryable } from './pool.ts';

/** Status of one plan step. */
export { PLAN_STATUSES };
export type PlanStatus = PlanStepStatus;

/** One step of a plan. */
export interface PlanStep {
  title: string;
  status: PlanStatus;
}

/** A session's plan. `updated_at` is ISO 8601. */
export interface SessionPlan {
  steps: PlanStep[];
  revision: number;
  updated_at: string;
}

/** Replaces the plan of `sessionId` (an empty list clears it). @returns the stored plan */
export async function setPlan(
  q: Queryable,
  sessionId: string,
  steps: readonly PlanStep[],
): Promise<SessionPlan> {
  const r = await q.query<{ steps: PlanStep[]; revision: number; updated_at: Date }>(
    `INSERT INTO session_plans (session_id, steps) VALUES ($1, $2::jsonb)
     ON CONFLICT (session_id) DO UPDATE SET steps = EXCLUDED.steps, revision = session_plans.revision + 1, updated_at = now()
     RETURNING steps, revision, updated_at`,
    [sessionId, JSON.stringify(steps)],
  );
  const row = r.rows[0]!;
  return { steps: row.steps, revision: row.revision, updated_at: row.updated_at.toISOString() };
}

/** The plan of `sessionId`, or null when it has none (never set, or cleared). */
export async function getPlan(q: Queryable, sessionId: string): Promise<SessionPlan | null> {
  const r = await q.query<{ steps: PlanStep[]; revision: number; updated_at: Date }>(
    'SELECT steps, revision, updated_at FROM session_plans WHERE session_id = $1',
    [sessionId],
  );
  const row = r.rows[0];
  if (!row || row.steps.length === 0) return null;
  return { steps: row.steps, revision: row.revision, updated_at: row.updated_at.toISOString() };
}

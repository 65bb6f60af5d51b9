/**
 * The session's active plan (the model's `update_plan`, docs/memory.md "Active plan") as a panel above the
 * transcript: "📋 Plan 1/3 done" and one line per step with its mark (domain/plan-view.ts), the step in progress
 * highlighted. Live: a running turn's `turn.updated` snapshots carry the plan as the turn sets it; between turns
 * (and after a reload) it comes from `GET /v1/sessions/{id}`. Of the two, the higher plan revision wins, so a
 * session read that trails the stream never brings an older plan back. Hidden when the session has no plan.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { PLAN_MARK, planProgress, type PlanView } from '../../../domain/plan-view.ts';

/** The newer of the session's stored plan and the live one (null: none, or cleared). */
export function activePlan(stored: PlanView | null | undefined, live: PlanView | null): PlanView | null {
  const s = stored ?? null;
  const newest = live && (!s || live.revision > s.revision) ? live : s;
  return newest && newest.steps.length > 0 ? newest : null;
}

/**
 * The plan last seen live in `sessionId`'s stream, and the `onUpdated` hook that feeds it (call it with every
 * `turn.updated` snapshot). It starts empty for each session.
 */
export function useLivePlan(sessionId: string): [PlanView | null, (u: { plan?: PlanView }) => void] {
  const [live, setLive] = useState<PlanView | null>(null);
  useEffect(() => setLive(null), [sessionId]);
  const seen = useCallback((u: { plan?: PlanView }) => {
    const plan = u.plan;
    if (plan) setLive((before) => (before && before.revision >= plan.revision ? before : plan));
  }, []);
  return [live, seen];
}

/** The plan panel; renders nothing without a plan. */
export function PlanPanel({ plan }: { plan: PlanView | null }) {
  if (!plan) return null;
  return (
    <section class="plan" aria-label="Plan">
      <h2>
        📋 Plan <span class="progress">{planProgress(plan.steps)}</span>
      </h2>
      <ol>
        {plan.steps.map((s, i) => (
          <li key={i} class={`step ${s.status}`} data-status={s.status}>
            <span class="mark" aria-hidden="true">
              {PLAN_MARK[s.status]}
            </span>{' '}
            <span class="title">{s.title}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

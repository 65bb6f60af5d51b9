/**
 * How the active plan (db/plans.ts, tool `update_plan`) looks wherever a channel renders a turn's progress: the
 * terminal's live region, the chat statuses (Discord, Google Chat), the web page's plan panel. One mark per step
 * status and one progress count, so every channel says the same thing. Pure; safe in the web bundle.
 */

/** Statuses of a plan step, in the order a step goes through them. */
export const PLAN_STATUSES = ['pending', 'in_progress', 'done'] as const;
export type PlanStepStatus = (typeof PLAN_STATUSES)[number];

/** One step as the channels render it. */
export interface PlanStepView {
  title: string;
  status: PlanStepStatus;
}

/** A plan as the channels get it: its steps and its revision (which counts the updates). */
export interface PlanView {
  steps: PlanStepView[];
  revision: number;
}

/** The mark before a step's title. */
export const PLAN_MARK: Record<PlanStepStatus, string> = { done: '✅', in_progress: '▶️', pending: '◻️' };

/** "2/5 done" for `steps`. */
export function planProgress(steps: readonly PlanStepView[]): string {
  return `${steps.filter((s) => s.status === 'done').length}/${steps.length} done`;
}

/** "✅ Read the logs · ▶️ Fix the bug · ◻️ Test" (a chat status line); '' for no steps. */
export function planOneLine(steps: readonly PlanStepView[]): string {
  return steps.map((s) => `${PLAN_MARK[s.status]} ${s.title.replace(/\s+/g, ' ').trim()}`).join(' · ');
}

/**
 * The steps an `update_plan` call asks for (its `tool_arguments`), or null when they are not a list of
 * `{title, status}` (the tool then refuses the call; nothing is shown as a plan).
 */
export function planStepsOfArguments(args: unknown): PlanStepView[] | null {
  const steps = (args as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps)) return null;
  const out: PlanStepView[] = [];
  for (const s of steps as unknown[]) {
    const { title, status } = (s ?? {}) as { title?: unknown; status?: unknown };
    const known = PLAN_STATUSES.find((k) => k === status);
    if (typeof title !== 'string' || known === undefined) return null;
    out.push({ title, status: known });
  }
  return out;
}

/**
 * Model activities: one model step of a turn, manual compaction, and title generation.
 *
 * The conversation is read from and written to Postgres here; the workflow only sees ids. Token deltas are
 * published with NOTIFY (db/notify.ts), never returned through workflow history. Each activity lives in its
 * own module: step.ts (a model step), prepare.ts (the input and automatic compaction), compaction.ts,
 * title.ts, and model-call.ts (one streamed call).
 */
import type { ModelActivities } from '../../workflows/activity-contracts.ts';
import { compactSession } from './compaction.ts';
import type { ModelDeps } from './model-deps.ts';
import { runModelStep } from './step.ts';
import { generateTitle } from './title.ts';

export { PROVIDER_MAX_ATTEMPTS, stepIds, type ModelDeps } from './model-deps.ts';

/** The model activities with their dependencies (wired once per worker). */
export function createModelActivities(deps: ModelDeps): ModelActivities {
  return {
    runModelStep: (input) => runModelStep(deps, input),
    compactSession: (input) => compactSession(deps, input),
    generateTitle: (input) => generateTitle(deps, input),
  };
}

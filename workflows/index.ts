/** The workflow bundle's entry: every workflow type the worker registers. */
export { sessionWorkflow } from './session.ts';
export { titleWorkflow } from './title.ts';
export { scheduledPromptWorkflow } from './scheduled-prompt.ts';
export { backgroundJobWorkflow } from './background-job.ts';

/**
 * The `patched()` ids of Kesoku's workflows that the previous release (test/fixtures/releases/previous) does not
 * know. A history recorded by this code that passed one of them does not replay on the previous release's code:
 * test/integration/backward-replay.test.ts checks that these are the only reasons. Rolling back to the previous
 * release is therefore safe only with Worker Deployment versioning (session runs PINNED to this build until they
 * end; docs/operations.md "Rolling back"); without it, roll forward.
 *
 * Pure module: safe in the workflow bundle.
 */
export const PATCHES_SINCE_PREVIOUS_RELEASE = [
  'refuse-user-message-signal',
  'session-idle-end',
  'restore-retried',
  'seen-commands-kept',
  'title-attempts-bounded',
  'approval-check-in-step',
  'delivery-ends-turn',
  'continue-as-new-at-event-bound',
  // The background job workflow (workflows/background-job.ts), which the previous release does not have at all.
  'job-on-tool-queue',
] as const;

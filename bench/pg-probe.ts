/**
 * Counts the Postgres statements a process sends, for the benchmark's "statements per turn".
 *
 * The machine's Postgres does not preload `pg_stat_statements` (it needs `shared_preload_libraries` and a server
 * restart), so the statements are counted at the client instead: every `pg` `Client.query` call (pool queries,
 * BEGIN/COMMIT and the statements inside transactions, `pg_notify`, LISTEN) is one statement, recorded with its
 * time and the start of its SQL text.
 *
 * - {@link recordStatements} instruments the clients of one pool (the bench's in-process baseline);
 * - `bench/pg-probe-preload.ts`, loaded with `node --import` into a Kesoku process, instruments every client of that
 *   process and serves the records on `127.0.0.1:$KESOKU_BENCH_PG_PROBE_PORT` (see {@link serveStatements});
 * - {@link fetchStatements} reads them from the bench.
 */
import http from 'node:http';
import type pg from 'pg';

/** One statement: `seq` (1, 2, … per process), `at` (epoch ms, sub-ms resolution), `sql` (its first 80 characters). */
export interface StatementRecord {
  seq: number;
  at: number;
  sql: string;
}

/** What a process's probe answers: its pid, how many statements it sent in all, and the records after `since`. */
export interface StatementDump {
  pid: number;
  total: number;
  records: StatementRecord[];
}

/** The statements of one process, newest `capacity` kept (older ones only counted). */
export class StatementLog {
  total = 0;
  private records: StatementRecord[] = [];
  private readonly capacity: number;
  private readonly texts = new Map<string, string>();
  constructor(capacity = 20_000) {
    this.capacity = capacity;
  }
  /** Records one statement given as `Client.query`'s first argument (a string, a config or a submittable). */
  add(query: unknown): void {
    this.total += 1;
    const raw =
      typeof query === 'string'
        ? query
        : typeof (query as { text?: unknown } | null)?.text === 'string'
          ? (query as { text: string }).text
          : '(submittable)';
    const head = raw.replace(/\s+/g, ' ').trim().slice(0, 80);
    // One string per call site, not one per call, so a long run keeps little memory.
    let sql = this.texts.get(head);
    if (sql === undefined) {
      sql = head;
      if (this.texts.size < 10_000) this.texts.set(head, head);
    }
    this.records.push({ seq: this.total, at: performance.timeOrigin + performance.now(), sql });
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity / 2);
  }
  /** The records with `seq` > `since`, oldest first. */
  since(since: number): StatementRecord[] {
    return this.records.filter((r) => r.seq > since);
  }
}

type QueryFn = (...args: unknown[]) => unknown;

/** Makes `target.query` (a `pg.Client` prototype or one client) record each call into `log` before it runs. */
export function instrumentQuery(target: object, log: StatementLog): void {
  const holder = target as { query: QueryFn };
  const original = holder.query;
  holder.query = function (this: unknown, ...args: unknown[]) {
    log.add(args[0]);
    return original.apply(this, args);
  };
}

/** Records every statement of `pool`'s clients (each new connection is instrumented as the pool opens it). */
export function recordStatements(pool: pg.Pool): StatementLog {
  const log = new StatementLog();
  pool.on('connect', (client) => instrumentQuery(client, log));
  return log;
}

/**
 * Serves `log` on 127.0.0.1:`port`: `GET /?since=N` answers a {@link StatementDump} (JSON). A port already in use
 * (a child process that inherited NODE_OPTIONS) leaves that process unserved, without an error.
 */
export function serveStatements(log: StatementLog, port: number): http.Server {
  const server = http.createServer((req, res) => {
    const since = Number(new URL(req.url ?? '/', 'http://probe').searchParams.get('since') ?? 0);
    const dump: StatementDump = { pid: process.pid, total: log.total, records: log.since(since) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(dump));
  });
  server.on('error', () => undefined);
  server.listen(port, '127.0.0.1');
  // The probe must never keep a process alive that would otherwise exit.
  server.unref();
  return server;
}

/**
 * Reads the statements a probed process sent after `since` (its `seq`).
 * @throws when the probe does not answer (the process was started without it, or has exited)
 */
export async function fetchStatements(port: number, since = 0): Promise<StatementDump> {
  const r = await fetch(`http://127.0.0.1:${port}/?since=${since}`);
  if (!r.ok) throw new Error(`statement probe on port ${port} answered ${r.status}`);
  return (await r.json()) as StatementDump;
}

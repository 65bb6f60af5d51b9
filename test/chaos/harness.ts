/**
 * The chaos run: Kesoku's parts as separate processes — worker, API, fake model server — on a Postgres and a
 * Temporal dev server of the run's own, so both can really be stopped and restarted. Turns are sent over HTTP
 * across several sessions (shell tools included) while the worker is SIGKILLed at random points, replaced by a
 * rolling restart (a new worker starts, the old one gets SIGTERM and drains, as in a deploy), Postgres is stopped
 * and restarted, and the Temporal dev server is restarted on its db file. Then every invariant is checked in the
 * database, and every shell command is counted: each appends one line naming its tool call to `runs.txt` in the
 * session's workspace, so a command that ran twice shows up as a repeated line.
 */
import { newPayloadKeyEntry } from '../../infra/payload-codec.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../db/migrate.ts';
import { ensureDatabase, resolvePostgres, type PostgresServer } from '../../infra/postgres-server.ts';
import { resolveTemporalBinary, startDevServer, type TemporalServer } from '../../infra/temporal-server.ts';
import { unusedPort } from '../support/ports.ts';
import { startPart, type ChildPart } from '../support/processes.ts';

export interface ChaosOptions {
  sessions: number;
  turnsPerSession: number;
  workerKills: number;
  /** Rolling restarts: a new worker starts, then the old one gets SIGTERM and drains. */
  workerStops: number;
  postgresOutages: number;
  temporalRestarts: number;
  /** Seed of the random schedule (printed, so a failing run can be repeated). */
  seed: number;
  /** Upper bound of the whole run, in ms. */
  budgetMs: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  sessions: number;
  submitted: number;
  accepted: number;
  rejectedQueueFull: number;
  retriedSubmits: number;
  outcomes: Record<string, number>;
  /** Failure kinds of turns that ended `error` (docs/message-flow.md §13). */
  failures: Record<string, number>;
  workerKills: number;
  workerStops: number;
  postgresOutages: number;
  temporalRestarts: number;
  /** Shell tool calls the model asked for in the accepted turns. */
  toolCalls: number;
  /** Of those, calls whose tool activity never started them (cancelled first, e.g. superseded by a newer message). */
  toolCallsNotStarted: number;
  /**
   * Tool calls whose run finished in the attempt that started it (`tool_runs.status = 'finished'`): each ran its
   * command exactly once. A call whose worker died (or drained out) after its start was recorded ends `interrupted`
   * with a "not re-run" result, whatever the tool_call message's status; its command may or may not have begun.
   */
  toolCallsCompleted: number;
  /** Lines appended to the sessions' runs.txt: one per command execution. */
  commandsRun: number;
  /** Executions beyond the first of one tool call (a repeated line). Must be 0. */
  reRuns: number;
  lost: number;
  duplicated: number;
  repliesMissing: number;
  repliesDuplicated: number;
  undelivered: number;
  stuckProcessing: number;
  /** Processes (worker, API, fake model) that exited without being killed by the harness: an uncaught error. */
  processCrashes: number;
  durationMs: number;
}

/** A small deterministic PRNG (mulberry32), so a schedule can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the chaos scenario and returns its counts. Throws only when the harness itself cannot start. */
export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = opts.log ?? (() => undefined);
  const random = rng(opts.seed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-chaos-'));
  fs.chmodSync(dir, 0o755);
  const parts: ChildPart[] = [];
  let postgres: PostgresServer | null = null;
  let temporal: TemporalServer | null = null;
  // KESOKU_CHAOS_KEEP=1: leave the processes and files of a failed run behind for inspection.
  let keep = false;
  const counters = {
    workerKills: 0,
    workerStops: 0,
    postgresOutages: 0,
    temporalRestarts: 0,
    retriedSubmits: 0,
    rejectedQueueFull: 0,
  };
  // Workers stopped by a rolling restart: they exit by themselves (code 0) once drained.
  const drained = new Set<ChildPart>();

  try {
    // Infrastructure of the run's own.
    const pgPort = await unusedPort();
    postgres = await resolvePostgres({ dataDir: path.join(dir, 'pg'), port: pgPort, database: 'postgres' });
    const adminUrl = postgres.url;
    await ensureDatabase(adminUrl, 'chaos');
    const databaseUrl = adminUrl.replace(/\/postgres$/, '/chaos');
    await migrate(databaseUrl);
    const binary = await resolveTemporalBinary({ cliPath: process.env.KESOKU_TEMPORAL_CLI });
    if (!binary) throw new Error('no Temporal CLI for the chaos run');
    const temporalPort = await unusedPort();
    const temporalOpts = {
      port: temporalPort,
      uiPort: null,
      dbFilename: path.join(dir, 'temporal.db'),
      logFile: path.join(dir, 'temporal.log'),
    };
    temporal = await startDevServer(binary.path, temporalOpts, binary.source);

    const modelPort = await unusedPort();
    const fake = startPart('test/fakes/model-server.ts', process.env, ['--port', String(modelPort)]);
    parts.push(fake);
    await fake.waitFor('http://');

    const apiPort = await unusedPort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      KESOKU_TASK_QUEUE: 'kesoku-chaos',
      KESOKU_DATA_DIR: path.join(dir, 'data'),
      KESOKU_API_PORT: String(apiPort),
      KESOKU_LLM_PROVIDER: 'openai-compatible',
      KESOKU_LLM_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
      KESOKU_LLM_MODEL: 'fake-model',
      KESOKU_LLM_TIMEOUT_MS: '10000',
      // The chaos run counts commands; nobody is there to approve them.
      KESOKU_TOOL_APPROVAL: 'off',
      KESOKU_LOG_LEVEL: process.env.KESOKU_CHAOS_LOG ?? 'error',
      // The API and the worker are separate processes: they share one payload key.
      KESOKU_PAYLOAD_KEYS: newPayloadKeyEntry(),
    };
    const api = startPart('bin/api.ts', env);
    parts.push(api);
    let worker = startPart('bin/worker.ts', env);
    parts.push(worker);
    await Promise.all([api.waitFor('kesoku API listening'), worker.waitFor('kesoku worker running')]);
    const base = `http://127.0.0.1:${apiPort}`;
    log(
      `[chaos] seed ${opts.seed}: API ${base}, Temporal 127.0.0.1:${temporalPort}, Postgres 127.0.0.1:${pgPort}`,
    );

    // The plan of messages: echo turns, single and double shell tool turns, some sessions in queue mode.
    const sessions = Array.from({ length: opts.sessions }, (_, i) => `chaos-${opts.seed}-${i}`);
    const accepted = new Map<string, string>(); // message id -> session id
    let submitted = 0;
    const deadline = started + opts.budgetMs;

    const submit = async (sessionId: string, id: string, content: string): Promise<void> => {
      submitted++;
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        if (attempt > 0) counters.retriedSubmits++;
        try {
          const res = await fetch(`${base}/v1/sessions/${sessionId}/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ id, content, sender: 'chaos' }),
            signal: AbortSignal.timeout(15_000),
          });
          if (res.status === 202) {
            accepted.set(id, sessionId);
            return;
          }
          if (res.status === 429) counters.rejectedQueueFull++;
          await res.body?.cancel();
        } catch {
          // API restarting or unreachable: retry with the same id (idempotent).
        }
        await sleep(300 + Math.floor(random() * 700));
      }
    };

    const senders = sessions.map(async (sessionId, s) => {
      if (s % 3 === 2) {
        // Queue mode for every third session (strictly serial turns).
        await submit(sessionId, `${sessionId}-m0`, 'hello');
        for (let i = 0; i < 20 && Date.now() < deadline; i++) {
          const r = await fetch(`${base}/v1/sessions/${sessionId}`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ mode: 'queue' }),
          }).catch(() => null);
          if (r?.ok) break;
          await sleep(500);
        }
      }
      for (let t = s % 3 === 2 ? 1 : 0; t < opts.turnsPerSession; t++) {
        const kind = random();
        // Every command appends one line naming its call to runs.txt in the session's workspace.
        const mark = (tag: string) => `echo ${sessionId}-m${t}${tag} >> runs.txt`;
        const content =
          kind < 0.4
            ? `echo turn ${t}`
            : kind < 0.8
              ? `run: ${mark('')}; sleep 0.${1 + Math.floor(random() * 8)}; echo turn ${t}`
              : `run2: ${mark('-a')}; echo a${t} ;; ${mark('-b')}; echo b${t}`;
        await submit(sessionId, `${sessionId}-m${t}`, content);
        await sleep(200 + Math.floor(random() * 1500));
      }
    });

    // The chaos schedule, spread over the sending period.
    const chaos = (async () => {
      const events: ('kill' | 'term' | 'pg' | 'temporal')[] = [
        ...Array<'kill'>(opts.workerKills).fill('kill'),
        ...Array<'term'>(opts.workerStops).fill('term'),
        ...Array<'pg'>(opts.postgresOutages).fill('pg'),
        ...Array<'temporal'>(opts.temporalRestarts).fill('temporal'),
      ].sort(() => random() - 0.5);
      for (const ev of events) {
        await sleep(1500 + Math.floor(random() * 3000));
        if (Date.now() > deadline) break;
        if (ev === 'kill') {
          log('[chaos] SIGKILL worker');
          await worker.kill('SIGKILL');
          counters.workerKills++;
          await sleep(200 + Math.floor(random() * 1500));
          worker = startPart('bin/worker.ts', env);
          parts.push(worker);
          await worker.waitFor('kesoku worker running', 120_000);
        } else if (ev === 'term') {
          // A deploy: the new worker comes up first, then the old one is told to stop and drains its activities.
          log('[chaos] rolling restart: new worker, SIGTERM to the old one');
          const next = startPart('bin/worker.ts', env);
          parts.push(next);
          await next.waitFor('kesoku worker running', 120_000);
          drained.add(worker);
          worker.child.kill('SIGTERM');
          counters.workerStops++;
          worker = next;
        } else if (ev === 'pg') {
          log('[chaos] stop Postgres');
          await postgres?.stop();
          counters.postgresOutages++;
          await sleep(1500 + Math.floor(random() * 2500));
          postgres = await resolvePostgres({
            dataDir: path.join(dir, 'pg'),
            port: pgPort,
            database: 'postgres',
          });
          log('[chaos] Postgres back');
        } else {
          log('[chaos] restart Temporal');
          await temporal?.stop();
          counters.temporalRestarts++;
          await sleep(500 + Math.floor(random() * 1500));
          temporal = await startDevServer(binary.path, temporalOpts, binary.source);
          log('[chaos] Temporal back');
        }
      }
    })();

    await Promise.all([...senders, chaos]);
    log(`[chaos] all sent (${accepted.size} accepted); waiting for every turn to end`);

    // Every accepted message must end; then check the invariants.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const ids = [...accepted.keys()];
      const waitUntil = Math.max(deadline, Date.now() + 120_000);
      for (;;) {
        const open = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND status IN ('pending_agent', 'processing')`,
          [ids],
        );
        if ((open.rows[0]?.n ?? 0) === 0 || Date.now() > waitUntil) break;
        await sleep(1000);
      }
      const rows = await db.query<{ id: string; status: string; failure: string | null }>(
        `SELECT id, status, metadata->>'failure_kind' AS failure FROM messages WHERE id = ANY($1)`,
        [ids],
      );
      const outcomes: Record<string, number> = {};
      const failures: Record<string, number> = {};
      for (const r of rows.rows) {
        outcomes[r.status] = (outcomes[r.status] ?? 0) + 1;
        if (r.status === 'error')
          failures[r.failure ?? 'unknown'] = (failures[r.failure ?? 'unknown'] ?? 0) + 1;
      }
      const lost = ids.length - rows.rowCount!;
      for (const r of rows.rows.filter((x) => x.status === 'error')) {
        const turn = await db.query(
          `SELECT id, role, type, status, step, metadata->>'failure_kind' AS f FROM messages WHERE turn_id = $1 OR id = $1 ORDER BY seq`,
          [r.id],
        );
        log(`[chaos] failed turn ${r.id}: ${JSON.stringify(turn.rows)}`);
      }
      // Exactly one final answer per ended turn: the reply, the crash notice or the interruption notice.
      const replies = await db.query<{ id: string; status: string; answers: number; delivered: number }>(
        `SELECT u.id, u.status,
                count(a.id)::int AS answers,
                count(a.id) FILTER (WHERE a.status = 'delivered')::int AS delivered
           FROM messages u
           LEFT JOIN messages a ON a.parent_id = u.id AND a.role = 'assistant' AND a.type = 'text'
          WHERE u.id = ANY($1)
          GROUP BY u.id, u.status`,
        [ids],
      );
      let repliesMissing = 0;
      let repliesDuplicated = 0;
      let undelivered = 0;
      for (const r of replies.rows) {
        // A queued message superseded in interrupt mode ends interrupted without an answer of its own.
        const superseded = r.status === 'interrupted' && r.answers === 0;
        if (r.answers === 0 && !superseded) repliesMissing++;
        if (r.answers > 1) repliesDuplicated++;
        if (r.answers > r.delivered) undelivered++;
      }
      const dupIds = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT parent_id FROM messages WHERE type = 'tool_result' GROUP BY parent_id HAVING count(*) > 1) d`,
      );
      const stuck = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE status = 'processing'`,
      );
      // Commands: the tool calls of the accepted turns, those never started, and the lines they appended.
      const calls = await db.query<{ calls: number; not_started: number; completed: number }>(
        `SELECT count(*)::int AS calls, count(*) FILTER (WHERE r.tool_call_message_id IS NULL)::int AS not_started,
                count(*) FILTER (WHERE r.status = 'finished')::int AS completed
           FROM messages c LEFT JOIN tool_runs r ON r.tool_call_message_id = c.id
          WHERE c.type = 'tool_call' AND c.turn_id = ANY($1)`,
        [ids],
      );
      const lines: string[] = [];
      const workspaces = path.join(dir, 'data', 'workspaces');
      for (const ws of fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []) {
        const file = path.join(workspaces, ws, 'runs.txt');
        if (fs.existsSync(file)) lines.push(...fs.readFileSync(file, 'utf8').split('\n').filter(Boolean));
      }
      const report: ChaosReport = {
        seed: opts.seed,
        sessions: opts.sessions,
        submitted,
        accepted: accepted.size,
        rejectedQueueFull: counters.rejectedQueueFull,
        retriedSubmits: counters.retriedSubmits,
        outcomes,
        failures,
        workerKills: counters.workerKills,
        workerStops: counters.workerStops,
        postgresOutages: counters.postgresOutages,
        temporalRestarts: counters.temporalRestarts,
        toolCalls: calls.rows[0]?.calls ?? 0,
        toolCallsNotStarted: calls.rows[0]?.not_started ?? 0,
        toolCallsCompleted: calls.rows[0]?.completed ?? 0,
        commandsRun: lines.length,
        reRuns: lines.length - new Set(lines).size,
        lost,
        duplicated: (dupIds.rows[0]?.n ?? 0) + repliesDuplicated,
        repliesMissing,
        repliesDuplicated,
        undelivered,
        stuckProcessing: stuck.rows[0]?.n ?? 0,
        // The harness SIGKILLs (exitCode stays null) or, in a rolling restart, SIGTERMs a worker that then exits 0;
        // any other exit code means the process ended itself.
        processCrashes: parts.filter(
          (p) => p.child.exitCode !== null && !(drained.has(p) && p.child.exitCode === 0),
        ).length,
        durationMs: Date.now() - started,
      };
      const failed =
        report.lost +
          report.duplicated +
          report.stuckProcessing +
          report.repliesMissing +
          report.undelivered +
          report.processCrashes +
          report.reRuns >
          0 || report.accepted < report.submitted;
      keep = failed && process.env.KESOKU_CHAOS_KEEP === '1';
      return report;
    } finally {
      await db.end();
    }
  } finally {
    // KESOKU_CHAOS_LOGS=<dir>: keep every process's output (with KESOKU_CHAOS_LOG=warn or info) for reading afterwards.
    const logDir = process.env.KESOKU_CHAOS_LOGS;
    if (logDir) {
      fs.mkdirSync(logDir, { recursive: true });
      parts.forEach((p, i) => fs.writeFileSync(path.join(logDir, `part-${i}.log`), p.output()));
    }
    if (keep) {
      log(`[chaos] KESOKU_CHAOS_KEEP: the run failed; leaving everything running in ${dir} for inspection`);
    } else {
      for (const p of parts.reverse()) await p.kill('SIGTERM').catch(() => undefined);
      await temporal?.stop().catch(() => undefined);
      await postgres?.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * `npm run bench`: Kesoku's speed and memory benchmarks. Writes bench/results/<date>.json and
 * bench/results/<date>.md, and prints the table.
 *
 * Real parts: a Temporal dev server and Postgres of the run's own (DATABASE_URL's server when set, else an
 * embedded one), the worker as a separate process (`workers/worker.ts`), and a zero-latency fake model server.
 *
 *   a. orchestration overhead per turn — accepted → delivered, minus the model's time — p50/p99, beside an
 *      in-process baseline doing the same Postgres writes and model call without Temporal;
 *   b. throughput in turns/s with 1, 100 and 1 000 concurrent sessions;
 *   c. per-turn latency at turn 10, 1 000 and 10 000 of one session (continue-as-new at work);
 *   d. history events and payload bytes per simple turn and per tool turn;
 *   e. worker memory and CPU with 10 000 idle sessions.
 *
 * `npm run bench -- --quick` runs smaller sizes (for a smoke check); `--only a,b` picks sections; `--idle N` sets
 * the number of idle sessions of e. The worker gets this process's environment (KESOKU_WORKER_CACHED_SESSIONS…).
 */
import { dataConverterFor, newPayloadKeyEntry, parsePayloadKeys } from '../infra/payload-codec.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../infra/temporal-connection.ts';
import proto from '@temporalio/proto';
import type { LlmConfig } from '../activities/llm/provider.ts';
import type { StepOutcome } from '../activities/contracts.ts';
import { createModelActivities } from '../activities/llm/activities.ts';
import { createPersistenceActivities } from '../activities/persistence.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { COMMIT_CHANNEL, NotificationListener } from '../db/notify.ts';
import { createLogger } from '../infra/logger.ts';
import {
  ensureDatabase,
  dropDatabase,
  resolvePostgres,
  withDatabase,
  type PostgresServer,
} from '../infra/postgres-server.ts';
import { SessionClient, SessionClientError } from '../infra/session-client.ts';
import {
  freePort,
  resolveTemporalBinary,
  startDevServer,
  type TemporalServer,
} from '../infra/temporal-server.ts';
import { sessionWorkflowId, type InboundMessage } from '../workflows/definitions.ts';
import { startFakeModelServer, type FakeModelServer } from '../test/fakes/model-server.ts';
import { startPart, type ChildPart } from '../test/support/processes.ts';
import { MockActivityEnvironment } from '@temporalio/testing';

const { temporal } = proto;
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = (args.find((a) => a.startsWith('--only='))?.slice(7) ?? args[args.indexOf('--only') + 1] ?? '')
  .split(',')
  .filter((s) => /^[a-e]$/.test(s));
const want = (s: string) => only.length === 0 || only.includes(s);

const SIZES = quick
  ? {
      overheadTurns: 60,
      throughput: [1, 20, 100],
      throughputTurns: 200,
      longSession: [10, 100, 300],
      idleSessions: 300,
    }
  : {
      overheadTurns: 400,
      throughput: [1, 100, 1000],
      throughputTurns: 2000,
      longSession: [10, 1000, 10_000],
      idleSessions: 10_000,
    };
// `--idle N`: another number of idle sessions for e (e.g. to compare KESOKU_WORKER_CACHED_SESSIONS settings).
const idleArg = args.indexOf('--idle');
if (idleArg >= 0) SIZES.idleSessions = Number(args[idleArg + 1]) || SIZES.idleSessions;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

interface Env {
  pool: Pool;
  databaseUrl: string;
  temporalAddress: string;
  client: Client;
  sessions: SessionClient;
  fake: FakeModelServer;
  taskQueue: string;
  worker: ChildPart;
  workerEnv: NodeJS.ProcessEnv;
  dataDir: string;
  waiter: TurnWaiter;
  /** Submissions retried because Temporal shed load (counted per section). */
  retries: number;
}

/** Model time of one request at the fake server (request received → response ended), in ms. */
function modelTimes(fake: FakeModelServer, fromIndex: number): Map<string, number> {
  // Keyed by the last user text of the request, which in these benchmarks is unique per turn.
  const out = new Map<string, number>();
  for (const r of fake.requests.slice(fromIndex)) {
    const last = [...(r.body?.messages ?? [])].reverse().find((m) => m.role === 'user');
    if (last && typeof last.content === 'string' && r.endedAt)
      out.set(last.content, r.endedAt - r.receivedAt);
  }
  return out;
}

let msgCounter = 0;
function inbound(content: string): InboundMessage {
  msgCounter += 1;
  return {
    id: `b${process.pid}-${msgCounter}`,
    content,
    sender: 'bench',
    receivedAt: new Date().toISOString(),
  };
}

/**
 * Waits for turns to end without hammering Postgres: one LISTEN connection on the commit channel wakes the
 * waiters of the session that committed (plus a slow poll as a safety net). Times come from the database
 * (accepted = the user message's created_at, delivered = its answer's updated_at), so waiting adds no error.
 */
class TurnWaiter {
  private readonly waiting = new Map<string, Set<() => void>>();
  private listener: NotificationListener | null = null;
  private readonly pool: Pool;
  private readonly url: string;
  constructor(pool: Pool, url: string) {
    this.pool = pool;
    this.url = url;
  }
  async start(): Promise<void> {
    this.listener = new NotificationListener({
      url: this.url,
      channels: [COMMIT_CHANNEL],
      onNotification: (_ch, payload) => {
        const s = (JSON.parse(payload) as { s: string }).s;
        for (const wake of this.waiting.get(s) ?? []) wake();
      },
    });
    await this.listener.start();
  }
  async close(): Promise<void> {
    await this.listener?.close();
  }
  async wait(
    sessionId: string,
    id: string,
    timeoutMs = 120_000,
  ): Promise<{ status: string; acceptedAt: number; deliveredAt: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let wake!: () => void;
      const woken = new Promise<void>((r) => (wake = r));
      const set = this.waiting.get(sessionId) ?? new Set();
      set.add(wake);
      this.waiting.set(sessionId, set);
      try {
        const done = await turnEnd(this.pool, id);
        if (done) return done;
        if (Date.now() > deadline) throw new Error(`turn ${id} did not end within ${timeoutMs} ms`);
        await Promise.race([woken, sleep(500)]);
      } finally {
        set.delete(wake);
        if (set.size === 0) this.waiting.delete(sessionId);
      }
    }
  }
}

async function turnEnd(
  pool: Pool,
  id: string,
): Promise<{ status: string; acceptedAt: number; deliveredAt: number } | null> {
  const r = await pool.query<{ status: string; created_at: Date; delivered_at: Date | null }>(
    `SELECT u.status, u.created_at,
            (SELECT max(a.updated_at) FROM messages a WHERE a.parent_id = u.id AND a.role = 'assistant' AND a.status = 'delivered') AS delivered_at
       FROM messages u WHERE u.id = $1`,
    [id],
  );
  const row = r.rows[0];
  if (row && ['processed', 'error', 'interrupted'].includes(row.status) && row.delivered_at) {
    return {
      status: row.status,
      acceptedAt: row.created_at.getTime(),
      deliveredAt: row.delivered_at.getTime(),
    };
  }
  return null;
}

/**
 * Submits one message, retrying with the same id (idempotent) while Temporal sheds load — as an API client
 * retries a 503 — so an overloaded server slows the benchmark down instead of aborting it.
 */
async function submit(env: Env, sessionId: string, content: string) {
  const msg = inbound(content);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await env.sessions.submit({ sessionId, chatbotId: 'api', channelId: sessionId }, msg);
      return { id: msg.id, submitMs: Date.now() - started, retries: attempt };
    } catch (err) {
      if (!(err instanceof SessionClientError) || err.kind !== 'unavailable' || attempt >= 20) throw err;
      env.retries++;
      await sleep(200 * 2 ** Math.min(attempt, 5));
    }
  }
}

/** a. Overhead per turn, Kesoku vs the in-process baseline. */
async function benchOverhead(env: Env) {
  const session = `bench-a-${Date.now()}`;
  // Warm up (first turn starts the session and its title workflow).
  for (let i = 0; i < 5; i++)
    await env.waiter.wait(session, (await submit(env, session, `warm ${i} ${session}`)).id);
  await sleep(500);
  const overhead: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < SIZES.overheadTurns; i++) {
    const content = `overhead ${i} ${session}`;
    const from = env.fake.requests.length;
    const { id } = await submit(env, session, content);
    const t = await env.waiter.wait(session, id);
    const model = modelTimes(env.fake, from).get(content) ?? 0;
    total.push(t.deliveredAt - t.acceptedAt);
    overhead.push(t.deliveredAt - t.acceptedAt - model);
  }
  const baseline = await benchBaseline(env);
  const kesoku = {
    p50: percentile(overhead, 50),
    p99: percentile(overhead, 99),
    totalP50: percentile(total, 50),
  };
  // p50 per tenth of the run: shows whether the overhead drifts as the run goes on (see README, "Benchmarks").
  const tenth = Math.max(1, Math.floor(overhead.length / 10));
  const trend = Array.from({ length: Math.ceil(overhead.length / tenth) }, (_, i) =>
    round(percentile(overhead.slice(i * tenth, (i + 1) * tenth), 50)),
  );
  return {
    turns: SIZES.overheadTurns,
    kesoku_ms: {
      p50: round(kesoku.p50),
      p99: round(kesoku.p99),
      end_to_end_p50: round(kesoku.totalP50),
      p50_by_tenth: trend,
    },
    baseline_ms: { p50: round(baseline.p50), p99: round(baseline.p99) },
    ratio_p50: round(kesoku.p50 / baseline.p50, 2),
    ratio_p99: round(kesoku.p99 / baseline.p99, 2),
  };
}

/**
 * The baseline: the same activities' Postgres writes and model call, run in this process one after another
 * with no Temporal in between (accept, claim, model step with its commit, delivery, finish).
 */
async function benchBaseline(env: Env): Promise<{ p50: number; p99: number }> {
  const logger = createLogger('bench-baseline', 'silent');
  const llm: LlmConfig = {
    provider: 'openai-compatible',
    baseUrl: env.fake.url,
    model: 'fake',
    requestTimeoutMs: 10_000,
  };
  const persistence = createPersistenceActivities({ pool: env.pool, logger });
  const model = createModelActivities({
    pool: env.pool,
    logger,
    llm,
    tools: [],
    maxSteps: 8,
    compactTokens: 1_000_000,
    workspaceDirFor: () => env.dataDir,
  });
  const activityEnv = new MockActivityEnvironment();
  const session = `bench-base-${Date.now()}`;
  const address = { sessionId: session, chatbotId: 'api', channelId: session };
  const overhead: number[] = [];
  for (let i = 0; i < SIZES.overheadTurns + 5; i++) {
    const content = `baseline ${i} ${session}`;
    const msg = inbound(content);
    const from = env.fake.requests.length;
    // The same writes as a Kesoku REST turn: accept, then one model step that claims, answers and completes inline.
    await persistence.acceptInbound({ address, message: msg });
    const outcome: StepOutcome = await activityEnv.run(model.runModelStep, {
      sessionId: session,
      turnId: msg.id,
      step: 0,
      recovery: false,
      turnStartedAt: Date.now(),
      canNudge: true,
      claim: true,
      completeInline: true,
    });
    if (outcome.kind !== 'final' || !outcome.finished)
      throw new Error(`baseline expected a finished reply, got ${outcome.kind}`);
    const t = await turnEnd(env.pool, msg.id);
    if (!t) throw new Error('baseline turn did not end');
    const modelMs = modelTimes(env.fake, from).get(content) ?? 0;
    if (i >= 5) overhead.push(t.deliveredAt - t.acceptedAt - modelMs);
  }
  return { p50: percentile(overhead, 50), p99: percentile(overhead, 99) };
}

/** b. Throughput with `concurrency` sessions, each sending turns back to back. */
async function benchThroughput(env: Env, concurrency: number) {
  const turnsPerSession = Math.max(2, Math.ceil(SIZES.throughputTurns / concurrency));
  const tag = `bench-b${concurrency}-${Date.now()}`;
  // Create the sessions first (their first turns and title workflows are not timed).
  const sessions = Array.from({ length: concurrency }, (_, i) => `${tag}-${i}`);
  for (let i = 0; i < sessions.length; i += 100) {
    await Promise.all(
      sessions
        .slice(i, i + 100)
        .map(async (s) => env.waiter.wait(s, (await submit(env, s, `start ${s}`)).id, 600_000)),
    );
  }
  await sleep(1000);
  env.retries = 0;
  const started = Date.now();
  let done = 0;
  await Promise.all(
    sessions.map(async (s) => {
      for (let t = 0; t < turnsPerSession; t++) {
        await env.waiter.wait(s, (await submit(env, s, `turn ${t} ${s}`)).id, 600_000);
        done++;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  return {
    sessions: concurrency,
    turns: done,
    seconds: round(seconds, 2),
    turns_per_s: round(done / seconds),
    submit_retries: env.retries,
  };
}

/** c. Latency of turns at given positions in one long session. */
async function benchLongSession(env: Env) {
  const session = `bench-c-${Date.now()}`;
  const marks = SIZES.longSession;
  const last = Math.max(...marks);
  const samples: Record<number, number[]> = {};
  const window = 10; // turns measured around each mark
  let runs = 1;
  for (let t = 1; t <= last; t++) {
    const { id } = await submit(env, session, `long ${t} ${session}`);
    const r = await env.waiter.wait(session, id);
    for (const m of marks) {
      if (t > m - window && t <= m) (samples[m] ??= []).push(r.deliveredAt - r.acceptedAt);
    }
    if (t % 1000 === 0) log(`long session: ${t} turns`);
  }
  for await (const _ of env.client.workflow.list({ query: `WorkflowId = '${sessionWorkflowId(session)}'` }))
    runs++;
  const out: Record<string, number> = {};
  for (const m of marks) out[`turn_${m}_ms`] = round(percentile(samples[m] ?? [], 50));
  const first = out[`turn_${marks[0]}_ms`] ?? NaN;
  const lastMs = out[`turn_${last}_ms`] ?? NaN;
  return { ...out, runs: runs - 1, last_vs_first: round(lastMs / first, 2) };
}

/** d. History events and payload bytes per simple turn and per tool turn, from the session's history. */
async function benchHistory(env: Env) {
  const measure = async (content: string) => {
    const session = `bench-d-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
    await env.waiter.wait(session, (await submit(env, session, `first ${session}`)).id);
    await sleep(300);
    const before = await historyStats(env, session);
    for (let i = 0; i < 5; i++)
      await env.waiter.wait(session, (await submit(env, session, `${content} ${i}`)).id);
    const after = await historyStats(env, session);
    return {
      events: round((after.events - before.events) / 5),
      payload_bytes: round((after.bytes - before.bytes) / 5, 0),
    };
  };
  return { simple_turn: await measure('simple'), tool_turn: await measure('run: echo bench') };
}

async function historyStats(env: Env, session: string): Promise<{ events: number; bytes: number }> {
  const history = await env.client.workflow.getHandle(sessionWorkflowId(session)).fetchHistory();
  let bytes = 0;
  const walk = (o: unknown) => {
    if (!o || typeof o !== 'object') return;
    const p = o as { data?: unknown; metadata?: unknown };
    if (p.data instanceof Uint8Array && p.metadata) {
      bytes += p.data.length;
      return;
    }
    for (const v of Object.values(o)) walk(v);
  };
  walk(history);
  void temporal;
  return { events: history.events?.length ?? 0, bytes };
}

/** e. Worker memory and CPU with many idle sessions. */
async function benchIdle(env: Env) {
  const n = SIZES.idleSessions;
  const tag = `bench-e-${Date.now()}`;
  const started = Date.now();
  const batch = 100;
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, async (_, j) => {
        const s = `${tag}-${i + j}`;
        await env.waiter.wait(s, (await submit(env, s, `hello ${s}`)).id, 600_000);
      }),
    );
    if ((i + batch) % 1000 === 0) log(`idle sessions: ${i + batch}`);
  }
  const createSeconds = (Date.now() - started) / 1000;
  await sleep(10_000); // let title workflows and caches settle
  const pid = env.worker.child.pid as number;
  const cpu0 = cpuSeconds(pid);
  const t0 = Date.now();
  await sleep(30_000);
  const cpu = (cpuSeconds(pid) - cpu0) / ((Date.now() - t0) / 1000);
  const cached = process.env.KESOKU_WORKER_CACHED_SESSIONS
    ? Number(process.env.KESOKU_WORKER_CACHED_SESSIONS)
    : 'sdk default';
  return {
    sessions: n,
    cached_sessions: cached,
    create_seconds: round(createSeconds),
    worker_rss_mb: round(rssMb(pid)),
    worker_cpu_percent_idle: round(cpu * 100, 2),
  };
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

async function main() {
  const started = Date.now();
  const runDate = new Date().toISOString();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-bench-'));
  fs.chmodSync(dir, 0o755);
  let pgServer: PostgresServer | null = null;
  let temporalServer: TemporalServer | null = null;
  let worker: ChildPart | null = null;
  let fake: FakeModelServer | null = null;
  let dbName: string | null = null;
  let adminUrl: string | null = null;
  try {
    pgServer = await resolvePostgres({
      databaseUrl: process.env.DATABASE_URL,
      dataDir: path.join(dir, 'pg'),
      port: await freePort(),
      database: 'postgres',
    });
    adminUrl = withDatabase(pgServer.url, 'postgres');
    dbName = `kesoku_bench_${Date.now()}`;
    await ensureDatabase(adminUrl, dbName);
    const databaseUrl = withDatabase(pgServer.url, dbName);
    await migrate(databaseUrl);
    const binary = await resolveTemporalBinary({ cliPath: process.env.KESOKU_TEMPORAL_CLI });
    if (!binary) throw new Error('no Temporal CLI (see README: Requirements)');
    const port = await freePort();
    temporalServer = process.env.TEMPORAL_ADDRESS
      ? null
      : await startDevServer(
          binary.path,
          {
            port,
            uiPort: null,
            // As `npm start` runs it (state in a SQLite file); KESOKU_BENCH_TEMPORAL_DB=memory for comparison.
            dbFilename:
              process.env.KESOKU_BENCH_TEMPORAL_DB === 'memory' ? null : path.join(dir, 'temporal.db'),
            logFile: path.join(dir, 'temporal.log'),
          },
          binary.source,
        );
    const temporalAddress = process.env.TEMPORAL_ADDRESS ?? temporalServer?.address ?? '';
    fake = await startFakeModelServer();
    const taskQueue = `bench-${Date.now()}`;
    // Payloads are encrypted as in production: the worker process and this client share one key.
    const payloadKeys = newPayloadKeyEntry();
    const workerEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      KESOKU_TASK_QUEUE: taskQueue,
      KESOKU_DATA_DIR: path.join(dir, 'data'),
      KESOKU_LLM_BASE_URL: fake.url,
      KESOKU_LLM_MODEL: 'fake',
      // Benchmarked commands run without waiting for a person.
      KESOKU_TOOL_APPROVAL: 'off',
      KESOKU_LOG_LEVEL: 'error',
      KESOKU_PAYLOAD_KEYS: payloadKeys,
      // KESOKU_BENCH_WORKER_NODE_OPTIONS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile the worker.
      NODE_OPTIONS: [process.env.NODE_OPTIONS, process.env.KESOKU_BENCH_WORKER_NODE_OPTIONS]
        .filter(Boolean)
        .join(' '),
    };
    worker = startPart('workers/worker.ts', workerEnv);
    await worker.waitFor('kesoku worker running', 120_000);
    const pool = createPool(databaseUrl, { max: 20 });
    const connection = await connectTemporal({ address: temporalAddress });
    const client = new Client({
      connection,
      dataConverter: dataConverterFor(parsePayloadKeys(payloadKeys, 'bench')),
    });
    const sessions = new SessionClient({ client, taskQueue });
    const waiter = new TurnWaiter(pool, databaseUrl);
    await waiter.start();
    const env: Env = {
      pool,
      databaseUrl,
      temporalAddress,
      client,
      sessions,
      fake,
      taskQueue,
      worker,
      workerEnv,
      dataDir: dir,
      waiter,
      retries: 0,
    };

    const results: Record<string, unknown> = {};
    const reportNow = () =>
      writeReport({
        date: runDate,
        quick,
        machine: {
          cpus: os.cpus().length,
          cpu: os.cpus()[0]?.model,
          memory_gb: round(os.totalmem() / 2 ** 30),
          node: process.version,
        },
        postgres: pgServer?.source,
        temporal_store: process.env.KESOKU_BENCH_TEMPORAL_DB === 'memory' ? 'memory' : 'sqlite file (WAL)',
        duration_s: round((Date.now() - started) / 1000),
        results,
      });
    if (want('a')) {
      log('a. overhead per turn');
      results.a_overhead = await benchOverhead(env);
      reportNow();
      log(JSON.stringify(results.a_overhead));
    }
    if (want('d')) {
      log('d. history per turn');
      results.d_history = await benchHistory(env);
      reportNow();
      log(JSON.stringify(results.d_history));
    }
    if (want('b')) {
      results.b_throughput = [];
      for (const c of SIZES.throughput) {
        log(`b. throughput with ${c} sessions`);
        const r = await benchThroughput(env, c);
        (results.b_throughput as unknown[]).push(r);
        reportNow();
        log(JSON.stringify(r));
      }
    }
    if (want('c')) {
      log('c. long session');
      results.c_long_session = await benchLongSession(env);
      reportNow();
      log(JSON.stringify(results.c_long_session));
    }
    if (want('e')) {
      log('e. idle sessions');
      results.e_idle = await benchIdle(env);
      reportNow();
      log(JSON.stringify(results.e_idle));
    }
    reportNow();
    process.stdout.write(renderMarkdown(JSON.parse(fs.readFileSync(lastReportFile, 'utf8')) as AnyRec));
    await waiter.close();
    await connection.close();
    await pool.end();
  } finally {
    await worker?.kill('SIGTERM');
    await fake?.close();
    await temporalServer?.stop();
    if (adminUrl && dbName) await dropDatabase(adminUrl, dbName).catch(() => undefined);
    await pgServer?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let lastReportFile = '';

function writeReport(report: { date: string; results: Record<string, unknown> } & Record<string, unknown>) {
  const outDir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = report.date.slice(0, 19).replace(/[:T]/g, '-');
  const file = path.join(outDir, `${stamp}${report.quick ? '-quick' : ''}`);
  lastReportFile = `${file}.json`;
  fs.writeFileSync(`${file}.json`, JSON.stringify(report, null, 2) + '\n');
  const md = renderMarkdown(report);
  fs.writeFileSync(`${file}.md`, md);
  log(`wrote ${file}.json and .md`);
}

type AnyRec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function renderMarkdown(report: AnyRec): string {
  const r = report.results as AnyRec;
  const lines = [
    `# Kesoku benchmark ${report.date}${report.quick ? ' (quick)' : ''}`,
    '',
    `Machine: ${report.machine.cpus} cores (${report.machine.cpu}), ${report.machine.memory_gb} GB, Node ${report.machine.node}; Postgres ${report.postgres}; Temporal dev server store: ${report.temporal_store}.`,
    '',
  ];
  lines.push('| measure | result | target |', '|---|---|---|');
  if (r.a_overhead) {
    const a = r.a_overhead;
    lines.push(
      `| a. overhead per turn p50 / p99 (${a.turns} turns) | ${a.kesoku_ms.p50} ms / ${a.kesoku_ms.p99} ms | ≤ 25 ms / ≤ 100 ms |`,
    );
    if (a.kesoku_ms.p50_by_tenth)
      lines.push(`| a. overhead p50 per tenth of the run | ${a.kesoku_ms.p50_by_tenth.join(', ')} ms | |`);
    lines.push(`| a. in-process baseline p50 / p99 | ${a.baseline_ms.p50} ms / ${a.baseline_ms.p99} ms | |`);
    lines.push(`| a. ratio to baseline p50 / p99 | ${a.ratio_p50}× / ${a.ratio_p99}× | ≤ 3× |`);
  }
  for (const b of (r.b_throughput ?? []) as AnyRec[])
    lines.push(
      `| b. throughput, ${b.sessions} sessions (${b.turns} turns) | ${b.turns_per_s} turns/s | ≥ 100 turns/s |`,
    );
  if (r.c_long_session) {
    const c = r.c_long_session;
    const marks = Object.keys(c).filter((k) => k.startsWith('turn_'));
    lines.push(
      `| c. one session: ${marks.map((k) => k.replace('turn_', 'turn ').replace('_ms', '')).join(', ')} (p50 of 10 turns each) | ${marks.map((k) => `${c[k]} ms`).join(', ')}; ${c.runs} runs | last within 10 % of first |`,
    );
    lines.push(`| c. last / first | ${c.last_vs_first}× | ≤ 1.1× |`);
  }
  if (r.d_history) {
    const d = r.d_history;
    lines.push(
      `| d. history per simple turn | ${d.simple_turn.events} events, ${d.simple_turn.payload_bytes} payload bytes | |`,
    );
    lines.push(
      `| d. history per tool turn | ${d.tool_turn.events} events, ${d.tool_turn.payload_bytes} payload bytes | |`,
    );
  }
  if (r.e_idle) {
    const e = r.e_idle;
    const cache = e.cached_sessions === undefined ? '' : `, cache ${e.cached_sessions}`;
    lines.push(
      `| e. worker with ${e.sessions} idle sessions${cache} | ${e.worker_rss_mb} MB RSS, ${e.worker_cpu_percent_idle} % CPU idle | |`,
    );
  }
  return lines.join('\n') + '\n';
}

await main();

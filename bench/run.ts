/**
 * `npm run bench`: Kesoku's speed and memory benchmarks. Writes bench/results/<name>.json and
 * bench/results/<name>.md (name: the run's date, or `--name`), and prints the tables. bench/README.md explains
 * every column.
 *
 * Real parts: a Temporal server (`--temporal dev|cluster|both`, see bench/stores.ts), Postgres (DATABASE_URL's
 * server when set, else an embedded one), the worker as a separate process (`bin/worker.ts`), the REST API
 * (`bin/api.ts`) and the Discord adapter (`bin/channels.ts discord`) as separate processes where a section uses
 * them, a zero-latency fake model server and a fake Discord (both in this process).
 *
 *   a. orchestration overhead per turn — accepted → delivered, minus the model's time — p50/p99, beside an
 *      in-process baseline doing the same Postgres writes and model call without Temporal;
 *   b. throughput in turns/s with 1, 100 and 1 000 concurrent sessions;
 *   c. per-turn latency at turn 10, 1 000 and 10 000 of one session (continue-as-new at work);
 *   d. a plain and a tool turn over the REST API: history counts, Postgres statements, time to the model request;
 *   e. worker memory and CPU with 10 000 idle sessions;
 *   f. a plain and a tool turn on Discord (fake Discord, the real adapter and sink): the same counts as d;
 *   g. schedule fire-to-turn delay: one-time scheduled prompts, due time → prompt accepted and → model request.
 *   h. the first turn after Kesoku restarts (worker and API processes; Temporal and Postgres stay up) vs a
 *      steady-state turn of the same sessions.
 *
 * Every section that runs turns also reports, per turn: Postgres statements per process (counted at the client,
 * bench/pg-probe.ts), CPU time per process, the Temporal SDK's schedule-to-start and execution latencies per task
 * queue (the worker's /metrics), and on the cluster the Temporal server's own Postgres transactions.
 *
 * Options: `--quick` (smaller sizes, a smoke check); `--only a,d` (sections); `--temporal dev|cluster|both`
 * (default dev; `both` runs every section on each store in turn, one results file); `--name NAME` (results file
 * name); `--turns N` (turns of a, and 4 × N/20 of d and f); `--idle N` (idle sessions of e). The worker gets this
 * process's environment (KESOKU_WORKER_CACHED_SESSIONS…); KESOKU_BENCH_WORKER_NODE_OPTIONS adds Node options to
 * the worker only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { dataConverterFor, newPayloadKeyEntry, parsePayloadKeys } from '../infra/payload-codec.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../infra/temporal-connection.ts';
import type { LlmConfig } from '../activities/llm/provider.ts';
import type { StepOutcome } from '../workflows/activity-contracts.ts';
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
import { freePort } from '../infra/temporal-server.ts';
import { sessionWorkflowId, type InboundMessage } from '../workflows/definitions.ts';
import { tickMessageId } from '../domain/schedules.ts';
import {
  contentText,
  startFakeModelServer,
  type FakeModelServer,
  type FakeRequest,
} from '../test/fakes/model-server.ts';
import { snowflake, startFakeDiscord, type FakeDiscord } from '../adapters/discord/test/fake-server.ts';
import { startPart, type ChildPart } from '../test/support/processes.ts';
import { MockActivityEnvironment } from '@temporalio/testing';
import { fetchStatements, recordStatements, type StatementLog, type StatementRecord } from './pg-probe.ts';
import {
  cpuSeconds,
  histogramDeltas,
  historyCounts,
  perTurn,
  turnTimeline,
  rssMb,
  threadCpuSeconds,
  scrape,
  type HistoryCounts,
  type Sample,
} from './probes.ts';
import { startStore, type StoreKind, type TemporalStore } from './stores.ts';
import { renderMarkdown, type AnyRec } from './report.ts';

const args = process.argv.slice(2);
/** The value of `--name value` or `--name=value`. */
const option = (name: string): string | undefined => {
  const eq = args.find((a) => a.startsWith(`--${name}=`));
  if (eq) return eq.slice(name.length + 3);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
const SECTIONS = /^[a-h]$/;
const only = (option('only') ?? '').split(',').filter((s) => SECTIONS.test(s));
const want = (s: string) => only.length === 0 || only.includes(s);
const temporalOption = option('temporal') ?? 'dev';
if (!['dev', 'cluster', 'both'].includes(temporalOption)) {
  process.stderr.write(`--temporal must be dev, cluster or both (got ${temporalOption})\n`);
  process.exit(2);
}
const storeKinds: StoreKind[] =
  temporalOption === 'both' ? ['dev', 'cluster'] : [temporalOption as StoreKind];

const SIZES = quick
  ? {
      overheadTurns: 60,
      anatomyTurns: 5,
      throughput: [1, 20, 100],
      throughputTurns: 200,
      longSession: [10, 100, 300],
      idleSessions: 300,
    }
  : {
      overheadTurns: 400,
      anatomyTurns: 20,
      throughput: [1, 100, 1000],
      throughputTurns: 2000,
      longSession: [10, 1000, 10_000],
      idleSessions: 10_000,
    };
// `--idle N`: another number of idle sessions for e (e.g. to compare KESOKU_WORKER_CACHED_SESSIONS settings).
if (option('idle')) SIZES.idleSessions = Number(option('idle')) || SIZES.idleSessions;
if (option('turns')) {
  SIZES.overheadTurns = Number(option('turns')) || SIZES.overheadTurns;
  SIZES.anatomyTurns = Math.max(3, Math.round(SIZES.overheadTurns / 20));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const p50p99 = (values: number[]) => ({
  p50: round(percentile(values, 50)),
  p99: round(percentile(values, 99)),
});

/** A Kesoku process of the run, with the port of its statement probe. */
interface Part {
  name: string;
  part: ChildPart;
  probePort: number;
  /** Epoch ms when it was spawned (where a `--cpu-prof` profile of it starts). */
  startedAt: number;
}

interface Env {
  store: TemporalStore;
  pool: Pool;
  databaseUrl: string;
  adminUrl: string;
  client: Client;
  sessions: SessionClient;
  fake: FakeModelServer;
  discord: FakeDiscord;
  taskQueue: string;
  worker: ChildPart;
  /** The worker, and the API and the Discord adapter once a section started them. */
  parts: Part[];
  partEnv: NodeJS.ProcessEnv;
  /** Starts a new worker process (the first one, and after a restart in h). */
  startWorker: () => Promise<Part>;
  metricsUrl: string;
  dataDir: string;
  waiter: TurnWaiter;
  /** Base URL of the REST API process (started by the first section that needs it). */
  apiUrl?: string;
  /** The Discord guild, its channels for f, and the paired user who writes there. */
  guild: { id: string; channels: string[]; user: { id: string; username: string; global_name: string } };
  discordAdapter?: boolean;
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

/** The chat requests since index `from` whose last user message contains `token`, in arrival order. */
function requestsOf(fake: FakeModelServer, from: number, token: string): FakeRequest[] {
  return fake.requests.slice(from).filter((r) => {
    if (!r.path.endsWith('/chat/completions')) return false;
    const last = [...(r.body?.messages ?? [])].reverse().find((m) => m.role === 'user');
    return last !== undefined && contentText(last.content).includes(token);
  });
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
  async wait(sessionId: string, id: string, timeoutMs = 120_000): Promise<TurnEnd> {
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

interface TurnEnd {
  status: string;
  acceptedAt: number;
  deliveredAt: number;
}

async function turnEnd(pool: Pool, id: string): Promise<TurnEnd | null> {
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

/** One measured turn: when it was sent, accepted (its row) and delivered, and the model requests it made. */
interface TurnSample {
  sentAt: number;
  acceptedAt: number;
  deliveredAt: number;
  /** When the bench saw the session idle again (its `state` query), epoch ms; d and f only. */
  idleAt?: number;
  requests: FakeRequest[];
}

/**
 * What happened around a section's turns besides their times: Postgres statements of every Kesoku process, CPU
 * time of every process, the SDK's latency histograms, the cluster's own Postgres transactions, the load.
 */
class SectionProbe {
  private readonly env: Env;
  private readonly started = Date.now();
  private readonly load = os.loadavg()[0] as number;
  private cpu: Record<string, number> = {};
  private workerThreads: Record<string, number> = {};
  private benchCpu = process.cpuUsage();
  private statementsSeq: Record<string, number> = {};
  private metrics: Sample[] = [];
  private xacts: Record<string, number> = {};
  private constructor(env: Env) {
    this.env = env;
  }
  static async begin(env: Env): Promise<SectionProbe> {
    const p = new SectionProbe(env);
    p.statementsSeq = Object.fromEntries(
      await Promise.all(
        env.parts.map(async (part) => [part.name, (await fetchStatements(part.probePort, 1e15)).total]),
      ),
    );
    p.metrics = await scrape(env.metricsUrl).catch(() => []);
    p.xacts = await databaseXacts(env);
    p.cpu = processCpu(env);
    p.workerThreads = threadCpuSeconds(env.worker.child.pid ?? 0);
    p.benchCpu = process.cpuUsage();
    return p;
  }

  /**
   * Per-turn figures over `turns` turns; with `samples`, also the statements sent between each turn's sending
   * and its first model request.
   */
  async end(turns: number, samples: TurnSample[] = []): Promise<AnyRec> {
    const cpuNow = processCpu(this.env);
    const threadsNow = threadCpuSeconds(this.env.worker.child.pid ?? 0);
    const bench = process.cpuUsage(this.benchCpu);
    const perTurnMs = (s: number) => round((s * 1000) / turns, 2);
    const cpu: Record<string, number> = {};
    for (const [name, s] of Object.entries(cpuNow)) cpu[name] = perTurnMs(s - (this.cpu[name] ?? 0));
    cpu['bench process (client, fakes)'] = perTurnMs((bench.user + bench.system) / 1e6);
    const statements: Record<string, number> = {};
    const beforeModel: Record<string, number> = {};
    const records: StatementRecord[] = [];
    for (const part of this.env.parts) {
      const dump = await fetchStatements(part.probePort, this.statementsSeq[part.name] ?? 0);
      statements[part.name] = round((dump.total - (this.statementsSeq[part.name] ?? 0)) / turns, 2);
      if (samples.length > 0)
        beforeModel[part.name] = round(
          countInWindows(dump.records, samples) / samples.filter((s) => s.requests[0]).length,
          2,
        );
      records.push(...dump.records.map((r) => ({ ...r, sql: `${part.name}: ${r.sql}` })));
    }
    const metrics = await scrape(this.env.metricsUrl).catch(() => []);
    // KESOKU_BENCH_METRICS_DUMP=<file>: the worker's last scrape as JSON, to see every series and label.
    if (process.env.KESOKU_BENCH_METRICS_DUMP)
      fs.writeFileSync(process.env.KESOKU_BENCH_METRICS_DUMP, JSON.stringify(metrics, null, 1));
    const xactsNow = await databaseXacts(this.env);
    const out: AnyRec = {
      turns,
      seconds: round((Date.now() - this.started) / 1000, 1),
      load_avg_1m: [round(this.load, 2), round(os.loadavg()[0] as number, 2)],
      pg_statements_per_turn: {
        ...statements,
        total: round(
          Object.values(statements).reduce((a, b) => a + b, 0),
          2,
        ),
      },
      cpu_ms_per_turn: cpu,
      worker_thread_cpu_ms_per_turn: Object.fromEntries(
        Object.entries(threadsNow)
          .map(([name, s]) => [name, perTurnMs(s - (this.workerThreads[name] ?? 0))] as const)
          .filter(([, ms]) => ms > 0),
      ),
      started_at: new Date(this.started).toISOString(),
      ended_at: new Date().toISOString(),
      sdk_latency: histogramDeltas(this.metrics, metrics, this.env.taskQueue),
    };
    if (samples.length > 0) {
      out.pg_statements_before_model = {
        ...beforeModel,
        total: round(
          Object.values(beforeModel).reduce((a, b) => a + b, 0),
          2,
        ),
      };
      out.pg_statements_before_model_sql = statementsBeforeModel(records, samples);
    }
    if (Object.keys(xactsNow).length > 0)
      out.temporal_pg_xacts_per_turn = Object.fromEntries(
        Object.entries(xactsNow).map(([db, n]) => [db, round((n - (this.xacts[db] ?? 0)) / turns, 1)]),
      );
    return out;
  }
}

/** Statements with `at` between a sample's sending and its first model request, summed over the samples. */
function countInWindows(records: StatementRecord[], samples: TurnSample[]): number {
  let n = 0;
  for (const s of samples) {
    const model = s.requests[0]?.arrivedAt;
    if (model === undefined) continue;
    n += records.filter((r) => r.at >= s.sentAt && r.at <= model).length;
  }
  return n;
}

/** The statements before the model request of the median-latency sample, in order (what the path does). */
function statementsBeforeModel(records: StatementRecord[], samples: TurnSample[]): string[] {
  const withModel = samples.filter((s) => s.requests[0]);
  const sorted = [...withModel].sort(
    (a, b) => (a.requests[0]?.arrivedAt ?? 0) - a.sentAt - ((b.requests[0]?.arrivedAt ?? 0) - b.sentAt),
  );
  const s = sorted[Math.floor(sorted.length / 2)];
  if (!s) return [];
  const model = s.requests[0]?.arrivedAt ?? 0;
  return records
    .filter((r) => r.at >= s.sentAt && r.at <= model)
    .sort((a, b) => a.at - b.at)
    .map((r) => `+${round(r.at - s.sentAt)} ms ${r.sql}`);
}

/** CPU seconds so far of the Kesoku processes, the Temporal server's processes and the run's Postgres backends. */
function processCpu(env: Env): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of env.parts) if (part.part.child.pid) out[part.name] = cpuSeconds(part.part.child.pid);
  for (const [name, pid] of Object.entries(env.store.pids())) out[name] = cpuSeconds(pid);
  return out;
}

/** Committed transactions so far of the Temporal server's own databases (cluster only). */
async function databaseXacts(env: Env): Promise<Record<string, number>> {
  if (env.store.databases.length === 0) return {};
  const admin = createPool(env.adminUrl, { max: 1 });
  try {
    // Backends report their counts when they go idle, at most once a second.
    await sleep(1100);
    const r = await admin.query<{ datname: string; xact_commit: string }>(
      'SELECT datname, xact_commit FROM pg_stat_database WHERE datname = ANY($1)',
      [env.store.databases],
    );
    return Object.fromEntries(
      r.rows.map((row) => [row.datname.replace(/^.*_(temporal|visibility)$/, '$1'), Number(row.xact_commit)]),
    );
  } finally {
    await admin.end();
  }
}

/** The session's history counts once they stop changing (the trailing workflow task of the last turn is in). */
async function settledCounts(env: Env, sessionId: string): Promise<HistoryCounts> {
  let last = await historyCounts(env.client, sessionWorkflowId(sessionId));
  for (let i = 0; i < 20; i++) {
    await sleep(300);
    const now = await historyCounts(env.client, sessionWorkflowId(sessionId));
    if (now.events === last.events) return now;
    last = now;
  }
  return last;
}

/** Times of a set of turns: end to end, overhead (minus model time), time to the first model request. */
function turnTimes(samples: TurnSample[]): AnyRec {
  const modelMs = modelMsOf;
  const withModel = samples.filter((s) => s.requests[0]);
  const toolGaps = samples
    .filter((s) => s.requests.length >= 2 && s.requests[0]?.endedAt)
    .map((s) => (s.requests[1]?.arrivedAt ?? 0) - (s.requests[0]?.endedAt ?? 0));
  return {
    end_to_end_ms: p50p99(samples.map((s) => s.deliveredAt - s.sentAt)),
    overhead_ms: p50p99(samples.map((s) => s.deliveredAt - s.acceptedAt - modelMs(s))),
    to_model_request_ms: {
      from_sent: p50p99(withModel.map((s) => (s.requests[0]?.arrivedAt ?? 0) - s.sentAt)),
      from_accepted: p50p99(withModel.map((s) => (s.requests[0]?.arrivedAt ?? 0) - s.acceptedAt)),
    },
    ...(toolGaps.length > 0 ? { model_to_model_ms: p50p99(toolGaps) } : {}),
    ...(samples.some((s) => s.idleAt !== undefined)
      ? {
          delivered_to_idle_ms: p50p99(
            samples.flatMap((s) => (s.idleAt === undefined ? [] : [s.idleAt - s.deliveredAt])),
          ),
        }
      : {}),
    model_ms_p50: round(percentile(samples.map(modelMs), 50)),
    model_requests_per_turn: round(samples.reduce((n, s) => n + s.requests.length, 0) / samples.length, 2),
  };
}

/**
 * a. Overhead per turn, Kesoku vs the in-process baseline, turn for turn: each Kesoku turn is followed by a baseline
 * turn, so both see the same load on a shared machine and the ratio does not depend on when the load changed.
 */
async function benchOverhead(env: Env) {
  const session = `bench-a-${Date.now()}`;
  const baseline = await Baseline.open(env);
  try {
    // Warm up (first turn starts the session and its title workflow; the baseline's first turns warm its pool).
    for (let i = 0; i < 5; i++) {
      await env.waiter.wait(session, (await submit(env, session, `warm ${i} ${session}`)).id);
      await baseline.turn();
    }
    await sleep(500);
    const before = await settledCounts(env, session);
    const probe = await SectionProbe.begin(env);
    const statementsFrom = baseline.statements.total;
    const overhead: number[] = [];
    const total: number[] = [];
    const samples: TurnSample[] = [];
    const base: TurnSample[] = [];
    let baselineCpuUs = 0;
    for (let i = 0; i < SIZES.overheadTurns; i++) {
      const content = `overhead ${i} ${session}`;
      const from = env.fake.requests.length;
      const sentAt = Date.now();
      const { id } = await submit(env, session, content);
      const t = await env.waiter.wait(session, id);
      const model = modelTimes(env.fake, from).get(content) ?? 0;
      total.push(t.deliveredAt - t.acceptedAt);
      overhead.push(t.deliveredAt - t.acceptedAt - model);
      samples.push({ sentAt, ...t, requests: requestsOf(env.fake, from, content) });
      const cpu = process.cpuUsage();
      base.push(await baseline.turn());
      const used = process.cpuUsage(cpu);
      baselineCpuUs += used.user + used.system;
    }
    const after = await settledCounts(env, session);
    const counters = await probe.end(SIZES.overheadTurns, samples);
    // The baseline ran in this process: its CPU is its own column, not the client's.
    const benchKey = 'bench process (client, fakes)';
    const baselineCpuMs = round(baselineCpuUs / 1000 / SIZES.overheadTurns, 2);
    counters.cpu_ms_per_turn[benchKey] = round(counters.cpu_ms_per_turn[benchKey] - baselineCpuMs, 2);
    counters.cpu_ms_per_turn['in-process baseline (bench process)'] = baselineCpuMs;
    const baseOverhead = base.map((b) => b.deliveredAt - b.acceptedAt - modelMsOf(b));
    const records = baseline.statements.since(statementsFrom);
    const kesoku = {
      p50: percentile(overhead, 50),
      p99: percentile(overhead, 99),
      totalP50: percentile(total, 50),
    };
    const baselineP = { p50: percentile(baseOverhead, 50), p99: percentile(baseOverhead, 99) };
    // p50 per tenth of the run: shows whether the overhead drifts as the run goes on (see README, "Benchmarks").
    const tenth = Math.max(1, Math.floor(overhead.length / 10));
    const byTenth = (xs: number[]) =>
      Array.from({ length: Math.ceil(xs.length / tenth) }, (_, i) =>
        round(percentile(xs.slice(i * tenth, (i + 1) * tenth), 50)),
      );
    const times = turnTimes(samples);
    const baseTimes = turnTimes(base).to_model_request_ms as AnyRec;
    return {
      turns: SIZES.overheadTurns,
      kesoku_ms: {
        p50: round(kesoku.p50),
        p99: round(kesoku.p99),
        end_to_end_p50: round(kesoku.totalP50),
        p50_by_tenth: byTenth(overhead),
      },
      baseline_ms: {
        p50: round(baselineP.p50),
        p99: round(baselineP.p99),
        p50_by_tenth: byTenth(baseOverhead),
      },
      ratio_p50: round(kesoku.p50 / baselineP.p50, 2),
      ratio_p99: round(kesoku.p99 / baselineP.p99, 2),
      to_model_request_ms: times.to_model_request_ms,
      baseline_to_model_request_ms: baseTimes,
      ratio_to_model_request_p50: round(
        (times.to_model_request_ms.from_accepted.p50 as number) / (baseTimes.from_accepted.p50 as number),
        2,
      ),
      history_per_turn: perTurn(after, before, SIZES.overheadTurns),
      baseline_pg_statements_per_turn: {
        total: round(records.length / base.length, 2),
        before_model: round(countInWindows(records, base) / base.filter((b) => b.requests[0]).length, 2),
        before_model_sql: statementsBeforeModel(records, base),
      },
      ...counters,
    };
  } finally {
    await baseline.close();
  }
}

/** Model time of a sample's requests (received → response ended), ms. */
function modelMsOf(s: TurnSample): number {
  return s.requests.reduce((n, r) => n + (r.endedAt ? r.endedAt - r.receivedAt : 0), 0);
}

/**
 * The baseline: the same activities' Postgres writes and model call as a Kesoku REST turn, run in this process one
 * after another with no Temporal in between (accept, then one model step that claims, answers and completes
 * inline), on a pool of its own whose statements are counted.
 */
class Baseline {
  readonly statements: StatementLog;
  private readonly env: Env;
  private readonly pool: Pool;
  private readonly persistence: ReturnType<typeof createPersistenceActivities>;
  private readonly model: ReturnType<typeof createModelActivities>;
  private readonly activityEnv = new MockActivityEnvironment();
  private readonly session = `bench-base-${Date.now()}`;
  private n = 0;
  private constructor(env: Env) {
    this.env = env;
    const logger = createLogger('bench-baseline', 'silent');
    const llm: LlmConfig = {
      provider: 'openai-compatible',
      baseUrl: env.fake.url,
      model: 'fake',
      requestTimeoutMs: 10_000,
    };
    this.pool = createPool(env.databaseUrl, { max: 10 });
    this.statements = recordStatements(this.pool);
    this.persistence = createPersistenceActivities({ pool: this.pool, logger });
    this.model = createModelActivities({
      pool: this.pool,
      logger,
      llm,
      tools: [],
      maxSteps: 8,
      compactTokens: 1_000_000,
      workspaceDirFor: () => env.dataDir,
    });
  }
  static async open(env: Env): Promise<Baseline> {
    return new Baseline(env);
  }
  /**
   * One baseline turn.
   * @throws when the model step does not end the turn with a finished reply
   */
  async turn(): Promise<TurnSample> {
    const content = `baseline ${this.n++} ${this.session}`;
    const msg = inbound(content);
    const address = { sessionId: this.session, chatbotId: 'api', channelId: this.session };
    const from = this.env.fake.requests.length;
    const sentAt = Date.now();
    await this.persistence.acceptInbound({ address, message: msg });
    const outcome: StepOutcome = await this.activityEnv.run(this.model.runModelStep, {
      sessionId: this.session,
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
    const t = await turnEnd(this.env.pool, msg.id);
    if (!t) throw new Error('baseline turn did not end');
    return { sentAt, ...t, requests: requestsOf(this.env.fake, from, content) };
  }
  async close(): Promise<void> {
    await this.pool.end();
  }
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
  const probe = await SectionProbe.begin(env);
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
    ...(await probe.end(done)),
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
  const probe = await SectionProbe.begin(env);
  for (let t = 1; t <= last; t++) {
    const { id } = await submit(env, session, `long ${t} ${session}`);
    const r = await env.waiter.wait(session, id);
    for (const m of marks) {
      if (t > m - window && t <= m) (samples[m] ??= []).push(r.deliveredAt - r.acceptedAt);
    }
    if (t % 1000 === 0) log(`long session: ${t} turns`);
  }
  const counters = await probe.end(last);
  for await (const _ of env.client.workflow.list({ query: `WorkflowId = '${sessionWorkflowId(session)}'` }))
    runs++;
  const out: Record<string, number> = {};
  for (const m of marks) out[`turn_${m}_ms`] = round(percentile(samples[m] ?? [], 50));
  const first = out[`turn_${marks[0]}_ms`] ?? NaN;
  const lastMs = out[`turn_${last}_ms`] ?? NaN;
  return { ...out, runs: runs - 1, last_vs_first: round(lastMs / first, 2), ...counters };
}

/**
 * Runs `SIZES.anatomyTurns` turns of one kind on one session, after a first turn that starts the session: `send`
 * sends the turn's message (carrying `token`, unique per turn) and returns the session and message id to wait for.
 * Returns the per-turn history counts, statements, CPU and times.
 */
async function measureTurns(
  env: Env,
  sessionId: string,
  send: (content: string) => Promise<string>,
  content: (token: string) => string,
): Promise<AnyRec> {
  await env.waiter.wait(sessionId, await send(content(`first${Date.now()}`)), 180_000);
  await sleep(500);
  const before = await settledCounts(env, sessionId);
  const probe = await SectionProbe.begin(env);
  const samples: TurnSample[] = [];
  for (let i = 0; i < SIZES.anatomyTurns; i++) {
    const token = `t${i}x${Math.random().toString(36).slice(2, 8)}`;
    const from = env.fake.requests.length;
    const sentAt = Date.now();
    const id = await send(content(token));
    const t = await env.waiter.wait(sessionId, id, 180_000);
    // The turn's trailing work after its reply (the live status's last edit, its last workflow task) ends
    // before the next message is sent, so no turn waits behind the one before it.
    const idleAt = await untilIdle(env, sessionId);
    samples.push({ sentAt, ...t, idleAt, requests: requestsOf(env.fake, from, token) });
    await sleep(300);
  }
  const after = await settledCounts(env, sessionId);
  const counters = await probe.end(samples.length, samples);
  return {
    ...turnTimes(samples),
    history_per_turn: perTurn(after, before, samples.length),
    timeline: after.runs === before.runs ? await timelineOf(env, sessionId, before, samples) : undefined,
    ...counters,
  };
}

/** Polls the session's `state` query every 20 ms until it is idle with nothing queued; @returns when, epoch ms. */
async function untilIdle(env: Env, sessionId: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await env.sessions.state(sessionId);
    if (s.status === 'idle' && s.queueLength === 0) return Date.now();
    if (Date.now() > deadline) throw new Error(`session ${sessionId} not idle within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/**
 * The median timeline of `samples` (one session's turns, one after another): the server's events of each turn,
 * and the bench's own marks (row accepted, model request arrived, reply delivered), in ms after sending.
 */
async function timelineOf(env: Env, sessionId: string, before: HistoryCounts, samples: TurnSample[]) {
  const skip = before.runs === 1 ? before.events : 0;
  const t = await turnTimeline(
    env.client,
    sessionWorkflowId(sessionId),
    skip,
    samples.map((s) => s.sentAt),
  );
  const median = (f: (s: TurnSample) => number | undefined) =>
    percentile(
      samples.map(f).filter((x): x is number => x !== undefined),
      50,
    );
  const marks = [
    { what: 'bench: message row created (accepted)', at_ms: median((s) => s.acceptedAt - s.sentAt) },
    {
      what: 'bench: model request arrived at the fake',
      at_ms: median((s) => (s.requests[0] ? s.requests[0].arrivedAt - s.sentAt : undefined)),
    },
    { what: 'bench: reply row delivered', at_ms: median((s) => s.deliveredAt - s.sentAt) },
  ];
  return {
    turns: t.turns,
    steps: [...t.steps, ...marks]
      .sort((a, b) => a.at_ms - b.at_ms)
      .map((x) => ({ ...x, at_ms: round(x.at_ms) })),
  };
}

/** d. A plain turn and a tool turn posted to the REST API, one session each. */
async function benchRestTurns(env: Env) {
  const api = await ensureApi(env);
  const post = (sessionId: string) => (content: string) => postMessage(api, sessionId, content);
  const plain = `bench-d-plain-${Date.now()}`;
  const tool = `bench-d-tool-${Date.now()}`;
  return {
    plain_turn: await measureTurns(env, plain, post(plain), (t) => `simple ${t}`),
    tool_turn: await measureTurns(env, tool, post(tool), (t) => `run: echo bench ${t}`),
  };
}

/** f. A plain turn and a tool turn written on Discord by a paired user, one channel (session) each. */
async function benchDiscordTurns(env: Env) {
  await ensureDiscordAdapter(env);
  const [plainChannel, toolChannel] = env.guild.channels as [string, string];
  const send = (channelId: string) => async (content: string) => {
    const payload = env.discord.injectMessage({
      channelId,
      author: env.guild.user,
      content,
      mentionBot: true,
    });
    return `discord-${payload.id as string}`;
  };
  return {
    plain_turn: await measureTurns(env, `discord:${plainChannel}`, send(plainChannel), (t) => `simple ${t}`),
    tool_turn: await measureTurns(
      env,
      `discord:${toolChannel}`,
      send(toolChannel),
      (t) => `run: echo bench ${t}`,
    ),
  };
}

/**
 * g. Schedule fire-to-turn delay: one-time scheduled prompts (`POST …/schedules {at}`, to the REST API process),
 * one per session so no turn waits behind another, due one second apart. Per fire: its due time (the `next_run_at`
 * of the 201, a whole second) → the cron prompt's row (`created_at`, the session accepted it: the turn is queued)
 * and → its turn's model request at the fake (`arrivedAt`: the turn started its first step), p50/p99 in ms.
 */
async function benchScheduleFire(env: Env): Promise<AnyRec> {
  const api = await ensureApi(env);
  const fires = quick ? 8 : 30;
  const tag = `bench-g-${Date.now()}`;
  const from = env.fake.requests.length;
  // Created far enough ahead that all are in place before the first is due.
  const firstDue = Math.ceil((Date.now() + 5000) / 1000) * 1000;
  const made: { session: string; marker: string; id: string; due: number }[] = [];
  for (let i = 0; i < fires; i++) {
    const session = `${tag}-${i}`;
    const marker = `${tag} fire ${i}`;
    const at = new Date(firstDue + i * 1000).toISOString();
    const r = await fetch(`${api}/v1/sessions/${session}/schedules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: `simple ${marker}`, at, timezone: 'UTC' }),
    });
    const body = (await r.json()) as { id?: string; next_run_at?: string };
    if (r.status !== 201 || !body.id || !body.next_run_at)
      throw new Error(`POST schedule answered ${r.status}: ${JSON.stringify(body)}`);
    made.push({ session, marker, id: body.id, due: Date.parse(body.next_run_at) });
  }
  const lastDue = Math.max(...made.map((m) => m.due));
  if (made[0] && made[0].due <= Date.now()) log('g: the first schedule was due before all were created');
  const deadline = lastDue + 60_000;
  const toModel = new Map<string, number>();
  while (toModel.size < made.length && Date.now() < deadline) {
    for (const m of made) {
      if (toModel.has(m.id)) continue;
      const req = requestsOf(env.fake, from, m.marker)[0];
      if (req) toModel.set(m.id, req.arrivedAt - m.due);
    }
    await sleep(200);
  }
  const accepted = await env.pool.query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM messages WHERE id = ANY($1::text[])`,
    [made.map((m) => tickMessageId(m.id, new Date(m.due)))],
  );
  const acceptedAt = new Map(accepted.rows.map((r) => [r.id, r.created_at.getTime()]));
  const toAccepted = made.flatMap((m) => {
    const t = acceptedAt.get(tickMessageId(m.id, new Date(m.due)));
    return t === undefined ? [] : [t - m.due];
  });
  const modelDelays = [...toModel.values()];
  return {
    schedules: made.length,
    fires: modelDelays.length,
    missing: made.length - modelDelays.length,
    fire_to_accepted_ms: { ...p50p99(toAccepted), max: round(Math.max(...toAccepted)) },
    fire_to_model_request_ms: { ...p50p99(modelDelays), max: round(Math.max(...modelDelays)) },
  };
}

/** Posts one message to the REST API process; @returns its id. @throws unless the API answers 202 */
async function postMessage(api: string, sessionId: string, content: string): Promise<string> {
  const msg = inbound(content);
  const r = await fetch(`${api}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: msg.id, content }),
  });
  const text = await r.text();
  if (r.status !== 202) throw new Error(`POST message answered ${r.status}: ${text}`);
  return msg.id;
}

/**
 * Stops the worker and the API process (SIGTERM, as a deploy or `Ctrl-C` does; their shutdown is not timed) and
 * starts new ones. @returns ms from the new processes' spawn until both said they were ready
 */
async function restartKesoku(env: Env): Promise<number> {
  const restarted = env.parts.filter((p) => p.name === 'worker' || p.name === 'api');
  for (const p of restarted) await p.part.kill('SIGTERM');
  env.parts.splice(0, env.parts.length, ...env.parts.filter((p) => !restarted.includes(p)));
  env.apiUrl = undefined;
  const t0 = Date.now();
  const [worker] = await Promise.all([env.startWorker(), ensureApi(env)]);
  env.parts.unshift(worker);
  env.worker = worker.part;
  return Date.now() - t0;
}

/**
 * h. The first turn after a restart: sessions with some history each take a steady-state turn, then Kesoku's
 * worker and API processes are restarted (Temporal and Postgres stay up) and each session takes its first turn
 * on the new processes. The first of them meets a cold process (code not yet compiled, pools not yet connected);
 * every one meets a worker that no longer caches its workflow, so its run's history is replayed first: the short
 * sessions have `turns_before_restart` turns in their run, the long one `long_session_turns` (`--restart-history`),
 * up to the turns a run holds before it continues as new. Plain turns posted to the REST API, one after another,
 * 300 ms apart; `restarts` rounds; the median timeline of each kind's first turn.
 */
async function benchRestart(env: Env): Promise<AnyRec> {
  const shortCount = quick ? 2 : 3;
  const restarts = quick ? 1 : 3;
  const shortTurns = 5;
  const longTurns = Number(option('restart-history')) || (quick ? 40 : 150);
  const tag = `bench-h-${Date.now()}`;
  const shorts = Array.from({ length: shortCount }, (_, i) => `${tag}-${i}`);
  const long = `${tag}-long`;
  const turn = async (sessionId: string): Promise<TurnSample> => {
    const token = `h${Math.random().toString(36).slice(2, 10)}`;
    const from = env.fake.requests.length;
    const sentAt = Date.now();
    const id = await postMessage(await ensureApi(env), sessionId, `simple ${token}`);
    const t = await env.waiter.wait(sessionId, id, 180_000);
    await sleep(300);
    return { sentAt, ...t, requests: requestsOf(env.fake, from, token) };
  };
  for (const s of shorts) for (let i = 0; i < shortTurns; i++) await turn(s);
  for (let i = 0; i < longTurns; i++) {
    const sentAt = Date.now();
    const id = await postMessage(await ensureApi(env), long, `simple warm ${i}`);
    await env.waiter.wait(long, id, 180_000);
    if (Date.now() - sentAt > 10_000) log(`h: long session turn ${i} took ${Date.now() - sentAt} ms`);
  }
  const kinds = ['first', 'other', 'long'] as const;
  const steady: Record<(typeof kinds)[number], TurnSample[]> = { first: [], other: [], long: [] };
  const after: Record<(typeof kinds)[number], TurnSample[]> = { first: [], other: [], long: [] };
  const timelines: Record<(typeof kinds)[number], AnyRec[][]> = { first: [], other: [], long: [] };
  const rounds: AnyRec[] = [];
  const kindOf = (s: string, i: number) => (s === long ? 'long' : i === 0 ? 'first' : 'other');
  const order = [...shorts, long];
  let longEvents = 0;
  for (let r = 0; r < restarts; r++) {
    for (const [i, s] of order.entries()) steady[kindOf(s, i)].push(await turn(s));
    // Every session's last turn settled (its trailing workflow task in) before the restart.
    await Promise.all(order.map((s) => settledCounts(env, s)));
    // Each session's latest run before the restart: where its first turn after it is recorded.
    const runs = await Promise.all(
      order.map(async (s) => {
        const d = await env.client.workflow.getHandle(sessionWorkflowId(s)).describe();
        return { runId: d.runId, events: d.historyLength };
      }),
    );
    longEvents = (runs.at(-1) as { events: number }).events;
    const readyMs = await restartKesoku(env);
    const samples: TurnSample[] = [];
    for (const [i, s] of order.entries()) {
      const sample = await turn(s);
      samples.push(sample);
      after[kindOf(s, i)].push(sample);
    }
    // Where the first turns' time went: their events on the server, timed from when each was sent.
    for (const [i, s] of order.entries()) {
      if (kindOf(s, i) === 'other' && i > 1) continue;
      const run = runs[i] as { runId: string; events: number };
      const sample = samples[i] as TurnSample;
      const t = await turnTimeline(env.client, sessionWorkflowId(s), run.events, [sample.sentAt], run.runId);
      const marks = [
        { what: 'bench: message row created (accepted)', at_ms: sample.acceptedAt - sample.sentAt },
        ...(sample.requests[0]
          ? [
              {
                what: 'bench: model request arrived at the fake',
                at_ms: sample.requests[0].arrivedAt - sample.sentAt,
              },
            ]
          : []),
        { what: 'bench: reply row delivered', at_ms: sample.deliveredAt - sample.sentAt },
      ];
      timelines[kindOf(s, i)].push([...t.steps, ...marks].sort((x, y) => x.at_ms - y.at_ms));
    }
    rounds.push({
      processes_ready_ms: readyMs,
      end_to_end_ms: Object.fromEntries(
        order.map((s, i) => [
          kindOf(s, i) === 'long' ? 'long' : `short_${i}`,
          round((samples[i] as TurnSample).deliveredAt - (samples[i] as TurnSample).sentAt),
        ]),
      ),
    });
  }
  /** The step-by-step median of one kind's timelines (they have the same events in the same order). */
  const medianTimeline = (list: AnyRec[][]) =>
    (list[0] ?? []).map((step, k) => ({
      what: step.what as string,
      at_ms: round(
        percentile(
          list.map((t) => (t[k]?.at_ms as number) ?? NaN).filter((x) => !Number.isNaN(x)),
          50,
        ),
      ),
    }));
  const ratio = (a: TurnSample[], b: TurnSample[]) =>
    round(
      percentile(
        a.map((x) => x.deliveredAt - x.sentAt),
        50,
      ) /
        percentile(
          b.map((x) => x.deliveredAt - x.sentAt),
          50,
        ),
      2,
    );
  const out: AnyRec = {
    restarts,
    short_sessions: shortCount,
    turns_before_restart: shortTurns,
    long_session_turns: longTurns,
    /** Events of the long session's latest run before the last restart: what its first turn replayed. */
    long_session_run_events: longEvents,
  };
  for (const k of kinds) {
    out[k] = {
      steady: turnTimes(steady[k]),
      after_restart: turnTimes(after[k]),
      ratio_end_to_end_p50: ratio(after[k], steady[k]),
      timeline: medianTimeline(timelines[k]),
    };
  }
  out.rounds = rounds;
  return out;
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

/** Starts a Kesoku process with the statement probe preloaded; resolves once it printed `ready`. */
async function startProbed(
  env: Pick<Env, 'partEnv'>,
  name: string,
  script: string,
  ready: string,
  extra: NodeJS.ProcessEnv = {},
  scriptArgs: string[] = [],
): Promise<Part> {
  const probePort = await freePort();
  const preload = path.join(import.meta.dirname, 'pg-probe-preload.ts');
  const startedAt = Date.now();
  const part = startPart(
    script,
    {
      ...env.partEnv,
      ...extra,
      KESOKU_BENCH_PG_PROBE_PORT: String(probePort),
      NODE_OPTIONS: [env.partEnv.NODE_OPTIONS, extra.NODE_OPTIONS, `--import=${preload}`]
        .filter(Boolean)
        .join(' '),
    },
    scriptArgs,
  );
  await part.waitFor(ready, 300_000).catch((err: unknown) => {
    throw new Error(`${name} did not start: ${String(err)}\n${part.output().slice(-3000)}`);
  });
  return { name, part, probePort, startedAt };
}

/** The REST API process's base URL, starting it on first use. */
async function ensureApi(env: Env): Promise<string> {
  if (env.apiUrl) return env.apiUrl;
  const api = await startProbed(env, 'api', 'bin/api.ts', 'kesoku API listening', { KESOKU_API_PORT: '0' });
  env.parts.push(api);
  const m = /kesoku API listening on (http:\/\/[0-9.:]+)/.exec(api.part.output());
  if (!m) throw new Error(`no API URL in: ${api.part.output()}`);
  env.apiUrl = m[1] as string;
  return env.apiUrl;
}

/** Starts the Discord adapter (`npm run discord`) against the fake Discord on first use. */
async function ensureDiscordAdapter(env: Env): Promise<void> {
  if (env.discordAdapter) return;
  const part = await startProbed(env, 'discord adapter', 'bin/channels.ts', 'kesoku channels running', {}, [
    'discord',
  ]);
  env.parts.push(part);
  await env.discord.waitForIdentify(60_000);
  env.discordAdapter = true;
}

/** The run's load: `uptime`'s load averages (1, 5, 15 min) and the time. */
function loadNow() {
  return { at: new Date().toISOString(), load_avg: os.loadavg().map((l) => round(l, 2)) };
}

/** Runs the chosen sections against one Temporal store; tears everything of it down again. */
async function runStore(
  kind: StoreKind,
  pgServer: PostgresServer,
  dir: string,
  onResult: (results: AnyRec) => void,
): Promise<AnyRec> {
  const adminUrl = withDatabase(pgServer.url, 'postgres');
  const dbName = `kesoku_bench_${kind}_${Date.now()}`;
  const storeDir = path.join(dir, kind);
  fs.mkdirSync(storeDir, { recursive: true });
  fs.chmodSync(storeDir, 0o755);
  const out: AnyRec = { load_start: loadNow() };
  let store: TemporalStore | null = null;
  let fake: FakeModelServer | null = null;
  let discord: FakeDiscord | null = null;
  const parts: Part[] = [];
  try {
    await ensureDatabase(adminUrl, dbName);
    const databaseUrl = withDatabase(pgServer.url, dbName);
    await migrate(databaseUrl);
    log(`starting the Temporal ${kind} store`);
    store = await startStore(kind, { dir: storeDir, postgresUrl: pgServer.url, label: kind });
    out.store = { kind: store.kind, name: store.name };
    log(`store: ${store.name}`);
    fake = await startFakeModelServer();
    const guild = {
      id: snowflake(),
      channels: [snowflake(), snowflake()],
      user: { id: snowflake(), username: 'bench', global_name: 'Bench' },
    };
    discord = await startFakeDiscord({
      guilds: [{ id: guild.id, channels: guild.channels.map((id) => ({ id })) }],
    });
    const taskQueue = `bench-${Date.now()}`;
    // Payloads are encrypted as in production: the worker process and this client share one key.
    const payloadKeys = newPayloadKeyEntry();
    const metricsPort = await freePort();
    const partEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: store.address,
      KESOKU_TASK_QUEUE: taskQueue,
      KESOKU_DATA_DIR: path.join(storeDir, 'data'),
      KESOKU_LLM_BASE_URL: fake.url,
      KESOKU_LLM_MODEL: 'fake',
      // Benchmarked commands run without waiting for a person.
      KESOKU_TOOL_APPROVAL: 'off',
      KESOKU_LOG_LEVEL: 'error',
      KESOKU_PAYLOAD_KEYS: payloadKeys,
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
    };
    const startWorker = () =>
      startProbed({ partEnv }, 'worker', 'bin/worker.ts', 'kesoku worker running', {
        KESOKU_METRICS_PORT: String(metricsPort),
        // KESOKU_BENCH_WORKER_NODE_OPTIONS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile the worker.
        NODE_OPTIONS: process.env.KESOKU_BENCH_WORKER_NODE_OPTIONS,
      });
    const worker = await startWorker();
    parts.push(worker);
    out.worker_started_at = new Date(worker.startedAt).toISOString();
    const pool = createPool(databaseUrl, { max: 20 });
    // The paired Discord user of f (as after `npm run kesoku -- pairing approve`).
    await pool.query(
      `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('discord', $1, 'Bench', 'cli')`,
      [guild.user.id],
    );
    const connection = await connectTemporal({ address: store.address });
    const client = new Client({
      connection,
      dataConverter: dataConverterFor(parsePayloadKeys(payloadKeys, 'bench')),
    });
    const sessions = new SessionClient({ client, taskQueue });
    const waiter = new TurnWaiter(pool, databaseUrl);
    await waiter.start();
    const env: Env = {
      store,
      pool,
      databaseUrl,
      adminUrl,
      client,
      sessions,
      fake,
      discord,
      taskQueue,
      worker: worker.part,
      parts,
      partEnv,
      startWorker,
      metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
      dataDir: storeDir,
      waiter,
      guild,
      retries: 0,
    };
    const results: AnyRec = {};
    out.results = results;
    const section = async (letter: string, title: string, key: string, fn: () => Promise<unknown>) => {
      if (!want(letter)) return;
      log(`${letter}. ${title} (${kind})`);
      results[key] = await fn();
      onResult(out);
      log(JSON.stringify(results[key]).slice(0, 2000));
    };
    await section('a', 'overhead per turn', 'a_overhead', () => benchOverhead(env));
    await section('d', 'REST turns', 'd_history', () => benchRestTurns(env));
    await section('f', 'Discord turns', 'f_discord', () => benchDiscordTurns(env));
    if (want('b')) {
      results.b_throughput = [];
      for (const c of SIZES.throughput) {
        log(`b. throughput with ${c} sessions (${kind})`);
        const r = await benchThroughput(env, c);
        (results.b_throughput as unknown[]).push(r);
        onResult(out);
        log(JSON.stringify(r).slice(0, 2000));
      }
    }
    await section('c', 'long session', 'c_long_session', () => benchLongSession(env));
    await section('e', 'idle sessions', 'e_idle', () => benchIdle(env));
    await section('g', 'schedule fire-to-turn delay', 'g_schedule_fire', () => benchScheduleFire(env));
    await section('h', 'first turn after a restart', 'h_restart', () => benchRestart(env));
    out.load_end = loadNow();
    await waiter.close();
    await connection.close();
    await pool.end();
    return out;
  } finally {
    for (const p of [...parts].reverse()) await p.part.kill('SIGTERM');
    await fake?.close();
    await discord?.close();
    await store?.stop();
    await dropDatabase(adminUrl, dbName).catch(() => undefined);
  }
}

async function main() {
  const started = Date.now();
  const runDate = new Date().toISOString();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-bench-'));
  fs.chmodSync(dir, 0o755);
  let pgServer: PostgresServer | null = null;
  const report: AnyRec = {
    date: runDate,
    name: option('name'),
    quick,
    argv: args,
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      memory_gb: round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    // The settings that change what is measured.
    settings: Object.fromEntries(
      ['KESOKU_BENCH_WORKER_NODE_OPTIONS', 'KESOKU_WORKER_CACHED_SESSIONS', 'KESOKU_BENCH_TEMPORAL_DB']
        .filter((k) => process.env[k])
        .map((k) => [k, process.env[k]]),
    ),
    load_start: loadNow(),
    stores: [] as AnyRec[],
  };
  const reportNow = () => {
    report.duration_s = round((Date.now() - started) / 1000);
    writeReport(report);
  };
  try {
    pgServer = await resolvePostgres({
      databaseUrl: process.env.DATABASE_URL,
      dataDir: path.join(dir, 'pg'),
      port: await freePort(),
      database: 'postgres',
    });
    report.postgres = pgServer.source;
    for (const kind of storeKinds) {
      const entry: AnyRec = {};
      report.stores.push(entry);
      Object.assign(
        entry,
        await runStore(kind, pgServer, dir, (r) => (Object.assign(entry, r), reportNow())),
      );
    }
    report.load_end = loadNow();
    reportNow();
    process.stdout.write(renderMarkdown(report));
  } finally {
    await pgServer?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function writeReport(report: AnyRec) {
  const outDir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = (report.date as string).slice(0, 19).replace(/[:T]/g, '-');
  const file = path.join(
    outDir,
    (report.name as string | undefined) ?? `${stamp}${report.quick ? '-quick' : ''}`,
  );
  fs.writeFileSync(`${file}.json`, JSON.stringify(report, null, 2) + '\n');
  fs.writeFileSync(`${file}.md`, renderMarkdown(report));
  log(`wrote ${file}.json and .md`);
}

await main();

/**
 * `npm run bench:fairness`: plain-turn latency of one session with and without load from other sessions running
 * long shell commands. Writes bench/results/<date>-fairness.json and .md and prints the table.
 *
 * Real parts: a Temporal dev server (bench/stores.ts; `TEMPORAL_ADDRESS` to use another), Postgres (DATABASE_URL's
 * server, else an embedded one), the Kesoku worker in this process (the session task queue and the tool task queue,
 * `--tool-slots` tool slots, default 4), a zero-latency fake model over HTTP on 127.0.0.1.
 *
 * A plain turn: submit over the session client (update-with-start), then wait until the trigger is `processed`
 * (inline REST delivery), measured at the client. Phase 1: `--turns` plain turns (default 40) with nothing else
 * running. Phase 2: `--busy` sessions (default 3 × tool slots) each start `sleep 600`, so every tool slot is taken and
 * commands queue behind them; once the slots are full, the same plain turns are measured again. p50/p99 of both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { migrate } from '../db/migrate.ts';
import { getMessage } from '../db/messages.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { createLogger } from '../infra/logger.ts';
import { dataConverterFor, newPayloadKeyEntry, parsePayloadKeys } from '../infra/payload-codec.ts';
import { dropDatabase, ensureDatabase, resolvePostgres, withDatabase } from '../infra/postgres-server.ts';
import { SessionClient } from '../infra/session-client.ts';
import { connectTemporal } from '../infra/temporal-connection.ts';
import { ensureSearchAttributes } from '../infra/temporal-search-attributes.ts';
import { freePort } from '../infra/temporal-server.ts';
import { startFakeModelServer } from '../test/fakes/model-server.ts';
import { bundleWorkflows, createKesokuWorker } from '../workers/build-worker.ts';
import { startStore } from './stores.ts';

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '40' },
    'tool-slots': { type: 'string', default: '4' },
    busy: { type: 'string' },
    name: { type: 'string' },
  },
});
const TURNS = Number(args.turns);
const TOOL_SLOTS = Number(args['tool-slots']);
const BUSY = Number(args.busy ?? 3 * TOOL_SLOTS);

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
};

async function waitFor(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} did not happen within ${ms} ms`);
}

/** `TURNS` plain turns of one new session, one after the other; their latencies in ms. */
async function plainTurns(sessions: SessionClient, pool: Pool, label: string): Promise<number[]> {
  const sessionId = `fair-plain-${label}-${Date.now().toString(36)}`;
  const out: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    const { message } = await sessions.submit(
      { sessionId, chatbotId: 'api', channelId: sessionId },
      {
        id: `${sessionId}-${i}`,
        content: `hello ${i}`,
        sender: 'bench',
        receivedAt: new Date().toISOString(),
      },
    );
    await waitFor(
      async () => (await getMessage(pool, message.id))?.status === 'processed',
      120_000,
      `plain turn ${i}`,
    );
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-fairness-'));
  const logger = createLogger('bench', 'silent');
  const pgServer = await resolvePostgres({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: path.join(dir, 'pg'),
    port: await freePort(),
    database: 'postgres',
  });
  const dbName = `kesoku_fairness_${process.pid}`;
  const adminUrl = withDatabase(pgServer.url, 'postgres');
  await ensureDatabase(adminUrl, dbName);
  const databaseUrl = withDatabase(pgServer.url, dbName);
  await migrate(databaseUrl);
  const store = await startStore('dev', { dir, postgresUrl: pgServer.url, label: 'fairness' });
  const pool = createPool(databaseUrl, { max: 20 });
  const toolPool = createPool(databaseUrl, { max: TOOL_SLOTS });
  const fake = await startFakeModelServer();
  const dataConverter = dataConverterFor(parsePayloadKeys(newPayloadKeyEntry(), 'bench'));
  const connection = await connectTemporal({ address: store.address });
  await ensureSearchAttributes({ connection, namespace: 'default', logger });
  const client = new Client({ connection, namespace: 'default', dataConverter });
  const taskQueue = `fairness-${process.pid}`;
  const sessions = new SessionClient({ client, taskQueue, modelRequestTimeoutMs: 30_000 });
  const native = await NativeConnection.connect({ address: store.address });
  const worker = await createKesokuWorker({
    connection: native,
    namespace: 'default',
    taskQueue,
    pool,
    toolPool,
    logger,
    llm: { provider: 'openai-compatible', baseUrl: fake.url, model: 'fake', requestTimeoutMs: 30_000 },
    dataDir: dir,
    maxSteps: 8,
    compactTokens: 64_000,
    shellTimeoutMs: 900_000,
    approvals: { policy: 'off' },
    workflowBundle: await bundleWorkflows(),
    dataConverter,
    toolSlots: TOOL_SLOTS,
    drainS: 0,
  });
  const running = worker.run();
  try {
    await plainTurns(sessions, pool, 'warmup');
    const idle = await plainTurns(sessions, pool, 'idle');

    const busy = Array.from({ length: BUSY }, (_, i) => `fair-busy-${i}-${Date.now().toString(36)}`);
    for (const s of busy)
      await sessions.submit(
        { sessionId: s, chatbotId: 'api', channelId: s },
        { id: `${s}-m`, content: 'run: sleep 600', sender: 'bench', receivedAt: new Date().toISOString() },
      );
    const runsOf = async () =>
      Number(
        (
          await pool.query<{ n: string }>(`SELECT count(*) AS n FROM tool_runs WHERE session_id = ANY($1)`, [
            busy,
          ])
        ).rows[0]?.n,
      );
    await waitFor(async () => (await runsOf()) >= Math.min(TOOL_SLOTS, BUSY), 60_000, 'tool slots full');
    const loaded = await plainTurns(sessions, pool, 'loaded');
    const stillRunning = await runsOf();
    for (const s of busy) await sessions.stop({ sessionId: s, chatbotId: 'api', channelId: s });

    const row = (name: string, xs: number[]) => ({
      phase: name,
      turns: xs.length,
      p50_ms: Math.round(percentile(xs, 50)),
      p99_ms: Math.round(percentile(xs, 99)),
      max_ms: Math.round(Math.max(...xs)),
    });
    const report = {
      date: new Date().toISOString(),
      host: { cpus: os.cpus().length, node: process.version },
      temporal: store.name,
      settings: { tool_slots: TOOL_SLOTS, busy_sessions: BUSY, command: 'sleep 600', turns: TURNS },
      commands_started_during_loaded_phase: stillRunning,
      results: [row('no load', idle), row(`${BUSY} sessions running long commands`, loaded)],
    };
    const md = [
      `# Fairness: plain-turn latency under tool load (${report.date})`,
      '',
      `Tool slots ${TOOL_SLOTS}; ${BUSY} sessions each running \`sleep 600\` (${stillRunning} started, the rest queued for a slot); ${TURNS} plain turns per phase, submit → processed at the client. ${report.temporal}; ${report.host.cpus} CPUs.`,
      '',
      '| phase | turns | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      ...report.results.map((r) => `| ${r.phase} | ${r.turns} | ${r.p50_ms} | ${r.p99_ms} | ${r.max_ms} |`),
      '',
    ].join('\n');
    const name = args.name ?? `${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}-fairness`;
    const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');
    fs.writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(out, `${name}.md`), md);
    process.stdout.write(md);
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
    await native.close();
    await connection.close();
    await fake.close();
    await pool.end();
    await toolPool.end();
    await store.stop();
    await dropDatabase(adminUrl, dbName).catch(() => undefined);
    await pgServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();

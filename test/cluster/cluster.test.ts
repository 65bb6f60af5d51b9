/**
 * Kesoku on a self-hosted Temporal cluster: a multi-service Temporal server v1.29.1 on Postgres (schema set up by
 * temporal-sql-tool in fresh databases), two worker processes and two API processes. Messages go in through both
 * APIs; the worker running a shell command is SIGKILLed mid-command (and restarted); the worker running a
 * streaming model call is SIGTERMed mid-call (and restarted); an SSE client on API A sees turns submitted through
 * API B. The report counts accepted, processed, lost, duplicated and stuck messages.
 *
 * `npm run test:cluster` runs the full form (KESOKU_CLUSTER=full: more messages); `npm test` runs the short form.
 * The server binaries are built on first use (`npm run temporal:install -- --server` does it ahead of time).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTemporal } from '../../infra/temporal-connection.ts';
import {
  installServerBinaries,
  startTemporalCluster,
  type TemporalCluster,
} from '../../infra/temporal-cluster.ts';
import { listSessionMessages } from '../../db/messages.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const FULL = process.env.KESOKU_CLUSTER === 'full';
const PLAIN_MESSAGES = FULL ? 40 : 8;

let stack: Stack;
let cluster: TemporalCluster;
let client: Client;
const workers: ChildPart[] = [];
const apis: ChildPart[] = [];
const all: ChildPart[] = [];

beforeAll(async () => {
  const binaries = installServerBinaries();
  stack = await startStack({ noWorker: true });
  const pg = new URL(inject('adminDatabaseUrl'));
  cluster = await startTemporalCluster({
    postgres: {
      host: pg.hostname,
      port: Number(pg.port || 5432),
      user: decodeURIComponent(pg.username),
      password: decodeURIComponent(pg.password) || undefined,
    },
    dbPrefix: `kesoku_cluster_${process.pid}`,
    dir: fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-cluster-')),
    binaries,
  });
  const connection = await connectTemporal({ address: cluster.address });
  client = new Client({ connection, namespace: 'default' });
}, 900_000);

afterAll(async () => {
  for (const p of all) await p.kill('SIGKILL');
  await client?.connection.close();
  await cluster?.stop();
  await stack?.stop();
});

const env = () => stackEnv(stack, { TEMPORAL_ADDRESS: cluster.address, KESOKU_API_PORT: '0' });

function startWorker(): ChildPart {
  const w = startPart('workers/worker.ts', env());
  workers.push(w);
  all.push(w);
  return w;
}

function apiUrl(p: ChildPart): string {
  const m = /kesoku API listening on (http:\/\/[0-9.:]+)/.exec(p.output());
  if (!m) throw new Error(`no API URL in: ${p.output()}`);
  return m[1] as string;
}

/** POSTs a message with a client-chosen id (the idempotency key) and the HTTP status. */
async function post(base: string, session: string, id: string, content: string): Promise<number> {
  const r = await fetch(`${base}/v1/sessions/${session}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, content }),
  });
  await r.body?.cancel();
  return r.status;
}

/** The worker process (by pid) that last ran the pending activity of `workflowId`. */
async function workerRunning(workflowId: string, activityType: string): Promise<ChildPart | null> {
  const d = await client.workflow.getHandle(workflowId).describe();
  const pending = d.raw.pendingActivities?.find((a) => a.activityType?.name === activityType);
  const pid = Number(/^(\d+)@/.exec(pending?.lastWorkerIdentity ?? '')?.[1]);
  return (
    workers.find((w) => w.child.pid === pid && w.child.exitCode === null && w.child.signalCode === null) ??
    null
  );
}

describe('Kesoku on a multi-service Temporal cluster on Postgres', () => {
  it('loses, duplicates and strands nothing through worker SIGKILL and SIGTERM, with SSE across APIs', async () => {
    startWorker();
    startWorker();
    for (let i = 0; i < 2; i++) {
      const a = startPart('bin/api.ts', env());
      apis.push(a);
      all.push(a);
    }
    await Promise.all(
      [...workers, ...apis].map((p) =>
        p.waitFor(p === apis[0] || p === apis[1] ? 'kesoku API listening' : 'kesoku worker running', 300_000),
      ),
    );
    const [apiA, apiB] = apis.map(apiUrl) as [string, string];

    // A client as a real one behaves: its own message id, and on 503 (no worker took the session's task within
    // the API's deadline, e.g. while its worker restarts) the same request again.
    const accepted: { session: string; id: string }[] = [];
    let retried503 = 0;
    const submit = async (base: string, session: string, content: string) => {
      const id = uniqueId('m');
      for (let attempt = 1; ; attempt++) {
        const status = await post(base, session, id, content);
        if (status === 503 && attempt < 10) {
          retried503++;
          continue;
        }
        expect([200, 202]).toContain(status);
        accepted.push({ session, id });
        return;
      }
    };

    // An SSE client on API A, on a session whose turns are submitted through API B.
    const watched = uniqueId('watched');
    await submit(apiB, watched, 'hello from B');
    const events: string[] = [];
    const sse = http.get(`${apiA}/v1/sessions/${watched}/events`, (res) =>
      res.on('data', (d: Buffer) => events.push(d.toString())),
    );

    // A shell command; its worker is SIGKILLed while it runs.
    const toolSession = uniqueId('tool');
    const marker = `3.${Math.floor(Math.random() * 1e6)}`;
    const sideEffect = path.join(stack.dataDir, `ran-${marker}`);
    await submit(apiA, toolSession, `run: sleep ${marker}; echo once >> ${sideEffect}`);
    let killed: ChildPart | null = null;
    await expect
      .poll(
        async () => (killed = await workerRunning(`session:${toolSession}`, 'runToolCall').catch(() => null)),
        { timeout: 60_000, interval: 200 },
      )
      .not.toBeNull();
    await killed!.kill('SIGKILL');
    startWorker();

    // A streaming model call; its worker is SIGTERMed while it streams.
    const modelSession = uniqueId('model');
    stack.script(modelSession, {
      kind: 'slow_text',
      text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '),
      chunkDelayMs: 200,
    });
    await submit(apiB, modelSession, 'a long answer please');
    let termed: ChildPart | null = null;
    await expect
      .poll(
        async () =>
          (termed = await workerRunning(`session:${modelSession}`, 'runModelStep').catch(() => null)),
        { timeout: 60_000, interval: 200 },
      )
      .not.toBeNull();
    await termed!.kill('SIGTERM');
    startWorker();

    // Plain messages through both APIs, across sessions, while the workers restart.
    const sessions = Array.from({ length: 4 }, () => uniqueId('plain'));
    await Promise.all(
      Array.from({ length: PLAIN_MESSAGES }, (_, i) =>
        submit(i % 2 === 0 ? apiA : apiB, sessions[i % sessions.length]!, `message ${i}`),
      ),
    );
    await submit(apiB, watched, 'second turn from B');

    // Wait for every accepted message to reach a final status.
    const FINAL = new Set(['processed', 'error', 'interrupted']);
    const deadline = Date.now() + 180_000;
    let rows = new Map<string, string>();
    while (Date.now() < deadline) {
      rows = new Map();
      for (const s of new Set(accepted.map((a) => a.session))) {
        for (const m of await listSessionMessages(stack.pool, s)) rows.set(m.id, m.status);
      }
      if (accepted.every((a) => FINAL.has(rows.get(a.id) ?? ''))) break;
      await new Promise((r) => setTimeout(r, 500));
    }

    let duplicated = 0;
    for (const s of new Set(accepted.map((a) => a.session))) {
      const msgs = await listSessionMessages(stack.pool, s);
      const replies = new Map<string, number>();
      for (const m of msgs)
        if (m.role === 'assistant' && m.type === 'text' && m.turn_id)
          replies.set(m.turn_id, (replies.get(m.turn_id) ?? 0) + 1);
      duplicated += [...replies.values()].filter((n) => n > 1).length;
      duplicated += msgs.length - new Set(msgs.map((m) => m.id)).size;
    }
    const report = {
      accepted: accepted.length,
      processed: accepted.filter((a) => rows.get(a.id) === 'processed').length,
      lost: accepted.filter((a) => !rows.has(a.id)).length,
      duplicated,
      stuck: accepted.filter((a) => rows.has(a.id) && !FINAL.has(rows.get(a.id)!)).length,
      retried_after_503: retried503,
      // Sessions are in interrupt mode: a message arriving during a turn ends that turn as interrupted.
      interrupted: accepted.filter((a) => rows.get(a.id) === 'interrupted').length,
      error: accepted.filter((a) => rows.get(a.id) === 'error').length,
      shell_command_runs: fs.existsSync(sideEffect)
        ? fs.readFileSync(sideEffect, 'utf8').split('\n').filter(Boolean).length
        : 0,
      sse_frames_on_api_a_for_turns_via_api_b: events
        .join('')
        .split('\n\n')
        .filter((f) => f.includes('event:')).length,
    };
    process.stderr.write(`[cluster report] ${JSON.stringify(report)}\n`);
    sse.destroy();

    expect(report.lost).toBe(0);
    expect(report.duplicated).toBe(0);
    expect(report.stuck).toBe(0);
    expect(report.error).toBe(0);
    expect(report.processed + report.interrupted).toBe(report.accepted);
    expect(report.sse_frames_on_api_a_for_turns_via_api_b).toBeGreaterThan(0);
  }, 900_000);
});

/**
 * Kesoku on a self-hosted Temporal cluster: a multi-service Temporal server v1.29.1 on Postgres (schema set up by
 * temporal-sql-tool in fresh databases), two worker processes (each with a REST-only Discord sink), two API
 * processes and the Discord adapter process against the fake Discord. Messages go in through both APIs and through
 * Discord; the worker running a shell command is SIGKILLed mid-command (and restarted); the worker running a
 * streaming model call is SIGTERMed mid-call, and the one running a Discord turn's command SIGTERMed mid-command
 * (both drain and are replaced); an SSE client on API A sees turns submitted through API B. Each Discord turn must
 * show one live status message edited to ✅, its reply once and its typing stopped, also when its steps ran on
 * different workers. The report counts accepted, processed, lost, duplicated and stuck messages, and how often
 * each shell command ran (re-runs 0).
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
import { sessionWorkspaceDir } from '../../infra/workspace.ts';
import { snowflake, startFakeDiscord, type FakeDiscord } from '../../adapters/discord/test/fake-server.ts';
import { startEntry, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { countCommands, discordTurn, typingCalls } from './checks.ts';

const FULL = process.env.KESOKU_CLUSTER === 'full';
const PLAIN_MESSAGES = FULL ? 40 : 8;
/** Discord turns with a shell command each, one channel (= one session) per turn. */
const DISCORD_TURNS = FULL ? 6 : 3;

let stack: Stack;
let cluster: TemporalCluster;
let client: Client;
let fake: FakeDiscord;
const alice = { id: snowflake(), username: 'alice', global_name: 'Alice' };
const guildId = snowflake();
const discordChannels = Array.from({ length: DISCORD_TURNS }, () => snowflake());
const workers: ChildPart[] = [];
const apis: ChildPart[] = [];
const all: ChildPart[] = [];

beforeAll(async () => {
  const binaries = installServerBinaries();
  stack = await startStack({ noWorker: true });
  fake = await startFakeDiscord({
    guilds: [{ id: guildId, channels: discordChannels.map((id) => ({ id })) }],
  });
  // Alice is a paired Discord user (as after `npm run kesoku -- pairing approve`).
  await stack.pool.query(
    `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('discord', $1, 'Alice', 'cli')`,
    [alice.id],
  );
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
  await fake?.close();
});

const env = () => stackEnv(stack, { TEMPORAL_ADDRESS: cluster.address, KESOKU_API_PORT: '0' });
/** Workers and the Discord adapter talk to the fake Discord (workers through their REST-only sinks). */
const discordEnv = () => ({ ...env(), DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl });

function startWorker(): ChildPart {
  const w = startEntry('worker', discordEnv());
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
  it('loses, duplicates, strands and re-runs nothing through worker SIGKILL and SIGTERM, with SSE across APIs and Discord turns across workers', async () => {
    startWorker();
    startWorker();
    for (let i = 0; i < 2; i++) {
      const a = startEntry('api', env());
      apis.push(a);
      all.push(a);
    }
    const discord = startEntry('channels', discordEnv(), ['discord']);
    all.push(discord);
    await Promise.all([
      ...workers.map((p) => p.waitFor('kesoku worker running', 300_000)),
      ...apis.map((p) => p.waitFor('kesoku API listening', 300_000)),
      discord.waitFor('kesoku channels running', 300_000),
    ]);
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
    // Long enough that the SIGKILL below lands while it sleeps even on a loaded machine (a command that finished
    // before the kill, with its result not stored yet, would be counted run but "interrupted"); it dies with its
    // worker, so the length costs the test nothing.
    const marker = `15.${Math.floor(Math.random() * 1e6)}`;
    // In the session's workspace (the sandbox hides the rest of the data dir from commands).
    const sideEffect = path.join(sessionWorkspaceDir(stack.dataDir, toolSession), `ran-${marker}`);
    await submit(
      apiA,
      toolSession,
      `run: sleep ${marker}; echo once >> ran-${marker}; echo killed >> runs.txt`,
    );
    let killed: ChildPart | null = null;
    await expect
      .poll(
        async () => (killed = await workerRunning(`session:${toolSession}`, 'runToolCall').catch(() => null)),
        { timeout: 60_000, interval: 200 },
      )
      .not.toBeNull();
    // Kill it once the command runs (its process is recorded), not while the activity is still recording its
    // start: a kill before that leaves nothing started, and the retry rightly runs the command.
    await expect
      .poll(
        async () =>
          (
            await stack.pool.query(`SELECT 1 FROM tool_runs WHERE session_id = $1 AND pid IS NOT NULL`, [
              toolSession,
            ])
          ).rowCount,
        { timeout: 60_000, interval: 100 },
      )
      .toBe(1);
    await killed!.kill('SIGKILL');
    startWorker();

    // Discord turns, each running a command; the worker running the first one's command is SIGTERMed mid-command
    // (it drains: the command finishes there, the rest of the turn runs on another worker).
    const discordIds: string[] = [];
    for (const [i, channelId] of discordChannels.entries()) {
      const command = i === 0 ? 'sleep 4; echo d0 >> runs.txt' : `echo d${i} >> runs.txt; sleep 1`;
      const payload = fake.injectMessage({
        channelId,
        author: alice,
        content: `run: ${command}`,
        mentionBot: true,
      });
      discordIds.push(payload.id as string);
    }
    const firstDiscord = `session:discord:${discordChannels[0]}`;
    let drained: ChildPart | null = null;
    await expect
      .poll(async () => (drained = await workerRunning(firstDiscord, 'runToolCall').catch(() => null)), {
        timeout: 60_000,
        interval: 200,
      })
      .not.toBeNull();
    void drained!.kill('SIGTERM');
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

    // Every Discord turn ends processed, and its delivery settles (status edits are throttled, typing refreshes
    // every 8 s): wait for the replies, then one typing interval more, so a typing loop left running would show.
    const discordStatus = async () =>
      (
        await stack.pool.query<{ status: string }>('SELECT status FROM messages WHERE id = ANY($1)', [
          discordIds.map((id) => `discord-${id}`),
        ])
      ).rows.map((r) => r.status);
    await expect
      .poll(async () => (await discordStatus()).filter((st) => st === 'processed').length, {
        timeout: 180_000,
        interval: 500,
      })
      .toBe(DISCORD_TURNS);
    await expect
      .poll(
        () =>
          discordChannels.every((c, i) =>
            fake.botMessages(c).some((m) => m.message_reference?.message_id === discordIds[i]),
          ),
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    const typingBefore = discordChannels.map((c) => typingCalls(fake, c));
    await new Promise((r) => setTimeout(r, 10_000));
    const turns = await Promise.all(
      discordChannels.map((c, i) => discordTurn(fake, stack.pool, client, c, discordIds[i]!)),
    );
    const typingAfter = discordChannels.map((c) => typingCalls(fake, c));

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
      ...(await countCommands(stack.pool, stack.dataDir, [
        ...new Set([...accepted.map((a) => a.session), ...discordChannels.map((c) => `discord:${c}`)]),
      ])),
      discord_turns: turns.length,
      discord_turns_on_two_workers: turns.filter((t) => t.workers.length >= 2).length,
      discord_status_messages: turns.reduce((n, t) => n + t.statuses.length, 0),
      discord_statuses_left_pending: turns.filter((t) => t.statuses.some((st) => st.content.includes('⏳')))
        .length,
      discord_replies: turns.reduce((n, t) => n + t.replies.length, 0),
      discord_typing_left_on: turns.filter((t, i) => t.typingActive || typingAfter[i] !== typingBefore[i])
        .length,
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
    // At most once: no command ran twice; the SIGKILLed one was not run again (interrupted, not re-run).
    expect(report.re_runs).toBe(0);
    expect(report.shell_command_runs).toBeLessThanOrEqual(1);
    expect(report.tool_runs_interrupted).toBeGreaterThanOrEqual(1);
    expect(report.commands_run).toBe(report.tool_runs - report.tool_runs_interrupted);
    // Discord: one status per turn, edited to ✅, never left at ⏳; one reply per turn; typing stopped; and at
    // least one turn (the drained one) ran its steps on two workers.
    for (const t of turns) {
      expect(t.statuses, t.channelId).toHaveLength(1);
      expect(t.statuses[0]?.content, t.channelId).toContain('✅');
      expect(t.statuses[0]?.content, t.channelId).not.toContain('⏳');
      expect(t.replies, t.channelId).toHaveLength(1);
      expect(t.replies[0], t.channelId).toContain('Done:');
    }
    expect(report.discord_typing_left_on).toBe(0);
    expect(report.discord_turns_on_two_workers).toBeGreaterThanOrEqual(1);
  }, 900_000);
});

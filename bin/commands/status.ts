/**
 * `npx kesoku status`: what runs from this data dir (Kesoku's pid file, servers left by a killed one), whether
 * the API, Temporal and Postgres answer (`/healthz`), the newest sessions with their state and queue (REST API),
 * and the last errors (failed turns and refused deliveries, from Postgres: `DATABASE_URL`, else the embedded
 * server of the running `npm start`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../../infra/config.ts';
import { loadEnvFile } from '../../infra/env-file.ts';
import { instanceOf } from '../../infra/instance-lock.ts';
import { POSTGRES_PASSWORD_FILE, leftoverPostgres } from '../../infra/postgres-server.ts';
import { leftoverDevServer } from '../../infra/temporal-server.ts';
import { apiTarget, getJson } from './common.ts';

export const STATUS_HELP = `usage: npx kesoku status [--sessions N]

What runs from this data dir, whether the API, Temporal and Postgres answer, the newest sessions (state and
queue) and the last errors.

options:
  --sessions N   how many sessions to list (default 10)
  -h, --help     this text

Exit codes: 0 Kesoku answers, 1 it is not running or not healthy, 2 bad options.`;

interface SessionJson {
  id: string;
  title: string | null;
  status?: string;
  queue_length?: number;
  updated_at?: string;
}

/** The Postgres URL of this setup: DATABASE_URL, else the running embedded server's. */
function databaseUrl(cfg: ReturnType<typeof loadConfig>, running: boolean): string | null {
  if (cfg.DATABASE_URL) return cfg.DATABASE_URL;
  if (!running) return null;
  try {
    const pw = fs.readFileSync(path.join(cfg.KESOKU_DATA_DIR, POSTGRES_PASSWORD_FILE), 'utf8').trim();
    return `postgres://postgres:${encodeURIComponent(pw)}@127.0.0.1:${cfg.KESOKU_POSTGRES_PORT}/kesoku`;
  } catch {
    return null;
  }
}

/** The newest failed turns and refused deliveries, or a line saying why they could not be read. */
async function lastErrors(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const r = await client.query<{ session_id: string; at: Date; what: string; detail: string | null }>(
      `SELECT session_id, updated_at AS at,
              CASE WHEN status = 'error' THEN 'turn failed' ELSE 'delivery refused' END AS what,
              COALESCE(metadata->>'failure_kind', metadata->'delivery_failure'->>'reason', left(content, 80)) AS detail
         FROM messages
        WHERE status = 'error' OR metadata ? 'delivery_failure'
        ORDER BY updated_at DESC LIMIT 5`,
    );
    return r.rows.map(
      (e) => `${e.at.toISOString()}  ${e.session_id}  ${e.what}${e.detail ? `: ${e.detail}` : ''}`,
    );
  } catch (err) {
    return [`(could not read Postgres: ${(err as Error).message})`];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs `status` with `argv` (after the command name). @returns the exit code */
export async function status(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { sessions: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    process.stderr.write(`kesoku: ${(err as Error).message}\n\n${STATUS_HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${STATUS_HELP}\n`);
    return 0;
  }
  const limit = Number(values.sessions ?? 10);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    process.stderr.write('kesoku: --sessions: a whole number from 1 to 100\n');
    return 2;
  }
  const out = (s: string) => process.stdout.write(s);
  loadEnvFile(process.env);
  const cfg = loadConfig();
  const instance = instanceOf(cfg.KESOKU_DATA_DIR);
  const running = instance?.live === true;
  if (running) out(`Kesoku is running from ${cfg.KESOKU_DATA_DIR} (pid ${instance.info.pid}).\n`);
  else {
    out(`Kesoku is not running from ${cfg.KESOKU_DATA_DIR} (npm start starts it).\n`);
    const t = leftoverDevServer(path.join(cfg.KESOKU_DATA_DIR, 'temporal.db'));
    const p = leftoverPostgres(path.join(cfg.KESOKU_DATA_DIR, 'postgres'));
    if (t !== null || p !== null)
      out(
        `  left running by a Kesoku that was killed: ${[t !== null && `Temporal dev server (pid ${t})`, p !== null && `Postgres (pid ${p})`].filter(Boolean).join(', ')}; the next npm start stops them\n`,
      );
  }
  const api = apiTarget(process.env, running ? instance.info.apiUrl : undefined);
  const health = await getJson(`${api.url}/healthz`);
  if (!health) {
    out(`API       ${api.url}: no answer\n`);
    return 1;
  }
  const h = (health.body ?? {}) as Record<string, unknown>;
  const yes = (v: unknown) => (v === true ? 'answers' : 'NOT answering');
  out(`API       ${api.url}: ${health.status === 200 ? 'healthy' : `unhealthy (${health.status})`}\n`);
  const components = Object.entries(
    (h.components ?? {}) as Record<string, { ok?: boolean; state?: unknown }>,
  );
  const width = Math.max(9, ...components.map(([name]) => name.length));
  out(`${'Temporal'.padEnd(width)} ${yes(h.temporal)}\n${'Postgres'.padEnd(width)} ${yes(h.postgres)}\n`);
  // A channel its configuration leaves off answers ok with state `off`: say off, not ok.
  for (const [name, c] of components)
    out(`${name.padEnd(width)} ${c.state === 'off' ? 'off' : c.ok ? 'ok' : 'NOT ok'}\n`);
  const list = await getJson(`${api.url}/v1/sessions?limit=${limit}`, { token: api.token });
  if (list?.status === 200) {
    const sessions = ((list.body as { sessions?: SessionJson[] }).sessions ?? []) as SessionJson[];
    const detailed = await Promise.all(
      sessions.map(async (s) => {
        const one = await getJson(`${api.url}/v1/sessions/${encodeURIComponent(s.id)}`, { token: api.token });
        return one?.status === 200 ? { ...s, ...(one.body as SessionJson) } : s;
      }),
    );
    const busy = detailed.filter((s) => s.status === 'processing').length;
    const queued = detailed.reduce((n, s) => n + (s.queue_length ?? 0), 0);
    out(
      `\nSessions (newest ${detailed.length}): ${busy} processing, ${queued} queued message${queued === 1 ? '' : 's'}\n`,
    );
    for (const s of detailed)
      out(
        `  ${s.id}  ${s.status ?? '?'}${s.queue_length ? `, ${s.queue_length} queued` : ''}  ${s.title ?? ''}  ${s.updated_at ?? ''}\n`,
      );
  } else out(`\nSessions: the API answered ${list?.status ?? 'nothing'} (a token? KESOKU_API_TOKEN)\n`);
  const url = databaseUrl(cfg, running);
  if (url) {
    const errors = await lastErrors(url);
    out(`\nLast errors: ${errors.length === 0 ? 'none' : ''}\n`);
    for (const e of errors) out(`  ${e}\n`);
  }
  return health.status === 200 ? 0 : 1;
}

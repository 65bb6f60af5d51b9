/**
 * `npm run replay -- <dir>`: replays workflow histories against the workflow code in this checkout, before a
 * deploy, and exits 1 when any history does not replay (a nondeterminism error: the new code would wedge that
 * session). `npm run replay -- --export <dir>` first exports the histories to check: every running
 * `sessionWorkflow` and `titleWorkflow` execution of the deployment the Temporal environment configuration
 * points at (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, or a profile).
 *
 * Files are `<workflowId>.json`: `{"format":"temporal.api.history.v1.History/protobuf+base64","data":…}`, the
 * format of the replay fixtures under test/fixtures/histories (which this command also reads).
 *
 * Options: `--export <dir>` (export, then replay what was exported), `--query <visibility query>` (what to export;
 * default running session and title workflows), `--limit N` (at most N histories exported; default 10 000).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { connectTemporal } from './temporal-connection.ts';
import { connectionSettingsOf, resolveTemporalSettings } from './temporal-envconfig.ts';
import { WORKFLOWS_PATH } from '../workers/build-worker.ts';

const { temporal } = proto;
export const HISTORY_FORMAT = 'temporal.api.history.v1.History/protobuf+base64';
export const DEFAULT_EXPORT_QUERY =
  "WorkflowType IN ('sessionWorkflow', 'titleWorkflow') AND ExecutionStatus = 'Running'";

/** Encodes a history in the replay file format. */
export function encodeHistoryFile(history: TemporalProto.api.history.v1.IHistory): string {
  const data = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('base64');
  return JSON.stringify({ format: HISTORY_FORMAT, data }) + '\n';
}

/** Decodes a replay file. @throws Error naming the file when it is not in the replay format */
export function decodeHistoryFile(file: string): TemporalProto.api.history.v1.History {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { format?: string; data?: string };
  if (typeof parsed.data !== 'string')
    throw new Error(`${file}: not a history file (expected {"format":"${HISTORY_FORMAT}","data":…})`);
  return temporal.api.history.v1.History.decode(Buffer.from(parsed.data, 'base64'));
}

/** Every `*.json` under `dir`, recursively, sorted. */
export function historyFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f))
    .sort();
}

/**
 * Exports the histories of the executions `query` selects into `dir` (one file per workflow id).
 * @returns the number of histories written
 */
export async function exportHistories(
  client: Client,
  dir: string,
  query = DEFAULT_EXPORT_QUERY,
  limit = 10_000,
): Promise<number> {
  fs.mkdirSync(dir, { recursive: true });
  let n = 0;
  for await (const { workflowId, history } of client.workflow.list({ query }).intoHistories()) {
    if (!history) continue;
    fs.writeFileSync(
      path.join(dir, `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`),
      encodeHistoryFile(history),
    );
    if (++n >= limit) break;
  }
  return n;
}

/** The outcome of replaying one file. */
export interface ReplayOutcome {
  file: string;
  workflowId: string;
  error?: string;
}

/**
 * Replays every history file in `dir` against the workflow code at `workflowsPath` (bundled once).
 * @returns one outcome per file, in file order
 */
export async function replayDirectory(dir: string, workflowsPath = WORKFLOWS_PATH): Promise<ReplayOutcome[]> {
  const files = historyFiles(dir);
  const byId = new Map<string, string>();
  const histories = files.map((file) => {
    const workflowId = path.relative(dir, file);
    byId.set(workflowId, file);
    return { workflowId, history: decodeHistoryFile(file) };
  });
  const outcomes: ReplayOutcome[] = [];
  for await (const r of Worker.runReplayHistories({ workflowsPath }, histories)) {
    outcomes.push({
      file: byId.get(r.workflowId) ?? r.workflowId,
      workflowId: r.workflowId,
      ...(r.error ? { error: String(r.error) } : {}),
    });
  }
  return outcomes;
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const take = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    if (i < 0) return undefined;
    const [, value] = args.splice(i, 2);
    return value;
  };
  const exportDir = take('--export');
  const query = take('--query') ?? DEFAULT_EXPORT_QUERY;
  const limit = Number(take('--limit') ?? 10_000);
  const dir = exportDir ?? args[0];
  if (!dir) {
    process.stderr.write(
      'usage: npm run replay -- <dir>   |   npm run replay -- --export <dir> [--query Q] [--limit N]\n',
    );
    return 2;
  }
  if (exportDir) {
    const settings = resolveTemporalSettings();
    if (!settings.address) {
      process.stderr.write(
        'kesoku replay: set TEMPORAL_ADDRESS (or a Temporal config profile) to export from a deployment\n',
      );
      return 2;
    }
    const connection = await connectTemporal({
      address: settings.address,
      ...connectionSettingsOf(settings),
    });
    try {
      const n = await exportHistories(
        new Client({ connection, namespace: settings.namespace }),
        exportDir,
        query,
        limit,
      );
      process.stdout.write(
        `exported ${n} histories from ${settings.address} (namespace ${settings.namespace}) to ${exportDir}\n`,
      );
    } finally {
      await connection.close();
    }
  }
  const outcomes = await replayDirectory(dir);
  const failed = outcomes.filter((o) => o.error);
  for (const o of failed) process.stdout.write(`FAIL ${o.file}\n  ${o.error?.split('\n')[0]}\n`);
  process.stdout.write(
    `replayed ${outcomes.length} histories: ${outcomes.length - failed.length} ok, ${failed.length} failed\n`,
  );
  return failed.length === 0 ? 0 : 1;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`kesoku replay: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

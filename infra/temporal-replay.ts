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
 * Payload keys: histories a Kesoku worker wrote hold AES-GCM encrypted payloads (infra/payload-codec.ts), so the
 * command reads the keys the way the worker does — `KESOKU_PAYLOAD_KEYS`, else `<KESOKU_DATA_DIR>/payload-keys` —
 * and replays with the same data converter. `--export` refuses to start without keys; a directory whose
 * histories are all plaintext (the replay fixtures) replays without any. Exported files stay encrypted.
 *
 * Options: `--export <dir>` (export, then replay what was exported), `--query <visibility query>` (what to export;
 * default running session and title workflows), `--limit N` (at most N histories exported; default 10 000).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { ConfigError, loadConfig } from './config.ts';
import {
  PAYLOAD_KEYS_FILE,
  dataConverterFor,
  isEncrypted,
  resolvePayloadKeys,
  type PayloadKey,
} from './payload-codec.ts';
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

/**
 * Every payload in `history` (inputs, results, signal and update arguments, memos, headers, failure details), in
 * no particular order. The objects are the history's own, so a caller may rewrite them in place. A payload is
 * recognised by its `metadata.encoding` bytes, which every Temporal payload carries.
 */
export function historyPayloads(history: TemporalProto.api.history.v1.IHistory): Payload[] {
  const found: Payload[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    const o = value as { metadata?: { encoding?: unknown } };
    if (o.metadata && typeof o.metadata === 'object' && o.metadata.encoding instanceof Uint8Array) {
      found.push(o as Payload);
      return;
    }
    for (const v of Object.values(value)) visit(v);
  };
  visit(history);
  return found;
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

/** What {@link replayDirectory} replays with. */
export interface ReplayOptions {
  /** The workflow code; default the worker's (workflows/index.ts). */
  workflowsPath?: string;
  /**
   * The payload keys of the deployment the histories come from (infra/payload-codec.ts); needed when a history
   * holds encrypted payloads, which is every history a Kesoku worker wrote. Unencrypted payloads pass through.
   */
  keys?: readonly PayloadKey[];
}

/** A history in `dir` holds encrypted payloads, and no payload key was given to decrypt them. */
export class EncryptedHistoriesError extends ConfigError {}

/**
 * Replays every history file in `dir` against the workflow code (bundled once), decrypting payloads with
 * `opts.keys`. A payload under a key that is not among them fails that history's replay (its error names the
 * key id).
 * @returns one outcome per file, in file order
 * @throws EncryptedHistoriesError when a history is encrypted and `opts.keys` is absent or empty
 */
export async function replayDirectory(dir: string, opts: ReplayOptions = {}): Promise<ReplayOutcome[]> {
  const files = historyFiles(dir);
  const byId = new Map<string, string>();
  const histories = files.map((file) => {
    const workflowId = path.relative(dir, file);
    byId.set(workflowId, file);
    return { workflowId, history: decodeHistoryFile(file) };
  });
  const keys = opts.keys ?? [];
  if (keys.length === 0) {
    const encrypted = histories.find((h) => historyPayloads(h.history).some(isEncrypted));
    if (encrypted) {
      throw new EncryptedHistoriesError(
        `${byId.get(encrypted.workflowId)} holds encrypted payloads: give the deployment's payload keys ` +
          `(KESOKU_PAYLOAD_KEYS, or <KESOKU_DATA_DIR>/${PAYLOAD_KEYS_FILE}, as the worker reads them)`,
      );
    }
  }
  const options = {
    workflowsPath: opts.workflowsPath ?? WORKFLOWS_PATH,
    ...(keys.length > 0 ? { dataConverter: dataConverterFor(keys) } : {}),
  };
  const outcomes: ReplayOutcome[] = [];
  for await (const r of Worker.runReplayHistories(options, histories)) {
    outcomes.push({
      file: byId.get(r.workflowId) ?? r.workflowId,
      workflowId: r.workflowId,
      ...(r.error ? { error: String(r.error) } : {}),
    });
  }
  return outcomes;
}

/**
 * The payload keys the worker of this environment would use: `KESOKU_PAYLOAD_KEYS`, else
 * `<KESOKU_DATA_DIR>/payload-keys` (never created here). Without either, an export (histories of a deployment,
 * all encrypted) is refused; a directory is replayed without keys, which suits plaintext histories only.
 * @throws ConfigError when `required` and no key is configured, or when the keys are malformed
 */
function replayKeys(required: boolean): PayloadKey[] {
  const cfg = loadConfig();
  const file = path.join(cfg.KESOKU_DATA_DIR, PAYLOAD_KEYS_FILE);
  if (!required && !cfg.KESOKU_PAYLOAD_KEYS && !fs.existsSync(file)) return [];
  return resolvePayloadKeys({ env: cfg.KESOKU_PAYLOAD_KEYS, dataDir: cfg.KESOKU_DATA_DIR, create: false })
    .keys;
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
    // Checked before exporting: the export's histories cannot be replayed without them.
    replayKeys(true);
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
  const outcomes = await replayDirectory(dir, { keys: replayKeys(exportDir !== undefined) });
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
      // A configuration problem (missing keys, bad settings) is a usage error, like a missing argument.
      process.exit(err instanceof ConfigError ? 2 : 1);
    },
  );
}

/**
 * Replaying workflow histories against this checkout's workflow code, and exporting the histories of a
 * deployment to replay (the `npm run replay` command is bin/replay.ts). Files are `<workflowId>.json`:
 * `{"format":"temporal.api.history.v1.History/protobuf+base64","data":…}`, the format of the replay fixtures under
 * test/fixtures/histories. Histories a Kesoku worker wrote hold AES-GCM encrypted payloads
 * (infra/payload-codec.ts): they replay with the same data converter and the deployment's keys.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { ConfigError } from './config.ts';
import { PAYLOAD_KEYS_FILE, dataConverterFor, isEncrypted, type PayloadKey } from './payload-codec.ts';

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
 * The file name of a workflow's exported history: the id with unsafe characters replaced, plus a short hash of
 * the exact id, so two ids that differ only in those characters (`session:a/b`, `session:a_b`) never share a file.
 */
export function historyFileName(workflowId: string): string {
  const hash = createHash('sha256').update(workflowId).digest('hex').slice(0, 8);
  return `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.${hash}.json`;
}

/**
 * Exports the histories of the executions `query` selects into `dir` (one file per workflow id, see
 * {@link historyFileName}), at most `limit`.
 * @returns the number of histories written, and whether more executions matched than `limit` (the export is
 *   then a sample, not the deployment)
 */
export async function exportHistories(
  client: Client,
  dir: string,
  query = DEFAULT_EXPORT_QUERY,
  limit = 10_000,
): Promise<{ written: number; truncated: boolean }> {
  fs.mkdirSync(dir, { recursive: true });
  let written = 0;
  for await (const { workflowId, history } of client.workflow.list({ query }).intoHistories()) {
    if (!history) continue;
    if (written >= limit) return { written, truncated: true };
    fs.writeFileSync(path.join(dir, historyFileName(workflowId)), encodeHistoryFile(history));
    written++;
  }
  return { written, truncated: false };
}

/** The outcome of replaying one file. */
export interface ReplayOutcome {
  file: string;
  workflowId: string;
  error?: string;
}

/** What {@link replayDirectory} replays with. */
export interface ReplayOptions {
  /** The workflow code: the worker's entry, workers/build-worker.ts `WORKFLOWS_PATH`. */
  workflowsPath: string;
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
export async function replayDirectory(dir: string, opts: ReplayOptions): Promise<ReplayOutcome[]> {
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
    workflowsPath: opts.workflowsPath,
    // Replay runs no activity and sends nothing: histories written before encryption are read as they are.
    ...(keys.length > 0 ? { dataConverter: dataConverterFor(keys, { acceptPlaintext: true }) } : {}),
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

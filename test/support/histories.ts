/**
 * Recording workflow histories as replay fixtures (test/fixtures/histories). Set KESOKU_RECORD_HISTORIES=1 to
 * (re)write them from a test run; workflows/replay.test.ts replays every committed fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { AesGcmPayloadCodec, isEncrypted, parsePayloadKeys } from '../../infra/payload-codec.ts';
import { encodeHistoryFile, historyPayloads } from '../../infra/temporal-replay.ts';
import { stateQuery } from '../../workflows/definitions.ts';

const { temporal } = proto;

/**
 * The payload key of every test stack (not a secret: test data only). Recording decrypts the histories with it,
 * so the fixtures are plaintext (and `npm run replay -- test/fixtures/histories` needs no key); the replay test
 * still decrypts with it, should a fixture hold encrypted payloads.
 */
export const TEST_PAYLOAD_KEYS = `test-fixtures:${Buffer.alloc(32, 7).toString('base64')}`;

export const HISTORIES_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'histories');

/**
 * Writes the history of `workflowId` to `<name>.json` when recording is switched on: its current run, or the run
 * `runId`. Waits until a running run is idle with an empty queue and its last workflow task completed, so the
 * replay covers the whole scenario (a history cut mid-task would leave its last task to run live); a closed run
 * (e.g. one that continued as new) is written as it is. Payloads are decrypted with {@link TEST_PAYLOAD_KEYS}.
 */
export async function recordHistory(
  name: string,
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<void> {
  if (process.env.KESOKU_RECORD_HISTORIES !== '1') return;
  const handle = client.workflow.getHandle(workflowId, runId);
  const deadline = Date.now() + 30_000;
  while ((await handle.describe()).status.name === 'RUNNING') {
    const state = await handle.query(stateQuery);
    const history = await handle.fetchHistory();
    const types = (history.events ?? []).map((e) => e.eventType);
    const { EVENT_TYPE_WORKFLOW_TASK_SCHEDULED: scheduled, EVENT_TYPE_WORKFLOW_TASK_COMPLETED: completed } =
      temporal.api.enums.v1.EventType;
    const last = types.at(-1);
    // Idle: no workflow task pending (the last one scheduled has completed; its commands' events may follow).
    if (
      state.status === 'idle' &&
      state.queueLength === 0 &&
      types.lastIndexOf(completed) > types.lastIndexOf(scheduled)
    )
      break;
    if (Date.now() > deadline) {
      throw new Error(
        `${workflowId} did not become idle for recording: ${JSON.stringify(state)}, last event ${last}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // Re-decoded with this module's protobuf copy (the SDK's JSON helpers trip over duplicate protobufjs copies).
  const history = temporal.api.history.v1.History.decode(
    temporal.api.history.v1.History.encode(await handle.fetchHistory()).finish(),
  );
  const codec = new AesGcmPayloadCodec(parsePayloadKeys(TEST_PAYLOAD_KEYS, 'TEST_PAYLOAD_KEYS'));
  for (const p of historyPayloads(history).filter(isEncrypted)) {
    const [plain] = await codec.decode([p]);
    p.metadata = plain?.metadata ?? {};
    p.data = plain?.data ?? new Uint8Array();
  }
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), encodeHistoryFile(history));
}

/** Reads a fixture written by {@link recordHistory}. */
export function readHistory(file: string): TemporalProto.api.history.v1.History {
  const { data } = JSON.parse(fs.readFileSync(file, 'utf8')) as { data: string };
  return temporal.api.history.v1.History.decode(Buffer.from(data, 'base64'));
}

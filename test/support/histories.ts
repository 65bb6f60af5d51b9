/**
 * Recording workflow histories as replay fixtures (test/fixtures/histories). Set KESOKU_RECORD_HISTORIES=1 to
 * (re)write them from a test run; test/integration/replay.test.ts replays every committed fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { stateQuery } from '../../workflows/definitions.ts';

const { temporal } = proto;

/**
 * The payload key of every test stack (not a secret: test data only). Recorded histories are encrypted with
 * it, so the replay test can decrypt them; histories recorded before encryption pass through unchanged.
 */
export const TEST_PAYLOAD_KEYS = `test-fixtures:${Buffer.alloc(32, 7).toString('base64')}`;

export const HISTORIES_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'histories');

/**
 * Writes the history of `workflowId` (its current run) to `<name>.json` when recording is switched on. Waits
 * until the session is idle with an empty queue and its last workflow task completed, so the replay covers the
 * whole scenario (a history cut mid-task would leave its last task to run live).
 */
export async function recordHistory(name: string, client: Client, workflowId: string): Promise<void> {
  if (process.env.KESOKU_RECORD_HISTORIES !== '1') return;
  const handle = client.workflow.getHandle(workflowId);
  const deadline = Date.now() + 30_000;
  for (;;) {
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
  const history = await handle.fetchHistory();
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  // Stored as the binary protobuf encoding (base64): the SDK's JSON helpers trip over duplicate protobufjs copies.
  const data = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('base64');
  fs.writeFileSync(
    path.join(HISTORIES_DIR, `${name}.json`),
    JSON.stringify({ format: 'temporal.api.history.v1.History/protobuf+base64', data }) + '\n',
  );
}

/** Reads a fixture written by {@link recordHistory}. */
export function readHistory(file: string): TemporalProto.api.history.v1.History {
  const { data } = JSON.parse(fs.readFileSync(file, 'utf8')) as { data: string };
  return temporal.api.history.v1.History.decode(Buffer.from(data, 'base64'));
}

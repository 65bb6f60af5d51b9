/**
 * Recording workflow histories as replay fixtures (test/fixtures/histories). Set KESOKU_RECORD_HISTORIES=1 to
 * (re)write them from a test run; test/integration/replay.test.ts replays every committed fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';

export const HISTORIES_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'histories');

/** Writes the history of `workflowId` (its current run) to `<name>.json` when recording is switched on. */
export async function recordHistory(name: string, client: Client, workflowId: string): Promise<void> {
  if (process.env.KESOKU_RECORD_HISTORIES !== '1') return;
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), JSON.stringify(history, null, 1));
}

/**
 * Determinism: every committed history in test/fixtures/histories (recorded from the scenarios of the turn
 * tests with KESOKU_RECORD_HISTORIES=1) replays against the current workflow code without a
 * nondeterminism error. A workflow change that breaks one needs `patched()`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { dataConverterFor, parsePayloadKeys } from '../../infra/payload-codec.ts';
import { HISTORIES_DIR, TEST_PAYLOAD_KEYS, readHistory } from '../support/histories.ts';

// Fixtures recorded by earlier versions of the workflow code live in subfolders and must keep replaying.
const files = fs.existsSync(HISTORIES_DIR)
  ? (fs.readdirSync(HISTORIES_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort()
  : [];

describe('recorded histories replay', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(32);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = readHistory(path.join(HISTORIES_DIR, file));
    // Histories recorded since payload encryption are encrypted with the test stacks' key.
    const dataConverter = dataConverterFor(parsePayloadKeys(TEST_PAYLOAD_KEYS, 'TEST_PAYLOAD_KEYS'));
    const results = Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter }, [
      { workflowId: path.basename(file, '.json'), history },
    ]);
    let count = 0;
    for await (const r of results) {
      count++;
      expect(r.error, `${file}: ${String(r.error)}`).toBeUndefined();
    }
    expect(count).toBe(1);
  });
});

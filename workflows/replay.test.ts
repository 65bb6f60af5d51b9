/**
 * Determinism: every committed history in test/fixtures/histories (recorded from the scenarios of the turn and
 * approval tests with KESOKU_RECORD_HISTORIES=1, once each session was idle) replays against the current
 * workflow code without a nondeterminism error. Needs no server: the bundle is built here and replayed
 * in-process. A workflow change that breaks a fixture needs `patched()` (docs/patches.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataConverterFor, parsePayloadKeys } from '../infra/payload-codec.ts';
import { HISTORIES_DIR, TEST_PAYLOAD_KEYS, readHistory } from '../test/support/histories.ts';

const WORKFLOWS = path.join(import.meta.dirname, 'index.ts');

const files = fs.existsSync(HISTORIES_DIR)
  ? (fs.readdirSync(HISTORIES_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort()
  : [];

describe('recorded histories replay', () => {
  let bundle: WorkflowBundle;
  beforeAll(async () => {
    bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS });
  }, 120_000);

  it('has recorded histories to replay, among them a continued-as-new run and the queue-full signal', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    expect(files).toContain('continued-as-new.json');
    expect(files).toContain('queue-full-signal.json');
  });

  it('has a run that ended idle after the idle bound (patch session-idle-end)', () => {
    expect(files).toContain('idle-ended.json');
  });

  it('has histories of the tool-approval gate: approved, denied, timed out, always, stopped, two calls, and a wait carried across continue-as-new', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'approval-approved.json',
        'approval-denied.json',
        'approval-timed-out.json',
        'approval-always.json',
        'approval-stopped.json',
        'approval-two-calls.json',
        // The run that suspended the waiting turn by continue-as-new, and the run that resumed it.
        'approval-suspended.json',
        'approval-resumed.json',
      ]),
    );
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = readHistory(path.join(HISTORIES_DIR, file));
    // Recording decrypts (test/support/histories.ts): fixtures are plaintext; test-key payloads would decrypt.
    const dataConverter = dataConverterFor(parsePayloadKeys(TEST_PAYLOAD_KEYS, 'TEST_PAYLOAD_KEYS'), {
      acceptPlaintext: true,
    });
    const results = Worker.runReplayHistories({ workflowBundle: bundle, dataConverter }, [
      { workflowId: path.basename(file, '.json'), history },
    ]);
    let count = 0;
    for await (const r of results) {
      count++;
      expect(r.error, `${file}: ${String(r.error)}`).toBeUndefined();
    }
    expect(count).toBe(1);
  });

  // A history an older worker carried past the event bound while its input already held the bound (set by a newer
  // API) must replay as it ran: every session fixture recorded before the bound, given a bound of 10 events.
  const beforeBound = files.filter((f) => !f.startsWith('continued-as-new-by-events'));
  it.each(beforeBound)(
    '%s replays as it ran with an event bound it did not know in its input',
    async (file) => {
      const history = readHistory(path.join(HISTORIES_DIR, file));
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      if (started?.workflowType?.name !== 'sessionWorkflow') return;
      const payload = started.input?.payloads?.[0];
      if (!payload?.data) throw new Error(`${file}: no workflow input`);
      const input = JSON.parse(Buffer.from(payload.data).toString('utf8')) as Record<string, unknown>;
      payload.data = Buffer.from(JSON.stringify({ ...input, continueAsNewAfterEvents: 10 }), 'utf8');
      const dataConverter = dataConverterFor(parsePayloadKeys(TEST_PAYLOAD_KEYS, 'TEST_PAYLOAD_KEYS'), {
        acceptPlaintext: true,
      });
      for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, dataConverter }, [
        { workflowId: path.basename(file, '.json'), history },
      ]))
        expect(r.error, `${file}: ${String(r.error)}`).toBeUndefined();
    },
  );
});

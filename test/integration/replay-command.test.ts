/**
 * `npm run replay -- --export <dir>` against a real stack whose payloads are encrypted, as in production: the
 * command exports the session's history (still encrypted on disk), loads the payload keys the way the worker
 * does (`KESOKU_PAYLOAD_KEYS`, else `<KESOKU_DATA_DIR>/payload-keys`) and replays it. Without the keys, or with
 * keys that do not fit, it says so instead of reporting a nondeterminism error.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEncrypted, newPayloadKeyEntry } from '../../infra/payload-codec.ts';
import { decodeHistoryFile, historyFiles, historyPayloads } from '../../infra/temporal-replay.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { ROOT } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
const tmpDirs: string[] = [];
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-replay-'));
  tmpDirs.push(d);
  return d;
};

/** Runs the `replay` npm script (as package.json spells it) with `args`; resolves with its exit code and output. */
function runReplay(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [node, ...script] = (pkg.scripts.replay ?? '').split(' ');
  expect(node).toBe('node');
  // Only the variables the command reads, so neither this process's Temporal profile nor its keys leak in.
  const childEnv = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...script, ...args],
      { cwd: ROOT, env: childEnv, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('npm run replay -- --export', () => {
  let session: string;
  let query: string;
  beforeAll(async () => {
    session = uniqueId('s');
    const r = await stack.submit(session, 'run: echo replayed-secret-text');
    expect((await stack.waitForStatus(r.message.id, ['processed', 'error'])).status).toBe('processed');
    query = `WorkflowId = '${sessionWorkflowId(session)}'`;
    // The export lists through visibility, which follows the start of the run by a moment.
    const deadline = Date.now() + 15_000;
    while ((await stack.client.workflow.count(query)).count < 1) {
      if (Date.now() > deadline) throw new Error(`${query} found nothing in visibility`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  it('exports an encrypted history and replays it with the keys of the data dir', async () => {
    const dir = tmpDir();
    const r = await runReplay(['--export', dir, '--query', query], {
      TEMPORAL_ADDRESS: stack.temporalAddress,
      KESOKU_DATA_DIR: stack.dataDir,
    });
    expect(r.stdout).toContain('exported 1 histories');
    expect(r.stdout).toContain('replayed 1 histories: 1 ok, 0 failed');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    // The export itself stays encrypted: the history's payloads are, and no message text is in the file.
    const [file] = historyFiles(dir);
    const payloads = historyPayloads(decodeHistoryFile(file!));
    expect(payloads.filter(isEncrypted).length).toBeGreaterThan(0);
    expect(fs.readFileSync(file!, 'utf8')).not.toContain(
      Buffer.from('replayed-secret-text').toString('base64'),
    );
  }, 120_000);

  it('names the missing key when the keys do not fit, and asks for keys when there are none', async () => {
    const dir = tmpDir();
    const wrong = await runReplay(['--export', dir, '--query', query], {
      TEMPORAL_ADDRESS: stack.temporalAddress,
      KESOKU_DATA_DIR: tmpDir(),
      KESOKU_PAYLOAD_KEYS: newPayloadKeyEntry(),
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('replayed 1 histories: 0 ok, 1 failed');
    expect(wrong.stdout).toMatch(/key id \W*test-fixtures\W*, which is not among/);

    // No keys at all: an export is refused before it starts, an encrypted directory before it is replayed.
    const unkeyed = await runReplay(['--export', tmpDir(), '--query', query], {
      TEMPORAL_ADDRESS: stack.temporalAddress,
      KESOKU_DATA_DIR: tmpDir(),
    });
    expect(unkeyed.code).toBe(2);
    expect(unkeyed.stderr).toMatch(/no payload encryption key/);
    expect(unkeyed.stdout).not.toContain('exported');
    const none = await runReplay([dir], { KESOKU_DATA_DIR: tmpDir() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/encrypted.*KESOKU_PAYLOAD_KEYS/s);
  }, 120_000);

  it('replays the plaintext fixtures without any key', async () => {
    const r = await runReplay([path.join(ROOT, 'test', 'fixtures', 'histories')], {
      KESOKU_DATA_DIR: tmpDir(),
    });
    expect(r.stdout).toMatch(/replayed \d+ histories: \d+ ok, 0 failed/);
    expect(r.code).toBe(0);
  }, 120_000);
});

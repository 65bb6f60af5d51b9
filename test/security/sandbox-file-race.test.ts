/**
 * read_file and write_file cannot be steered outside the workspace by a command of the same step: the link-flip
 * race (a sandboxed loop flipping `d` between a workspace directory and the data dir's real path) runs for a
 * fixed time against many parallel calls, as root and as another uid, with zero leaks and zero outside writes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runRace, type RaceCounts } from './support/file-race.ts';

const SECONDS = 6;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function expectNoEscape(counts: RaceCounts): void {
  // The race really ran: the link flipped thousands of times and the calls saw the workspace side of it.
  expect(counts.flips).toBeGreaterThan(100);
  expect(counts.decoy + counts.refused).toBeGreaterThan(50);
  expect(counts.writes + counts.refused).toBeGreaterThan(0);
  expect(counts.leaked).toBe(0);
  expect(counts.plantedOutside).toBe(0);
}

describe('the link-flip race against the file tools', () => {
  it(`leaks nothing and writes nothing outside in ${SECONDS} s of parallel calls (worker as root)`, async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-race-root-'));
    dirs.push(data);
    expectNoEscape(await runRace(path.join(data, 'data'), SECONDS));
  }, 120_000);

  it.runIf(process.getuid?.() === 0)(
    `leaks nothing and writes nothing outside in ${SECONDS} s of parallel calls (worker as uid 1000)`,
    async () => {
      const own = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-race-user-'));
      dirs.push(own);
      fs.chownSync(own, 1000, 1000);
      const script = `import(${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'support', 'file-race.ts')).href)}).then((m) => m.main())`;
      const out = await new Promise<string>((resolve) =>
        execFile(
          'setpriv',
          [
            '--reuid=1000',
            '--regid=1000',
            '--clear-groups',
            process.execPath,
            '--input-type=module',
            '-e',
            script,
            path.join(own, 'data'),
            String(SECONDS),
          ],
          { cwd: own, env: { PATH: process.env.PATH, HOME: own }, timeout: 100_000 },
          (err, stdout, stderr) => resolve(stdout + stderr + (err ? String(err) : '')),
        ),
      );
      const line = /RESULT (.*)/.exec(out);
      expect(line, out).not.toBeNull();
      expectNoEscape(JSON.parse(line![1]!) as RaceCounts);
    },
    120_000,
  );
});

/**
 * The README's first conversation works as written: `npm run demo` on a fresh data dir (the fake model), then
 * the README's curl + jq blocks under "Talk to it", run by bash exactly as printed except for the API's port
 * (this test's own, so it never meets another Kesoku on 3000).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/temporal-server.ts';
import { ROOT } from '../support/processes.ts';
import { cleanEnv } from '../support/clean-env.ts';

const dirs: string[] = [];
let running: ChildProcess | undefined;
afterAll(async () => {
  if (running && running.exitCode === null) {
    process.kill(-running.pid!, 'SIGINT');
    await new Promise((r) => running!.once('exit', r));
  }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The fenced `sh` blocks of the README section headed `heading`. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(/\n#{2,3} /);
  return [...rest.slice(0, end < 0 ? undefined : end).matchAll(/```sh\n([\s\S]*?)```/g)].map(
    (m) => m[1] ?? '',
  );
}

describe("the README's first conversation", () => {
  it('npm run demo, then the curl blocks as written: the command waits for approval, the approval runs it', async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(shellBlocks(readme, '### With the fake model')).toEqual(['npm run demo\n']);
    const blocks = shellBlocks(readme, '### Talk to it');
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toBe('npm run chat\n');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-readme-'));
    dirs.push(dir);
    fs.chmodSync(dir, 0o755); // the embedded Postgres's own user must reach its data dir
    const api = await freePort();
    const env = {
      ...cleanEnv(),
      KESOKU_ENV_FILE: '',
      KESOKU_DATA_DIR: path.join(dir, 'data'),
      KESOKU_API_PORT: String(api),
      KESOKU_TEMPORAL_PORT: String(await freePort()),
      KESOKU_TEMPORAL_UI_PORT: String(await freePort()),
      KESOKU_POSTGRES_PORT: String(await freePort()),
      ...(process.env.KESOKU_TEMPORAL_CLI ? { KESOKU_TEMPORAL_CLI: process.env.KESOKU_TEMPORAL_CLI } : {}),
    };
    const [command, script] = ['npm', ['run', 'demo']] as const;
    running = spawn(command, script, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    running.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    running.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 150_000;
    while (!out.includes('Press Ctrl-C to stop.')) {
      if (running.exitCode !== null) throw new Error(`npm run demo exited:\n${out}`);
      if (Date.now() > deadline) throw new Error(`npm run demo not ready:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(out).toContain('Model            the fake model');
    expect(out).toMatch(/kesoku: Postgres: ready on port \d+ \(/);

    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    const sh = (block: string) =>
      promisify(execFile)(
        'bash',
        ['-euo', 'pipefail', '-c', block.replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${api}`)],
        { cwd: work, timeout: 90_000 },
      );
    const asked = await sh(blocks[1] as string);
    expect(asked.stdout).toContain('waiting for approval of run_shell_command `uname -a`');
    const answered = await sh(blocks[2] as string);
    expect(answered.stdout).toContain(`Done: ${os.type()}`);
    expect(answered.stdout).not.toContain('waiting for approval');
  }, 240_000);
});

/**
 * From a fresh checkout with a provider key in the environment: `npx kesoku onboard --yes` writes `.env`
 * (0600) and checks the model with one real call, and `npm start` then answers with that model although no
 * Kesoku or provider variable is exported for it (the fake model server stands in for OpenAI's URL, and
 * requires the key). A SIGKILLed `npm start` leaves its servers running; the next one recognises them by their
 * pid files, stops them and answers again.
 *
 * The fresh checkout is a copy of the tracked (and new, unignored) files of this one, without `.env` or
 * `.kesoku`; its node_modules is a link to this checkout's (an `npm install` there would be the same install).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model-server.ts';
import { unusedPort } from '../support/ports.ts';
import { ROOT } from '../support/processes.ts';
import { cleanEnv } from '../support/clean-env.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
let fake: FakeModelServer | undefined;
afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) {
      process.kill(-c.pid!, 'SIGINT');
      await new Promise((r) => c.once('exit', r));
    }
  await fake?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A copy of the checkout as a fresh clone has it. */
function freshCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-clone-'));
  dirs.push(dir);
  fs.chmodSync(dir, 0o755);
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && fs.existsSync(path.join(ROOT, f)));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
    fs.chmodSync(path.join(dir, f), fs.statSync(path.join(ROOT, f)).mode & 0o777);
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(cwd: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

async function ready(r: Run): Promise<void> {
  const deadline = Date.now() + 150_000;
  while (!r.output().includes('Press Ctrl-C to stop.')) {
    if (r.child.exitCode !== null) throw new Error(`npm start exited:\n${r.output()}`);
    if (Date.now() > deadline) throw new Error(`npm start not ready:\n${r.output()}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

async function ask(api: string, session: string, content: string): Promise<string> {
  const res = await fetch(`${api}/v1/sessions/${session}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content, wait: 60 }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { reply: { content: string } }).reply.content;
}

describe('a fresh checkout with a provider key in the environment', () => {
  it('npx kesoku onboard --yes && npm start answers with no variable exported for it; a hard kill is cleaned up', async () => {
    fake = await startFakeModelServer({ apiKey: 'sk-onboard-test' });
    const checkout = freshCheckout();
    expect(fs.existsSync(path.join(checkout, '.env'))).toBe(false);
    // Only the machine's own parts: this test's ports (so it never meets another Kesoku) and the cached CLI.
    const machine = {
      ...cleanEnv(),
      KESOKU_API_PORT: String(await unusedPort()),
      KESOKU_TEMPORAL_PORT: String(await unusedPort()),
      KESOKU_TEMPORAL_UI_PORT: String(await unusedPort()),
      KESOKU_POSTGRES_PORT: String(await unusedPort()),
      ...(process.env.KESOKU_TEMPORAL_CLI ? { KESOKU_TEMPORAL_CLI: process.env.KESOKU_TEMPORAL_CLI } : {}),
    };
    const api = `http://127.0.0.1:${machine.KESOKU_API_PORT}`;

    const onboard = run(checkout, 'npx', ['kesoku', 'onboard', '--yes'], {
      ...machine,
      OPENAI_API_KEY: 'sk-onboard-test',
      OPENAI_BASE_URL: fake.url,
    });
    expect(await onboard.exited, onboard.output()).toBe(0);
    expect(onboard.output()).toContain('OpenAI (OPENAI_API_KEY, OPENAI_BASE_URL=');
    expect(onboard.output()).toMatch(/it answered "echo: Reply with the single word: OK" in [\d.]+ s/);
    expect(onboard.output()).toContain('Next: npm start');
    const envFile = path.join(checkout, '.env');
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    const written = fs.readFileSync(envFile, 'utf8');
    expect(written).toContain('KESOKU_LLM_PROVIDER=openai\n');
    expect(written).toContain('OPENAI_API_KEY=sk-onboard-test\n');
    expect(fake.chatRequests().at(-1)?.headers.authorization).toBe('Bearer sk-onboard-test');

    // npm start in a shell without the key: everything comes from .env.
    const first = run(checkout, 'npm', ['start'], machine);
    await ready(first);
    expect(first.output()).toMatch(/Model {12}gpt-4\.1 \(openai at http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    expect(first.output()).toContain(
      `settings from ${envFile}: KESOKU_LLM_MODEL, KESOKU_LLM_PROVIDER, OPENAI_API_KEY, OPENAI_BASE_URL\n`,
    );
    expect(await ask(api, 'onboarded', 'hello from a fresh checkout')).toBe(
      'echo: hello from a fresh checkout',
    );

    // A hard kill of npm start (its node and npm; the servers run in their own process groups and stay).
    const dataDir = path.join(checkout, '.kesoku');
    const temporalPid = (
      JSON.parse(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8')) as { pid: number }
    ).pid;
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exited;
    expect(() => process.kill(temporalPid, 0)).not.toThrow();

    const second = run(checkout, 'npm', ['start'], machine);
    await ready(second);
    expect(second.output()).toContain(
      `Temporal: stopping the dev server a stopped Kesoku left running (pid ${temporalPid})`,
    );
    expect(second.output()).toMatch(/Postgres: stopped the server a stopped Kesoku left running \(pid \d+\)/);
    expect(() => process.kill(temporalPid, 0)).toThrow();
    expect(await ask(api, 'onboarded', 'after the hard kill')).toBe('echo: after the hard kill');
    process.kill(-second.child.pid!, 'SIGINT');
    expect(await second.exited).toBe(0);
  }, 400_000);
});

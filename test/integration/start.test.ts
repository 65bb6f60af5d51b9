/**
 * `npm start` as a person runs it: embedded Postgres and a Temporal dev server of its own, the
 * URLs printed, a turn answered; Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops
 * every part and frees every port; a second start finds the session again; SIGTERM to the npm process alone
 * (a process manager) stops everything too.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model-server.ts';
import { unusedPort } from '../support/ports.ts';
import { pids, ROOT } from '../support/processes.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-start-'));
let fake: FakeModelServer | undefined;
let running: ChildProcess | undefined;
const extraDirs: string[] = [];

afterAll(async () => {
  if (running && running.exitCode === null && running.signalCode === null)
    process.kill(-running.pid!, 'SIGKILL');
  await fake?.close();
  for (const d of [dataDir, ...extraDirs]) fs.rmSync(d, { recursive: true, force: true });
});

/** True when something accepts connections on 127.0.0.1:`port`. */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` in its own process group (like a terminal's foreground job), with every port of its own. */
async function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running = child;
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 120_000;
  while (!out.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start not ready within 120 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => out, exited };
}

/** This test process's environment without Kesoku's, Postgres's, Temporal's and Discord's variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(KESOKU_|DATABASE_URL$|TEMPORAL_ADDRESS$|DISCORD_)/.test(k),
    ),
  );
}

/** Runs `npm run <script>` to its exit (at most 120 s): exit code and stdout+stderr as they interleaved. */
function npmRun(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`npm run ${script} still running after 120 s:\n${out}`));
    }, 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** No stack trace, no Node.js crash banner, no JSON log line: what a person should not have to read. */
function expectCleanRefusal(out: string): void {
  expect(out).not.toMatch(/^\s+at /m);
  expect(out).not.toContain('Node.js v');
  expect(out).not.toContain('file://');
  expect(out).not.toContain('"level"');
}

describe('npm start refuses a bad configuration at once', () => {
  it('prints one kesoku: line for an invalid variable, in every entry point that reads the configuration', async () => {
    for (const script of ['start', 'worker', 'api', 'channels']) {
      const { code, out } = await npmRun(script, {
        ...cleanEnv(),
        KESOKU_DATA_DIR: path.join(dataDir, 'never-created'),
        KESOKU_API_PORT: 'abc',
        KESOKU_TOOL_APPROVAL: 'sometimes',
      });
      expect(code, `${script}:\n${out}`).toBe(1);
      expect(out, script).toMatch(/^kesoku: \S+ could not start: invalid configuration:/);
      expect(out, script).toContain('KESOKU_API_PORT: must be an integer between 0 and 65535');
      expect(out, script).toContain('KESOKU_TOOL_APPROVAL: ');
      expect(out.endsWith('\n'), script).toBe(true);
      expectCleanRefusal(out);
    }
    expect(fs.existsSync(path.join(dataDir, 'never-created'))).toBe(false);
  }, 300_000);

  it('refuses a short API token, an unauthenticated public bind and a taken API port before starting any server', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const takenPort = (taken.address() as net.AddressInfo).port;
    try {
      const cases: [NodeJS.ProcessEnv, string][] = [
        [{ KESOKU_API_TOKENS: 'alice:short' }, 'the token must be at least 32 printable characters'],
        [{ KESOKU_API_HOST: '0.0.0.0' }, 'refusing to serve the API on 0.0.0.0 without tokens'],
        [{ KESOKU_API_PORT: String(takenPort) }, `the API port ${takenPort} on 127.0.0.1 is already in use`],
      ];
      for (const [i, [vars, message]] of cases.entries()) {
        // A data dir not made yet (as a first start has it), where Postgres could be set up if it were started.
        const dir = path.join(os.tmpdir(), `kesoku-refused-${process.pid}-${i}`);
        extraDirs.push(dir);
        const started = Date.now();
        const { code, out } = await npmRun('start', {
          ...cleanEnv(),
          KESOKU_DATA_DIR: dir,
          KESOKU_TEMPORAL_PORT: String(await unusedPort()),
          KESOKU_TEMPORAL_UI_PORT: String(await unusedPort()),
          KESOKU_POSTGRES_PORT: String(await unusedPort()),
          ...vars,
        });
        expect(code, out).toBe(1);
        expect(out).toMatch(/^kesoku: kesoku could not start: /);
        expect(out).toContain(message);
        expectCleanRefusal(out);
        // Neither server was started: no Temporal database, no Postgres cluster, and no wait for them.
        const made = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
        expect(made.filter((f) => f.startsWith('temporal') || f === 'postgres')).toEqual([]);
        expect(Date.now() - started).toBeLessThan(30_000);
      }
    } finally {
      taken.close();
    }
  }, 300_000);
});

describe('npm start', () => {
  it('answers, stops every part on Ctrl-C and on SIGTERM, and a second start finds the session again', async () => {
    fake = await startFakeModelServer();
    const ports = {
      api: await unusedPort(),
      temporal: await unusedPort(),
      ui: await unusedPort(),
      postgres: await unusedPort(),
    };
    const env = cleanEnv();
    Object.assign(env, {
      KESOKU_DATA_DIR: dataDir,
      KESOKU_API_PORT: String(ports.api),
      KESOKU_TEMPORAL_PORT: String(ports.temporal),
      KESOKU_TEMPORAL_UI_PORT: String(ports.ui),
      KESOKU_POSTGRES_PORT: String(ports.postgres),
      KESOKU_LLM_PROVIDER: 'openai-compatible',
      KESOKU_LLM_BASE_URL: fake.url,
      KESOKU_LLM_MODEL: 'fake-model',
      KESOKU_TOOL_APPROVAL: 'off',
      ...(process.env.KESOKU_TEMPORAL_CLI ? { KESOKU_TEMPORAL_CLI: process.env.KESOKU_TEMPORAL_CLI } : {}),
    });
    const api = `http://127.0.0.1:${ports.api}`;
    const allPorts = Object.values(ports);

    // First start: URLs printed, health, the Web UI, one turn.
    const first = await npmStart(env);
    expect(first.output()).toContain(`REST API         ${api}`);
    expect(first.output()).toContain(`Temporal Web UI  http://127.0.0.1:${ports.ui}`);
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
    const sent = await fetch(`${api}/v1/sessions/start-test/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello from the first start', wait: 60 }),
    });
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as { reply: { content: string } }).reply.content).toBe(
      'echo: hello from the first start',
    );

    // The Web UI decrypts payloads through the API's codec endpoint, which its proxy serves same-origin with the
    // token as a header (the token is in no URL); the data dir and its secrets are private.
    const settings = (await (await fetch(`http://127.0.0.1:${ports.ui}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    const codecToken = fs.readFileSync(path.join(dataDir, 'codec-token'), 'utf8').trim();
    expect(settings.Codec?.Endpoint).toBe(`http://127.0.0.1:${ports.ui}/kesoku-codec`);
    expect(JSON.stringify(settings)).not.toContain(codecToken);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(process.getuid?.() === 0 ? 0o711 : 0o700);
    for (const f of ['payload-keys', 'codec-token', 'postgres-password', 'temporal.db']) {
      expect(fs.statSync(path.join(dataDir, f)).mode & 0o077, f).toBe(0);
    }

    // A second npm start of the same data dir names the running one and leaves it alone.
    const pidFile = path.join(dataDir, 'kesoku.pid');
    // npm runs `exec node bin/start.ts` through sh: the node process is npm's child.
    const owner = Number(execFileSync('pgrep', ['-P', String(first.child.pid)], { encoding: 'utf8' }).trim());
    expect(owner).toBeGreaterThan(0);
    const again = await npmRun('start', env);
    expect(again.code, again.out).toBe(1);
    expect(again.out).toBe(
      `kesoku: kesoku could not start: Kesoku is already running from this checkout (pid ${owner}, API at ${api}); ` +
        'stop it with Ctrl-C in its terminal\n',
    );
    expect((await fetch(`${api}/healthz`)).status).toBe(200);

    // Ctrl-C: SIGINT to the whole foreground process group.
    process.kill(-first.child.pid!, 'SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('kesoku stopped');
    expect(first.output()).not.toContain('again, exiting now');
    for (const port of allPorts) expect(await portOpen(port), `port ${port} after Ctrl-C`).toBe(false);
    expect(fs.existsSync(pidFile), 'pid file after Ctrl-C').toBe(false);

    // Second start: the session and its messages are there; SIGTERM to the npm process alone stops it all.
    const second = await npmStart(env);
    const messages = (await (await fetch(`${api}/v1/sessions/start-test/messages`)).json()) as {
      messages: { content: string }[];
    };
    expect(messages.messages.map((m) => m.content)).toEqual([
      'hello from the first start',
      'echo: hello from the first start',
    ]);
    // A command still running when the stop comes: the worker says what it waits for and lets it finish.
    const marker = `4.${Math.floor(Math.random() * 1e6)}`;
    const drained = await fetch(`${api}/v1/sessions/start-drain/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: `run: sleep ${marker}` }),
    });
    expect(drained.status).toBe(202);
    await expect
      .poll(() => pids(`sleep ${marker}`).length, { timeout: 60_000, interval: 100 })
      .toBeGreaterThan(0);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('waiting for 1 running tool command or model call to finish');
    // npm exits once its child has; give the detached servers' exits a moment to free their ports.
    for (let i = 0; i < 50 && (await Promise.all(allPorts.map(portOpen))).some(Boolean); i++)
      await new Promise((r) => setTimeout(r, 100));
    for (const port of allPorts) expect(await portOpen(port), `port ${port} after SIGTERM`).toBe(false);
  }, 300_000);
});

/**
 * `npx kesoku doctor` names each problem with its fix and exits 1: on a machine without bubblewrap, with the
 * API port taken by another program, and with a Temporal dev server left running on the data dir by a Kesoku
 * that was killed (its pid file in the data dir, no live Kesoku).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTemporalBinary, startDevServer, type TemporalServer } from '../../infra/temporal-server.ts';
import { processStartTicks } from '../../infra/process-start.ts';
import { unusedPort } from '../support/ports.ts';
import { ROOT } from '../support/processes.ts';
import { cleanEnv } from '../support/clean-env.ts';

const dirs: string[] = [];
const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const s of stops) await s();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * Runs the doctor; with `withoutBwrap`, in a mount namespace of its own where /usr/bin/bwrap is hidden (a
 * device node over it, so it is no executable file): the machine without bubblewrap, for this process only.
 * (A PATH without bwrap would not do: the sandbox looks for it in the system directories first.)
 */
function doctor(env: NodeJS.ProcessEnv, withoutBwrap = false): Promise<{ code: number; out: string }> {
  const node = path.join(ROOT, 'node_modules', '.bin', 'node');
  const args = [path.join(ROOT, 'bin', 'kesoku.ts'), 'doctor', '--no-model'];
  const [file, argv] = withoutBwrap
    ? [
        'unshare',
        [
          '--mount',
          'sh',
          '-c',
          'mount --bind /dev/null "$(command -v bwrap)" && exec "$@"',
          'sh',
          node,
          ...args,
        ],
      ]
    : [node, args];
  return new Promise((resolve) => {
    execFile(file, argv, { cwd: ROOT, env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('npx kesoku doctor', () => {
  it('names a missing bubblewrap, a taken port and a leftover server, each with its fix, and exits 1', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-doctor-'));
    dirs.push(dataDir);
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    stops.push(() => new Promise((r) => taken.close(r)));
    const takenPort = (taken.address() as net.AddressInfo).port;
    // A dev server on the data dir's database, as the killed Kesoku's would be: its pid file and no kesoku.pid.
    const binary = await resolveTemporalBinary({
      cliPath: process.env.KESOKU_TEMPORAL_CLI,
      allowDownload: false,
    });
    // It holds the configured Temporal port, as a killed Kesoku's server would.
    const temporalPort = await unusedPort();
    const leftover: TemporalServer = await startDevServer(
      binary!.path,
      { port: temporalPort, uiPort: null, dbFilename: path.join(dataDir, 'temporal.db') },
      binary!.source,
    );
    stops.push(() => leftover.stop());
    const pid = (JSON.parse(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8')) as { pid: number })
      .pid;

    const base = {
      ...cleanEnv(),
      KESOKU_ENV_FILE: '',
      KESOKU_DATA_DIR: dataDir,
      KESOKU_TEMPORAL_PORT: String(temporalPort),
      KESOKU_TEMPORAL_UI_PORT: String(await unusedPort()),
      KESOKU_POSTGRES_PORT: String(await unusedPort()),
      KESOKU_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      KESOKU_LLM_MODEL: 'm',
      ...(process.env.KESOKU_TEMPORAL_CLI ? { KESOKU_TEMPORAL_CLI: process.env.KESOKU_TEMPORAL_CLI } : {}),
    };
    const sick = await doctor({ ...base, KESOKU_API_PORT: String(takenPort) }, true);
    expect(sick.code, sick.out).toBe(1);
    expect(sick.out).toContain('✗ sandbox');
    expect(sick.out).toContain('bubblewrap (bwrap) is not installed');
    expect(sick.out).toContain('fix: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap');
    expect(sick.out).toContain(`✗ port ${takenPort}`);
    expect(sick.out).toContain(`KESOKU_API_PORT=${takenPort} is in use by another program`);
    expect(sick.out).toContain('fix: stop that program, or set KESOKU_API_PORT to a free port in .env');
    expect(sick.out).toContain(
      `a Temporal dev server (pid ${pid}) of ${dataDir} is still running, left by a Kesoku that was killed`,
    );
    expect(sick.out).toContain(`fix: npm start stops it and starts afresh; or stop it yourself: kill ${pid}`);
    // The port the leftover holds points at it, not at changing the port.
    expect(sick.out).toContain(
      `KESOKU_TEMPORAL_PORT=${temporalPort} is in use, most likely by the leftover Temporal dev server (pid ${pid})`,
    );
    expect(sick.out).not.toContain(`set KESOKU_TEMPORAL_PORT to a free port`);
    expect(sick.out).toMatch(/\n3 problems, 1 warning\.\n/);

    // The same machine with bubblewrap, a free port and the leftover gone: no problem.
    await leftover.stop();
    const healthy = await doctor({ ...base, KESOKU_API_PORT: String(await unusedPort()) });
    expect(healthy.out).toContain('✓ sandbox');
    expect(healthy.out).toContain('✓ leftover servers  none');
    expect(healthy.code, healthy.out).toBe(0);
  }, 240_000);
  it('takes the fake model of a running npm run demo for the model, and names onboard otherwise', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-doctor-demo-'));
    dirs.push(dataDir);
    // A live process standing for the running Kesoku, its pid file as `npm run demo` writes it.
    const running = spawn('sleep', ['120'], { stdio: 'ignore' });
    stops.push(async () => void running.kill('SIGKILL'));
    const pid = running.pid!;
    const pidFile = (fakeModel: boolean) =>
      fs.writeFileSync(
        path.join(dataDir, 'kesoku.pid'),
        JSON.stringify({ pid, startTicks: processStartTicks(pid), ...(fakeModel ? { fakeModel } : {}) }),
      );
    const env = {
      ...cleanEnv(),
      KESOKU_ENV_FILE: '',
      KESOKU_DATA_DIR: dataDir,
      KESOKU_API_PORT: String(await unusedPort()),
      KESOKU_TEMPORAL_PORT: String(await unusedPort()),
      KESOKU_TEMPORAL_UI_PORT: String(await unusedPort()),
      KESOKU_POSTGRES_PORT: String(await unusedPort()),
      ...(process.env.KESOKU_TEMPORAL_CLI ? { KESOKU_TEMPORAL_CLI: process.env.KESOKU_TEMPORAL_CLI } : {}),
    };
    pidFile(true);
    const demo = await doctor(env);
    expect(demo.out).toMatch(
      new RegExp(
        `✓ model +the running Kesoku \\(pid ${pid}\\) answers with the fake model \\(npm run demo\\)`,
      ),
    );
    pidFile(false);
    const real = await doctor(env);
    expect(real.out).toMatch(/✗ model +the model is not configured/);
    expect(real.out).toContain('fix: npx kesoku onboard (or npm run demo to try the fake model)');
    expect(real.code).toBe(1);
  }, 240_000);
});

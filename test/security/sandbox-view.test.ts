/**
 * A command sees a minimal root: no host Unix socket (one served under /run, one in a directory of the host's
 * /tmp), no home directory, none of the configured key and token files (in /etc, where the system bind would
 * show them, and elsewhere), no /run, /home, /root, /srv, /mnt or /media. As root and as another uid (1000).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeView, type ViewProbe } from './support/sandbox-view.ts';

const tag = `kesoku-view-${process.pid}`;
const runDir = `/run/${tag}`;
const etcDir = `/etc/${tag}`;
let hostTmp: string;
let servers: net.Server[] = [];

/** Key files with their contents, one per configured variable. */
function keyFiles(base: string): { env: Record<string, string>; files: string[] } {
  const files = {
    KESOKU_API_TOKENS_FILE: path.join(etcDir, 'api-tokens'),
    GOOGLE_CHAT_CREDENTIALS_FILE: path.join(base, 'chat-credentials.json'),
    TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(etcDir, 'temporal-client.key'),
    KESOKU_CUSTOM_SECRET_FILE: path.join(etcDir, 'custom-secret'),
  };
  return { env: files, files: Object.values(files) };
}

beforeAll(async () => {
  fs.mkdirSync(runDir, { recursive: true });
  fs.mkdirSync(etcDir, { recursive: true, mode: 0o755 });
  hostTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-view-host-'));
  fs.chmodSync(hostTmp, 0o755);
  for (const sock of [path.join(runDir, 'svc.sock'), path.join(hostTmp, 'svc.sock')]) {
    const server = net.createServer((c) => c.end('HELLO-FROM-HOST-SERVICE\n'));
    await new Promise<void>((r) => server.listen(sock, r));
    fs.chmodSync(sock, 0o777);
    servers.push(server);
  }
  fs.chmodSync(runDir, 0o755);
});
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  servers = [];
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.rmSync(etcDir, { recursive: true, force: true });
  fs.rmSync(hostTmp, { recursive: true, force: true });
});

/** Writes every key file (readable by `uid`) and returns the probe. */
function setUp(base: string, home: string, uid: number): ViewProbe {
  const { env, files } = keyFiles(base);
  for (const f of files) {
    fs.writeFileSync(f, `KEY-FILE-CONTENT ${path.basename(f)}\n`, { mode: 0o600 });
    fs.chownSync(f, uid, uid);
  }
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, '.bash_history'), 'HOME-FILE-CONTENT\n');
  fs.chownSync(home, uid, uid);
  return {
    dataDir: path.join(base, 'data'),
    env,
    sockets: [path.join(runDir, 'svc.sock'), path.join(hostTmp, 'svc.sock')],
    secrets: files,
    home,
  };
}

function expectMinimalView(out: string): void {
  expect(out).toContain('done');
  expect(out).not.toContain('HELLO-FROM-HOST-SERVICE');
  expect(out).not.toContain('CONNECTED');
  expect(out).not.toContain('KEY-FILE-CONTENT');
  expect(out).not.toContain('HOME-FILE-CONTENT');
  expect(out).not.toContain('srwx');
  for (const dir of ['/run', '/var/run', '/home', '/root', '/srv', '/mnt', '/media'])
    expect(out).toContain(`ls: cannot access '${dir}': No such file or directory`);
  const root = out.split('\n').slice(1, 12).join(' ');
  for (const absent of ['run', 'home', 'root', 'srv', 'mnt', 'media'])
    expect(root.split(/\s+/)).not.toContain(absent);
}

describe('what a command sees', () => {
  it('as root: no host socket, home directory or configured key file', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-view-root-'));
    try {
      const out = await probeView(setUp(base, path.join(base, 'home'), 0));
      expect(out).toMatch(/^uid=\d+/m);
      expect(out).not.toMatch(/^uid=0$/m);
      expectMinimalView(out);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  }, 120_000);

  it.runIf(process.getuid?.() === 0)(
    'as uid 1000: no host socket, home directory or configured key file',
    async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-view-user-'));
      try {
        fs.chownSync(base, 1000, 1000);
        const home = path.join(base, 'home');
        const probe = setUp(base, home, 1000);
        const script = `import(${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'support', 'sandbox-view.ts')).href)}).then((m) => m.main())`;
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
              JSON.stringify(probe),
            ],
            { cwd: base, env: { PATH: process.env.PATH, HOME: home }, timeout: 100_000 },
            (err, stdout, stderr) => resolve(stdout + stderr + (err ? String(err) : '')),
          ),
        );
        expect(out).toContain('RESULT');
        expect(out).toMatch(/^uid=1000$/m);
        expectMinimalView(out);
      } finally {
        fs.rmSync(base, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

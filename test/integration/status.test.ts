/**
 * `npx kesoku status` against a running API (the test stack's, reached by KESOKU_API_URL) and its Postgres: it
 * says that no Kesoku runs from the (fresh) data dir, that the API, Temporal and Postgres answer, lists the newest
 * sessions with their state and title, and the last errors; exit code 0. With no API answering it says so and
 * exits 1. Other test files share the database, so the checks look for this file's sessions, not for a count.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/temporal-server.ts';
import { useHarness, replyWhen } from '../api/support.ts';
import { uniqueId } from '../support/stack.ts';
import { ROOT } from '../support/processes.ts';
import { cleanEnv } from '../support/clean-env.ts';

const h = useHarness();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function status(env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ code: number; out: string }> {
  const node = path.join(ROOT, 'node_modules', '.bin', 'node');
  return new Promise((resolve) => {
    execFile(
      node,
      [path.join(ROOT, 'bin', 'kesoku.ts'), 'status', ...args],
      { cwd: ROOT, env, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

const freshDataDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-status-'));
  dirs.push(d);
  return d;
};

describe('npx kesoku status', () => {
  it('lists what answers, the newest sessions with their state, and the last errors', async () => {
    const ok = uniqueId('status-ok');
    const res = await h.client.post(`/v1/sessions/${ok}/messages`, { content: 'hello status', wait: 30 });
    expect(res.status).toBe(200);
    const failed = uniqueId('status-failed');
    const restore = replyWhen(h.stack, 'this one fails', {
      kind: 'error',
      status: 401,
      body: { error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    try {
      const r = await h.client.post(`/v1/sessions/${failed}/messages`, { content: 'this one fails' });
      expect(r.status).toBe(202);
      await h.stack.waitForStatus((r.body.message as { id: string }).id, ['error']);
    } finally {
      restore();
    }
    const dataDir = freshDataDir();
    const { code, out } = await status(
      {
        ...cleanEnv(),
        KESOKU_DATA_DIR: dataDir,
        KESOKU_API_URL: h.api.url,
        DATABASE_URL: h.stack.databaseUrl,
      },
      ['--sessions', '100'],
    );
    expect(out).toContain(`Kesoku is not running from ${dataDir}`);
    expect(out).toMatch(new RegExp(`API +${h.api.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: healthy`));
    expect(out).toMatch(/^Temporal +answers$/m);
    expect(out).toMatch(/^Postgres +answers$/m);
    expect(out).toMatch(/^Sessions \(newest \d+\): \d+ processing, \d+ queued messages?$/m);
    expect(out).toMatch(new RegExp(`^  ${ok}  idle\\b`, 'm'));
    expect(out).toMatch(new RegExp(`^  ${failed}  idle\\b`, 'm'));
    // At least this file's failed turn is among the errors; each is `<time>  <session>  <what>: <detail>`.
    expect(out).toMatch(/^Last errors: $/m);
    expect(out).toMatch(/^ {2}\d{4}-\d\d-\d\dT\S+Z {2}\S+ {2}turn failed: \S/m);
    expect(code).toBe(0);
  });

  it('names a channel its configuration leaves off as off, one that fails as NOT ok, aligned to the longest name', async () => {
    // An API whose /healthz reports the components of an `npm start` with Google Chat off and Discord failing.
    const api = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url !== '/healthz') {
        res.statusCode = 404;
        return res.end('{}');
      }
      res.end(
        JSON.stringify({
          temporal: true,
          postgres: true,
          components: {
            google_chat: { ok: true, state: 'off' },
            discord: { ok: false },
            wechat: { ok: true },
          },
        }),
      );
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = api.address() as { port: number };
      const { out } = await status({
        ...cleanEnv(),
        KESOKU_DATA_DIR: freshDataDir(),
        KESOKU_API_URL: `http://127.0.0.1:${port}`,
      });
      expect(out).toMatch(/^Temporal {4}answers$/m);
      expect(out).toMatch(/^google_chat off$/m);
      expect(out).toMatch(/^discord {5}NOT ok$/m);
      expect(out).toMatch(/^wechat {6}ok$/m);
    } finally {
      await new Promise((r) => api.close(r));
    }
  });

  it('says when the API does not answer and exits 1', async () => {
    const port = await freePort();
    const { code, out } = await status({
      ...cleanEnv(),
      KESOKU_DATA_DIR: freshDataDir(),
      KESOKU_API_URL: `http://127.0.0.1:${port}`,
    });
    expect(out).toContain(`API       http://127.0.0.1:${port}: no answer`);
    expect(code).toBe(1);
  });
});

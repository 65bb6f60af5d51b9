/**
 * The servers `npm start` starts, against a page in the operator's browser and against secrets in Kesoku's own
 * environment: a real Temporal dev server started as `npm start` starts it (infra/temporal-server.ts), with its
 * real Web UI behind Kesoku's proxy, and a real embedded Postgres. A DNS-rebinding page names its own host in
 * `Host`; a cross-site page sends its `Origin`. The servers' environments are read from /proc.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import express from 'express';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codecRouter } from '../../api/routes/codec.ts';
import { AesGcmPayloadCodec, newPayloadKeyEntry, parsePayloadKeys } from '../../infra/payload-codec.ts';
import { resolvePostgres, type PostgresServer } from '../../infra/postgres-server.ts';
import {
  TemporalUnavailableError,
  buildTemporalCli,
  freePort,
  resolveTemporalBinary,
  startDevServer,
  type TemporalServer,
} from '../../infra/temporal-server.ts';

const SECRET = `planted-secret-${process.pid}`;

/** A raw HTTP request, so the Host header can be anything (fetch sets it from the URL). */
function raw(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The environment of process `pid`, as the kernel shows it. */
function environOf(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
}

let temporal: TemporalServer;
let uiPort: number;
let codecServer: http.Server;
const CODEC_TOKEN = randomBytes(32).toString('hex');
const codec = new AesGcmPayloadCodec(parsePayloadKeys(newPayloadKeyEntry(), 'test'));

beforeAll(async () => {
  process.env.KESOKU_TEST_PLANTED_SECRET = SECRET;
  // The API's codec endpoint, as the npm start API serves it.
  const app = express();
  app.use(codecRouter({ codec, token: CODEC_TOKEN, origins: [] }));
  codecServer = http.createServer(app);
  await new Promise<void>((r) => codecServer.listen(0, '127.0.0.1', () => r()));
  const codecPort = (codecServer.address() as net.AddressInfo).port;
  const binary = await resolveTemporalBinary({ cliPath: process.env.KESOKU_TEMPORAL_CLI, allowBuild: false });
  if (!binary) throw new Error('no Temporal CLI (npm run temporal:install)');
  uiPort = await freePort();
  temporal = await startDevServer(
    binary.path,
    {
      port: await freePort(),
      uiPort,
      dbFilename: null,
      searchAttributes: false,
      codec: { url: `http://127.0.0.1:${codecPort}/codec`, token: CODEC_TOKEN },
    },
    binary.source,
  );
}, 120_000);
afterAll(async () => {
  delete process.env.KESOKU_TEST_PLANTED_SECRET;
  await temporal?.stop();
  await new Promise((r) => codecServer?.close(r));
});

describe('the Temporal Web UI under npm start', () => {
  it('refuses a foreign Host (DNS rebinding) on every path, and serves the UI to its loopback names', async () => {
    for (const p of ['/', '/api/v1/settings', '/api/v1/namespaces/default/workflows']) {
      const res = await raw(uiPort, { path: p, headers: { host: `rebind.attacker.example:${uiPort}` } });
      expect(res.status, p).toBe(403);
      expect(res.body).not.toContain('<html');
    }
    expect(temporal.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    for (const host of [`127.0.0.1:${uiPort}`, `localhost:${uiPort}`]) {
      const page = await raw(uiPort, { path: '/', headers: { host } });
      expect(page.status, host).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      // The UI server connects to the frontend lazily: it may answer 503 for a moment after the start.
      let list = await raw(uiPort, { path: '/api/v1/namespaces/default/workflows', headers: { host } });
      for (let i = 0; i < 100 && list.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 200));
        list = await raw(uiPort, { path: '/api/v1/namespaces/default/workflows', headers: { host } });
      }
      expect(list.status, host).toBe(200);
      // The list of workflows (empty here: proto JSON leaves out the empty `executions`).
      expect(typeof JSON.parse(list.body)).toBe('object');
    }
  });

  it('refuses a cross-site signal; the UI’s own same-origin one reaches Temporal', async () => {
    const host = `127.0.0.1:${uiPort}`;
    const page = await raw(uiPort, { path: '/', headers: { host } });
    const csrf = /_csrf=([^;]+)/.exec(String(page.headers['set-cookie']))?.[1] ?? '';
    expect(csrf).not.toBe('');
    const signal = (headers: Record<string, string>) =>
      raw(uiPort, {
        method: 'POST',
        path: '/api/v1/namespaces/default/workflows/session%3Ademo/signal/userMessage',
        headers: {
          host,
          'content-type': 'application/json',
          cookie: `_csrf=${csrf}`,
          'x-csrf-token': csrf,
          ...headers,
        },
        body: JSON.stringify({ input: { payloads: [] } }),
      });
    const crossSite: Record<string, string>[] = [
      { origin: 'https://attacker.example' },
      { origin: 'http://127.0.0.1:3000' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const h of crossSite) {
      const res = await signal(h);
      expect(res.status, JSON.stringify(h)).toBe(403);
      expect(res.body).toContain('cross-site requests that change state are refused');
    }
    // Same origin: passed to the UI server, which asks Temporal (no such workflow: not the proxy's refusal).
    const own = await signal({ origin: `http://${host}`, 'sec-fetch-site': 'same-origin' });
    expect(own.body).not.toContain('cross-site requests');
    expect(own.status).not.toBe(403);
    expect(own.body.toLowerCase()).toContain('not found');
  });

  it('the dev server’s own UI is not on 127.0.0.1, where a page could rebind to it', async () => {
    const upstream = temporal.uiUpstream;
    expect(upstream).toBeDefined();
    if (process.platform === 'linux') expect(upstream?.host).not.toBe('127.0.0.1');
    expect(upstream?.host).toMatch(/^127\./);
    const reachable = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port: upstream?.port ?? 0 });
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (process.platform === 'linux') expect(reachable).toBe(false);
  });

  it('serves the codec endpoint same-origin with the token as a header: the token is in no URL and no command line', async () => {
    const host = `127.0.0.1:${uiPort}`;
    const settings = JSON.parse(
      (await raw(uiPort, { path: '/api/v1/settings', headers: { host } })).body,
    ) as {
      Codec?: { Endpoint?: string };
    };
    expect(settings.Codec?.Endpoint).toBe(`http://127.0.0.1:${uiPort}/kesoku-codec`);
    const cmdline = fs.readFileSync(`/proc/${temporal.pid}/cmdline`, 'utf8');
    expect(cmdline).toContain('--ui-codec-endpoint');
    expect(cmdline).not.toContain(CODEC_TOKEN);

    const plain = defaultPayloadConverter.toPayload({ text: 'hello' });
    const json = (p: Payload) => ({
      metadata: Object.fromEntries(
        Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
      data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
    });
    const call = (op: string, body: unknown, headers: Record<string, string> = {}) =>
      raw(uiPort, {
        method: 'POST',
        path: `/kesoku-codec/${op}`,
        headers: { host, 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
        body: JSON.stringify(body),
      });
    const encoded = await call('encode', { payloads: [json(plain)] }, { origin: `http://${host}` });
    expect(encoded.status, encoded.body).toBe(200);
    const enc = (JSON.parse(encoded.body) as { payloads: { metadata: Record<string, string> }[] }).payloads;
    expect(Buffer.from(enc[0]?.metadata.encoding ?? '', 'base64').toString()).toBe('binary/encrypted');
    const decoded = await call('decode', { payloads: enc });
    expect(JSON.parse(decoded.body)).toEqual({ payloads: [json(plain)] });
    // A cross-site page cannot use it to forge encrypted payloads.
    expect(
      (await call('encode', { payloads: [json(plain)] }, { origin: 'https://attacker.example' })).status,
    ).toBe(403);
  });

  // TCP loopback carries no uid: the proxy asks the kernel whose socket the client's is (infra/peer-uid.ts).
  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)(
    'serves the codec only to the user Kesoku runs as: another local user gets 403, nothing decoded',
    async () => {
      const body = JSON.stringify({ payloads: [] });
      const request = [
        'POST /kesoku-codec/decode HTTP/1.1',
        `Host: 127.0.0.1:${uiPort}`,
        'Content-Type: application/json',
        'X-Namespace: default',
        `Content-Length: ${body.length}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n');
      // bash's /dev/tcp as uid 1000: a client every machine has, whoever may read the checkout.
      const { stdout } = await promisify(execFile)('setpriv', [
        '--reuid=1000',
        '--regid=1000',
        '--clear-groups',
        '/bin/bash',
        '-c',
        `exec 3<>/dev/tcp/127.0.0.1/${uiPort}; printf '%s' "$0" >&3; cat <&3`,
        request,
      ]);
      expect(stdout).toMatch(/^HTTP\/1\.1 403 /);
      expect(stdout).toContain('the codec decodes payloads only for the user Kesoku runs as');
      const own = await raw(uiPort, {
        method: 'POST',
        path: '/kesoku-codec/decode',
        headers: {
          host: `127.0.0.1:${uiPort}`,
          'content-type': 'application/json',
          'x-namespace': 'default',
        },
        body,
      });
      expect(own.status, own.body).toBe(200);
    },
  );

  it('the frontend’s HTTP API refuses a foreign Host too', async () => {
    const port = temporal.httpPort as number;
    const foreign = await raw(port, {
      path: '/api/v1/namespaces/default/workflows',
      headers: { host: `rebind.attacker.example:${port}` },
    });
    expect(foreign.status).toBe(403);
    const own = await raw(port, {
      path: '/api/v1/namespaces/default/workflows',
      headers: { host: `127.0.0.1:${port}` },
    });
    expect(own.status).toBe(200);
  });
});

describe('child servers get only the environment they need', () => {
  it('the Temporal dev server holds none of Kesoku’s variables', () => {
    const env = environOf(temporal.pid as number);
    expect(env.some((e) => e.includes(SECRET))).toBe(false);
    expect(env.some((e) => e.startsWith('PATH='))).toBe(true);
  });

  it('the embedded Postgres holds none of them', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-pg-env-'));
    fs.chmodSync(dataDir, 0o711);
    let pg: PostgresServer | undefined;
    try {
      pg = await resolvePostgres({ dataDir, port: await freePort() });
      const env = environOf(pg.pid as number);
      expect(env.some((e) => e.includes(SECRET))).toBe(false);
      expect(env).toContain('LC_MESSAGES=C');
    } finally {
      await pg?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('go install gets Go’s and the proxy’s variables, not the secrets', async () => {
    // A stand-in `go` that prints its environment and fails: the build error carries what it saw.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-go-env-'));
    const go = path.join(dir, 'go');
    fs.writeFileSync(go, '#!/bin/sh\nenv\nexit 1\n', { mode: 0o755 });
    const saved = { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, GOPROXY: process.env.GOPROXY };
    process.env.XDG_CACHE_HOME = dir;
    process.env.GOPROXY = 'https://proxy.golang.org';
    try {
      const err = await buildTemporalCli(go).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(TemporalUnavailableError);
      const seen = (err as Error).message;
      expect(seen).toContain('GOPROXY=https://proxy.golang.org');
      expect(seen).toContain('GOBIN=');
      expect(seen).not.toContain(SECRET);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

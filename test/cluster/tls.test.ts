/**
 * Kesoku over TLS to a Temporal server, configured only through Temporal's environment configuration
 * (`TEMPORAL_TLS`, `TEMPORAL_TLS_SERVER_CA_CERT_PATH`, `TEMPORAL_TLS_SERVER_NAME`; infra/temporal-envconfig.ts).
 * The dev server cannot serve TLS, so this starts the multi-service server (infra/temporal-cluster.ts) with its
 * frontend on a certificate signed by a CA made here with openssl. A worker and an API process answer a turn over
 * TLS; a worker that trusts another CA stops at start-up with an error that says the certificate is not trusted.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  installServerBinaries,
  startTemporalCluster,
  type TemporalCluster,
} from '../../infra/temporal-cluster.ts';
import { startEntry, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let cluster: TemporalCluster;
let dir: string;
const parts: ChildPart[] = [];

/** A CA (`<name>-ca.pem`), and with `server`, a certificate it signs for localhost and 127.0.0.1. */
function makeCa(name: string, server: boolean): { ca: string; cert?: string; key?: string } {
  const f = (n: string) => path.join(dir, `${name}-${n}`);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name} test CA`,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  if (!server) return { ca: f('ca.pem') };
  fs.writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    f('key.pem'),
    '-out',
    f('csr.pem'),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    f('csr.pem'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('cert.pem'),
  );
  return { ca: f('ca.pem'), cert: f('cert.pem'), key: f('key.pem') };
}

let trusted: { ca: string; cert?: string; key?: string };
let other: { ca: string };

beforeAll(async () => {
  const binaries = installServerBinaries();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-tls-'));
  trusted = makeCa('kesoku', true);
  other = makeCa('other', false);
  stack = await startStack({ noWorker: true });
  const pg = new URL(inject('adminDatabaseUrl'));
  cluster = await startTemporalCluster({
    postgres: {
      host: pg.hostname,
      port: Number(pg.port || 5432),
      user: decodeURIComponent(pg.username),
      password: decodeURIComponent(pg.password) || undefined,
    },
    dbPrefix: `kesoku_tls_${process.pid}`,
    dir: path.join(dir, 'temporal'),
    binaries,
    tls: { certFile: trusted.cert!, keyFile: trusted.key!, caFile: trusted.ca },
  });
}, 900_000);

afterAll(async () => {
  for (const p of parts) await p.kill('SIGKILL');
  await cluster?.stop();
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Environment of a Kesoku process that reaches the cluster over TLS, trusting `caFile`. */
const tlsEnv = (caFile: string) =>
  stackEnv(stack, {
    TEMPORAL_ADDRESS: cluster.address,
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: caFile,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    KESOKU_API_PORT: '0',
  });

describe('Temporal over TLS from the environment configuration', () => {
  it('answers a turn over TLS; a worker that trusts another CA stops with a certificate error', async () => {
    const worker = startEntry('worker', tlsEnv(trusted.ca));
    const api = startEntry('api', tlsEnv(trusted.ca));
    parts.push(worker, api);
    await Promise.all([
      worker.waitFor('kesoku worker running', 300_000),
      api.waitFor('kesoku API listening', 300_000),
    ]);
    const base = /kesoku API listening on (http:\/\/[0-9.:]+)/.exec(api.output())![1];
    // The first workflow task of a new cluster can outlast the API's 10 s Temporal deadline on a loaded
    // machine (503); a client retries with the same message id, which makes the retry idempotent.
    const session = uniqueId('tls');
    const messageId = uniqueId('tls-message');
    let r: Response;
    for (let attempt = 1; ; attempt++) {
      r = await fetch(`${base}/v1/sessions/${session}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: messageId, content: 'hello over TLS', wait: 60 }),
      });
      if (r.status !== 503 || attempt === 5) break;
      await r.body?.cancel();
    }
    expect(r.status).toBe(200);
    expect(((await r.json()) as { reply: { content: string } }).reply.content).toBe('echo: hello over TLS');

    // TLS with the wrong CA: no worker, and a reason that names the problem and the variable to fix.
    const wrong = startEntry('worker', tlsEnv(other.ca));
    parts.push(wrong);
    const code = await new Promise<number | null>((resolve) => wrong.child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(wrong.output()).not.toContain('kesoku worker running');
    expect(wrong.output()).toMatch(
      /the TLS handshake with Temporal at \S+ failed \([A-Z_]+: [^)]*certificate[^)]*\): check TEMPORAL_TLS_SERVER_CA_CERT_PATH/,
    );
  }, 600_000);
});

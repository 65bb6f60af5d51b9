// The local user behind a loopback TCP connection (infra/peer-uid.ts): this process's own connection is its
// uid, IPv4 and IPv6; a client run as another uid (setpriv, as root — CI's case) is that uid.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { canSeePeerUid, peerUid } from './peer-uid.ts';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server on `host` whose first accepted connection's peer uid is resolved. */
async function listen(host: string): Promise<{ port: number; uid: Promise<number | null> }> {
  let resolveUid!: (u: number | null) => void;
  const uid = new Promise<number | null>((r) => (resolveUid = r));
  const server = net.createServer((socket) => {
    resolveUid(peerUid(socket));
    socket.end();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return { port: (server.address() as net.AddressInfo).port, uid };
}

describe('peerUid', () => {
  it('is this process’s uid for its own connection, over IPv4 and IPv6', async () => {
    expect(canSeePeerUid()).toBe(process.platform === 'linux');
    for (const host of ['127.0.0.1', '::1']) {
      const { port, uid } = await listen(host);
      const client = net.connect(port, host);
      expect(await uid).toBe(process.getuid!());
      client.destroy();
    }
  });

  it.runIf(process.getuid?.() === 0)('is the other uid for a client run as another user', async () => {
    const { port, uid } = await listen('127.0.0.1');
    // bash's /dev/tcp: a client every machine has, whoever may read the checkout.
    const client = promisify(execFile)('setpriv', [
      '--reuid=1000',
      '--regid=1000',
      '--clear-groups',
      '/bin/bash',
      '-c',
      `exec 3<>/dev/tcp/127.0.0.1/${port}; sleep 0.5`,
    ]);
    expect(await uid).toBe(1000);
    await client;
  });
});

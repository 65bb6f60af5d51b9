/**
 * A TCP proxy on 127.0.0.1 in front of a real server (the Temporal dev server), for tests of a stalled backend:
 * {@link TcpProxy.pause} keeps every connection open but forwards no byte in either direction (new connections
 * are accepted and held the same way), as a server that stopped answering; {@link TcpProxy.resume} forwards what
 * was held and carries on.
 */
import net from 'node:net';
import { Client } from '@temporalio/client';
import { capabilitiesOf } from '../../adapters/registry.ts';
import { connectTemporal } from '../../infra/temporal-connection.ts';
import { SessionClient } from '../../infra/session-client.ts';
import type { Stack } from './stack.ts';

export interface TcpProxy {
  /** `127.0.0.1:<port>`, to connect to instead of the target. */
  address: string;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`host:port`). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const i = target.lastIndexOf(':');
  const host = target.slice(0, i);
  const port = Number(target.slice(i + 1));
  let paused = false;
  const flushes = new Set<() => void>();
  const sockets = new Set<net.Socket>();

  /** Forwards `from` to `to`, holding the bytes while paused. */
  function forward(from: net.Socket, to: net.Socket): void {
    const held: Buffer[] = [];
    const flush = () => {
      while (held.length > 0 && !to.destroyed) to.write(held.shift() as Buffer);
    };
    flushes.add(flush);
    from.on('data', (chunk: Buffer) => {
      if (paused) held.push(chunk);
      else to.write(chunk);
    });
    from.on('close', () => {
      flushes.delete(flush);
      if (!paused) to.end();
      else to.destroy();
    });
    from.on('error', () => to.destroy());
  }

  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${own}`,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const f of flushes) f();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A session client whose Temporal connection goes through a {@link TcpProxy} that the test can pause. */
export interface StallableSessions {
  sessions: SessionClient;
  proxy: TcpProxy;
  close(): Promise<void>;
}

/** A session client for `stack`'s sessions (same task queue and payload codec) through a pausable proxy. */
export async function stallableSessions(stack: Stack): Promise<StallableSessions> {
  const proxy = await startTcpProxy(stack.temporalAddress);
  const connection = await connectTemporal({ address: proxy.address });
  const client = new Client({
    connection,
    namespace: 'default',
    dataConverter: { payloadCodecs: [stack.payloadCodec] },
  });
  const sessions = new SessionClient({ client, taskQueue: stack.taskQueue, capabilities: capabilitiesOf });
  return {
    sessions,
    proxy,
    async close() {
      proxy.resume();
      await connection.close().catch(() => undefined);
      await proxy.close();
    },
  };
}

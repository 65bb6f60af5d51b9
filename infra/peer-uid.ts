/**
 * The local user behind a TCP loopback connection, from the kernel's socket table (`/proc/net/tcp`, `tcp6`):
 * TCP carries no credentials, but on Linux the client's socket is listed with its owner's uid. Used where a
 * loopback service hands out something only this user may have (the Web UI proxy's codec, which holds the codec
 * token).
 */
import fs from 'node:fs';
import type net from 'node:net';

/** `127.0.0.1:port` / `::1` etc. as `/proc/net/tcp*` writes them (hex, the address in host byte order). */
function procAddress(address: string, port: number): string[] {
  const p = port.toString(16).toUpperCase().padStart(4, '0');
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address);
  if (v4) {
    const hex = v4
      .slice(1, 5)
      .reverse()
      .map((b) => Number(b).toString(16).toUpperCase().padStart(2, '0'))
      .join('');
    // An IPv4 peer of a dual-stack socket is listed in tcp6 as ::ffff:a.b.c.d.
    return [`${hex}:${p}`, `0000000000000000FFFF0000${hex}:${p}`];
  }
  if (address === '::1') return [`00000000000000000000000001000000:${p}`];
  return [];
}

/**
 * The uid owning the client end of `socket` (a connection accepted on this host).
 * @returns the uid; null when the platform has no `/proc/net/tcp` (not Linux) or the client's socket is not
 *   listed (it closed, or is in another network namespace)
 */
export function peerUid(
  socket: Pick<net.Socket, 'remoteAddress' | 'remotePort' | 'localAddress' | 'localPort'>,
): number | null {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return null;
  const client = procAddress(remoteAddress, remotePort);
  const server = procAddress(localAddress, localPort);
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 8) continue;
      if (client.includes(f[1]!) && server.includes(f[2]!)) return Number(f[7]);
    }
  }
  return null;
}

/** Whether this platform lists sockets with their owners (Linux's `/proc/net/tcp`). */
export function canSeePeerUid(): boolean {
  return fs.existsSync('/proc/net/tcp');
}

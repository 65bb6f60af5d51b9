/**
 * Says why a connection to a Temporal frontend failed when TLS is the reason. gRPC only reports "Failed to connect
 * before the deadline"; a plain TLS handshake with the same settings names the problem (an untrusted CA, a
 * server name that does not match the certificate, a plaintext server, a TLS server reached without TLS).
 */
import net from 'node:net';
import tls from 'node:tls';
import type { TLSConfig } from '@temporalio/client';

/** `host` and `port` of a `host:port` address (IPv6 in brackets). */
function hostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(address.slice(i + 1)) };
}

/** Result of one TLS handshake: null when it succeeded, else the error code and message. */
function handshake(
  address: string,
  options: tls.ConnectionOptions,
  timeoutMs: number,
): Promise<string | null> {
  const { host, port } = hostPort(address);
  return new Promise((resolve) => {
    const socket = tls.connect({ host, port, ALPNProtocols: ['h2'], ...options });
    const done = (result: string | null) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('secureConnect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(`${err.code ? `${err.code}: ` : ''}${err.message}`),
    );
    socket.setTimeout(timeoutMs, () => done(`no TLS handshake within ${timeoutMs} ms`));
  });
}

/**
 * Why the frontend at `address` cannot be reached with the TLS settings `t` (undefined or false: plaintext),
 * as a sentence naming the variable to fix, or null when TLS is not the problem (or could not be told apart).
 * Never rejects.
 */
export async function temporalTlsProblem(
  address: string,
  t: TLSConfig | boolean | undefined,
  timeoutMs = 5000,
): Promise<string | null> {
  try {
    if (!t) {
      // Plaintext failed: does the server speak TLS?
      const any = await handshake(address, { rejectUnauthorized: false }, timeoutMs);
      return any === null
        ? `Temporal at ${address} speaks TLS and this process connects without it: set TEMPORAL_TLS=true (and TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA)`
        : null;
    }
    const cfg = t === true ? {} : t;
    const { host } = hostPort(address);
    const servername = cfg.serverNameOverride ?? (net.isIP(host) ? undefined : host);
    const failed = await handshake(
      address,
      {
        ...(servername ? { servername } : {}),
        ...(cfg.serverRootCACertificate ? { ca: Buffer.from(cfg.serverRootCACertificate) } : {}),
        ...(cfg.clientCertPair
          ? { cert: Buffer.from(cfg.clientCertPair.crt), key: Buffer.from(cfg.clientCertPair.key) }
          : {}),
      },
      timeoutMs,
    );
    if (failed === null) return null;
    return `the TLS handshake with Temporal at ${address} failed (${failed}): check TEMPORAL_TLS_SERVER_CA_CERT_PATH (the CA that signed the server's certificate) and TEMPORAL_TLS_SERVER_NAME (a name in that certificate)`;
  } catch {
    return null;
  }
}

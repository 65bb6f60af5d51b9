/**
 * The Temporal Web UI under `npm start`, guarded against DNS rebinding and cross-site requests. The dev server's
 * own UI server checks no `Host` header, and it sends signals and runs updates (`decideApproval`) for whoever
 * loads it: a page on `attacker.example` whose name re-resolves to 127.0.0.1 would be served as the operator.
 * So the dev server's UI listens on a hidden loopback address ({@link hiddenLoopbackAddress}: a random
 * 127.x.y.z and port, which a page cannot guess), and this proxy serves it on `127.0.0.1:<KESOKU_TEMPORAL_UI_PORT>`
 * with infra/loopback.ts's rule: a foreign `Host` is refused (403) on every request, a foreign `Origin` or a
 * cross-site `Sec-Fetch-Site` on every request that changes state. Everything else is passed through unchanged.
 *
 * It also serves the UI's codec endpoint, {@link CODEC_PROXY_PATH}`/encode` and `/decode`, same-origin with the
 * UI: it forwards them to the Kesoku API's codec endpoint with the codec token as a bearer header, so the token
 * appears in no URL, neither on the dev server's command line (`--ui-codec-endpoint`) nor in the UI's settings
 * nor in a request log.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import type { Logger } from './logger.ts';
import { loopbackRefusal } from './loopback.ts';
import { canSeePeerUid, peerUid } from './peer-uid.ts';

/** A running proxy. */
export interface WebUiProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Where the proxy serves the codec endpoint (`--ui-codec-endpoint http://127.0.0.1:<port>/kesoku-codec`). */
export const CODEC_PROXY_PATH = '/kesoku-codec';

/** The Kesoku API's codec endpoint the proxy forwards to. */
export interface CodecTarget {
  /** The endpoint's base URL without the token, e.g. `http://127.0.0.1:3000/codec`. */
  url: string;
  /** The codec token, sent as `Authorization: Bearer <token>`. */
  token: string;
}

/** A host and port to listen on. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Asks the OS for a free port on `host`. @throws the listen error (EADDRNOTAVAIL for an address not on lo) */
function freePortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A loopback address for a server only Kesoku should reach: a random 127.x.y.z (Linux routes all of 127/8 to the
 * loopback interface) with a free port there; where only 127.0.0.1 exists (macOS), a free port on 127.0.0.1.
 */
export async function hiddenLoopbackAddress(): Promise<ListenAddress> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const host = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    try {
      return { host, port: await freePortOn(host) };
    } catch {
      // Not a local address here: try another, then fall back.
    }
  }
  return { host: '127.0.0.1', port: await freePortOn('127.0.0.1') };
}

/**
 * Starts the proxy on `127.0.0.1:<port>` (0: a free port) in front of `upstream`.
 * @throws the listen error (EADDRINUSE when the port is taken)
 */
export async function startWebUiProxy(opts: {
  port: number;
  upstream: ListenAddress;
  /** Serve the codec endpoint at {@link CODEC_PROXY_PATH}, forwarded to this target. */
  codec?: CodecTarget;
  logger?: Logger;
}): Promise<WebUiProxy> {
  let port = opts.port;
  const server = http.createServer((req, res) => {
    const refusal = loopbackRefusal(
      {
        method: req.method ?? 'GET',
        host: req.headers.host,
        origin: req.headers.origin,
        secFetchSite: req.headers['sec-fetch-site'] as string | undefined,
      },
      port,
    );
    if (refusal) {
      opts.logger?.warn(
        { host: req.headers.host, origin: req.headers.origin, method: req.method, refused: refusal.kind },
        'Temporal Web UI request refused',
      );
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(
        refusal.kind === 'host'
          ? `the Temporal Web UI answers only ${refusal.allowed.join(', ')} (the Host header names another host)\n`
          : 'cross-site requests that change state are refused\n',
      );
      return;
    }
    const codecOp = /^\/kesoku-codec\/(encode|decode)$/.exec((req.url ?? '').split('?')[0] ?? '')?.[1];
    if (opts.codec && codecOp !== undefined && req.method === 'POST') {
      // The proxy adds the codec token: only this user's own processes (the operator's browser) get it used for
      // them. Another local user can reach the port (TCP loopback has no uid check) but must not decrypt
      // payloads or encrypt forged ones. Where the platform cannot tell (not Linux), the codec is served.
      const uid = peerUid(req.socket);
      const own = process.getuid?.();
      if (canSeePeerUid() && own !== undefined && uid !== own) {
        opts.logger?.warn({ peerUid: uid }, 'Temporal Web UI codec refused to another local user');
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('the codec decodes payloads only for the user Kesoku runs as\n');
        return;
      }
      forwardCodec(req, res, opts.codec, codecOp);
      return;
    }
    const upstream = http.request(
      {
        host: opts.upstream.host,
        port: opts.upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`the Temporal Web UI is not answering: ${err.message}\n`);
      } else res.destroy();
    });
    req.pipe(upstream);
  });
  // No WebSocket or other upgrade is served.
  server.on('upgrade', (_req, socket: net.Socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Forwards a codec request to the API's codec endpoint with the token; only the headers the codec reads go. */
function forwardCodec(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  codec: CodecTarget,
  op: string,
): void {
  const target = new URL(`${codec.url.replace(/\/+$/, '')}/${op}`);
  const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${codec.token}` };
  for (const name of ['content-type', 'content-length', 'x-namespace'])
    if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const forward = http.request(
    { host: target.hostname, port: target.port, method: 'POST', path: target.pathname, headers },
    (up) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const name of ['content-type', 'content-length'])
        if (up.headers[name] !== undefined) out[name] = up.headers[name];
      res.writeHead(up.statusCode ?? 502, out);
      up.pipe(res);
    },
  );
  forward.on('error', (err) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`the Kesoku API's codec endpoint is not answering: ${err.message}\n`);
    } else res.destroy();
  });
  req.pipe(forward);
}

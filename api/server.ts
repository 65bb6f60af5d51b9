/**
 * Runs the REST API: creates the EventHub (one LISTEN connection) and the express app, listens, and closes
 * everything on `close()` — SSE streams ended, listener stopped, every connection closed, port released.
 */
import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';
import type { SessionClient } from '../infra/session-client.ts';
import { createApp } from './app.ts';
import { checkBind, type ApiToken } from './auth.ts';
import type { AppDeps, CodecOptions } from './deps.ts';
import { EventHub } from './event-hub.ts';
import { PROBLEM_CONTENT_TYPE, problemType } from './problems.ts';
import { createHealthCheck, type ComponentHealth, type HealthStatus } from '../infra/health.ts';

export interface ApiServerOptions {
  pool: Pool;
  sessions: SessionClient;
  /** For the EventHub's LISTEN connection. */
  databaseUrl: string;
  logger: Logger;
  /** Interface to bind; must be a loopback address when `tokens` is empty (start-up refuses otherwise). */
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Principals and their bearer tokens (api/auth.ts); empty: loopback only, with the Host/Origin guards. */
  tokens: ApiToken[];
  /** The Temporal Web UI codec endpoint (api/routes/codec.ts); absent: not served. */
  codec?: CodecOptions;
  /** Defaults to {@link createHealthCheck} on `pool`, `sessions` and `components`. */
  health?: () => Promise<HealthStatus>;
  /** States of the process's other components for `/healthz` (e.g. the Discord gateway where it runs). */
  components?: () => Promise<ComponentHealth>;
  /** Passed to createApp (waitTimeoutMaxS, temporalTimeoutMs, waitPollMs, healthTimeoutMs, dataDir, approvals,
   * defaultLocale, defaultZone, limits, memorySharedScopes). */
  app?: Pick<
    AppDeps,
    | 'waitTimeoutMaxS'
    | 'temporalTimeoutMs'
    | 'waitPollMs'
    | 'healthTimeoutMs'
    | 'dataDir'
    | 'approvals'
    | 'defaultLocale'
    | 'defaultZone'
    | 'limits'
    | 'memorySharedScopes'
  >;
  /** EventHub tuning, in ms (tests shorten the keep-alive). */
  events?: { throttleMs?: number; pingIntervalMs?: number };
}

export interface ApiServer {
  /** Base URL, e.g. `http://127.0.0.1:3000` (IPv6 hosts in brackets). */
  url: string;
  port: number;
  /** The server's event hub (stats for tests and diagnostics). */
  events: EventHub;
  /** Stops accepting, ends SSE streams, stops the listener, closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the API server.
 * @throws ConfigError when `host` is not loopback and no tokens are configured; when Postgres is unreachable
 *   (the EventHub cannot LISTEN) or the port cannot be bound
 */
export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  checkBind(opts.host, opts.tokens);
  const logger = opts.logger.child({ component: 'api' });
  const events = new EventHub({ databaseUrl: opts.databaseUrl, pool: opts.pool, logger, ...opts.events });
  await events.start();
  const app = createApp({
    pool: opts.pool,
    sessions: opts.sessions,
    events,
    logger,
    tokens: opts.tokens,
    ...(opts.codec ? { codec: opts.codec } : {}),
    health:
      opts.health ??
      createHealthCheck({ pool: opts.pool, sessions: opts.sessions, components: opts.components }),
    ...opts.app,
  });
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(opts.port, opts.host, (err?: Error) => (err ? reject(err) : resolve(s)));
      s.once('error', reject);
    });
  } catch (err) {
    await events.close();
    throw err;
  }
  // Requests Node's HTTP parser rejects (a raw non-ASCII byte in the request line or a header, a malformed
  // request) still get a problem+json answer with a request id, not Node's bare 400.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify({
      type: problemType('bad_request'),
      title: tooLarge ? 'Request header fields too large' : 'Bad request',
      status,
      detail: tooLarge
        ? 'the request headers are too large'
        : 'the request could not be parsed as HTTP (check the request line and headers)',
      request_id: requestId,
    });
    logger.info({ requestId, code: err.code }, 'malformed request');
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${port}`;
  logger.info(
    {
      url,
      host: opts.host,
      auth: opts.tokens.length > 0,
      principals: opts.tokens.map((t) => t.name),
      codec: Boolean(opts.codec),
    },
    'API listening',
  );

  // Requests still being answered, so a close lets them write their answer (a wait's 503) before it drops them.
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    events,
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await events.close();
        server.closeIdleConnections();
        // Streams ended and waits woke with the hub; give their answers a moment (at most 2 s) to go out.
        const deadline = Date.now() + 2000;
        while (inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        server.closeAllConnections();
        await closed;
        logger.info('API stopped');
      })()),
  };
}

/** The REST API as a service of a Kesoku process (`npm start`, `npm run api`). */
import net from 'node:net';
import { checkBind, loadApiTokens, type ApiToken } from '../api/auth.ts';
import { startApiServer } from '../api/server.ts';
import { apiHost, ConfigError, type Config } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import type { ComponentHealth } from '../infra/health.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { Service } from './process.ts';

/**
 * The origins allowed to call the codec endpoint: `KESOKU_CODEC_ORIGINS`, plus the local Temporal Web UI
 * (`http://127.0.0.1:<ui port>` and `http://localhost:<ui port>`).
 */
export function codecOrigins(cfg: Config): string[] {
  const port = cfg.KESOKU_TEMPORAL_UI_PORT;
  return [...new Set([...cfg.KESOKU_CODEC_ORIGINS, `http://127.0.0.1:${port}`, `http://localhost:${port}`])];
}

/**
 * The API's principals and interface from the configuration, checked as the server would check them, so that
 * a process refuses a bad token or an unauthenticated non-loopback bind before it starts any server.
 * @throws ConfigError for invalid tokens or a non-loopback host without tokens
 */
export function apiBindOf(cfg: Config): { tokens: ApiToken[]; host: string } {
  const tokens = loadApiTokens(cfg);
  const host = apiHost(cfg, tokens.length > 0);
  checkBind(host, tokens);
  return { tokens, host };
}

/**
 * Checks that the API's port can be bound on its interface (a port of 0 always can).
 * @throws ConfigError naming the port and the variable to change when it is taken (or the bind is refused)
 */
export async function checkApiPortFree(cfg: Config, host: string): Promise<void> {
  if (cfg.KESOKU_API_PORT === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          err.code === 'EADDRINUSE'
            ? `the API port ${cfg.KESOKU_API_PORT} on ${host} is already in use; pick another with KESOKU_API_PORT`
            : `the API cannot listen on ${host}:${cfg.KESOKU_API_PORT} (${err.message}); check KESOKU_API_HOST and KESOKU_API_PORT`,
        ),
      ),
    );
    server.listen({ host, port: cfg.KESOKU_API_PORT, exclusive: true }, () => server.close(() => resolve()));
  });
}

/**
 * Runs the REST API. `opts.components`: the states of the other components of this process (e.g. the Discord
 * gateway under `npm start`), reported by the API's `/healthz` next to Temporal and Postgres. Without bearer tokens it must bind to loopback (a non-loopback `KESOKU_API_HOST` is
 * refused) and serves only loopback Host names; the log says which.
 * @throws ConfigError for invalid tokens or a non-loopback host without tokens
 */
export async function startApiService(
  cfg: Config,
  infra: Infrastructure,
  logger: Logger,
  opts: { components?: () => Promise<ComponentHealth> } = {},
): Promise<Service & { url: string }> {
  const { tokens, host } = apiBindOf(cfg);
  const api = await startApiServer({
    pool: infra.pool,
    sessions: infra.sessions,
    databaseUrl: infra.postgres.url,
    logger,
    host,
    port: cfg.KESOKU_API_PORT,
    tokens,
    app: {
      dataDir: cfg.KESOKU_DATA_DIR,
      defaultLocale: cfg.KESOKU_LOCALE,
      ...(cfg.KESOKU_TIMEZONE ? { defaultZone: cfg.KESOKU_TIMEZONE } : {}),
      ...(cfg.KESOKU_MEMORY_SHARED_SCOPES ? { memorySharedScopes: cfg.KESOKU_MEMORY_SHARED_SCOPES } : {}),
      limits: {
        sessionsPerPrincipal: cfg.KESOKU_MAX_SESSIONS_PER_PRINCIPAL,
        streamsPerPrincipal: cfg.KESOKU_MAX_STREAMS_PER_PRINCIPAL,
      },
      approvals: {
        ...(cfg.KESOKU_TOOL_APPROVAL ? { policy: cfg.KESOKU_TOOL_APPROVAL } : {}),
        autoApprove: cfg.KESOKU_TOOL_AUTO_APPROVE,
      },
    },
    ...(opts.components ? { components: opts.components } : {}),
    ...(infra.codecToken
      ? { codec: { codec: infra.payloadCodec, token: infra.codecToken, origins: codecOrigins(cfg) } }
      : {}),
  });
  if (tokens.length === 0) {
    logger.info(
      { host },
      'KESOKU_API_TOKENS is not set: the API serves loopback requests only and asks for no token',
    );
  } else {
    logger.info(
      { host, principals: tokens.map((t) => `${t.name}${t.admin ? ' (admin)' : ''}`) },
      'the API requires bearer tokens',
    );
  }
  return { name: 'api', url: api.url, stop: () => api.close() };
}

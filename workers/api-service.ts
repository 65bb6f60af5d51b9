/** The REST API as a service of a Kesoku process (`npm start`, `npm run api`). */
import { startApiServer } from '../api/server.ts';
import { apiHost, type Config } from '../infra/config.ts';
import type { Logger } from '../infra/logger.ts';
import type { Infrastructure, Service } from './services.ts';

/** Runs the REST API. Without bearer tokens it binds to loopback only and says so. */
export async function startApiService(cfg: Config, infra: Infrastructure, logger: Logger): Promise<Service & { url: string }> {
  const host = apiHost(cfg);
  const api = await startApiServer({
    pool: infra.pool,
    sessions: infra.sessions,
    databaseUrl: infra.postgres.url,
    logger,
    host,
    port: cfg.KESOKU_API_PORT,
    tokens: cfg.KESOKU_API_TOKENS,
    app: { dataDir: cfg.KESOKU_DATA_DIR },
    health: async () => {
      const [temporal, postgres] = await Promise.all([
        infra.connection.workflowService
          .getSystemInfo({})
          .then(() => true)
          .catch(() => false),
        infra.pool
          .query('SELECT 1')
          .then(() => true)
          .catch(() => false),
      ]);
      return { temporal, postgres };
    },
  });
  if (cfg.KESOKU_API_TOKENS.length === 0) {
    logger.info('KESOKU_API_TOKENS is not set: the API listens on loopback only and asks for no token');
  }
  return { name: 'api', url: api.url, stop: () => api.close() };
}


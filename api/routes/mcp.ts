/**
 * `GET /v1/mcp` (admin principals only, api/auth.ts `requireAdmin`): the MCP servers the workers take tools from
 * (docs/mcp.md), each with its state, its tools and its last error, merged from the workers' reports
 * (db/mcp-status.ts; the connections are the workers', not this process's).
 */
import { Router, type Request, type Response } from 'express';
import { readMcpServers } from '../../db/mcp-status.ts';
import type { ResolvedDeps } from '../deps.ts';
import { requireAdmin } from '../auth.ts';
import type { McpServerList } from '../schemas.ts';

/** Route: `GET /v1/mcp` → `200 {servers: [...]}`. */
export function mcpRouter(d: ResolvedDeps): Router {
  const router = Router();
  router.get('/v1/mcp', requireAdmin, async (_req: Request, res: Response) => {
    res.status(200).json({ servers: await readMcpServers(d.pool) } satisfies McpServerList);
  });
  return router;
}

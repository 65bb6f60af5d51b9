/**
 * A worker's MCP servers in one place: the connections (connections.ts), the tools they give (tools.ts) and the
 * status reports the API reads (db/mcp-status.ts): written whenever a server changes (at most every 200 ms) and
 * refreshed every 30 s, removed when the worker closes its connections.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { removeMcpStatus, writeMcpStatus } from '../../db/mcp-status.ts';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Sandbox } from '../tools/sandbox.ts';
import type { McpConfig } from './config.ts';
import { McpConnections } from './connections.ts';
import { McpTools } from './tools.ts';

/** Interval at which a worker refreshes its status reports, in ms (they count as gone after 90 s). */
export const STATUS_REFRESH_MS = 30_000;

export interface McpServersDeps {
  config: McpConfig;
  pool: Pool;
  logger: Logger;
  dataDir: string;
  sandbox?: Sandbox;
  secretNames?: readonly string[];
  /** KESOKU_MCP_MAX_TOOLS. */
  maxListed?: number;
  connectTimeoutMs?: number;
}

/** The MCP servers of one worker. */
export interface McpServers {
  connections: McpConnections;
  tools: McpTools;
  /** This worker's id in the status reports. */
  workerId: string;
  /** Closes every connection and removes this worker's status reports; never throws. */
  close(): Promise<void>;
}

/** Sets up the worker's MCP servers (nothing connects until a tool is needed) and reports their status. */
export function createMcpServers(deps: McpServersDeps): McpServers {
  const workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let closed = false;
  let writing: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const write = (): void => {
    if (closed) return;
    if (writing) {
      again = true;
      return;
    }
    writing = writeMcpStatus(deps.pool, workerId, connections.status())
      .catch((err: unknown) => deps.logger.warn({ err: String(err) }, 'MCP server status not recorded'))
      .finally(() => {
        writing = null;
        if (again) {
          again = false;
          write();
        }
      });
  };
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(write, 200);
    timer.unref();
  };
  const connections: McpConnections = new McpConnections(deps.config, {
    logger: deps.logger,
    dataDir: deps.dataDir,
    ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
    ...(deps.secretNames ? { secretNames: deps.secretNames } : {}),
    ...(deps.connectTimeoutMs ? { connectTimeoutMs: deps.connectTimeoutMs } : {}),
    onChange: changed,
  });
  const tools = new McpTools({
    connections,
    pool: deps.pool,
    logger: deps.logger,
    ...(deps.maxListed !== undefined ? { maxListed: deps.maxListed } : {}),
  });
  const refresh = setInterval(write, STATUS_REFRESH_MS);
  refresh.unref();
  write();
  deps.logger.info(
    { servers: deps.config.servers.map((s) => s.name), file: deps.config.file },
    'MCP servers configured; each connects when its tools are first needed',
  );
  return {
    connections,
    tools,
    workerId,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(refresh);
      clearTimeout(timer);
      await connections.close();
      await writing;
      await removeMcpStatus(deps.pool, workerId).catch(() => undefined);
    },
  };
}

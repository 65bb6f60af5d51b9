/**
 * MCP configurations for tests: the fake servers of test/fakes/mcp as `mcpServers` entries, written to a JSON
 * file and read back with the worker's own loader (activities/mcp/config.ts), so tests go through the same
 * parsing as KESOKU_MCP_CONFIG.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMcpConfig, type McpConfig } from '../../activities/mcp/config.ts';

/** The fake servers' directory. */
export const MCP_FAKES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fakes', 'mcp');
const NODE_MODULES = path.resolve(MCP_FAKES_DIR, '..', '..', '..', 'node_modules');

/**
 * The `mcpServers` entry of the stdio fake (test/fakes/mcp/stdio-server.ts) run by this Node: its directory and
 * node_modules are named in `paths`, so its sandbox can read them. `extra` adds or overrides settings.
 */
export function stdioFake(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    command: process.execPath,
    args: [path.join(MCP_FAKES_DIR, 'stdio-server.ts')],
    paths: [MCP_FAKES_DIR, NODE_MODULES],
    ...extra,
  };
}

/** Writes `{mcpServers: servers}` to a new file and loads it; @returns the configuration (its `file` is the path). */
export function mcpConfig(servers: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): McpConfig {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-mcp-'));
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  const config = loadMcpConfig(file, env);
  if (!config) throw new Error('no MCP configuration');
  return config;
}

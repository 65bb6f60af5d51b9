/**
 * A fake MCP server over stdio, built with the official SDK (`McpServer` + `StdioServerTransport`), with the
 * tools of ./tools.ts. Run as `node test/fakes/mcp/stdio-server.ts`; `FAKE_MCP_EXTRA_TOOLS` (a JSON array of
 * names) adds echo tools. Each call and cancellation is appended to `$HOME/events.log` (in Kesoku's sandbox,
 * the server's own directory) and written to stderr. `crash` exits with status 3.
 */
import fs from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerFakeTools } from './tools.ts';

const log = path.join(process.env.HOME ?? '.', 'events.log');
const server = new McpServer({ name: 'fake-stdio', version: '1.0.0' });
registerFakeTools(server, {
  record: (event) => {
    fs.appendFileSync(log, `${event}\n`);
    process.stderr.write(`${event}\n`);
  },
  onCrash: () => {
    process.stderr.write('crashing on purpose\n');
    process.exit(3);
  },
  extraTools: JSON.parse(process.env.FAKE_MCP_EXTRA_TOOLS ?? '[]') as string[],
});
await server.connect(new StdioServerTransport());

/**
 * A fake MCP server over Streamable HTTP on 127.0.0.1, built with the official SDK (`McpServer` +
 * `StreamableHTTPServerTransport`, one pair per session, SSE responses), with the tools of ./tools.ts at `/mcp`.
 *
 * Sessions end the way real servers end them: after `idleExpiryMs` without a request, or at once with
 * {@link FakeHttpMcpServer.expireSessions}; a request naming an ended session gets 404 (JSON-RPC -32001
 * "Session not found"), as the SDK's own examples answer. `crash` drops the call's connection. `addTool` adds a
 * tool to every session (the SDK sends `notifications/tools/list_changed`). Everything it saw is recorded.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { readBody, sendJson } from '../http.ts';
import { registerFakeTools } from './tools.ts';

export interface FakeHttpMcpOptions {
  /** End a session after this long without a request, in ms; undefined: never. */
  idleExpiryMs?: number;
  /** Echo tools to add (names). */
  extraTools?: readonly string[];
}

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export interface FakeHttpMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Calls and cancellations, in order (`call greet`, `cancelled hang`). */
  events: string[];
  /** `initialize` requests answered (one per session made). */
  initializations(): number;
  /** Requests answered 404 because their session had ended. */
  notFound(): number;
  /** Requests to any path other than `/mcp`. */
  strayRequests(): string[];
  /** Ends every session now (as an idle expiry or a restart would). */
  expireSessions(): Promise<void>;
  /** Adds an echo tool named `name` to every live session and to sessions made later. */
  addTool(name: string): void;
  close(): Promise<void>;
}

export async function startFakeHttpMcpServer(opts: FakeHttpMcpOptions = {}): Promise<FakeHttpMcpServer> {
  const sessions = new Map<string, Session>();
  const events: string[] = [];
  const stray: string[] = [];
  const extra = [...(opts.extraTools ?? [])];
  let initializations = 0;
  let notFound = 0;
  let currentResponse: ServerResponse | null = null;

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new McpServer({ name: 'fake-http', version: '1.0.0' });
    registerFakeTools(server, {
      record: (e) => events.push(e),
      onCrash: () => currentResponse?.socket?.destroy(),
      extraTools: extra,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const end = async (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    await s?.transport.close().catch(() => undefined);
    await s?.server.close().catch(() => undefined);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      stray.push(`${req.method} ${req.url}`);
      sendJson(res, 404, { error: 'not here' });
      return;
    }
    const text = req.method === 'POST' ? await readBody(req) : '';
    const body: unknown = text ? JSON.parse(text) : undefined;
    const id = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(id) ? id[0] : id;
    if (sessionId !== undefined) {
      const s = sessions.get(sessionId);
      if (!s) {
        notFound++;
        sendJson(res, 404, {
          jsonrpc: '2.0',
          error: { code: -32001, message: 'Session not found' },
          id: null,
        });
        return;
      }
      s.lastSeen = Date.now();
      currentResponse = res;
      await s.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      initializations++;
      const transport = await newSession();
      await transport.handleRequest(req, res, body);
      return;
    }
    sendJson(res, 400, {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Bad Request: no session' },
      id: null,
    });
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  const sweep = opts.idleExpiryMs
    ? setInterval(() => {
        for (const [id, s] of sessions) if (Date.now() - s.lastSeen > opts.idleExpiryMs!) void end(id);
      }, 50)
    : undefined;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    events,
    initializations: () => initializations,
    notFound: () => notFound,
    strayRequests: () => [...stray],
    async expireSessions() {
      await Promise.all([...sessions.keys()].map(end));
    },
    addTool(name) {
      extra.push(name);
      for (const s of sessions.values()) {
        s.server.registerTool(name, { description: `The tool named ${name}.` }, async () => {
          events.push(`call ${name}`);
          return { content: [{ type: 'text' as const, text: `called ${name}` }] };
        });
      }
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(end));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * The worker's connections to its MCP servers, one per server, made with the official TypeScript SDK's
 * `Client` over `StdioClientTransport` (the server as a sandboxed child process, launch.ts) or
 * `StreamableHTTPClientTransport` (reaching only the configured URL: any other URL, a redirect included, is
 * refused).
 *
 * - Lazy: a server is connected when its tools are first needed (a model step lists them, a call runs one).
 * - Self-healing: a stdio server that exits is started again at the next need; a call whose Streamable HTTP
 *   session ended (HTTP 404, or a 400 about the session: the server expired it or restarted) or that finds
 *   the connection gone before it was sent is made again, once, on a freshly initialised session. A call that
 *   was sent and then lost its connection is not repeated (it may have run): it fails.
 * - Contained: transport errors, `error` events and child exits are recorded as the server's last error and
 *   logged; none reaches the worker as an exception. A server that cannot connect is left out of the tool
 *   list until its next retry (backing off from 5 s to 5 minutes); a call still tries it.
 * - Observable: {@link McpConnections.status} gives each server's state, tools and last error, and
 *   `onChange` fires whenever one changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { toolLabel } from '../../domain/tool-label.ts';
import type { McpStatusReport } from '../../db/mcp-status.ts';
import type { Logger } from '../../infra/logger.ts';
import { APP_ROOT, type Sandbox } from '../tools/sandbox.ts';
import { isToolEnabled, type McpConfig, type McpServerConfig } from './config.ts';
import { serverLaunch } from './launch.ts';
import { serverSlugs, toolNames } from './names.ts';

/** Longest wait for a server to start and answer `initialize` and `tools/list`, in ms. */
export const CONNECT_TIMEOUT_MS = 15_000;
/** Most pages of `tools/list` read from one server. */
const MAX_LIST_PAGES = 50;
/** Lines of a stdio server's stderr kept for its last error. */
const STDERR_LINES = 5;

const CLIENT_INFO = {
  name: 'kesoku',
  version: (() => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'package.json'), 'utf8')) as { version: string })
        .version;
    } catch {
      return '0';
    }
  })(),
};

/**
 * A server's state: `idle` (not connected: it connects when needed), `connecting`, `ready` (connected, tools
 * listed) or `failed` (the last connection attempt failed; it is tried again after a while or at a call).
 */
export type McpServerState = 'idle' | 'connecting' | 'ready' | 'failed';

/** One tool of a server as Kesoku offers it. */
export interface McpTool {
  /** The offered name, `mcp__<server>__<tool>` (names.ts). */
  name: string;
  /** The server's key in the configuration. */
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description: string;
  /** The tool's input JSON Schema, as the server gave it (without `$schema`). */
  inputSchema: Record<string, unknown>;
}

/** A server as this worker sees it, for GET /v1/mcp and /healthz (db/mcp-status.ts). */
export type McpServerStatus = McpStatusReport;

/** Thrown when a server cannot be reached for a call; the message names the server and the cause. */
export class McpUnavailableError extends Error {
  readonly kind = 'mcp_unavailable';
}

export interface ConnectionDeps {
  logger: Logger;
  /** The tool sandbox stdio servers run in; undefined: no sandbox (the allowlisted environment only). */
  sandbox?: Sandbox;
  /** Stdio servers' own directories are `<dataDir>/mcp/<slug>`. */
  dataDir: string;
  /** Variables never passed to a server unless its `env` sets them (the chat channels' secrets). */
  secretNames?: readonly string[];
  /** Default {@link CONNECT_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
  /** Called after any server's state, tools or last error changed. */
  onChange?: () => void;
}

interface Live {
  client: Client;
  transport: Transport;
  stderr: string[];
  /** Cleans up after the server's process (its cgroup); called once it ended. */
  finished?: () => Promise<void>;
  /** Set when Kesoku closes it (no error to record). */
  closing: boolean;
}

/** A short description of an error for the last-error field and logs (no stack). */
export function describeError(err: unknown): string {
  if (err instanceof StreamableHTTPError) return `HTTP ${err.code}: ${err.message}`;
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const code = (cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

/**
 * True when a call failed before the server could act on it, because its session or connection was gone:
 * HTTP 404 (an unknown session: expired, or the server restarted), a 400 about the session, or "Not connected"
 * (the transport had closed). Such a call may be made again on a new session.
 */
export function sessionGone(err: unknown): boolean {
  if (err instanceof StreamableHTTPError)
    return err.code === 404 || (err.code === 400 && /session/i.test(err.message));
  return err instanceof Error && err.message === 'Not connected';
}

/** A fetch that reaches `only` and nothing else (no redirects, no other path). */
function fetchOnly(only: string): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  const allowed = new URL(only).href;
  return (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.href !== allowed)
      return Promise.reject(
        new Error(`refused to reach ${target.origin}${target.pathname}: only the configured URL is used`),
      );
    return fetch(target, { ...init, redirect: 'manual' });
  };
}

/** The connection to one server. */
export class McpConnection {
  readonly config: McpServerConfig;
  /** The `<server>` part of its tools' names. */
  readonly slug: string;
  private readonly deps: ConnectionDeps;
  private state: McpServerState = 'idle';
  private tools: McpTool[] = [];
  private lastError: { message: string; at: Date } | null = null;
  private live: Live | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  private retryAt = 0;

  constructor(config: McpServerConfig, slug: string, deps: ConnectionDeps) {
    this.config = config;
    this.slug = slug;
    this.deps = deps;
  }

  /** Its enabled tools as last listed (empty before the first connection). */
  listedTools(): readonly McpTool[] {
    return this.tools;
  }

  /** Its tools, connecting first unless a recent attempt failed (then none until the retry time). Never throws. */
  async availableTools(): Promise<readonly McpTool[]> {
    if (!this.live && Date.now() < this.retryAt) return [];
    try {
      await this.client();
      return this.tools;
    } catch {
      return [];
    }
  }

  /**
   * The connected client, connecting now if needed (one attempt shared by concurrent callers).
   * @throws McpUnavailableError when the server cannot be started or reached
   */
  async client(): Promise<Client> {
    if (this.live) return this.live.client;
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Calls the tool `tool` (its own name) with `args`, bounded by the server's `toolTimeout`; an abort of
   * `signal` cancels it (the SDK sends `notifications/cancelled`). A call whose session was gone is made again
   * once on a new session ({@link sessionGone}).
   * @throws McpUnavailableError (the server cannot be reached), McpError (timeout -32001, connection closed
   *   -32000, the server's own JSON-RPC error), or the transport's error
   */
  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const timeout = this.config.toolTimeoutMs;
    for (let renewed = false; ; renewed = true) {
      const client = await this.client();
      try {
        const result = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
          signal,
          timeout,
          maxTotalTimeout: timeout,
        });
        return result as CallToolResult;
      } catch (err) {
        if (!renewed && !signal?.aborted && sessionGone(err)) {
          this.deps.logger.info(
            { mcpServer: this.config.name, err: describeError(err) },
            'MCP session ended; initialising a new one and making the call again',
          );
          await this.drop(client);
          continue;
        }
        throw err;
      }
    }
  }

  /** Its state for GET /v1/mcp. */
  status(): McpServerStatus {
    return {
      name: this.config.name,
      transport: this.config.transport,
      state: this.state,
      tools: this.tools.map((t) => ({ name: t.name, tool: t.tool, description: t.description })),
      last_error: this.lastError?.message ?? null,
      last_error_at: this.lastError?.at.toISOString() ?? null,
    };
  }

  /** Closes the connection (a stdio server is stopped: stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    const live = this.live;
    if (!live) return;
    await this.drop(live.client);
    this.setState('idle');
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.deps.onChange?.();
  }

  private noteError(message: string): void {
    this.lastError = { message, at: new Date() };
    this.deps.logger.warn({ mcpServer: this.config.name, err: message }, 'MCP server problem');
    this.deps.onChange?.();
  }

  /** Closes `client` if it is the live one, without recording an error. */
  private async drop(client: Client): Promise<void> {
    const live = this.live;
    if (!live || live.client !== client) return;
    live.closing = true;
    this.live = undefined;
    if (live.transport instanceof StreamableHTTPClientTransport)
      await live.transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
    await live.finished?.();
  }

  private async transport(live: Live): Promise<Transport> {
    const c = this.config;
    if (c.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(c.url), {
        fetch: fetchOnly(c.url),
        requestInit: { headers: c.headers },
      });
    }
    const launch = await serverLaunch(
      this.deps.sandbox,
      c,
      path.join(this.deps.dataDir, 'mcp', this.slug),
      this.deps.secretNames,
    );
    live.finished = launch.finished;
    const { command, args, env, cwd } = launch;
    const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        live.stderr.push(line.slice(0, 500));
        if (live.stderr.length > STDERR_LINES) live.stderr.shift();
      }
    });
    return transport;
  }

  private async connect(): Promise<Client> {
    this.setState('connecting');
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const stderr: string[] = [];
    const live: Live = { client, transport: undefined as unknown as Transport, stderr, closing: false };
    client.onerror = (err) =>
      this.deps.logger.debug({ mcpServer: this.config.name, err: describeError(err) }, 'MCP transport error');
    try {
      live.transport = await this.transport(live);
      await client.connect(live.transport, { timeout: this.deps.connectTimeoutMs ?? CONNECT_TIMEOUT_MS });
      client.onclose = () => this.closed(live);
      this.live = live;
      await this.listTools(client);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        void this.refresh(live);
      });
    } catch (err) {
      live.closing = true;
      if (this.live === live) this.live = undefined;
      await client.close().catch(() => undefined);
      await live.finished?.();
      const message = `could not connect: ${describeError(err)}${stderr.length ? ` (stderr: ${stderr.join(' | ')})` : ''}`;
      this.failures++;
      this.retryAt = Date.now() + Math.min(300_000, 5000 * 2 ** (this.failures - 1));
      this.noteError(message);
      this.setState('failed');
      throw new McpUnavailableError(`MCP server "${this.config.name}" ${message}`, { cause: err });
    }
    this.failures = 0;
    this.retryAt = 0;
    this.deps.logger.info({ mcpServer: this.config.name, tools: this.tools.length }, 'MCP server connected');
    this.setState('ready');
    return client;
  }

  /** The connection ended (a stdio server exited, an HTTP transport closed): the next need connects again. */
  private closed(live: Live): void {
    if (this.live === live) this.live = undefined;
    if (live.closing) return;
    void live.finished?.();
    const tail = live.stderr.length ? ` (stderr: ${live.stderr.join(' | ')})` : '';
    this.noteError(
      `${this.config.transport === 'stdio' ? 'the server process exited' : 'the connection closed'}${tail}`,
    );
    this.setState('idle');
  }

  /** Reads every page of `tools/list`; names the tools and keeps the enabled ones. */
  private async listTools(client: Client): Promise<void> {
    const listed: { name: string; description?: string; inputSchema: Record<string, unknown> }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.deps.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      });
      listed.push(...res.tools);
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    const names = toolNames(
      this.slug,
      listed.map((t) => t.name),
    );
    this.tools = listed
      .filter((t) => isToolEnabled(this.config, t.name))
      .map((t) => {
        const { $schema: _, ...inputSchema } = t.inputSchema;
        const name = names.get(t.name) ?? t.name;
        return {
          name,
          server: this.config.name,
          tool: t.name,
          description:
            t.description?.trim() || `The ${toolLabel(name)} tool of the MCP server "${this.config.name}".`,
          inputSchema: { ...inputSchema, type: 'object' },
        };
      });
  }

  /** `notifications/tools/list_changed`: lists the tools again. */
  private async refresh(live: Live): Promise<void> {
    if (this.live !== live) return;
    try {
      await this.listTools(live.client);
      this.deps.logger.info(
        { mcpServer: this.config.name, tools: this.tools.length },
        'MCP server changed its tools',
      );
      this.deps.onChange?.();
    } catch (err) {
      this.noteError(`the changed tool list could not be read: ${describeError(err)}`);
    }
  }
}

/** Every configured server's connection, owned by one worker. */
export class McpConnections {
  readonly connections: readonly McpConnection[];
  private readonly bySlug: ReadonlyMap<string, McpConnection>;

  constructor(config: McpConfig, deps: ConnectionDeps) {
    const slugs = serverSlugs(config.servers.map((s) => s.name));
    this.connections = config.servers.map((s) => new McpConnection(s, slugs.get(s.name) ?? s.name, deps));
    this.bySlug = new Map(this.connections.map((c) => [c.slug, c]));
  }

  /** Every server's enabled tools, connecting those not connected (in parallel; see availableTools). */
  async tools(): Promise<McpTool[]> {
    const lists = await Promise.all(this.connections.map((c) => c.availableTools()));
    return lists.flat();
  }

  /** The connection whose tools carry the `<server>` part of `name` (no connection needed); undefined if none. */
  connectionOf(server: string): McpConnection | undefined {
    return this.bySlug.get(server);
  }

  status(): McpServerStatus[] {
    return this.connections.map((c) => c.status());
  }

  /** Closes every connection; never throws. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close().catch(() => undefined)));
  }
}

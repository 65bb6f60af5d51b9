/**
 * The MCP servers' tools as Kesoku tools: what a model step offers (each tool under its `mcp__<server>__<tool>`
 * name with the server's description and input schema as they are; beyond `maxListed` tools in all, the search
 * tool {@link SEARCH_TOOL_NAME} instead, plus the tools the session's searches found), how the tool activity runs
 * one (activities/tools/registry.ts `ToolSource`: recorded, approved, at most once and cancellable like every
 * tool), and how a call is approved (config.ts `approval`).
 */
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Queryable } from '../../db/pool.ts';
import { mcpNameParts, toolLabel } from '../../domain/tool-label.ts';
import type { Logger } from '../../infra/logger.ts';
import type { ModelToolSpec } from '../llm/provider.ts';
import { ToolCancelledError, ToolExecutionError, ToolInputError } from '../tools/errors.ts';
import type { ToolContext, ToolSource } from '../tools/registry.ts';
import { clip, parseToolArgs, type ToolResult } from '../tools/tool.ts';
import { approvalOf, type McpApproval } from './config.ts';
import { describeError, McpUnavailableError, type McpConnections, type McpTool } from './connections.ts';
import { mcpToolResult } from './results.ts';

/** The tool that finds MCP tools when there are too many to list. */
export const SEARCH_TOOL_NAME = 'mcp_search_tools';
/** Default of KESOKU_MCP_MAX_TOOLS: MCP tools offered by name before the search tool takes their place. */
export const DEFAULT_MAX_LISTED_TOOLS = 40;
/** The most recent searches of a session whose finds are offered. */
const SEARCHES_REMEMBERED = 10;
/** Longest input schema shown in a search result, in characters. */
const SCHEMA_CHARS = 2000;

const searchArgsSchema = z.strictObject({
  query: z.string().min(1).max(500).describe('Keywords: what the tool should do, a server or a tool name.'),
  limit: z.number().int().min(1).max(20).optional().describe('Most tools to return (default 5).'),
});

export interface McpToolsDeps {
  connections: McpConnections;
  /** Where the session's earlier searches are read from (messages). */
  pool: Queryable;
  logger: Logger;
  /** Default {@link DEFAULT_MAX_LISTED_TOOLS}. */
  maxListed?: number;
}

function specOf(t: McpTool): ModelToolSpec {
  return { name: t.name, description: t.description, parameters: t.inputSchema };
}

/** The tools of `all` that match `query`, best first: name and tool 3, server 2, description 1 per keyword. */
export function searchTools(all: readonly McpTool[], query: string, limit = 5): McpTool[] {
  const terms = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const scored = all
    .map((t) => {
      const names = `${t.name} ${t.tool}`.toLowerCase();
      const server = t.server.toLowerCase();
      const description = t.description.toLowerCase();
      const score = terms.reduce(
        (sum, term) =>
          sum +
          (names.includes(term) ? 3 : 0) +
          (server.includes(term) ? 2 : 0) +
          (description.includes(term) ? 1 : 0),
        0,
      );
      return { t, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.t.name < b.t.name ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.t);
}

/** The MCP tools of one worker (see the module comment). */
export class McpTools implements ToolSource {
  private readonly deps: McpToolsDeps;

  constructor(deps: McpToolsDeps) {
    this.deps = deps;
  }

  private get maxListed(): number {
    return this.deps.maxListed ?? DEFAULT_MAX_LISTED_TOOLS;
  }

  /**
   * The MCP tools a model step of `sessionId` offers: all of them, or beyond `maxListed` the search tool and
   * the tools the session's recent searches found. Never throws (a server that cannot connect offers nothing).
   */
  async offered(sessionId: string): Promise<ModelToolSpec[]> {
    const all = await this.deps.connections.tools();
    if (all.length <= this.maxListed) return all.map(specOf);
    const found = await this.foundBy(sessionId, all).catch((err: unknown) => {
      this.deps.logger.warn({ sessionId, err: String(err) }, 'earlier MCP tool searches could not be read');
      return [];
    });
    return [this.searchSpec(all.length), ...found.map(specOf)];
  }

  private searchSpec(count: number): ModelToolSpec {
    const { $schema: _, ...parameters } = z.toJSONSchema(searchArgsSchema, { io: 'input' });
    return {
      name: SEARCH_TOOL_NAME,
      description:
        `Find tools of the connected MCP servers (${count} tools, too many to list) by keywords. The tools it ` +
        'finds can be called by their names from the next step on.',
      parameters,
    };
  }

  /** The tools the session's most recent searches found (re-run against the current tool lists). */
  private async foundBy(sessionId: string, all: readonly McpTool[]): Promise<McpTool[]> {
    const res = await this.deps.pool.query<{ args: unknown }>(
      `SELECT metadata->'tool_arguments' AS args FROM messages
        WHERE session_id = $1 AND type = 'tool_call' AND metadata->>'tool_name' = $2
        ORDER BY seq DESC LIMIT $3`,
      [sessionId, SEARCH_TOOL_NAME, SEARCHES_REMEMBERED],
    );
    const found = new Map<string, McpTool>();
    for (const { args } of res.rows) {
      const parsed = searchArgsSchema.safeParse(typeof args === 'string' ? safeJson(args) : args);
      if (!parsed.success) continue;
      for (const t of searchTools(all, parsed.data.query, parsed.data.limit)) {
        if (found.size < this.maxListed) found.set(t.name, t);
      }
    }
    return [...found.values()];
  }

  /** True for the search tool and every `mcp__…` name. */
  handles(name: string): boolean {
    return name === SEARCH_TOOL_NAME || mcpNameParts(name) !== null;
  }

  /**
   * Runs the search tool or an MCP tool. A failure the model can act on is a failed result (`ok: false`): the
   * server's `isError`, a timeout (the server is sent `notifications/cancelled`), a closed connection, a
   * refusal by the server.
   * @throws ToolInputError (unknown tool, arguments that are not an object), ToolCancelledError (`ctx.signal`),
   *   ToolExecutionError (the server could not be started or reached)
   */
  async run(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    if (name === SEARCH_TOOL_NAME) return this.search(args);
    const parts = mcpNameParts(name);
    const connection = parts ? this.deps.connections.connectionOf(parts.server) : undefined;
    if (!connection)
      throw new ToolInputError(`unknown tool "${name}": no MCP server of this name is configured`);
    const server = connection.config.name;
    try {
      await connection.client();
    } catch (err) {
      throw new ToolExecutionError((err as Error).message, { cause: err });
    }
    const tool = connection.listedTools().find((t) => t.name === name);
    if (!tool) {
      const names = connection
        .listedTools()
        .map((t) => t.name)
        .join(', ');
      throw new ToolInputError(
        `unknown tool "${name}": the MCP server "${server}" has no such tool (its tools: ${names || 'none'})`,
      );
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      throw new ToolInputError(`arguments for ${name} must be a JSON object`);
    const label = `${server} › ${tool.tool}`;
    const failed = (content: string, summary: string): ToolResult => ({
      content: `Error: ${content}`,
      summary: clip(summary),
      ok: false,
    });
    try {
      const raw = await connection.call(tool.tool, args as Record<string, unknown>, ctx.signal);
      return await mcpToolResult(raw, label, {
        maxModelOutputBytes: ctx.maxModelOutputBytes,
        ...(ctx.outputDir ? { outputDir: ctx.outputDir } : {}),
        ...(ctx.callId ? { callId: ctx.callId } : {}),
      });
    } catch (err) {
      if (ctx.signal?.aborted)
        throw new ToolCancelledError(`the call of ${label} was cancelled`, { cause: err });
      if (err instanceof McpUnavailableError) throw new ToolExecutionError(err.message, { cause: err });
      const seconds = Math.round(connection.config.toolTimeoutMs / 100) / 10;
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
        return failed(
          `${label} did not answer within ${seconds} s; the call was cancelled (it may have done part of its work).`,
          `timed out after ${seconds} s`,
        );
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)
        return failed(
          `the MCP server "${server}" closed the connection during the call (it may have crashed); the call may or may not have taken effect.`,
          'the MCP server closed the connection',
        );
      if (err instanceof McpError)
        return failed(
          `the MCP server "${server}" refused the call: ${err.message}`,
          `refused: ${err.message}`,
        );
      return failed(
        `the MCP server "${server}" could not be reached: ${describeError(err)}`,
        `unreachable: ${describeError(err)}`,
      );
    }
  }

  /** The search tool: the matching tools with their descriptions and input schemas. */
  private async search(rawArgs: unknown): Promise<ToolResult> {
    const { query, limit } = parseToolArgs(searchArgsSchema, rawArgs, SEARCH_TOOL_NAME);
    const found = searchTools(await this.deps.connections.tools(), query, limit);
    if (found.length === 0)
      return {
        content: `No MCP tool matches "${query}". Try other keywords.`,
        summary: clip(`no tool for "${query}"`),
      };
    const lines = found.map((t) => {
      const schema = JSON.stringify(t.inputSchema);
      return (
        `- ${t.name} (${toolLabel(t.name)}): ${t.description}\n` +
        `  arguments: ${schema.length > SCHEMA_CHARS ? `${schema.slice(0, SCHEMA_CHARS)}…` : schema}`
      );
    });
    return {
      content: `${found.length} MCP tool${found.length === 1 ? '' : 's'} for "${query}", callable by name from the next step on:\n${lines.join('\n')}`,
      summary: clip(`found ${found.map((t) => toolLabel(t.name)).join(', ')}`),
    };
  }

  /**
   * How a call of `name` is approved: `auto` for the search tool, else the tool's or its server's `approval`
   * (`ask` for a name no server has).
   */
  async approvalOf(name: string): Promise<McpApproval | undefined> {
    if (name === SEARCH_TOOL_NAME) return 'auto';
    const parts = mcpNameParts(name);
    if (!parts) return undefined;
    const connection = this.deps.connections.connectionOf(parts.server);
    if (!connection) return 'ask';
    const tool = (await connection.availableTools()).find((t) => t.name === name);
    return tool ? approvalOf(connection.config, tool.tool) : connection.config.approval;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

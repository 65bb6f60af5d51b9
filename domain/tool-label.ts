/**
 * How a tool call is named to people: the tool's name, or for a tool of an MCP server (named
 * `mcp__<server>__<tool>`, activities/mcp/names.ts) the server and the tool, `<server> › <tool>`.
 *
 * Pure module: safe in the workflow bundle.
 */

/** The prefix of every MCP tool's name. */
export const MCP_TOOL_PREFIX = 'mcp__';

/**
 * The server and tool parts of an MCP tool's name, or null for another tool. The server part never holds `__`
 * (activities/mcp/names.ts), so the first `__` after the prefix ends it.
 */
export function mcpNameParts(name: string): { server: string; tool: string } | null {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return null;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const cut = rest.indexOf('__');
  if (cut <= 0 || cut + 2 >= rest.length) return null;
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 2) };
}

/** `<server> › <tool>` for an MCP tool, the name itself for any other (e.g. `run_shell_command`). */
export function toolLabel(name: string): string {
  const parts = mcpNameParts(name);
  return parts ? `${parts.server} › ${parts.tool}` : name;
}

/**
 * The MCP servers a worker takes tools from (docs/mcp.md): the JSON file named by `KESOKU_MCP_CONFIG`, in the
 * `mcpServers` shape other MCP clients use —
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "node", "args": ["/opt/mcp/files/index.js"], "env": { "ROOT": "/srv/docs" } },
 *     "github": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" } } } }
 * ```
 *
 * A server with `command` is started over stdio (`args`, `env`, `cwd`, and `paths`: more files or directories
 * it may read); one with `url` is reached over Streamable HTTP (`headers`). Every server may also set
 * `disabled`, `enabledTools` (only these tools), `include`/`exclude` (tool-name globs with `*`), `toolTimeout`
 * (seconds a call may take, default {@link DEFAULT_TOOL_TIMEOUT_S}) and `approval` (`ask`, the default: its
 * calls wait for a person whenever writes do; `auto`: only when every call does), with `toolApproval` for single
 * tools. `${NAME}` and `${NAME:-default}` in any string are replaced from the worker's environment. Other keys
 * at the top level are ignored (the file may be shared with another client); unknown keys of a server are
 * refused, so a misspelt setting is never silently dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MAX_SHELL_TIMEOUT_S } from '../../domain/tool-limits.ts';
import { ConfigError } from '../../infra/config.ts';

/** Seconds an MCP tool call may take when its server sets no `toolTimeout`. */
export const DEFAULT_TOOL_TIMEOUT_S = 30;

/** How an MCP tool's calls are approved: `ask` like `write_file`, `auto` like `read_file`. */
export type McpApproval = 'ask' | 'auto';

const approval = z.enum(['ask', 'auto'], { message: 'must be "ask" or "auto"' });
const names = z.array(z.string().min(1, 'must not be empty'));
const stringMap = z.record(z.string(), z.string());

/** Settings every server may have, whatever its transport. */
const common = {
  type: z.string().optional(),
  disabled: z.boolean().optional(),
  enabledTools: names.optional(),
  include: names.optional(),
  exclude: names.optional(),
  toolTimeout: z
    .number({ message: 'must be a number of seconds' })
    .positive('must be a positive number of seconds')
    .max(MAX_SHELL_TIMEOUT_S, `must be at most ${MAX_SHELL_TIMEOUT_S} seconds`)
    .optional(),
  approval: approval.optional(),
  toolApproval: z.record(z.string(), approval).optional(),
};

const stdioSchema = z.strictObject({
  ...common,
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().min(1, 'must not be empty').optional(),
  paths: names.optional(),
});

const httpSchema = z.strictObject({
  ...common,
  url: z.string().refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), {
    message: 'must be an http:// or https:// URL',
  }),
  headers: stringMap.optional(),
});

const fileSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1, 'a server name must not be empty'), z.unknown()),
});

/** What every server has, after defaults. */
interface ServerBase {
  /** The key in `mcpServers`. */
  name: string;
  /** Longest a tool call may take, in ms. */
  toolTimeoutMs: number;
  /** The server's approval, and its tools' own (by the server's tool name). */
  approval: McpApproval;
  toolApproval: Record<string, McpApproval>;
  /** Only these tools (exact names); undefined: all. */
  enabledTools?: string[];
  /** Tool-name globs (`*` any run of characters): offered when one of `include` matches and no `exclude` does. */
  include?: string[];
  exclude?: string[];
}

/** A server started as a child process speaking MCP over stdin/stdout. */
export interface StdioServerConfig extends ServerBase {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Variables the server gets besides the sandbox's allowlist (PATH, HOME, LANG, TERM, KESOKU_TOOL_ENV). */
  env: Record<string, string>;
  /** Working directory (absolute); undefined: the server's own directory under the data dir. */
  cwd?: string;
  /** More files or directories (absolute) bound read-only into its sandbox. */
  paths: string[];
}

/** A server reached over Streamable HTTP at one URL. */
export interface HttpServerConfig extends ServerBase {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** The servers of the file, enabled ones only, in the file's order. */
export interface McpConfig {
  /** The file they were read from. */
  file: string;
  servers: McpServerConfig[];
}

/**
 * `${NAME}` / `${NAME:-default}` in `value` replaced from `env`.
 * @throws Error naming the variable when it is unset (or empty) and has no default
 */
export function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def?: string) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (def !== undefined) return def;
    throw new Error(`\${${name}} is not set in the environment`);
  });
}

/** Every string in `value` (a parsed JSON value) expanded; `where` collects the field path for errors. */
function expandAll(value: unknown, env: NodeJS.ProcessEnv, where: string[]): unknown {
  if (typeof value === 'string') {
    try {
      return expandEnv(value, env);
    } catch (err) {
      throw new FieldProblem(where, (err as Error).message);
    }
  }
  if (Array.isArray(value)) return value.map((v, i) => expandAll(v, env, [...where, String(i)]));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandAll(v, env, [...where, k])]));
  return value;
}

class FieldProblem extends Error {
  readonly where: string[];
  constructor(where: string[], message: string) {
    super(message);
    this.where = where;
  }
}

/** `field: message` for the first issue of a failed parse (the path inside one server). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') return `${issue.keys.join(', ')}: not a known setting`;
  return where ? `${where}: ${issue.message}` : issue.message;
}

/**
 * One server's settings, checked and with defaults.
 * @throws Error `<field>: <problem>` for the first problem found
 */
function parseServer(
  name: string,
  raw: unknown,
  env: NodeJS.ProcessEnv,
  baseDir: string,
): McpServerConfig | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new Error('must be an object with "command" (stdio) or "url" (Streamable HTTP)');
  const expanded = (() => {
    try {
      return expandAll(raw, env, []) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof FieldProblem) throw new Error(`${err.where.join('.')}: ${err.message}`);
      throw err;
    }
  })();
  const type = typeof expanded.type === 'string' ? expanded.type.toLowerCase() : undefined;
  if (type === 'sse')
    throw new Error(
      'type: the SSE transport is not supported; use the server\'s Streamable HTTP endpoint ("url")',
    );
  const isStdio = 'command' in expanded;
  const isHttp = 'url' in expanded;
  if (isStdio && isHttp) throw new Error('has both "command" and "url": a server is either stdio or HTTP');
  if (!isStdio && !isHttp) throw new Error('needs "command" (stdio) or "url" (Streamable HTTP)');
  if (
    type !== undefined &&
    !(isStdio ? ['stdio'] : ['http', 'streamable-http', 'streamablehttp']).includes(type)
  )
    throw new Error(
      `type: "${String(expanded.type)}" does not match a ${isStdio ? 'stdio' : 'Streamable HTTP'} server`,
    );
  const parsed = (isStdio ? stdioSchema : httpSchema).safeParse(expanded);
  if (!parsed.success) throw new Error(firstIssue(parsed.error));
  const c = parsed.data;
  if (c.disabled) return null;
  const base: ServerBase = {
    name,
    toolTimeoutMs: Math.round((c.toolTimeout ?? DEFAULT_TOOL_TIMEOUT_S) * 1000),
    approval: c.approval ?? 'ask',
    toolApproval: c.toolApproval ?? {},
    ...(c.enabledTools ? { enabledTools: c.enabledTools } : {}),
    ...(c.include ? { include: c.include } : {}),
    ...(c.exclude ? { exclude: c.exclude } : {}),
  };
  if ('url' in c) return { ...base, transport: 'http', url: c.url, headers: c.headers ?? {} };
  const s = c as z.output<typeof stdioSchema>;
  const absolute = (p: string) => path.resolve(baseDir, p);
  return {
    ...base,
    transport: 'stdio',
    command: s.command,
    args: s.args ?? [],
    env: s.env ?? {},
    ...(s.cwd ? { cwd: absolute(s.cwd) } : {}),
    paths: (s.paths ?? []).map(absolute),
  };
}

/**
 * Reads and checks the MCP configuration file (see the module comment). Relative `cwd` and `paths` are taken
 * from the file's directory.
 * @param file the value of KESOKU_MCP_CONFIG; undefined: no MCP servers
 * @param env where `${NAME}` is looked up; defaults to `process.env`
 * @returns null when no file is configured
 * @throws ConfigError with one line naming the file and, for a server's problem, the server and the field:
 *   `KESOKU_MCP_CONFIG (/etc/kesoku/mcp.json): server "github": url: must be an http:// or https:// URL`
 */
export function loadMcpConfig(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): McpConfig | null {
  if (file === undefined) return null;
  const full = path.resolve(file);
  const fail = (problem: string) => new ConfigError(`KESOKU_MCP_CONFIG (${full}): ${problem}`);
  let text: string;
  try {
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    throw fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw fail(`is not valid JSON: ${(err as Error).message}`);
  }
  const top = fileSchema.safeParse(json);
  if (!top.success) throw fail(`needs "mcpServers", an object of servers by name (${firstIssue(top.error)})`);
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(top.data.mcpServers)) {
    try {
      const server = parseServer(name, raw, env, path.dirname(full));
      if (server) servers.push(server);
    } catch (err) {
      throw fail(`server "${name}": ${(err as Error).message}`);
    }
  }
  return { file: full, servers };
}

/** `*` matches any run of characters; everything else itself. */
function globMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(name);
}

/** Whether the server's tool `tool` (its own name) is offered: `enabledTools`, then `include`, then `exclude`. */
export function isToolEnabled(server: McpServerConfig, tool: string): boolean {
  if (server.enabledTools && !server.enabledTools.includes(tool)) return false;
  if (server.include && !server.include.some((p) => globMatches(p, tool))) return false;
  if (server.exclude?.some((p) => globMatches(p, tool))) return false;
  return true;
}

/** The approval of the server's tool `tool`: its own `toolApproval`, else the server's `approval`. */
export function approvalOf(server: McpServerConfig, tool: string): McpApproval {
  return server.toolApproval[tool] ?? server.approval;
}

/**
 * The MCP configuration file (activities/mcp/config.ts): the `mcpServers` shape other clients use, defaults,
 * environment expansion, tool filters and approvals, and one clear line naming the server and field for a bad
 * file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalOf, expandEnv, isToolEnabled, loadMcpConfig, type McpServerConfig } from './config.ts';
import { ConfigError } from '../../infra/config.ts';

function fileWith(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-mcp-config-'));
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** The ConfigError message of loading `content`. */
function problemOf(content: unknown, env: NodeJS.ProcessEnv = {}): string {
  const file = fileWith(content);
  try {
    loadMcpConfig(file, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message.startsWith(`KESOKU_MCP_CONFIG (${file}): `)).toBe(true);
    return message.slice(`KESOKU_MCP_CONFIG (${file}): `.length);
  }
  throw new Error('no error');
}

describe('loadMcpConfig', () => {
  it('is null without a file', () => {
    expect(loadMcpConfig(undefined)).toBeNull();
  });

  it('reads a Claude-style file: stdio and Streamable HTTP servers with the documented defaults', () => {
    const file = fileWith({
      globalShortcut: 'ignored: another client’s setting',
      mcpServers: {
        files: { command: 'node', args: ['server.js'], env: { ROOT: '/srv' }, cwd: 'srv', paths: ['lib'] },
        github: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
        off: { command: 'x', disabled: true },
      },
    });
    const config = loadMcpConfig(file, {})!;
    const dir = path.dirname(file);
    expect(config.file).toBe(file);
    expect(config.servers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'node',
        args: ['server.js'],
        env: { ROOT: '/srv' },
        cwd: path.join(dir, 'srv'),
        paths: [path.join(dir, 'lib')],
        toolTimeoutMs: 30_000,
        approval: 'ask',
        toolApproval: {},
      },
      {
        name: 'github',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer x' },
        toolTimeoutMs: 30_000,
        approval: 'ask',
        toolApproval: {},
      },
    ]);
  });

  it('expands ${NAME} and ${NAME:-default} in every string from the environment', () => {
    const file = fileWith({
      mcpServers: {
        gh: {
          url: 'https://${HOST}/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}', X: '${MISSING:-none}' },
        },
      },
    });
    const [gh] = loadMcpConfig(file, { HOST: 'mcp.example.com', TOKEN: 's3cret' })!.servers;
    expect(gh).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer s3cret', X: 'none' },
    });
    expect(expandEnv('a${B}c', { B: 'b' })).toBe('abc');
  });

  it('names the server and the field of a bad setting in one line', () => {
    expect(problemOf({ mcpServers: { gh: { url: 'ftp://x' } } })).toBe(
      'server "gh": url: must be an http:// or https:// URL',
    );
    expect(problemOf({ mcpServers: { gh: { url: 'https://x/${TOKEN}' } } })).toBe(
      'server "gh": url: ${TOKEN} is not set in the environment',
    );
    expect(problemOf({ mcpServers: { gh: { url: 'https://x', headers: { A: '${T}' } } } })).toBe(
      'server "gh": headers.A: ${T} is not set in the environment',
    );
    expect(problemOf({ mcpServers: { files: { command: 'node', toolTimeout: -1 } } })).toBe(
      'server "files": toolTimeout: must be a positive number of seconds',
    );
    expect(problemOf({ mcpServers: { files: { command: 'node', toolTimeout: '30s' } } })).toBe(
      'server "files": toolTimeout: must be a number of seconds',
    );
    expect(problemOf({ mcpServers: { files: { command: 'node', toolTimeot: 5 } } })).toBe(
      'server "files": toolTimeot: not a known setting',
    );
    expect(problemOf({ mcpServers: { files: { command: 'node', approval: 'never' } } })).toBe(
      'server "files": approval: must be "ask" or "auto"',
    );
    expect(problemOf({ mcpServers: { files: { command: 'node', args: 'x' } } })).toMatch(
      /^server "files": args: /,
    );
    expect(problemOf({ mcpServers: { x: {} } })).toBe(
      'server "x": needs "command" (stdio) or "url" (Streamable HTTP)',
    );
    expect(problemOf({ mcpServers: { x: { command: 'a', url: 'https://b' } } })).toBe(
      'server "x": has both "command" and "url": a server is either stdio or HTTP',
    );
    expect(problemOf({ mcpServers: { x: { type: 'sse', url: 'https://b/sse' } } })).toMatch(
      /^server "x": type: the SSE transport is not supported/,
    );
    expect(problemOf({ mcpServers: { x: 'node' } })).toMatch(/^server "x": must be an object/);
  });

  it('names a file that cannot be read, is not JSON or has no mcpServers', () => {
    expect(() => loadMcpConfig('/nonexistent/mcp.json')).toThrow(
      'KESOKU_MCP_CONFIG (/nonexistent/mcp.json): cannot be read (ENOENT)',
    );
    expect(problemOf('{ "mcpServers": ')).toMatch(/^is not valid JSON: /);
    expect(problemOf({ servers: {} })).toMatch(/^needs "mcpServers", an object of servers by name/);
  });
});

describe('tool filters and approvals', () => {
  const server = (over: Partial<McpServerConfig>): McpServerConfig =>
    ({
      name: 's',
      transport: 'http',
      url: 'https://x',
      headers: {},
      toolTimeoutMs: 1000,
      approval: 'ask',
      toolApproval: {},
      ...over,
    }) as McpServerConfig;

  it('offers enabledTools only, then include globs, less exclude globs', () => {
    expect(isToolEnabled(server({}), 'anything')).toBe(true);
    expect(isToolEnabled(server({ enabledTools: ['read'] }), 'read')).toBe(true);
    expect(isToolEnabled(server({ enabledTools: ['read'] }), 'write')).toBe(false);
    const globbed = server({ include: ['get_*', 'list.*'], exclude: ['get_secret*'] });
    expect(
      ['get_issue', 'list.repos', 'get_secret_key', 'delete'].filter((t) => isToolEnabled(globbed, t)),
    ).toEqual(['get_issue', 'list.repos']);
  });

  it('takes a tool’s own approval, else the server’s (default ask)', () => {
    const s = server({ approval: 'auto', toolApproval: { delete_repo: 'ask' } });
    expect(approvalOf(s, 'delete_repo')).toBe('ask');
    expect(approvalOf(s, 'list')).toBe('auto');
    expect(approvalOf(server({}), 'list')).toBe('ask');
  });
});

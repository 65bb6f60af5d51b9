/**
 * Provider-safe names of MCP tools (activities/mcp/names.ts) and how people see them (domain/tool-label.ts):
 * `mcp__<server>__<tool>` within `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`, unique, deterministic, and parsed back into
 * the server and tool parts.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SLUG_CHARS, TOOL_NAME_PATTERN, serverSlugs, toolNames } from './names.ts';
import { mcpNameParts, toolLabel } from '../../domain/tool-label.ts';

describe('serverSlugs', () => {
  it('keeps plain keys and makes odd ones safe: a leading digit, dots, spaces, runs of underscores', () => {
    const slugs = serverSlugs(['github', '1st.server', 'my server', 'a__b', '_x_', '..']);
    expect(slugs.get('github')).toBe('github');
    expect(slugs.get('1st.server')).toBe('1st_server');
    expect(slugs.get('my server')).toBe('my_server');
    expect(slugs.get('a__b')).toBe('a_b');
    expect(slugs.get('_x_')).toBe('x');
    expect(slugs.get('..')).toMatch(/^server_[0-9a-f]{6}$/);
    for (const slug of slugs.values()) expect(slug).not.toMatch(/__|^_|_$/);
  });

  it('resolves keys that collide the same way whatever their order: the key that is its own slug keeps it', () => {
    const a = serverSlugs(['odd.srv', 'odd_srv', 'odd srv']);
    const b = serverSlugs(['odd srv', 'odd_srv', 'odd.srv']);
    expect(a).toEqual(b);
    expect(a.get('odd_srv')).toBe('odd_srv');
    expect(a.get('odd.srv')).toMatch(/^odd_srv_[0-9a-f]{6}$/);
    expect(a.get('odd srv')).toMatch(/^odd_srv_[0-9a-f]{6}$/);
    expect(new Set(a.values()).size).toBe(3);
  });

  it('cuts long keys to the slug length with a hash', () => {
    const key = 'a-very-long-server-name-for-the-company-wiki';
    const slug = serverSlugs([key]).get(key)!;
    expect(slug.length).toBeLessThanOrEqual(MAX_SLUG_CHARS);
    expect(slug).toMatch(/^a-very-long-serve_[0-9a-f]{6}$/);
  });
});

describe('toolNames', () => {
  it('gives every tool a name providers accept, unique per server, and the same one every time', () => {
    const long = `summarise_${'quarterly_report_'.repeat(3)}in.detail`;
    expect(long).toHaveLength(70);
    const tools = ['greet', 'files.read', 'files_read', long, 'émoji✨', ''];
    const names = toolNames('1st_odd', tools);
    expect(toolNames('1st_odd', [...tools].reverse())).toEqual(names);
    expect(names.get('greet')).toBe('mcp__1st_odd__greet');
    expect(names.get('files_read')).toBe('mcp__1st_odd__files_read');
    expect(names.get('files.read')).toMatch(/^mcp__1st_odd__files_read_[0-9a-f]{6}$/);
    expect(names.get(long)!.length).toBe(64);
    expect(names.get(long)).toMatch(/^mcp__1st_odd__summarise_quarterly_report_.*_[0-9a-f]{6}$/);
    for (const name of names.values()) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(new Set(names.values()).size).toBe(tools.length);
  });

  it('leaves room for the longest slug', () => {
    const slug = 'x'.repeat(MAX_SLUG_CHARS);
    const tool = 't'.repeat(200);
    const name = toolNames(slug, [tool, `${tool}.`]);
    for (const n of name.values()) {
      expect(n).toMatch(TOOL_NAME_PATTERN);
      expect(mcpNameParts(n)?.server).toBe(slug);
    }
    expect(new Set(name.values()).size).toBe(2);
  });
});

describe('toolLabel', () => {
  it('names the server and the tool of an MCP tool, and any other tool by its name', () => {
    expect(toolLabel('mcp__github__create_issue')).toBe('github › create_issue');
    expect(toolLabel('mcp__1st_odd___private')).toBe('1st_odd › _private');
    expect(toolLabel('run_shell_command')).toBe('run_shell_command');
    expect(toolLabel('mcp__broken')).toBe('mcp__broken');
    expect(mcpNameParts('mcp__a__b__c')).toEqual({ server: 'a', tool: 'b__c' });
  });
});

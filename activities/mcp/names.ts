/**
 * The names MCP tools are offered under: `mcp__<server>__<tool>`, matching `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$` (what
 * every provider accepts), unique, and the same on every worker with the same configuration and tool lists.
 *
 * - The server part ("slug") comes from the server's key alone: characters outside `[A-Za-z0-9_-]` become `_`,
 *   runs of `_` become one, and it never starts or ends with `_`, so it holds no `__` and the first `__` after the
 *   prefix always ends it. At most {@link MAX_SLUG_CHARS} characters. Keys that give the same slug keep it in
 *   order (the key that is its own slug first, then by key); the others get `_<hash>` of their key.
 * - The tool part comes from the tool's own name the same way (only `_` replacement), cut to what is left of the
 *   64 characters; a cut name ends in `_<hash>` of the tool's name, and tools of one server that give the same
 *   part are told apart the same way as servers.
 * `<hash>` is 6 hex digits of the SHA-256 of the original name.
 */
import { createHash } from 'node:crypto';
import { MCP_TOOL_PREFIX } from '../../domain/tool-label.ts';

/** What every offered name matches. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** Longest offered name, in characters. */
export const MAX_TOOL_NAME_CHARS = 64;
/** Longest server part, in characters. */
export const MAX_SLUG_CHARS = 24;

const HASH_CHARS = 6;

function hashOf(original: string): string {
  return createHash('sha256').update(original, 'utf8').digest('hex').slice(0, HASH_CHARS);
}

/** `text` cut to `max` characters with `_<hash of original>` at the end. */
function withHash(text: string, original: string, max: number): string {
  return `${text.slice(0, max - HASH_CHARS - 1).replace(/_+$/, '')}_${hashOf(original)}`;
}

/**
 * Unique names for `originals` from `base` (each original's preferred name, at most `max` characters): the
 * original that is its own base first, then in code-unit order, keeps its base; the others get a hash suffix
 * (and, should that collide too, a counter).
 */
function resolveCollisions(
  originals: readonly string[],
  base: (original: string) => string,
  max: number,
): Map<string, string> {
  const order = [...new Set(originals)].sort((a, b) => {
    const selfA = base(a) === a ? 0 : 1;
    const selfB = base(b) === b ? 0 : 1;
    return selfA - selfB || (a < b ? -1 : a > b ? 1 : 0);
  });
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const original of order) {
    let name = base(original);
    if (taken.has(name)) name = withHash(name, original, max);
    for (let n = 2; taken.has(name); n++)
      name = `${withHash(name, original, max - String(n).length - 1)}_${n}`;
    taken.add(name);
    out.set(original, name);
  }
  return out;
}

const sanitize = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

/** The preferred slug of a server key (before collisions): see the module comment. */
function slugBase(key: string): string {
  const s = sanitize(key)
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  if (s === '') return withHash('server', key, MAX_SLUG_CHARS);
  return s.length > MAX_SLUG_CHARS ? withHash(s, key, MAX_SLUG_CHARS).replace(/^_+/, '') : s;
}

/**
 * The slug of each server key (the `<server>` part of its tools' names), unique among `keys`.
 * @returns key → slug
 */
export function serverSlugs(keys: readonly string[]): Map<string, string> {
  return resolveCollisions(keys, slugBase, MAX_SLUG_CHARS);
}

/**
 * The offered name of each tool of one server, unique among `tools` (the server's own tool names).
 * @param slug the server's slug ({@link serverSlugs})
 * @returns tool name → offered name, each matching {@link TOOL_NAME_PATTERN}
 */
export function toolNames(slug: string, tools: readonly string[]): Map<string, string> {
  const prefix = `${MCP_TOOL_PREFIX}${slug}__`;
  const room = MAX_TOOL_NAME_CHARS - prefix.length;
  const partBase = (tool: string) => {
    const s = sanitize(tool);
    if (s === '') return withHash('tool', tool, room);
    return s.length > room ? withHash(s, tool, room) : s;
  };
  const parts = resolveCollisions(tools, partBase, room);
  return new Map([...parts].map(([tool, part]) => [tool, `${prefix}${part}`]));
}

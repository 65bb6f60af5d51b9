/**
 * The `read_file` and `write_file` tools (docs/architecture.md "Tools"): paths are relative to the session's workspace and
 * must stay inside it, also after following symbolic links.
 *
 * The containment check keeps the model's mistakes inside the workspace; it is not a sandbox (the model also has
 * `run_shell_command`), and a link swapped between the check and the open is not guarded against.
 */
import { chown, lstat, mkdir, open, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolExecutionError, ToolInputError } from './errors.ts';
import { clip, parseToolArgs } from './tool.ts';
import type { ToolResult } from './tool.ts';
import { utf8CutBack } from './utf8.ts';
import type { Sandbox } from './sandbox.ts';

/** Bytes `read_file` returns when the model gives no `max_bytes`. */
export const DEFAULT_READ_BYTES = 256 * 1024;
/** Largest `max_bytes` the model may ask for. */
export const MAX_READ_BYTES = 1024 * 1024;
/** Largest `content` `write_file` accepts, in bytes of UTF-8. */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;

const workspacePath = z
  .string()
  .min(1)
  .refine((s) => !s.includes('\0'), { message: 'must not contain NUL characters' });

/** Arguments of `read_file`. */
export const readFileArgsSchema = z.strictObject({
  path: workspacePath.describe('File to read, relative to the workspace directory.'),
  max_bytes: z
    .number()
    .int()
    .min(1)
    .max(MAX_READ_BYTES)
    .optional()
    .describe(`Read at most this many bytes from the start of the file (default ${DEFAULT_READ_BYTES}).`),
});

/** Arguments of `write_file`. */
export const writeFileArgsSchema = z.strictObject({
  path: workspacePath.describe(
    'File to write, relative to the workspace directory. Parent directories are created.',
  ),
  content: z
    .string()
    .max(MAX_WRITE_BYTES)
    .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_WRITE_BYTES, {
      message: `must be at most ${MAX_WRITE_BYTES} bytes of UTF-8`,
    })
    .describe('Text to write (UTF-8).'),
  append: z.boolean().optional().describe('Append to the file instead of replacing it (default false).'),
});

/** `read_file` arguments before validation. */
export type ReadFileArgs = z.input<typeof readFileArgsSchema>;
/** `write_file` arguments before validation. */
export type WriteFileArgs = z.input<typeof writeFileArgsSchema>;

/** What the file tools need from the host. */
export interface FileToolContext {
  /** The session's workspace directory; every path is resolved against it. */
  workspaceDir: string;
  /**
   * The shell tool's sandbox: when commands run as another user (a root worker), what write_file creates is
   * given to that user, so commands can change it.
   */
  sandbox?: Sandbox;
}

/**
 * Reads a UTF-8 text file from the workspace.
 *
 * Returns at most `max_bytes` (default {@link DEFAULT_READ_BYTES}) from the start, cut on a character boundary,
 * followed by a `[… truncated: …]` note when the file is longer. A file with NUL bytes is reported as binary
 * instead of shown. `summary` is e.g. `read src/a.ts (1234 bytes)`.
 *
 * @throws {ToolInputError} invalid arguments; a path outside the workspace (absolute, `..`, or through a symbolic
 *   link); a missing file, a directory or another non-regular file; permission denied.
 * @throws {ToolExecutionError} any other file system failure.
 */
export async function readFileTool(args: ReadFileArgs, ctx: FileToolContext): Promise<ToolResult> {
  const { path: requested, max_bytes: maxBytes = DEFAULT_READ_BYTES } = parseToolArgs(
    readFileArgsSchema,
    args,
    'read_file',
  );
  const { absolute, display } = await resolveInWorkspace(ctx.workspaceDir, requested);
  const { size, bytes } = await fsCall(display, async () => {
    const info = await stat(absolute);
    if (info.isDirectory()) {
      throw new ToolInputError(`"${display}" is a directory; list it with run_shell_command (ls) instead`);
    }
    if (!info.isFile()) throw new ToolInputError(`"${display}" is not a regular file`);
    return { size: info.size, bytes: await readHead(absolute, maxBytes + 1) };
  });

  const total = Math.max(size, bytes.length);
  if (bytes.subarray(0, maxBytes).includes(0)) {
    return {
      content: `[binary file: ${display}, ${total} bytes; not shown]`,
      summary: clip(`binary file ${display} (${total} bytes)`),
    };
  }
  if (bytes.length <= maxBytes) {
    return { content: bytes.toString('utf8'), summary: clip(`read ${display} (${total} bytes)`) };
  }
  const shown = bytes.subarray(0, utf8CutBack(bytes, maxBytes));
  return {
    content:
      `${shown.toString('utf8')}\n[… truncated: showed the first ${shown.length} of ${total} bytes; ` +
      `ask for more with max_bytes (at most ${MAX_READ_BYTES}) or read the rest with run_shell_command …]`,
    summary: clip(`read first ${shown.length} of ${total} bytes of ${display}`),
  };
}

/**
 * Writes (or with `append: true`, appends) UTF-8 text to a file in the workspace, creating the workspace and the
 * parent directories as needed. `summary` is e.g. `wrote 12 bytes to notes/a.txt`.
 *
 * @throws {ToolInputError} invalid arguments; a path outside the workspace (absolute, `..`, or through a symbolic
 *   link); the path is a directory or a parent is a file; permission denied.
 * @throws {ToolExecutionError} any other file system failure (e.g. disk full).
 */
export async function writeFileTool(args: WriteFileArgs, ctx: FileToolContext): Promise<ToolResult> {
  const { path: requested, content, append = false } = parseToolArgs(writeFileArgsSchema, args, 'write_file');
  await mkdir(ctx.workspaceDir, { recursive: true });
  const { absolute, display } = await resolveInWorkspace(ctx.workspaceDir, requested);
  if (display === '.')
    throw new ToolInputError(`"${requested}" is the workspace directory itself, not a file`);
  await fsCall(display, async () => {
    const firstCreated = await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content, { flag: append ? 'a' : 'w' });
    const uid =
      ctx.sandbox?.kind === 'bwrap' && process.getuid?.() === 0 ? ctx.sandbox.settings.uid : undefined;
    if (uid !== undefined) {
      // The new directories (from the first one mkdir created down to the file's) and the file itself.
      if (firstCreated !== undefined) {
        for (let dir = path.dirname(absolute); isWithin(firstCreated, dir); dir = path.dirname(dir))
          await chown(dir, uid, uid);
      }
      await chown(absolute, uid, uid);
    }
  });
  const bytes = Buffer.byteLength(content, 'utf8');
  const verb = append ? 'appended' : 'wrote';
  return {
    content: `${append ? 'Appended' : 'Wrote'} ${bytes} bytes to ${display}.`,
    summary: clip(`${verb} ${bytes} bytes to ${display}`),
  };
}

/**
 * Resolves `requested` against the workspace and checks it stays inside: lexically (no absolute path elsewhere,
 * no `..` escape), and physically (the real path of the nearest existing ancestor, or of the path itself, is inside
 * the workspace's real path).
 *
 * @returns the absolute path to use and the workspace-relative path to show (`.` for the workspace itself).
 * @throws {ToolInputError} when the path leaves the workspace, goes through a link that cannot be resolved, or the
 *   workspace does not exist.
 */
export async function resolveInWorkspace(
  workspaceDir: string,
  requested: string,
): Promise<{ absolute: string; display: string }> {
  const root = path.resolve(workspaceDir);
  const absolute = path.resolve(root, requested);
  const outside = new ToolInputError(
    `path "${requested}" is outside the workspace; use a path relative to the workspace directory`,
  );
  if (!isInside(root, absolute)) throw outside;

  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    throw new ToolInputError(`file not found: ${requested} (the workspace does not exist yet)`);
  }
  let probe = absolute;
  while (probe !== root && !(await exists(probe))) probe = path.dirname(probe);
  let real: string;
  try {
    real = await realpath(probe);
  } catch {
    throw new ToolInputError(`path "${requested}" goes through a symbolic link that cannot be resolved`);
  }
  if (!isInside(realRoot, real)) {
    throw new ToolInputError(`path "${requested}" leads outside the workspace through a symbolic link`);
  }
  return { absolute, display: path.relative(root, absolute) || '.' };
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** True when the entry itself exists (a dangling symbolic link counts). */
async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
}

/** Reads up to `limit` bytes from the start of a file. */
async function readHead(file: string, limit: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(limit);
    let filled = 0;
    while (filled < limit) {
      const { bytesRead } = await handle.read(buf, filled, limit - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buf.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Runs a file system operation, turning the errors the model can act on into `ToolInputError`s. */
async function fsCall<T>(display: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof ToolInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    switch (code) {
      case 'ENOENT':
        throw new ToolInputError(`file not found: ${display}`, { cause: err });
      case 'EISDIR':
        throw new ToolInputError(`"${display}" is a directory`, { cause: err });
      case 'ENOTDIR':
      case 'EEXIST':
        throw new ToolInputError(`a parent of "${display}" is not a directory`, { cause: err });
      case 'EACCES':
      case 'EPERM':
        throw new ToolInputError(`permission denied: ${display}`, { cause: err });
      case 'ELOOP':
        throw new ToolInputError(`too many symbolic links in "${display}"`, { cause: err });
      default:
        throw new ToolExecutionError(`file system error on "${display}": ${code ?? 'unknown'}`, {
          cause: err,
        });
    }
  }
}

function isWithin(ancestor: string, dir: string): boolean {
  const rel = path.relative(ancestor, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

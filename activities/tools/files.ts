/**
 * The `read_file` and `write_file` tools (docs/architecture.md "Tools", docs/sandbox.md): paths are relative to
 * the session's workspace and must stay inside it (or, for reading, in the session's attachments, which the
 * workspace's `attachments` link leads to), also after following symbolic links.
 *
 * Neither tool ever opens a path in the worker's own view of the file system, where a link a command planted
 * could lead anywhere the worker can reach:
 * - in the sandbox (kind `bwrap`), the file is read or written by a tiny `sh` helper inside the same bwrap
 *   sandbox the commands use, as the same user, so every link resolves in the sandbox's view, where the data
 *   dir, other workspaces and every secret do not exist;
 * - without a sandbox (KESOKU_SANDBOX=off), every path component is opened relative to the directory before it
 *   without following links (infra/safe-fs.ts); links are resolved by this module, within the workspace.
 * Every failure is a tool error the model sees (never a failed activity that would be retried).
 */
import fs, { constants as c } from 'node:fs';
import { readlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readHeadOf } from '../../infra/attachments-store.ts';
import { SafeDir } from '../../infra/safe-fs.ts';
import { attachmentsDirOfWorkspace } from '../../infra/workspace.ts';
import { ToolError, ToolExecutionError, ToolInputError } from './errors.ts';
import { clip, parseToolArgs } from './tool.ts';
import type { ToolResult } from './tool.ts';
import { utf8CutBack } from './utf8.ts';
import { prepareWorkspace, runCollected, sandboxRefusal, type Sandbox } from './sandbox.ts';
import { checkWorkspaceQuota, forgetUsage } from './workspace-limits.ts';

/** Bytes `read_file` returns when the model gives no `max_bytes`. */
export const DEFAULT_READ_BYTES = 256 * 1024;
/** Largest `max_bytes` the model may ask for. */
export const MAX_READ_BYTES = 1024 * 1024;
/** Largest `content` `write_file` accepts, in bytes of UTF-8. */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;
/** Longest a file tool's helper may run in the sandbox, in ms (a FIFO in place of a file would block it). */
export const FILE_TOOL_TIMEOUT_MS = 30_000;

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
  /** The tools' sandbox: `bwrap` runs the file operation in it, `off` without one; `unavailable` or none refuses. */
  sandbox: Sandbox | undefined;
  /** Aborting stops the helper in the sandbox. */
  signal?: AbortSignal;
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
 * @throws {ToolExecutionError} no sandbox can run, or any other file system failure.
 */
export async function readFileTool(args: ReadFileArgs, ctx: FileToolContext): Promise<ToolResult> {
  const { path: requested, max_bytes: maxBytes = DEFAULT_READ_BYTES } = parseToolArgs(
    readFileArgsSchema,
    args,
    'read_file',
  );
  const sandbox = usableSandbox(ctx);
  return asToolError(requested, async () => {
    const { relative, display } = lexicalPath(ctx.workspaceDir, requested);
    if (relative.length === 0)
      throw new ToolInputError(
        `"${requested}" is the workspace directory itself; list it with run_shell_command (ls) instead`,
      );
    await prepareWorkspace(sandbox, ctx.workspaceDir);
    const { size, bytes } =
      sandbox.kind === 'bwrap'
        ? await readInSandbox(sandbox, ctx, relative, display, maxBytes + 1)
        : await readBeneath(ctx.workspaceDir, relative, display, maxBytes + 1);
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
  });
}

/**
 * Writes (or with `append: true`, appends) UTF-8 text to a file in the workspace, creating the workspace and the
 * parent directories as needed. `summary` is e.g. `wrote 12 bytes to notes/a.txt`.
 *
 * @throws {ToolInputError} invalid arguments; a path outside the workspace (absolute, `..`, or through a symbolic
 *   link); the path is a directory or a parent is a file; permission denied; the workspace is over its quota.
 * @throws {ToolExecutionError} no sandbox can run, or any other file system failure (e.g. disk full).
 */
export async function writeFileTool(args: WriteFileArgs, ctx: FileToolContext): Promise<ToolResult> {
  const { path: requested, content, append = false } = parseToolArgs(writeFileArgsSchema, args, 'write_file');
  const sandbox = usableSandbox(ctx);
  const bytes = Buffer.from(content, 'utf8');
  await asToolError(requested, async () => {
    const { relative, display } = lexicalPath(ctx.workspaceDir, requested);
    if (relative.length === 0)
      throw new ToolInputError(`"${requested}" is the workspace directory itself, not a file`);
    await prepareWorkspace(sandbox, ctx.workspaceDir);
    await checkWorkspaceQuota(sandbox, ctx.workspaceDir, bytes.length);
    if (sandbox.kind === 'bwrap') await writeInSandbox(sandbox, ctx, relative, display, bytes, append);
    else await writeBeneath(ctx.workspaceDir, relative, display, bytes, append);
    forgetUsage(ctx.workspaceDir);
  });
  const display = lexicalPath(ctx.workspaceDir, requested).display;
  const verb = append ? 'appended' : 'wrote';
  return {
    content: `${append ? 'Appended' : 'Wrote'} ${bytes.length} bytes to ${display}.`,
    summary: clip(`${verb} ${bytes.length} bytes to ${display}`),
  };
}

function usableSandbox(ctx: FileToolContext): Sandbox {
  const refusal = sandboxRefusal(ctx.sandbox);
  if (refusal) throw refusal;
  return ctx.sandbox!;
}

/**
 * The requested path as components relative to the workspace, checked lexically (an absolute path must lie in
 * the workspace; `..` may not climb out of it).
 * @throws {ToolInputError} when it leaves the workspace
 */
export function lexicalPath(
  workspaceDir: string,
  requested: string,
): { relative: string[]; display: string } {
  const root = path.resolve(workspaceDir);
  const absolute = path.resolve(root, requested);
  const rel = path.relative(root, absolute);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new ToolInputError(
      `path "${requested}" is outside the workspace; use a path relative to the workspace directory`,
    );
  }
  return { relative: rel === '' ? [] : rel.split(path.sep), display: rel || '.' };
}

/** Runs a file operation, making every error the model's to see (a tool error), never a thrown fault. */
async function asToolError<T>(requested: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw errnoToToolError(requested, err);
  }
}

/** The tool error for a file system error code (`ENOENT`, `ELOOP` …) on `display`. */
function errnoToToolError(display: string, err: unknown): ToolError {
  const code = (err as NodeJS.ErrnoException).code;
  const options = { cause: err };
  switch (code) {
    case 'ENOENT':
      return new ToolInputError(`file not found: ${display}`, options);
    case 'EISDIR':
      return new ToolInputError(`"${display}" is a directory`, options);
    case 'ENOTDIR':
    case 'EEXIST':
      return new ToolInputError(`a parent of "${display}" is not a directory`, options);
    case 'EACCES':
    case 'EPERM':
      return new ToolInputError(`permission denied: ${display}`, options);
    case 'ELOOP':
      return new ToolInputError(
        `"${display}" changed while it was opened, or has too many symbolic links on the way`,
        options,
      );
    case 'EINVAL':
    case 'ENXIO':
      return new ToolInputError(`"${display}" is not a regular file`, options);
    case 'EROFS':
      return new ToolInputError(
        `"${display}" is read-only (attachments cannot be changed; copy one to change it)`,
        options,
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new ToolInputError(`no space left to write "${display}"`, options);
    case 'EFBIG':
      return new ToolInputError(`"${display}" is over the sandbox's file size limit`, options);
    default:
      return new ToolExecutionError(`file system error on "${display}": ${code ?? 'unknown'}`, options);
  }
}

// --- In the sandbox -------------------------------------------------------------------------------------------

/**
 * Prints `OK <size>` and the first `$3` bytes of `$1`, or one `ERR <code>` line, where the code is an errno
 * name. `$1` must resolve (links followed, in the sandbox's view) inside `$2` or `$4` (the attachments).
 */
const READ_HELPER = `
export LC_ALL=C
p=$1; ws=$2; n=$3; att=$4
r=$(realpath -e -- "$p" 2>/dev/null) || {
  m=$(realpath -m -- "$p" 2>/dev/null) || { echo "ERR ELOOP"; exit 0; }
  case $m in "$ws"/*) if [ -L "$p" ]; then echo "ERR ELOOP"; else echo "ERR ENOENT"; fi ;; *) echo "ERR EOUTSIDE" ;; esac
  exit 0
}
case $r in "$ws"/*) ;; "$att"/*) [ -n "$att" ] || { echo "ERR EOUTSIDE"; exit 0; } ;; *) echo "ERR EOUTSIDE"; exit 0 ;; esac
if [ -d "$r" ]; then echo "ERR EISDIR"; exit 0; fi
if [ ! -f "$r" ]; then echo "ERR EINVAL"; exit 0; fi
if [ ! -r "$r" ]; then echo "ERR EACCES"; exit 0; fi
size=$(stat -c %s -- "$r") || { echo "ERR EIO"; exit 0; }
echo "OK $size"
exec head -c "$n" -- "$r"
`;

/**
 * Writes stdin to `$1` (`$3` = a: append), creating its parents; prints `OK` or an `ERR` line. The path,
 * links followed in the sandbox's view, must stay inside `$2` (inside the attachments `$4` it is read-only).
 */
const WRITE_HELPER = `
export LC_ALL=C
p=$1; ws=$2; mode=$3; att=$4
r=$(realpath -m -- "$p" 2>/dev/null) || { echo "ERR ELOOP"; exit 0; }
case $r in "$ws"/*) ;; *) if [ -n "$att" ] && case $r in "$att"/*) true;; *) false;; esac; then echo "ERR EROFS"; else echo "ERR EOUTSIDE"; fi; exit 0 ;; esac
if [ -d "$r" ]; then echo "ERR EISDIR"; exit 0; fi
err=$(mkdir -p -- "\${r%/*}" 2>&1) || { echo "ERR $err"; exit 0; }
if [ -e "$r" ] && [ ! -f "$r" ]; then echo "ERR EINVAL"; exit 0; fi
if [ "$mode" = a ]; then err=$( { cat >> "$r"; } 2>&1 ); else err=$( { cat > "$r"; } 2>&1 ); fi || { echo "ERR $err"; exit 0; }
echo OK
`;

/** Maps an `ERR …` line of a helper (an errno name, or an error message) to a tool error. */
function helperError(line: string, display: string): ToolError {
  const what = line.replace(/^ERR\s*/, '');
  if (what === 'EOUTSIDE')
    return new ToolInputError(`path "${display}" leads outside the workspace through a symbolic link`);
  if (/^E[A-Z]+$/.test(what)) return errnoToToolError(display, { code: what });
  const byMessage: [RegExp, string][] = [
    [/Permission denied/, 'EACCES'],
    [/Not a directory|File exists|not a directory/, 'ENOTDIR'],
    [/Read-only file system/, 'EROFS'],
    [/No space left/, 'ENOSPC'],
    [/Disk quota exceeded/, 'EDQUOT'],
    [/Is a directory/, 'EISDIR'],
    [/File too large/, 'EFBIG'],
    [/Too many levels of symbolic links/, 'ELOOP'],
    [/No such file/, 'ENOENT'],
  ];
  for (const [re, code] of byMessage) if (re.test(what)) return errnoToToolError(display, { code });
  return new ToolExecutionError(`could not write "${display}": ${what.slice(0, 200)}`);
}

const helperEnv = { PATH: '/usr/bin:/bin', LC_ALL: 'C' };

async function readInSandbox(
  sandbox: Sandbox,
  ctx: FileToolContext,
  relative: string[],
  display: string,
  limit: number,
): Promise<{ size: number; bytes: Buffer }> {
  const ws = fs.realpathSync(ctx.workspaceDir);
  const attachments = attachmentsDirOfWorkspace(path.resolve(ctx.workspaceDir));
  const att = attachments !== undefined ? realOrSelf(attachments) : '';
  const run = await runCollected(
    sandbox,
    ['/bin/sh', '-c', READ_HELPER, 'kesoku-read', path.join(ws, ...relative), ws, String(limit), att],
    ws,
    {
      env: { ...helperEnv, HOME: ws },
      timeoutMs: FILE_TOOL_TIMEOUT_MS,
      maxOutput: limit + 64,
      ...signalOf(ctx),
    },
  );
  if (run.timedOut) throw new ToolInputError(`reading "${display}" did not finish (is it a pipe?)`);
  const nl = run.stdout.indexOf(0x0a);
  const first = (nl < 0 ? run.stdout : run.stdout.subarray(0, nl)).toString('utf8');
  if (first.startsWith('ERR')) throw helperError(first, display);
  const m = /^OK (\d+)$/.exec(first);
  if (!m) throw helperFailure('read', display, run);
  if (run.exitCode !== 0) throw helperError(`ERR ${run.stderr.toString('utf8')}`, display);
  return { size: Number(m[1]), bytes: run.stdout.subarray(nl + 1) };
}

async function writeInSandbox(
  sandbox: Sandbox,
  ctx: FileToolContext,
  relative: string[],
  display: string,
  bytes: Buffer,
  append: boolean,
): Promise<void> {
  const ws = fs.realpathSync(ctx.workspaceDir);
  const attachments = attachmentsDirOfWorkspace(path.resolve(ctx.workspaceDir));
  const att = attachments !== undefined ? realOrSelf(attachments) : '';
  const run = await runCollected(
    sandbox,
    ['/bin/sh', '-c', WRITE_HELPER, 'kesoku-write', path.join(ws, ...relative), ws, append ? 'a' : 'w', att],
    ws,
    { env: { ...helperEnv, HOME: ws }, input: bytes, timeoutMs: FILE_TOOL_TIMEOUT_MS, ...signalOf(ctx) },
  );
  if (run.timedOut) throw new ToolInputError(`writing "${display}" did not finish (is it a pipe?)`);
  const out = run.stdout.toString('utf8').trim().split('\n').at(-1) ?? '';
  if (out.startsWith('ERR')) throw helperError(out, display);
  if (out !== 'OK' || run.exitCode !== 0) {
    if (run.signal === 'SIGXFSZ') throw errnoToToolError(display, { code: 'EFBIG' });
    throw helperFailure('write', display, run);
  }
}

function signalOf(ctx: FileToolContext): { signal?: AbortSignal } {
  return ctx.signal ? { signal: ctx.signal } : {};
}

function helperFailure(
  verb: string,
  display: string,
  run: { exitCode: number | null; signal: string | null; stderr: Buffer },
): ToolExecutionError {
  const why =
    run.stderr.toString('utf8').trim().split('\n')[0]?.slice(0, 200) || `exit ${run.exitCode ?? run.signal}`;
  return new ToolExecutionError(`could not ${verb} "${display}" in the sandbox: ${why}`);
}

// --- Without a sandbox ----------------------------------------------------------------------------------------

/** A directory tree the walk may be in: the workspace (writable) or the session's attachments (read only). */
interface Root {
  dir: string;
  writable: boolean;
}

/** Links followed on one path before the walk gives up (as the kernel's limit). */
const MAX_LINKS = 40;

/**
 * Walks `components` from the workspace, opening each directory relative to the one before without following
 * links; a link is read and resolved here, and must stay inside the workspace (or lead into the session's
 * attachments, for reading). Missing directories are made with `create`.
 * @returns the open parent directory and the final name (the caller opens it with O_NOFOLLOW)
 */
async function walkBeneath(
  workspaceDir: string,
  components: string[],
  display: string,
  create: boolean,
): Promise<{ parent: SafeDir; name: string }> {
  const ws: Root = { dir: fs.realpathSync(workspaceDir), writable: true };
  const attachments = attachmentsDirOfWorkspace(path.resolve(workspaceDir));
  const roots: Root[] = [ws, ...(attachments ? [{ dir: realOrSelf(attachments), writable: false }] : [])];
  let root = ws;
  const stack: SafeDir[] = [await SafeDir.open(root.dir)];
  const closeAll = async () => {
    for (const d of stack.splice(0)) await d.close();
  };
  const outside = () =>
    new ToolInputError(`path "${display}" leads outside the workspace through a symbolic link`);
  try {
    const rest = [...components];
    let links = 0;
    while (rest.length > 0) {
      const name = rest.shift()!;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        if (stack.length === 1) throw outside();
        await stack.pop()!.close();
        continue;
      }
      const top = stack.at(-1)!;
      const st = await top.lstat(name);
      if (st?.isSymbolicLink()) {
        if (++links > MAX_LINKS) throw errnoToToolError(display, { code: 'ELOOP' });
        const target = await readlink(top.entry(name));
        if (path.isAbsolute(target)) {
          const to = roots.find((r) => r.dir === target || isWithin(r.dir, target));
          if (!to || (create && !to.writable))
            throw to ? errnoToToolError(display, { code: 'EROFS' }) : outside();
          await closeAll();
          root = to;
          stack.push(await SafeDir.open(root.dir));
          const rel = path.relative(root.dir, path.resolve(target));
          rest.unshift(...(rel === '' ? [] : rel.split(path.sep)));
        } else {
          rest.unshift(...target.split('/'));
        }
        continue;
      }
      if (rest.length === 0) {
        if (create && !root.writable) throw errnoToToolError(display, { code: 'EROFS' });
        const parent = stack.pop()!;
        await closeAll();
        return { parent, name };
      }
      let next: SafeDir;
      if (st === null) {
        if (!create) throw errnoToToolError(display, { code: 'ENOENT' });
        if (!root.writable) throw errnoToToolError(display, { code: 'EROFS' });
        next = await top.makeDir(name, 0o777 & ~currentUmask());
      } else if (!st.isDirectory()) {
        throw errnoToToolError(display, { code: 'ENOTDIR' });
      } else {
        next = await top.openDir(name);
      }
      stack.push(next);
    }
    throw new ToolInputError(`"${display}" is the workspace directory itself, not a file`);
  } catch (err) {
    await closeAll();
    throw err;
  }
}

function currentUmask(): number {
  const mask = process.umask(0o022);
  process.umask(mask);
  return mask;
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function isWithin(ancestor: string, p: string): boolean {
  const rel = path.relative(ancestor, path.resolve(p));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

async function readBeneath(
  workspaceDir: string,
  components: string[],
  display: string,
  limit: number,
): Promise<{ size: number; bytes: Buffer }> {
  const { parent, name } = await walkBeneath(workspaceDir, components, display, false);
  try {
    const st = await parent.lstat(name);
    if (st === null) throw errnoToToolError(display, { code: 'ENOENT' });
    if (st.isDirectory())
      throw new ToolInputError(`"${display}" is a directory; list it with run_shell_command (ls) instead`);
    return await readHeadOf(parent, name, limit);
  } finally {
    await parent.close();
  }
}

async function writeBeneath(
  workspaceDir: string,
  components: string[],
  display: string,
  bytes: Buffer,
  append: boolean,
): Promise<void> {
  const { parent, name } = await walkBeneath(workspaceDir, components, display, true);
  try {
    const st = await parent.lstat(name);
    if (st?.isDirectory()) throw new ToolInputError(`"${display}" is a directory`);
    const handle = await parent.openFile(name, c.O_WRONLY | c.O_CREAT | (append ? c.O_APPEND : 0), 0o666);
    try {
      if (!append) await handle.truncate(0);
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
  } finally {
    await parent.close();
  }
}

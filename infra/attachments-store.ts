/**
 * The one place attachment files are written, read back and removed (the REST API, the Discord and Google Chat
 * adapters, the model step, retention). Files live in `<dataDir>/attachments/<session dir>/<message dir>/`
 * (infra/workspace.ts), a tree no command can write: it is outside every workspace, hidden from the sandbox
 * except for the session's own directory, which is bound read-only.
 *
 * Every directory is opened from the data dir down without following links (infra/safe-fs.ts), made with one
 * non-recursive `mkdir` each, and every file is created with `O_EXCL|O_NOFOLLOW` under a temporary name, then
 * linked (or renamed) into place, so neither a planted link nor a concurrent writer can send bytes elsewhere or
 * leave a half-written file under the final name.
 *
 * Modes: the `attachments` folder 0700 (only Kesoku's user passes), below it directories 0755 and files 0644, so
 * the sandbox's user (another uid when the worker runs as root) can read what is bound into its sandbox.
 */
import { randomUUID } from 'node:crypto';
import { constants as c } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { isPlainName, SafeDir, SafeFsError } from './safe-fs.ts';
import {
  ATTACHMENTS_FOLDER,
  WORKSPACES_FOLDER,
  attachmentDirFor,
  messageDirName,
  sessionDirName,
} from './workspace.ts';

/** Where full tool output and the files tools returned are kept, per session (`<dataDir>/tool-output`). */
const TOOL_OUTPUT_FOLDER = 'tool-output';

/** Thrown when a stream delivers more than the allowed bytes; nothing is left under the final name. */
export class AttachmentTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`the file is over the ${maxBytes}-byte limit`);
    this.maxBytes = maxBytes;
  }
}

const DIR_MODE = 0o755;
const FILE_MODE = 0o644;
const ROOT_MODE = 0o700;

/** How {@link MessageAttachments.write} treats a file already stored under the name. */
export type ExistingFile = 'keep' | 'replace';

/** The attachment directory of one message, open for reading and writing files by name. */
export class MessageAttachments {
  private readonly dir: SafeDir;
  /** The directory's absolute path (what messages record as each file's `path`). */
  readonly path: string;

  private constructor(dir: SafeDir, where: string) {
    this.dir = dir;
    this.path = where;
  }

  /**
   * Opens (with `create`, making it and its parents) the attachment directory of `messageId` in `sessionId`.
   * @throws ELOOP/ENOTDIR when a link or a file stands where a directory should be; ENOENT without `create`
   */
  static async open(
    dataDir: string,
    sessionId: string,
    messageId: string,
    opts: { create: boolean },
  ): Promise<MessageAttachments> {
    let dir = await SafeDir.open(dataDir);
    try {
      const steps: [string, number][] = [
        [ATTACHMENTS_FOLDER, ROOT_MODE],
        [sessionDirName(sessionId), DIR_MODE],
        [messageDirName(messageId), DIR_MODE],
      ];
      for (const [name, mode] of steps) {
        const next = opts.create ? await dir.makeDir(name, mode) : await dir.openDir(name);
        await dir.close();
        dir = next;
      }
      return new MessageAttachments(dir, attachmentDirFor(dataDir, sessionId, messageId));
    } catch (err) {
      await dir.close();
      throw err;
    }
  }

  /** The absolute path of stored file `name`. */
  pathOf(name: string): string {
    return path.join(this.path, name);
  }

  /** The stored regular file `name`, or null when there is none. @throws ELOOP/EINVAL for anything else there */
  async existing(name: string): Promise<Stats | null> {
    const st = await this.dir.lstat(name);
    if (st === null) return null;
    if (!st.isFile()) throw new SafeFsError('EINVAL', `${this.pathOf(name)} is not a regular file`);
    return st;
  }

  /** The bytes of stored file `name`. */
  async read(name: string): Promise<Buffer> {
    const handle = await this.dir.openFile(name, c.O_RDONLY);
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /**
   * Stores `source` as file `name`: written to a new temporary file in the same directory (`O_EXCL|O_NOFOLLOW`),
   * then linked into place (`keep`: refused when the name is taken) or renamed over it (`replace`).
   * @returns `created` false when `keep` found the name taken (the new bytes are discarded); `size` in bytes
   * @throws AttachmentTooLargeError when more than `maxBytes` arrive (nothing is stored)
   */
  async write(
    name: string,
    source: Buffer | Readable,
    opts: { existing: ExistingFile; maxBytes?: number },
  ): Promise<{ created: boolean; size: number }> {
    const temporary = `.${name}.${randomUUID()}.part`;
    const handle = await this.dir.openFile(temporary, c.O_WRONLY | c.O_CREAT | c.O_EXCL, FILE_MODE);
    let size = 0;
    try {
      await handle.chmod(FILE_MODE);
      const limit = opts.maxBytes ?? Number.POSITIVE_INFINITY;
      if (Buffer.isBuffer(source)) {
        if (source.length > limit) throw new AttachmentTooLargeError(limit);
        await handle.writeFile(source);
        size = source.length;
      } else {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > limit) {
            source.destroy();
            throw new AttachmentTooLargeError(limit);
          }
          await handle.write(chunk);
        }
      }
      await handle.sync().catch(() => undefined);
    } catch (err) {
      await handle.close();
      await this.dir.unlink(temporary);
      throw err;
    }
    await handle.close();
    try {
      if (opts.existing === 'replace') {
        await this.dir.rename(temporary, name);
        return { created: true, size };
      }
      try {
        await this.dir.link(temporary, name);
        return { created: true, size };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { created: false, size };
        throw err;
      }
    } finally {
      await this.dir.unlink(temporary);
    }
  }

  /** Removes stored file `name` (missing is fine). */
  async remove(name: string): Promise<void> {
    await this.dir.unlink(name);
  }

  async close(): Promise<void> {
    await this.dir.close();
  }
}

/**
 * Removes the attachment directory of `messageId` when it is empty (after a refused post removed its files).
 * Never throws.
 */
export async function removeEmptyMessageDir(
  dataDir: string,
  sessionId: string,
  messageId: string,
): Promise<void> {
  try {
    const session = await SafeDir.openBeneath(dataDir, [ATTACHMENTS_FOLDER, sessionDirName(sessionId)]);
    try {
      await session.rmdir(messageDirName(messageId));
    } finally {
      await session.close();
    }
  } catch {
    // Not empty, not there, or not ours to remove.
  }
}

/**
 * Reads an attachment a message recorded at `file` for the model, opening every component without following
 * links, when `file` lies in the session's attachment directory `attachmentsDir`
 * (`<dataDir>/attachments/<session dir>`, as `<message dir>/<name>`) or, for messages stored before attachments
 * moved there, in its workspace `workspaceDir` (`attachments/<message dir>/<name>`).
 * @returns the file's size and at most `maxBytes` of its first bytes, or null when `file` is in neither place
 * @throws the open's error (ELOOP for a link, ENOENT, EINVAL for a file that is not regular …)
 */
export async function readStoredAttachment(
  where: { attachmentsDir?: string; workspaceDir: string },
  file: string,
  maxBytes: number,
): Promise<{ size: number; bytes: Buffer } | null> {
  const under = (base: string): string[] | null => {
    const rel = path.relative(base, path.resolve(file));
    if (rel === '' || path.isAbsolute(rel)) return null;
    const parts = rel.split(path.sep);
    return parts.every(isPlainName) ? parts : null;
  };
  let root: string;
  let parts: string[] | null = null;
  if (where.attachmentsDir !== undefined && (parts = under(where.attachmentsDir)) && parts.length === 2) {
    // The trusted root is the data dir: no component below it may be a link.
    root = path.dirname(path.dirname(where.attachmentsDir));
    parts = [ATTACHMENTS_FOLDER, path.basename(where.attachmentsDir), ...parts];
  } else if ((parts = under(where.workspaceDir)) && parts.length === 3 && parts[0] === ATTACHMENTS_FOLDER) {
    root = where.workspaceDir;
  } else {
    return null;
  }
  const dir = await SafeDir.openBeneath(root, parts.slice(0, -1));
  try {
    return await readHeadOf(dir, parts.at(-1)!, maxBytes);
  } finally {
    await dir.close();
  }
}

/**
 * Reads a file a tool result recorded at `file` (an image an MCP tool returned), when `file` is a plain name
 * directly in the session's tool-output directory `<dataDir>/tool-output/<sessionDir>` of the session whose
 * workspace is `workspaceDir` (`<dataDir>/workspaces/<sessionDir>`); every component is opened without
 * following links.
 * @returns the file's size and at most `maxBytes` of its first bytes, or null when `file` lies elsewhere
 * @throws the open's error (ELOOP for a link, ENOENT, EINVAL for a file that is not regular …)
 */
export async function readToolOutputFile(
  workspaceDir: string,
  file: string,
  maxBytes: number,
): Promise<{ size: number; bytes: Buffer } | null> {
  const ws = path.resolve(workspaceDir);
  if (path.basename(path.dirname(ws)) !== WORKSPACES_FOLDER) return null;
  const dataDir = path.dirname(path.dirname(ws));
  const outputDir = path.join(dataDir, TOOL_OUTPUT_FOLDER, path.basename(ws));
  const name = path.relative(outputDir, path.resolve(file));
  if (!isPlainName(name) || name.includes(path.sep)) return null;
  const dir = await SafeDir.openBeneath(dataDir, [TOOL_OUTPUT_FOLDER, path.basename(ws)]);
  try {
    return await readHeadOf(dir, name, maxBytes);
  } finally {
    await dir.close();
  }
}

/** The size of regular file `name` in `dir` and at most `maxBytes` of its start (never following a link). */
export async function readHeadOf(
  dir: SafeDir,
  name: string,
  maxBytes: number,
): Promise<{ size: number; bytes: Buffer }> {
  const handle = await dir.openFile(name, c.O_RDONLY);
  try {
    const size = (await handle.stat()).size;
    const buf = Buffer.alloc(Math.min(size, maxBytes));
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { size, bytes: buf.subarray(0, filled) };
  } finally {
    await handle.close();
  }
}

/**
 * Makes `<dataDir>/attachments/<session dir>` (given as the directory name `sessionDir`) when missing, without
 * following links, so it can be bound into the session's sandbox before any attachment arrived.
 */
export async function ensureSessionAttachmentsDir(dataDir: string, sessionDir: string): Promise<void> {
  const root = await SafeDir.open(dataDir);
  try {
    const store = await root.makeDir(ATTACHMENTS_FOLDER, ROOT_MODE);
    try {
      await (await store.makeDir(sessionDir, DIR_MODE)).close();
    } finally {
      await store.close();
    }
  } finally {
    await root.close();
  }
}

/**
 * Removes the attachment directories (of every session, or of the session directory `onlySession`) whose
 * newest file is older than `olderThanMs` milliseconds before `now`, and session directories left empty; never
 * follows a link. @returns how many message directories were removed. Never throws.
 */
export async function sweepAttachments(
  dataDir: string,
  olderThanMs: number,
  opts: { now?: number; onlySession?: string } = {},
): Promise<number> {
  const cutoff = (opts.now ?? Date.now()) - olderThanMs;
  let removed = 0;
  let store: SafeDir;
  try {
    store = await SafeDir.openBeneath(dataDir, [ATTACHMENTS_FOLDER]);
  } catch {
    return 0;
  }
  try {
    const sessions = opts.onlySession !== undefined ? [opts.onlySession] : await store.names();
    for (const sessionName of sessions) {
      let session: SafeDir;
      try {
        session = await store.openDir(sessionName);
      } catch {
        continue;
      }
      try {
        for (const messageName of await session.names()) {
          const st = await session.lstat(messageName).catch(() => null);
          if (!st?.isDirectory()) continue;
          let newest = st.mtimeMs;
          const message = await session.openDir(messageName).catch(() => null);
          if (message === null) continue;
          try {
            for (const f of await message.names()) {
              const fst = await message.lstat(f).catch(() => null);
              if (fst) newest = Math.max(newest, fst.mtimeMs);
            }
          } finally {
            await message.close();
          }
          if (newest >= cutoff) continue;
          await session.removeTree(messageName).catch(() => undefined);
          removed += 1;
        }
      } finally {
        await session.close();
      }
    }
  } finally {
    await store.close();
  }
  return removed;
}

/**
 * File system access that never follows a symbolic link below a trusted directory: every path component is
 * opened relative to the directory before it (through `/proc/self/fd/<fd>/<name>`, the Linux way to use a
 * directory descriptor from Node), with `O_NOFOLLOW`, so a link planted anywhere on the way makes the operation
 * fail with `ELOOP` (or `ENOTDIR`) instead of leading elsewhere, and a directory swapped after it was opened
 * does not move the operation with it (the descriptor keeps pointing at the directory that was checked).
 *
 * Used wherever privileged code touches a tree that something less trusted could have changed: attachment
 * storage (infra/attachments-store.ts), the file tools without a sandbox, ownership fix-ups and cleanup walks.
 * Linux only: elsewhere every call fails with `ENOSYS`.
 */
import { constants as c, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

const O_DIR = c.O_RDONLY | c.O_DIRECTORY | c.O_NOFOLLOW;

/** An errno-style error (`code` like `ELOOP`), as Node's own file system calls throw. */
export class SafeFsError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

/** True when `name` is one plain path component: not empty, `.` or `..`, no `/` and no NUL. */
export function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

function checkName(name: string): void {
  if (!isPlainName(name))
    throw new SafeFsError('EINVAL', `not a single path component: ${JSON.stringify(name)}`);
}

function requireLinux(): void {
  if (process.platform !== 'linux')
    throw new SafeFsError(
      'ENOSYS',
      `descriptor-relative file access needs Linux (this is ${process.platform})`,
    );
}

/**
 * An open directory. Entries are addressed by plain names only (see {@link isPlainName}); the final component
 * of every operation is never followed when it is a link (`lstat`, `O_NOFOLLOW` opens, `unlink`, `rename`,
 * `lchown`). Close it when done.
 */
export class SafeDir {
  private readonly handle: FileHandle;
  /** The path it was opened by, for messages only (the directory may have been moved since). */
  readonly where: string;

  private constructor(handle: FileHandle, where: string) {
    this.handle = handle;
    this.where = where;
  }

  /**
   * Opens a trusted directory by its path (the operator's data dir, a workspace's parent): links in `dir`
   * itself are followed, as the operator configured them.
   * @throws the open's error (`ENOENT`, `ENOTDIR`, `EACCES` …)
   */
  static async open(dir: string): Promise<SafeDir> {
    requireLinux();
    return new SafeDir(await fs.open(dir, c.O_RDONLY | c.O_DIRECTORY), dir);
  }

  /**
   * Opens `root`, then each of `components` below it without following links; with `create`, missing
   * directories are made (one `mkdir` each, never recursive) with `create.mode` (then `chmod`ed to it, the
   * umask aside) and, when given, `create.owner`.
   * @throws `ELOOP`/`ENOTDIR` when a component is a link or not a directory; `ENOENT` when one is missing
   */
  static async openBeneath(
    root: string,
    components: readonly string[],
    create?: { mode: number; owner?: { uid: number; gid: number } },
  ): Promise<SafeDir> {
    let dir = await SafeDir.open(root);
    try {
      for (const name of components) {
        const next = create ? await dir.makeDir(name, create.mode, create.owner) : await dir.openDir(name);
        await dir.close();
        dir = next;
      }
      return dir;
    } catch (err) {
      await dir.close();
      throw err;
    }
  }

  /** The descriptor's path of entry `name` (resolved by the kernel relative to this directory). */
  entry(name: string): string {
    checkName(name);
    return `/proc/self/fd/${this.handle.fd}/${name}`;
  }

  /** The descriptor's path of this directory itself. */
  get self(): string {
    return `/proc/self/fd/${this.handle.fd}`;
  }

  /** Opens subdirectory `name`. @throws `ELOOP` (a link), `ENOTDIR`, `ENOENT`, `EACCES` */
  async openDir(name: string): Promise<SafeDir> {
    return new SafeDir(await fs.open(this.entry(name), O_DIR), path.join(this.where, name));
  }

  /**
   * Opens subdirectory `name`, making it first when missing (`mode`, set exactly; `owner` when given and newly
   * made). An existing link or file of that name is refused (`ELOOP`/`ENOTDIR`), never followed.
   */
  async makeDir(name: string, mode: number, owner?: { uid: number; gid: number }): Promise<SafeDir> {
    let made = false;
    try {
      await fs.mkdir(this.entry(name), { mode });
      made = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const dir = await this.openDir(name);
    if (made) {
      try {
        await dir.handle.chmod(mode);
        if (owner) await dir.handle.chown(owner.uid, owner.gid);
      } catch (err) {
        await dir.close();
        throw err;
      }
    }
    return dir;
  }

  /**
   * Opens file `name` with `flags` (`O_NOFOLLOW` and, so a FIFO never blocks the open, `O_NONBLOCK` are added)
   * and checks it is a regular file. @throws `ELOOP` for a link, `EISDIR`/`EINVAL` (not a regular file) …
   */
  async openFile(name: string, flags: number, mode = 0o600): Promise<FileHandle> {
    const handle = await fs.open(this.entry(name), flags | c.O_NOFOLLOW | c.O_NONBLOCK, mode);
    try {
      const st = await handle.stat();
      if (st.isDirectory()) throw new SafeFsError('EISDIR', `${path.join(this.where, name)} is a directory`);
      if (!st.isFile())
        throw new SafeFsError('EINVAL', `${path.join(this.where, name)} is not a regular file`);
      return handle;
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** The entry's own status (a link is reported as a link); null when there is none. */
  async lstat(name: string): Promise<Stats | null> {
    try {
      return await fs.lstat(this.entry(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** This directory's own status. */
  stat(): Promise<Stats> {
    return this.handle.stat();
  }

  /** The names in this directory. */
  async names(): Promise<string[]> {
    return fs.readdir(this.self);
  }

  /** Removes entry `name` (a file or a link itself; never what a link points to). Missing is fine. */
  async unlink(name: string): Promise<void> {
    await fs.rm(this.entry(name), { force: true });
  }

  /** Removes the empty subdirectory `name`. */
  async rmdir(name: string): Promise<void> {
    await fs.rmdir(this.entry(name));
  }

  /** Renames entry `from` to `to`, both in this directory (replacing `to`). */
  async rename(from: string, to: string): Promise<void> {
    await fs.rename(this.entry(from), this.entry(to));
  }

  /** Links entry `from` (never followed) as `to` in this directory; `EEXIST` when `to` is taken. */
  async link(from: string, to: string): Promise<void> {
    await fs.link(this.entry(from), this.entry(to));
  }

  /** Makes a symbolic link `name` pointing at `target` (the link is created, `name` never followed). */
  async symlink(target: string, name: string): Promise<void> {
    await fs.symlink(target, this.entry(name));
  }

  /** Gives entry `name` itself (a link stays a link) to `uid`/`gid`. */
  async lchown(name: string, uid: number, gid: number): Promise<void> {
    await fs.lchown(this.entry(name), uid, gid);
  }

  /** Gives this directory to `uid`/`gid`. */
  async chown(uid: number, gid: number): Promise<void> {
    await this.handle.chown(uid, gid);
  }

  /** Sets this directory's mode. */
  async chmod(mode: number): Promise<void> {
    await this.handle.chmod(mode);
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }

  /**
   * Removes everything in subdirectory `name` and the directory itself, never following a link (links are
   * removed as entries). Missing is fine.
   */
  async removeTree(name: string): Promise<void> {
    const st = await this.lstat(name);
    if (st === null) return;
    if (!st.isDirectory()) return this.unlink(name);
    const sub = await this.openDir(name);
    try {
      for (const entry of await sub.names()) await sub.removeTree(entry);
    } finally {
      await sub.close();
    }
    await this.rmdir(name).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}

/** What {@link walkTree} reports for each entry below the starting directory. */
export interface WalkEntry {
  /** The directory holding the entry (open only during the callback). */
  dir: SafeDir;
  name: string;
  /** Path relative to the walk's start, with `/`. */
  relative: string;
  stat: Stats;
}

/**
 * Visits every entry below `dir` (depth first, children before their directory), never following a link:
 * directories are entered by {@link SafeDir.openDir}, so a link is reported as a link and not entered.
 * `visit` may remove the entry it is given. Stops after `maxEntries` (default unbounded) and returns whether
 * it saw everything.
 */
export async function walkTree(
  dir: SafeDir,
  visit: (e: WalkEntry) => Promise<void>,
  opts: { maxEntries?: number } = {},
): Promise<boolean> {
  const budget = { left: opts.maxEntries ?? Number.POSITIVE_INFINITY };
  const walk = async (d: SafeDir, prefix: string): Promise<boolean> => {
    let names: string[];
    try {
      names = await d.names();
    } catch {
      return true;
    }
    for (const name of names) {
      if (budget.left-- <= 0) return false;
      const stat = await d.lstat(name).catch(() => null);
      if (stat === null) continue;
      const relative = prefix ? `${prefix}/${name}` : name;
      if (stat.isDirectory()) {
        const sub = await d.openDir(name).catch(() => null);
        if (sub !== null) {
          try {
            if (!(await walk(sub, relative))) return false;
          } finally {
            await sub.close();
          }
        }
      }
      await visit({ dir: d, name, relative, stat });
    }
    return true;
  };
  return walk(dir, '');
}

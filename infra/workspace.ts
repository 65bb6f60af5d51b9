/**
 * Where a session's files live on disk (docs/sandbox.md "Files"):
 * - its workspace, `<dataDir>/workspaces/<session dir>`: the tools' working directory, writable by its commands;
 * - its attachments, `<dataDir>/attachments/<session dir>/<message dir>/<n>-<name>`: written only by Kesoku
 *   (the REST API and the chat adapters, through infra/attachments-store.ts), outside the workspace so no
 *   command can replace their directories, and bound read-only into the session's sandbox at the same absolute
 *   path. The workspace holds a link `attachments` to that directory, so `attachments/<message dir>/<file>`
 *   works from the workspace too (the link is followed only inside the sandbox, never by Kesoku itself).
 */
import path from 'node:path';

/**
 * A session id as a directory name, one-to-one: `%`-escapes everything but letters, digits, `_`, `-` and `.`
 * (`discord:123` → `discord%3A123`); `.` and `..` are escaped too, so a workspace always lies below
 * `<dataDir>/workspaces`.
 */
export function sessionDirName(sessionId: string): string {
  if (/^\.{1,2}$/.test(sessionId)) return sessionId.replaceAll('.', '%2E');
  return sessionId.replace(
    /[^A-Za-z0-9_.-]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** The folder of the data dir that holds every session's workspace. */
export const WORKSPACES_FOLDER = 'workspaces';
/** The folder of the data dir that holds every session's attachments (and the link's name in a workspace). */
export const ATTACHMENTS_FOLDER = 'attachments';

/** `<dataDir>/workspaces/<session dir>`: the session's working directory. */
export function sessionWorkspaceDir(dataDir: string, sessionId: string): string {
  return path.join(dataDir, WORKSPACES_FOLDER, sessionDirName(sessionId));
}

/** `<dataDir>/attachments/<session dir>`: the attachments of all of a session's messages. */
export function sessionAttachmentsDir(dataDir: string, sessionId: string): string {
  return path.join(dataDir, ATTACHMENTS_FOLDER, sessionDirName(sessionId));
}

/**
 * The attachments directory of the session whose workspace is `workspaceDir`, when that workspace lies where
 * {@link sessionWorkspaceDir} puts workspaces (`<dataDir>/workspaces/<session dir>`); else undefined.
 */
export function attachmentsDirOfWorkspace(workspaceDir: string): string | undefined {
  const ws = path.resolve(workspaceDir);
  const parent = path.dirname(ws);
  if (path.basename(parent) !== WORKSPACES_FOLDER) return undefined;
  return path.join(path.dirname(parent), ATTACHMENTS_FOLDER, path.basename(ws));
}

/**
 * A message id as one safe path segment: characters outside `A-Za-z0-9_.@-` become `_`; `.`/`..` (and the
 * empty id) too.
 */
export function messageDirName(messageId: string): string {
  const segment = messageId.replace(/[^A-Za-z0-9_.@-]/g, '_');
  return /^\.*$/.test(segment) ? segment.replaceAll('.', '_') || '_' : segment;
}

/** `<dataDir>/attachments/<session dir>/<message dir>`: where the attachments of message `messageId` are stored. */
export function attachmentDirFor(dataDir: string, sessionId: string, messageId: string): string {
  return path.join(sessionAttachmentsDir(dataDir, sessionId), messageDirName(messageId));
}

/** A file name safe on every file system: letters, digits, `.`, `_`, `-`; no leading dot; at most 100 characters. */
export function safeFileName(name: string): string {
  const base = path
    .basename(name)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_');
  return (base === '' ? 'file' : base).slice(-100);
}

/** The stored name of the `index`th attachment (from 0) of a message: `<index>-<safe name>`. */
export function attachmentFileName(index: number, name: string): string {
  return `${index}-${safeFileName(name)}`;
}

/** Whether `file` lies strictly inside directory `dir` (paths resolved lexically; symlinks are not followed). */
export function isInside(dir: string, file: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * The path a command in `workspaceDir` opens `file` by: `attachments/<message dir>/<name>` for a file in the
 * session's attachment directory (through the workspace's `attachments` link), the relative path for a file in
 * the workspace, else `file` itself.
 */
export function pathFromWorkspace(workspaceDir: string, file: string): string {
  const attachments = attachmentsDirOfWorkspace(workspaceDir);
  if (attachments !== undefined && isInside(attachments, file))
    return path.join(ATTACHMENTS_FOLDER, path.relative(attachments, file));
  if (isInside(workspaceDir, file)) return path.relative(workspaceDir, file);
  return file;
}

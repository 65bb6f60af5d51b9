/**
 * Where a session's files live on disk: its workspace (the tools' working directory, where `read_file` can
 * open files) and, inside it, the attachments of its messages. Used by the REST API and the Discord adapter
 * to store attachments, and by the model activity to read them back.
 * The tool activity runs commands in the same directory (activities/tools/activities.ts uses these functions).
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

/** `<dataDir>/workspaces/<session dir>`: the session's working directory. */
export function sessionWorkspaceDir(dataDir: string, sessionId: string): string {
  return path.join(dataDir, 'workspaces', sessionDirName(sessionId));
}

/** The folder, relative to a workspace, that holds the attachments of all its messages. */
export const ATTACHMENTS_FOLDER = 'attachments';

/**
 * `<workspace>/attachments/<message dir>`: where the attachments of message `messageId` are stored. The
 * message id is made one safe path segment (characters outside `A-Za-z0-9_.@-` become `_`; `.`/`..` too).
 */
export function attachmentDirFor(dataDir: string, sessionId: string, messageId: string): string {
  let segment = messageId.replace(/[^A-Za-z0-9_.@-]/g, '_');
  if (/^\.*$/.test(segment)) segment = segment.replaceAll('.', '_') || '_';
  return path.join(sessionWorkspaceDir(dataDir, sessionId), ATTACHMENTS_FOLDER, segment);
}

/** A file name safe on every file system: letters, digits, `.`, `_`, `-`; no leading dot; at most 100 characters. */
export function safeFileName(name: string): string {
  const base = path
    .basename(name)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_');
  return (base === '' ? 'file' : base).slice(-100);
}

/** Whether `file` lies strictly inside directory `dir` (paths resolved lexically; symlinks are not followed). */
export function isInside(dir: string, file: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

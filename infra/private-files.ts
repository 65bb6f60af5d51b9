/**
 * Files only the Kesoku user may read: the data dir (mode 0700) and the secrets kept in it (mode 0600) — the
 * payload keys, the embedded Postgres password, the codec token.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Creates `dir` (and parents) and sets its mode to 0700, or 0711 when running as root: the embedded Postgres
 * then runs as the `postgres` user, which must pass through the data dir to reach its own 0700 directory
 * (0711 lets it enter without listing). Only a directory this user owns is changed.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (st.uid !== uid) return;
  const mode = isRoot() ? 0o711 : 0o700;
  if ((st.mode & 0o777) !== mode) fs.chmodSync(dir, mode);
}

/**
 * Creates `file` with `content` and mode 0600 unless it exists. The content is written to a temporary file
 * first and linked into place, so a concurrent reader never sees a half-written file and of two concurrent
 * creators exactly one wins.
 * @returns true when this call created the file
 */
export function writePrivateFileExclusive(file: string, content: string): boolean {
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}`,
  );
  fs.writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Sets an existing file this user owns to mode 0600 when others could read it. */
export function tightenFileMode(file: string): void {
  const st = fs.statSync(file);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return;
  if ((st.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
}

/**
 * The secret in `<dir>/<name>`, created with `make()` when missing (mode 0600). Surrounding white space is
 * trimmed.
 */
export function readOrCreateSecret(
  dir: string,
  name: string,
  make: () => string,
): { value: string; created: boolean } {
  const file = path.join(dir, name);
  let created = false;
  if (!fs.existsSync(file)) {
    ensurePrivateDir(dir);
    created = writePrivateFileExclusive(file, `${make()}\n`);
  } else tightenFileMode(file);
  return { value: fs.readFileSync(file, 'utf8').trim(), created };
}

/**
 * Disk bounds of the tools (docs/sandbox.md "Limits"): a quota on each workspace, checked before every command
 * and `write_file` (a workspace over it gets a clear tool error until files are removed), and retention of the
 * full tool output and the attachments a session keeps. Both walk trees a command can change, so both go
 * through infra/safe-fs.ts and never follow a link.
 *
 * The quota is measured, not enforced by the file system: a single command can overshoot it while it runs (each
 * file is still bounded by the per-file size limit), and the next command or write is refused.
 */
import path from 'node:path';
import { sweepAttachments } from '../../infra/attachments-store.ts';
import { SafeDir, walkTree } from '../../infra/safe-fs.ts';
import { attachmentsDirOfWorkspace } from '../../infra/workspace.ts';
import { ToolInputError } from './errors.ts';
import type { Sandbox } from './sandbox.ts';

/** Entries a usage walk looks at before it stops counting (and counts the workspace as over when it is). */
export const MAX_USAGE_ENTRIES = 500_000;
/** How long a measured usage under 90 % of the quota is trusted, in ms. */
const USAGE_TTL_MS = 10_000;

const measured = new Map<string, { at: number; bytes: number }>();

/**
 * Disk space used by the files under `workspaceDir`, in bytes (allocated blocks), never following links.
 * @returns the bytes and whether every entry was counted
 */
export async function workspaceUsage(workspaceDir: string): Promise<{ bytes: number; complete: boolean }> {
  let bytes = 0;
  let dir: SafeDir;
  try {
    dir = await SafeDir.openBeneath(path.dirname(path.resolve(workspaceDir)), [path.basename(workspaceDir)]);
  } catch {
    return { bytes: 0, complete: true };
  }
  try {
    const complete = await walkTree(
      dir,
      async (e) => {
        bytes += e.stat.blocks * 512;
      },
      { maxEntries: MAX_USAGE_ENTRIES },
    );
    return { bytes, complete };
  } finally {
    await dir.close();
  }
}

/**
 * Refuses further commands and writes in a workspace over its quota (`workspaceQuotaMb`; 0 means none).
 * @throws {ToolInputError} naming the usage and the quota, and what to do
 */
export async function checkWorkspaceQuota(sandbox: Sandbox, workspaceDir: string, adding = 0): Promise<void> {
  const quotaMb = sandbox.settings.workspaceQuotaMb;
  if (quotaMb <= 0) return;
  const quota = quotaMb * 1024 * 1024;
  const key = path.resolve(workspaceDir);
  const cached = measured.get(key);
  let bytes: number;
  if (cached && Date.now() - cached.at < USAGE_TTL_MS && cached.bytes + adding < quota * 0.9) {
    bytes = cached.bytes;
  } else {
    const usage = await workspaceUsage(key);
    bytes = usage.complete ? usage.bytes : Math.max(usage.bytes, quota);
    measured.set(key, { at: Date.now(), bytes });
  }
  if (bytes + adding >= quota) {
    throw new ToolInputError(
      `the workspace is full: it uses ${Math.ceil(bytes / (1024 * 1024))} MiB of its ${quotaMb} MiB quota` +
        `${adding > 0 ? ` and this write adds ${Math.ceil(adding / 1024)} KiB` : ''}; remove files (e.g. with ` +
        'run_shell_command: rm -r build caches) before running more commands or writing files',
    );
  }
}

/** Forgets the measured usage of `workspaceDir` (after a command changed it). */
export function forgetUsage(workspaceDir: string): void {
  measured.delete(path.resolve(workspaceDir));
}

const lastSweep = new Map<string, number>();
/** Time between two retention sweeps of one session's files, in ms. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

/**
 * Removes, at most once an hour per session and in the background, the session's full tool output files and
 * attachment directories older than the retention (`retentionDays`; 0 keeps them). Never throws.
 */
export function sweepSessionFiles(
  sandbox: Sandbox,
  workspaceDir: string,
  outputDir: string | undefined,
): void {
  const days = sandbox.settings.retentionDays;
  if (days <= 0) return;
  const key = path.resolve(workspaceDir);
  const now = Date.now();
  if (now - (lastSweep.get(key) ?? 0) < SWEEP_EVERY_MS) return;
  lastSweep.set(key, now);
  const olderThanMs = days * 24 * 60 * 60 * 1000;
  const attachments = attachmentsDirOfWorkspace(key);
  void (async () => {
    if (outputDir !== undefined) await sweepOutputDir(outputDir, olderThanMs, now);
    if (attachments !== undefined)
      await sweepAttachments(path.dirname(path.dirname(attachments)), olderThanMs, {
        now,
        onlySession: path.basename(attachments),
      });
  })().catch(() => undefined);
}

/** The folder of a session's tool-output directory that holds its background jobs' files (detached.ts). */
export const JOBS_FOLDER = 'jobs';

/**
 * Removes full tool output files (`<dataDir>/tool-output/<session dir>/*.log`, and the background jobs' files in
 * its `jobs/`) older than `olderThanMs`, of one session's directory `outputDir`. Never throws.
 * @returns the number of files removed
 */
export async function sweepOutputDir(
  outputDir: string,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> {
  let dir: SafeDir;
  try {
    dir = await SafeDir.openBeneath(path.dirname(path.resolve(outputDir)), [path.basename(outputDir)]);
  } catch {
    return 0;
  }
  let removed = 0;
  try {
    for (const name of await dir.names()) {
      const st = await dir.lstat(name).catch(() => null);
      // Background jobs keep their output, exit status and process files in `jobs/` (activities/tools/detached.ts);
      // a job never runs longer than a day, the shortest retention, so an old file there is an ended job's.
      if (st?.isDirectory() && name === JOBS_FOLDER) {
        removed += await sweepOutputDir(path.join(outputDir, name), olderThanMs, now);
        continue;
      }
      if (!st?.isFile() || st.mtimeMs >= now - olderThanMs) continue;
      await dir.unlink(name).catch(() => undefined);
      removed += 1;
    }
  } finally {
    await dir.close();
  }
  return removed;
}

/**
 * The retention sweep of the whole data dir (every session's full tool output and attachments), run in the
 * background when a worker starts. Never throws.
 */
export async function sweepDataDir(dataDir: string, retentionDays: number, now = Date.now()): Promise<void> {
  if (retentionDays <= 0) return;
  const olderThanMs = retentionDays * 24 * 60 * 60 * 1000;
  try {
    const output = await SafeDir.openBeneath(dataDir, ['tool-output']).catch(() => null);
    if (output !== null) {
      const names = await output.names().finally(() => output.close());
      for (const name of names)
        await sweepOutputDir(path.join(dataDir, 'tool-output', name), olderThanMs, now);
    }
    await sweepAttachments(dataDir, olderThanMs, { now });
  } catch {
    // Retention is best effort; the next start tries again.
  }
}

/**
 * Runs one command in the real sandbox of a fresh session, in this process or, through `setpriv`, as another
 * uid (the worker not being root): `node --input-type=module -e 'import(<this file>).then((m) => m.main())'
 * <dataDir> <command> [<settings JSON>]` prints `RESULT` and the command's content.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  defaultSandboxSettings,
  prepareSandbox,
  type SandboxSettings,
} from '../../../activities/tools/sandbox.ts';
import { runShellCommand, type ShellResult } from '../../../activities/tools/shell.ts';

/** Runs `command` in a sandbox of `dataDir` with `over` settings (mode `required`). */
export async function runInSandbox(
  dataDir: string,
  command: string,
  over: Partial<SandboxSettings> = {},
  session = `s-${process.pid}`,
): Promise<ShellResult> {
  const sandbox = await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'required', ...over }));
  return runShellCommand(
    { command },
    {
      workspaceDir: path.join(dataDir, 'workspaces', session),
      defaultTimeoutMs: 60_000,
      maxModelOutputBytes: 64 * 1024,
      maxStoredOutputBytes: 1024 * 1024,
      sandbox,
    },
  );
}

/** Runs `command` as `uid` (a worker that is not root) in a sandbox of a data dir under `base`. */
export async function runAsUid(
  uid: number,
  base: string,
  command: string,
  over: Partial<SandboxSettings> = {},
): Promise<string> {
  fs.chownSync(base, uid, uid);
  const script = `import(${JSON.stringify(pathToFileURL(import.meta.filename).href)}).then((m) => m.main())`;
  return new Promise<string>((resolve) =>
    execFile(
      'setpriv',
      [
        `--reuid=${uid}`,
        `--regid=${uid}`,
        '--clear-groups',
        process.execPath,
        '--input-type=module',
        '-e',
        script,
        path.join(base, 'data'),
        command,
        JSON.stringify(over),
      ],
      { cwd: base, env: { PATH: process.env.PATH, HOME: base }, timeout: 100_000 },
      (err, stdout, stderr) => resolve(stdout + stderr + (err ? String(err) : '')),
    ),
  );
}

/** Entry point for a child process. */
export async function main(): Promise<void> {
  const [dataDir, command, over] = process.argv.slice(1);
  const r = await runInSandbox(
    dataDir!,
    command!,
    over ? (JSON.parse(over) as Partial<SandboxSettings>) : {},
  );
  process.stdout.write(`RESULT\n${r.content}\n`);
  process.exit(0);
}

/**
 * What a command sees, probed in the real sandbox with settings taken from a real configuration: a Unix socket
 * served by the host (under /run and under a directory of the host's /tmp), the worker's home directory, and the
 * configured key and token files (KESOKU_API_TOKENS_FILE, GOOGLE_CHAT_CREDENTIALS_FILE, TEMPORAL_TLS_*, a `.env`),
 * placed in /etc where a system bind would show them and elsewhere.
 *
 * `node --input-type=module -e 'import(<this file>).then((m) => m.main())' <json of ViewProbe>` prints the
 * command's output after `RESULT`.
 */
import path from 'node:path';
import { sandboxSettingsFrom } from '../../../activities/tools/sandbox-settings.ts';
import { prepareSandbox } from '../../../activities/tools/sandbox.ts';
import { runShellCommand } from '../../../activities/tools/shell.ts';
import { loadConfig } from '../../../infra/config.ts';

/** What to probe. */
export interface ViewProbe {
  dataDir: string;
  /** The environment the worker would start with (the key file variables). */
  env: Record<string, string>;
  /** Unix sockets served by the host, each answering a line. */
  sockets: string[];
  /** Paths the command must not see. */
  secrets: string[];
  home: string;
}

/** Runs the probing command in a session of `probe.dataDir`; stdout and stderr together. */
export async function probeView(probe: ViewProbe): Promise<string> {
  const env = { ...probe.env, KESOKU_DATA_DIR: probe.dataDir, KESOKU_SANDBOX: 'required' };
  const sandbox = await prepareSandbox(sandboxSettingsFrom(loadConfig(env), env));
  const connect = (sock: string) =>
    `python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('CONNECTED', s.recv(64))" ${sock} 2>&1 | tail -1; ` +
    `ls -l ${sock} 2>&1; ls ${path.dirname(sock)} 2>&1`;
  const command = [
    'echo "uid=$(id -u)"',
    'ls / 2>&1',
    'ls /run /var/run /home /root /srv /mnt /media 2>&1',
    ...probe.sockets.map(connect),
    `ls -la ${probe.home} 2>&1`,
    ...probe.secrets.map((f) => `cat ${f} 2>&1; ls -l ${f} 2>&1`),
    'echo done',
  ].join('; ');
  const r = await runShellCommand(
    { command },
    {
      workspaceDir: path.join(probe.dataDir, 'workspaces', `view-${process.pid}`),
      defaultTimeoutMs: 60_000,
      maxModelOutputBytes: 64 * 1024,
      maxStoredOutputBytes: 1024 * 1024,
      sandbox,
    },
  );
  return r.stdout + r.stderr;
}

/** Entry point for a child process: argv[1] is the JSON of a {@link ViewProbe}. */
export async function main(): Promise<void> {
  const out = await probeView(JSON.parse(process.argv[1]!) as ViewProbe);
  process.stdout.write(`RESULT\n${out}`);
  process.exit(0);
}

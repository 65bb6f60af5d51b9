/**
 * How a stdio MCP server is launched (activities/mcp/launch.ts): in the tool sandbox, with the files its
 * command and arguments name and its `paths` bound read-only, and an environment of the allowlist plus its own
 * `env` (never a channel's secret it did not set); refused without a working sandbox.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StdioServerConfig } from './config.ts';
import { serverLaunch } from './launch.ts';
import { defaultSandboxSettings, type Sandbox } from '../tools/sandbox.ts';
import { offSandbox } from '../../test/support/sandbox.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-mcp-launch-'));
const script = path.join(tmp, 'server.js');
fs.writeFileSync(script, '');
const lib = path.join(tmp, 'lib');
fs.mkdirSync(lib);

const server: StdioServerConfig = {
  name: 'files',
  transport: 'stdio',
  command: process.execPath,
  args: [script, '--flag', 'not-a-file'],
  env: { ROOT: '/srv', DISCORD_TOKEN: 'given on purpose' },
  paths: [lib],
  toolTimeoutMs: 30_000,
  approval: 'ask',
  toolApproval: {},
};
const from = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', DATABASE_URL: 'postgres://secret', SLACK_TOKEN: 'x' };
const home = path.join(tmp, 'data', 'mcp', 'files');
/** The allowlist from `from` plus the server's own `env`: SLACK_TOKEN, a channel's secret, is not passed (below). */
const ALLOWED_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: home,
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  ROOT: '/srv',
  DISCORD_TOKEN: 'given on purpose',
};

describe('serverLaunch', () => {
  const real = (p: string) => fs.realpathSync(p);

  it('binds the named files read-only in bubblewrap, with seccomp, and passes the allowlist plus the configured env', async () => {
    const sandbox: Sandbox = {
      settings: defaultSandboxSettings(path.join(tmp, 'data'), { toolEnv: ['SLACK_TOKEN'], cgroup: 'off' }),
      kind: 'bwrap',
      bwrapPath: '/usr/bin/bwrap',
      prlimitPath: '/usr/bin/prlimit',
      setprivPath: '/usr/bin/setpriv',
      seccompFile: path.join(tmp, 'seccomp.bpf'),
    };
    const l = await serverLaunch(sandbox, server, home, ['SLACK_TOKEN', 'DISCORD_TOKEN'], from);
    // The seccomp program goes in on fd 3, as bwrap's --seccomp 3 expects.
    expect([l.command, ...l.args.slice(0, 4)]).toEqual([
      '/bin/sh',
      '-c',
      'exec 3<"$0" && exec "$@"',
      sandbox.seccompFile,
      '/usr/bin/bwrap',
    ]);
    expect(l.args).toContain('--seccomp');
    const bound = l.args.flatMap((a, i) => (a === '--ro-bind' ? [`${l.args[i + 1]} ${l.args[i + 2]}`] : []));
    for (const p of [process.execPath, script, lib]) expect(bound).toContain(`${real(p)} ${real(p)}`);
    expect(bound.join(' ')).not.toContain('not-a-file');
    expect(l.args.slice(-4)).toEqual([real(process.execPath), real(script), '--flag', 'not-a-file']);
    expect(l.args[l.args.indexOf('--chdir') + 1]).toBe(real(home));
    const setenv = Object.fromEntries(
      l.args.flatMap((a, i) => (a === '--setenv' ? [[l.args[i + 1], l.args[i + 2]]] : [])),
    );
    // SLACK_TOKEN is a channel's secret: not passed although KESOKU_TOOL_ENV names it; DISCORD_TOKEN is the
    // server's own setting.
    expect(setenv).toEqual(ALLOWED_ENV);
    expect(l.env).not.toHaveProperty('DATABASE_URL');
  });

  it('with KESOKU_SANDBOX=off runs the command under prlimit with the same environment', async () => {
    const l = await serverLaunch(offSandbox(path.join(tmp, 'data')), server, home, [], from);
    expect(l.command).toBe('/usr/bin/prlimit');
    expect(l.args.slice(-4)).toEqual([real(process.execPath), real(script), '--flag', 'not-a-file']);
    expect(l.env).toEqual(ALLOWED_ENV);
    expect(l.cwd).toBe(home);
  });

  it('refuses to start a server without a working sandbox', async () => {
    await expect(serverLaunch(undefined, server, home)).rejects.toThrow(/MCP server "files" is not started/);
  });
});

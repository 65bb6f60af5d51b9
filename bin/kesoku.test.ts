/**
 * The operator CLI (`bin/kesoku.ts`, run as `npm run kesoku` does, in a child process): `pairing revoke` takes
 * `<channel>:<user id>` with a channel of the registry, and refuses anything else before it touches a database
 * or the API, naming the channels.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../adapters/registry.ts';
import { ROOT } from '../test/support/processes.ts';

/** Runs `node bin/kesoku.ts <args>` with neither DATABASE_URL nor a reachable API. */
function kesoku(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, KESOKU_API_URL: 'http://127.0.0.1:9' };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      path.join(ROOT, 'node_modules', '.bin', 'node'),
      [path.join(ROOT, 'bin', 'kesoku.ts'), ...args],
      { cwd: ROOT, env, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const channels = CHANNELS.map((c) => c.id).join(', ');

describe('kesoku pairing revoke', () => {
  it('refuses a user id without its channel and names the channels (no Discord default)', async () => {
    const r = await kesoku(['pairing', 'revoke', '123456789012345678']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `kesoku: pairing revoke needs <channel>:<user id>, e.g. discord:123456789012345678 (channels: ${channels})\n`,
    );
    expect(channels).toContain('wechat');
  });

  it('refuses an unknown channel and an empty user id', async () => {
    const unknown = await kesoku(['pairing', 'revoke', 'telegram:42']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`kesoku: unknown channel "telegram" (channels: ${channels})\n`);
    const empty = await kesoku(['pairing', 'revoke', 'wechat:']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('needs a user id after "wechat:"');
  });

  it('passes a known channel on to the backend (here: the API, which cannot revoke)', async () => {
    const r = await kesoku(['pairing', 'revoke', 'wechat:oUser123']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('kesoku: pairing revoke works on the database: set DATABASE_URL\n');
  });
});

describe('kesoku --help', () => {
  it('lists every subcommand with one line each, and examples, on stdout with exit code 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = await kesoku([flag]);
      expect(r.code, flag).toBe(0);
      expect(r.stderr).toBe('');
      const lines = r.stdout.split('\n');
      for (const command of [
        'pairing list',
        'pairing approve <code>',
        'pairing revoke <channel>:<user id>',
      ]) {
        const line = lines.find((l) => l.trimStart().startsWith(command));
        // The command and what it does on one line.
        expect(line, command).toMatch(new RegExp(`^  ${command}\\s{2,}\\S`));
      }
      expect(r.stdout).toContain(`channels: ${channels}`);
      const examples = r.stdout.slice(r.stdout.indexOf('examples:'));
      expect(examples).toContain('npx kesoku pairing list');
      expect(examples).toContain('npx kesoku pairing approve ');
      expect(examples).toContain('npx kesoku pairing revoke discord:');
      for (const command of ['onboard', 'doctor', 'status'])
        expect(r.stdout).toMatch(new RegExp(`^  ${command}\\s{2,}\\S`, 'm'));
    }
  });

  it('a usage error stays a terse usage on stderr (exit 2) that points at --help', async () => {
    const r = await kesoku(['pairing']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('npx kesoku --help');
  });

  it('each command has its own --help, and npm start -- --help starts nothing', async () => {
    for (const command of ['onboard', 'doctor', 'status']) {
      const r = await kesoku([command, '--help']);
      expect(r.code, command).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^usage: npx kesoku ${command}`));
    }
    const start = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        path.join(ROOT, 'node_modules', '.bin', 'node'),
        [path.join(ROOT, 'bin', 'start.ts'), '--help'],
        { cwd: ROOT, env: { ...process.env, KESOKU_DATA_DIR: '/nonexistent/kesoku-help' }, timeout: 30_000 },
        (err, stdout) => resolve({ code: err ? 1 : 0, stdout }),
      ),
    );
    expect(start.code).toBe(0);
    expect(start.stdout).toContain('usage: npm start [-- --fake-model]');
    expect(fs.existsSync('/nonexistent/kesoku-help')).toBe(false);
  });
});

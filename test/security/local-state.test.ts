/**
 * Local state: the data dir is private (0700; 0711 as root, so the embedded Postgres's own user can pass
 * through), the secrets in it are 0600, and the embedded Postgres has a generated password instead of a
 * constant — a data dir initialised with the old constant is moved to a generated password at start.
 * Real embedded PostgreSQL servers in temporary directories. `.env` files (every secret) are neither committed
 * nor copied into the image.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import EmbeddedPostgres from '../../infra/embedded-postgres.ts';
import { resolvePayloadKeys } from '../../infra/payload-codec.ts';
import { POSTGRES_PASSWORD_FILE, resolvePostgres } from '../../infra/postgres-server.ts';
import { freePort } from '../../infra/temporal-server.ts';

const isRoot = process.getuid?.() === 0;
const dirs: string[] = [];
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-local-'));
  fs.chmodSync(d, 0o755);
  dirs.push(d);
  return path.join(d, 'data');
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const mode = (p: string) => fs.statSync(p).mode & 0o777;

/** Whether the server on `port` accepts `password` for the superuser. */
async function accepts(port: number, password: string): Promise<boolean> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await c.connect();
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '28P01') return false;
    throw err;
  } finally {
    await c.end().catch(() => undefined);
  }
}

describe('the data dir and its secrets', () => {
  it('a payload key file created by npm start is 0600 in a private data dir', () => {
    const dataDir = tmpDir();
    const r = resolvePayloadKeys({ dataDir, create: true });
    expect(r.source).toBe('created');
    expect(mode(dataDir)).toBe(isRoot ? 0o711 : 0o700);
    expect(mode(r.file as string)).toBe(0o600);
    // A second process finds the same key; a process that may not create one refuses without it.
    expect(resolvePayloadKeys({ dataDir, create: false }).keys[0]?.key).toEqual(r.keys[0]?.key);
    expect(() => resolvePayloadKeys({ dataDir: tmpDir(), create: false })).toThrow(/KESOKU_PAYLOAD_KEYS/);
  });

  it('the embedded Postgres gets a generated password kept in the data dir (0600); the old constant is refused', async () => {
    const dataDir = tmpDir();
    const port = await freePort();
    const server = await resolvePostgres({ dataDir, port });
    try {
      const file = path.join(dataDir, POSTGRES_PASSWORD_FILE);
      const password = fs.readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(32);
      expect(mode(file)).toBe(0o600);
      expect(mode(dataDir)).toBe(isRoot ? 0o711 : 0o700);
      expect(server.url).toContain(encodeURIComponent(password));
      expect(await accepts(port, password)).toBe(true);
      expect(await accepts(port, 'kesoku')).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('a data dir initialised with the old constant password keeps working and moves to a generated password', async () => {
    const dataDir = tmpDir();
    fs.mkdirSync(dataDir, { recursive: true });
    if (isRoot) fs.chmodSync(dataDir, 0o755);
    const port = await freePort();
    // As an older Kesoku initialised it: password "kesoku", password authentication.
    const old = new EmbeddedPostgres({
      databaseDir: path.join(dataDir, 'postgres'),
      port,
      user: 'postgres',
      password: 'kesoku',
      persistent: true,
      createPostgresUser: isRoot,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await old.initialise();
    expect(fs.existsSync(path.join(dataDir, POSTGRES_PASSWORD_FILE))).toBe(false);

    const server = await resolvePostgres({ dataDir, port });
    try {
      const password = fs.readFileSync(path.join(dataDir, POSTGRES_PASSWORD_FILE), 'utf8').trim();
      expect(await accepts(port, password)).toBe(true);
      expect(await accepts(port, 'kesoku')).toBe(false);
    } finally {
      await server.stop();
    }
    // A second start uses the generated password straight away.
    const again = await resolvePostgres({ dataDir, port });
    await again.stop();
  });
});

describe('secrets in files next to the checkout', () => {
  /** The paths of `paths` that the ignore file `rules` (gitignore syntax) excludes, in an empty repository. */
  function excluded(rules: string, paths: string[]): string[] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-ignore-'));
    try {
      execFileSync('git', ['init', '-q', dir]);
      const r = spawnSync(
        'git',
        ['-c', `core.excludesFile=${rules}`, 'check-ignore', '--no-index', ...paths],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
      return r.stdout.split('\n').filter((l) => l !== '');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const root = path.resolve(import.meta.dirname, '../..');
  const paths = ['.env', '.env.local', '.env.production', 'deploy/.env', '.env.example', 'package.json'];

  it('.env files are never committed (.gitignore), .env.example is', () => {
    expect(excluded(path.join(root, '.gitignore'), paths)).toEqual([
      '.env',
      '.env.local',
      '.env.production',
      'deploy/.env',
    ]);
  });

  it('.env files are never copied into the image (.dockerignore)', () => {
    expect(excluded(path.join(root, '.dockerignore'), paths)).toEqual([
      '.env',
      '.env.local',
      '.env.production',
      'deploy/.env',
    ]);
  });
});

import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolInputError } from './errors.ts';
import { DEFAULT_READ_BYTES, readFileTool, writeFileTool, type FileToolContext } from './files.ts';
import type { Sandbox } from './sandbox.ts';
import { bwrapSandbox, offSandbox } from '../../test/support/sandbox.ts';

let tmp: string;
let workspaceDir: string;
let outsideDir: string;
let sandbox: Sandbox;
const ctx = (): FileToolContext => ({ workspaceDir, sandbox });

beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'kesoku-files-'));
  workspaceDir = path.join(tmp, 'workspace');
  outsideDir = path.join(tmp, 'outside');
  await mkdir(workspaceDir);
  await mkdir(outsideDir);
  await writeFile(path.join(outsideDir, 'secret.txt'), 'outside secret\n');
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function expectInputError(run: Promise<unknown>, message: RegExp): Promise<void> {
  await expect(run).rejects.toBeInstanceOf(ToolInputError);
  await expect(run).rejects.toMatchObject({ kind: 'invalid_input', message: expect.stringMatching(message) });
}

// The same behaviour in the sandbox (the helper runs inside bwrap) and without one (KESOKU_SANDBOX=off: every
// component opened relative to its directory, never following a link).
describe.each(['bwrap', 'off'] as const)('%s:', (kind) => {
  beforeAll(async () => {
    const data = await mkdtemp(path.join(tmpdir(), 'kesoku-files-data-'));
    sandbox = kind === 'bwrap' ? await bwrapSandbox(data) : offSandbox(data);
  });

  describe('write_file and read_file', () => {
    it('round-trips text through a new nested directory', async () => {
      const text = 'first line\nsecond: héllo 世界 🎉\n';

      const written = await writeFileTool({ path: 'notes/today/a.md', content: text }, ctx());
      const read = await readFileTool({ path: 'notes/today/a.md' }, ctx());

      expect(written).toEqual({
        content: `Wrote ${Buffer.byteLength(text)} bytes to notes/today/a.md.`,
        summary: `wrote ${Buffer.byteLength(text)} bytes to notes/today/a.md`,
      });
      expect(read.content).toBe(text);
      expect(read.summary).toBe(`read notes/today/a.md (${Buffer.byteLength(text)} bytes)`);
      expect(await readFile(path.join(workspaceDir, 'notes/today/a.md'), 'utf8')).toBe(text);
    });

    it('appends with append: true and replaces without it', async () => {
      await writeFileTool({ path: 'log.txt', content: 'one\n' }, ctx());
      const appended = await writeFileTool({ path: 'log.txt', content: 'two\n', append: true }, ctx());
      expect((await readFileTool({ path: 'log.txt' }, ctx())).content).toBe('one\ntwo\n');
      expect(appended.summary).toBe('appended 4 bytes to log.txt');

      await writeFileTool({ path: 'log.txt', content: 'three\n' }, ctx());
      expect((await readFileTool({ path: 'log.txt' }, ctx())).content).toBe('three\n');
    });

    it('creates the workspace on first write', async () => {
      const fresh = path.join(tmp, 'new-workspace');
      await writeFileTool({ path: 'a.txt', content: 'x' }, { ...ctx(), workspaceDir: fresh });
      expect(await readFile(path.join(fresh, 'a.txt'), 'utf8')).toBe('x');
    });

    it('accepts an absolute path inside the workspace and a symlink that stays inside', async () => {
      await writeFileTool({ path: path.join(workspaceDir, 'abs.txt'), content: 'abs' }, ctx());
      // Made by the tool, so the sandbox's user (another uid under a root worker) may write into it.
      await writeFileTool({ path: 'real/.keep', content: '' }, ctx());
      await symlink(path.join(workspaceDir, 'real'), path.join(workspaceDir, 'alias'));

      await writeFileTool({ path: 'alias/inner.txt', content: 'via link' }, ctx());

      expect((await readFileTool({ path: 'abs.txt' }, ctx())).content).toBe('abs');
      expect(await readFile(path.join(workspaceDir, 'real/inner.txt'), 'utf8')).toBe('via link');
    });

    it('truncates at max_bytes on a character boundary with a note', async () => {
      await writeFile(path.join(workspaceDir, 'big.txt'), '世'.repeat(1000)); // 3000 bytes

      const read = await readFileTool({ path: 'big.txt', max_bytes: 1000 }, ctx());

      expect(
        read.content.startsWith('世'.repeat(333) + '\n[… truncated: showed the first 999 of 3000 bytes'),
      ).toBe(true);
      expect(read.content).not.toContain('\uFFFD');
      expect(read.summary).toBe('read first 999 of 3000 bytes of big.txt');
    });

    it(`reads at most ${DEFAULT_READ_BYTES} bytes by default`, async () => {
      await writeFile(path.join(workspaceDir, 'huge.txt'), 'a'.repeat(DEFAULT_READ_BYTES + 10));

      const read = await readFileTool({ path: 'huge.txt' }, ctx());

      expect(read.content).toContain(
        `showed the first ${DEFAULT_READ_BYTES} of ${DEFAULT_READ_BYTES + 10} bytes`,
      );
    });

    it('reports a binary file instead of showing it', async () => {
      await writeFile(path.join(workspaceDir, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));

      const read = await readFileTool({ path: 'blob.bin' }, ctx());

      expect(read.content).toBe('[binary file: blob.bin, 6 bytes; not shown]');
    });
  });

  describe('file tools stay inside the workspace', () => {
    it('refuse ../ escapes', async () => {
      await expectInputError(readFileTool({ path: '../outside/secret.txt' }, ctx()), /outside the workspace/);
      await expectInputError(writeFileTool({ path: '../x', content: 'no' }, ctx()), /outside the workspace/);
      await expectInputError(writeFileTool({ path: 'a/../../x', content: 'no' }, ctx()), /outside/);
      expect(await readdir(tmp)).toEqual(['outside', 'workspace']);
    });

    it('refuse absolute paths outside the workspace', async () => {
      await expectInputError(readFileTool({ path: '/etc/passwd' }, ctx()), /outside the workspace/);
      await expectInputError(
        writeFileTool({ path: path.join(outsideDir, 'new.txt'), content: 'no' }, ctx()),
        /outside the workspace/,
      );
    });

    it('refuse symlinks that resolve outside, to files and to directories', async () => {
      await symlink('/etc/passwd', path.join(workspaceDir, 'passwd'));
      await symlink(outsideDir, path.join(workspaceDir, 'out'));

      await expectInputError(readFileTool({ path: 'passwd' }, ctx()), /symbolic link/);
      await expectInputError(readFileTool({ path: 'out/secret.txt' }, ctx()), /symbolic link/);
      await expectInputError(writeFileTool({ path: 'passwd', content: 'no' }, ctx()), /symbolic link/);
      await expectInputError(
        writeFileTool({ path: 'out/deeper/new.txt', content: 'no' }, ctx()),
        /symbolic link/,
      );
      expect(await readdir(outsideDir)).toEqual(['secret.txt']);
    });

    it('refuse a dangling symlink, which writing would create outside', async () => {
      await symlink(path.join(outsideDir, 'created.txt'), path.join(workspaceDir, 'dangling'));

      await expectInputError(writeFileTool({ path: 'dangling', content: 'no' }, ctx()), /symbolic link/);

      expect(await readdir(outsideDir)).toEqual(['secret.txt']);
    });
  });

  describe('file tool errors the model can act on', () => {
    it('name a missing file, a directory, and a parent that is a file', async () => {
      await writeFile(path.join(workspaceDir, 'plain.txt'), 'x');
      await mkdir(path.join(workspaceDir, 'dir'));

      await expectInputError(readFileTool({ path: 'missing.txt' }, ctx()), /^file not found: missing\.txt$/);
      await expectInputError(readFileTool({ path: 'dir' }, ctx()), /"dir" is a directory/);
      await expectInputError(writeFileTool({ path: 'dir', content: 'x' }, ctx()), /"dir" is a directory/);
      await expectInputError(
        writeFileTool({ path: 'plain.txt/child.txt', content: 'x' }, ctx()),
        /a parent of "plain\.txt\/child\.txt" is not a directory/,
      );
      await expectInputError(writeFileTool({ path: '.', content: 'x' }, ctx()), /workspace directory itself/);
    });

    it('reject invalid arguments with the field name', async () => {
      await expectInputError(readFileTool({ path: '' }, ctx()), /^invalid arguments for read_file: path:/);
      await expectInputError(readFileTool({ path: 'a', max_bytes: 0 }, ctx()), /max_bytes:/);
      // @ts-expect-error: content missing on purpose
      await expectInputError(writeFileTool({ path: 'a' }, ctx()), /content:/);
    });
  });
});

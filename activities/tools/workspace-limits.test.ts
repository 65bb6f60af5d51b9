// The retention sweep of a session's tool output: old full-output files and old background-job files go, fresh
// ones and anything behind a link stay.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOBS_FOLDER, sweepOutputDir } from './workspace-limits.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
let root: string;

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function file(p: string, ageMs: number): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, 'x');
  const t = new Date(Date.now() - ageMs);
  fs.utimesSync(p, t, t);
}

describe('sweepOutputDir', () => {
  it("removes old full-output files and ended jobs' files, keeps fresh ones and never follows a link", () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-sweep-'));
    const out = path.join(root, 'tool-output', 'session');
    file(path.join(out, 'old.log'), 3 * DAY_MS);
    file(path.join(out, 'new.log'), 1000);
    file(path.join(out, JOBS_FOLDER, 'j1.stdout'), 3 * DAY_MS);
    file(path.join(out, JOBS_FOLDER, 'j1.exit'), 3 * DAY_MS);
    file(path.join(out, JOBS_FOLDER, 'j2.stdout'), 1000);
    const outside = path.join(root, 'outside');
    file(path.join(outside, 'keep.stdout'), 3 * DAY_MS);
    const other = path.join(root, 'tool-output', 'other');
    fs.mkdirSync(other, { recursive: true });
    fs.symlinkSync(outside, path.join(other, JOBS_FOLDER));

    return Promise.all([sweepOutputDir(out, DAY_MS), sweepOutputDir(other, DAY_MS)]).then(([n, m]) => {
      expect(n).toBe(3);
      expect(m).toBe(0);
      expect(fs.readdirSync(out).sort()).toEqual([JOBS_FOLDER, 'new.log']);
      expect(fs.readdirSync(path.join(out, JOBS_FOLDER))).toEqual(['j2.stdout']);
      expect(fs.readdirSync(outside)).toEqual(['keep.stdout']);
    });
  });
});

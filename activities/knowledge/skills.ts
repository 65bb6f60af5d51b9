/**
 * Skills (docs/memory.md "Skills"): Markdown files in `KESOKU_SKILLS_DIR`, each with a YAML front matter naming
 * it (`name`, `description`, `when_to_use`). Their names and descriptions go into the system prompt; the model
 * loads a body when it needs it (tool `load_skill`). Read once at worker start: a malformed file is reported
 * and skipped, never fatal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** A skill as the system prompt lists it, plus its body. */
export interface Skill {
  name: string;
  description: string;
  when_to_use: string;
  body: string;
  /** The file it came from. */
  file: string;
}

/** A file that is not a valid skill, with the reason (for the start-up report). */
export interface SkillProblem {
  file: string;
  problem: string;
}

/** Largest skill file read, in bytes. */
export const SKILL_MAX_BYTES = 64 * 1024;

const frontMatterSchema = z.object({
  name: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9_-]{0,63}$/,
      'name must be 1-64 characters of a-z 0-9 _ - (starting with a letter or digit)',
    ),
  description: z.string().trim().min(1).max(300),
  when_to_use: z.string().trim().min(1).max(500),
});

/**
 * Parses one skill file's text.
 * @returns the skill, or the problem that makes it invalid (no front matter, bad YAML, a missing or bad field, no body)
 */
export function parseSkill(file: string, text: string): Skill | SkillProblem {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m)
    return {
      file,
      problem: 'no front matter (the file must start with a --- line, the fields, and a --- line)',
    };
  let meta: unknown;
  try {
    meta = parseYaml(m[1] ?? '');
  } catch (err) {
    return { file, problem: `the front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  const parsed = frontMatterSchema.safeParse(meta);
  if (!parsed.success)
    return {
      file,
      problem: parsed.error.issues
        .map((i) => `${i.path.join('.') || 'front matter'}: ${i.message}`)
        .join('; '),
    };
  const body = (m[2] ?? '').trim();
  if (body === '') return { file, problem: 'the skill has no body after the front matter' };
  return { ...parsed.data, body, file };
}

/** The skills of one folder, by name, and the files that were skipped. */
export interface SkillCatalog {
  skills: Skill[];
  problems: SkillProblem[];
  get(name: string): Skill | undefined;
}

/**
 * Reads every `*.md` file of `dir` (not recursive), in name order. A second file with a name already taken is
 * skipped as a problem. A missing or unreadable folder is one problem and no skills.
 */
export function loadSkills(dir: string | undefined): SkillCatalog {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  if (dir) {
    let files: string[] = [];
    try {
      files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort();
    } catch (err) {
      problems.push({ file: dir, problem: `the skills folder cannot be read: ${(err as Error).message}` });
    }
    for (const f of files) {
      const file = path.join(dir, f);
      let text: string;
      try {
        const stat = fs.statSync(file);
        if (!stat.isFile()) continue;
        if (stat.size > SKILL_MAX_BYTES) {
          problems.push({ file, problem: `larger than ${SKILL_MAX_BYTES} bytes` });
          continue;
        }
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        problems.push({ file, problem: `cannot be read: ${(err as Error).message}` });
        continue;
      }
      const s = parseSkill(file, text);
      if ('problem' in s) problems.push(s);
      else if (skills.some((k) => k.name === s.name))
        problems.push({ file, problem: `the name ${s.name} is already taken by another skill file` });
      else skills.push(s);
    }
  }
  return { skills, problems, get: (name) => skills.find((s) => s.name === name) };
}

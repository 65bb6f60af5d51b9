/**
 * Skills and the active plan on the real stack (Temporal dev server, Postgres, worker with a skills folder, fake
 * model recording what it receives): skills are listed in the system prompt and loaded on demand; a malformed
 * skill file is skipped; a plan updated over three tool steps is in the runtime context of each following step
 * and in GET /v1/sessions/{sessionId}.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSkills } from '../../activities/knowledge/skills.ts';
import type { FakeRequest } from '../fakes/model-server.ts';
import { uniqueId } from '../support/stack.ts';
import { useHarness } from '../api/support.ts';

const REPO_SKILLS = path.join(import.meta.dirname, '..', '..', 'skills');
const skillsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-skills-'));
for (const f of fs.readdirSync(REPO_SKILLS))
  fs.copyFileSync(path.join(REPO_SKILLS, f), path.join(skillsDir, f));
fs.writeFileSync(path.join(skillsDir, 'broken.md'), '---\nname: Broken Name\ndescription: x\n---\nbody\n');
fs.writeFileSync(path.join(skillsDir, 'no-front-matter.md'), '# just text\n');

const h = useHarness({ stack: { skillsDir } });

const systemOf = (r: FakeRequest | undefined) =>
  (r?.body?.messages ?? []).filter((m) => m.role === 'system').map((m) => String(m.content));
const lastUserOf = (r: FakeRequest | undefined) =>
  String([...(r?.body?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '');

describe('skills', () => {
  it('reports a malformed skill file and skips it, keeping the good ones', () => {
    const catalog = loadSkills(skillsDir);
    expect(catalog.skills.map((s) => s.name)).toEqual(['disk-usage', 'git-commit']);
    expect(catalog.problems.map((p) => [path.basename(p.file), p.problem])).toEqual([
      ['broken.md', expect.stringMatching(/^name: name must be 1-64 characters.*; when_to_use: /)],
      ['no-front-matter.md', expect.stringMatching(/^no front matter/)],
    ]);
  });

  it('lists skills in the system prompt and loads a body on demand; an unknown name is a tool error', async () => {
    const s = uniqueId('s-skill');
    h.stack.script(
      s,
      { kind: 'tool_calls', calls: [{ name: 'load_skill', arguments: { name: 'git-commit' } }] },
      { kind: 'tool_calls', calls: [{ name: 'load_skill', arguments: { name: 'nope' } }] },
      { kind: 'text', text: 'Committed.' },
    );
    const r = await h.client.post(`/v1/sessions/${s}/messages`, { content: 'commit my work', wait: 60 });
    expect(r.status, r.text).toBe(200);
    const requests = h.stack.requestsOf(s);
    const system = systemOf(requests[0]);
    expect(system).toHaveLength(1);
    expect(system[0]).toContain('# Skills');
    expect(system[0]).toContain(
      '- git-commit: Commit changes in a git repository with a clear, honest message.',
    );
    expect(system[0]).toContain('- disk-usage: ');
    expect(system[0]).not.toContain('Stage only what belongs'); // bodies only on demand
    expect(JSON.stringify(requests[0]?.body?.tools)).toContain('"load_skill"');
    const results = (await h.stack.messages(s)).filter((m) => m.type === 'tool_result').map((m) => m.content);
    expect(results[0]).toMatch(/^# Skill: git-commit\n\n# Committing with git\n/);
    expect(results[1]).toBe('Error: there is no skill "nope"; the skills are: disk-usage, git-commit');
  });
});

describe('active plan', () => {
  it('a plan updated over three tool steps is in each following prompt and in GET /v1/sessions/{id}', async () => {
    const s = uniqueId('s-plan');
    const plan = (a: string, b: string, c: string) => ({
      kind: 'tool_calls' as const,
      calls: [
        {
          name: 'update_plan',
          arguments: {
            steps: [
              { title: 'Read the logs', status: a },
              { title: 'Find the cause', status: b },
              { title: 'Write the fix', status: c },
            ],
          },
        },
      ],
    });
    h.stack.script(
      s,
      plan('in_progress', 'pending', 'pending'),
      plan('done', 'in_progress', 'pending'),
      plan('done', 'done', 'in_progress'),
      { kind: 'text', text: 'Working on the fix.' },
    );
    const r = await h.client.post(`/v1/sessions/${s}/messages`, { content: 'fix the crash', wait: 60 });
    expect(r.status, r.text).toBe(200);
    const prompts = h.stack.requestsOf(s).map(lastUserOf);
    expect(prompts).toHaveLength(4);
    expect(prompts[0]).not.toContain('Active plan');
    expect(prompts[1]).toContain('1. [in_progress] Read the logs\n  2. [pending] Find the cause');
    expect(prompts[2]).toContain('1. [done] Read the logs\n  2. [in_progress] Find the cause');
    expect(prompts[3]).toContain('2. [done] Find the cause\n  3. [in_progress] Write the fix');
    const session = await h.client.get(`/v1/sessions/${s}`);
    expect(session.body.plan).toMatchObject({
      revision: 3,
      steps: [
        { title: 'Read the logs', status: 'done' },
        { title: 'Find the cause', status: 'done' },
        { title: 'Write the fix', status: 'in_progress' },
      ],
    });
  });

  it('a bad plan is a tool error naming the field', async () => {
    const s = uniqueId('s-badplan');
    h.stack.script(
      s,
      {
        kind: 'tool_calls',
        calls: [{ name: 'update_plan', arguments: { steps: [{ title: 'x', status: 'started' }] } }],
      },
      { kind: 'text', text: 'ok' },
    );
    await h.client.post(`/v1/sessions/${s}/messages`, { content: 'plan it', wait: 60 });
    const result = (await h.stack.messages(s)).find((m) => m.type === 'tool_result');
    expect(result?.content).toMatch(/^Error: invalid arguments for update_plan: steps\.0\.status: /);
  });
});

// The web page's Background jobs panel in real Chromium on the real stack (real Temporal, real Postgres, this
// host's sandbox, the fake model starting `run_shell_command` with `background: true`): a running job is listed
// running and killed from the page, and a job that ends by itself shows how it ended and its output, live.
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { jobAlertMessageId } from '../../domain/jobs.ts';
import { sessionWorkspaceDir } from '../../infra/workspace.ts';
import { uniqueId } from '../support/stack.ts';
import {
  expectCleanPage,
  openPage,
  send,
  sessionUrl,
  useBrowser,
  useWebHarness,
  waitForReply,
  type OpenPage,
} from './support.ts';

const h = useWebHarness();
const b = useBrowser();
const pages: OpenPage[] = [];
const sessions: string[] = [];
afterEach(async () => {
  for (const p of pages.splice(0)) await p.context.close();
  // A test that failed half-way leaves no job running (the worker would wait for it when the stack stops).
  for (const s of sessions.splice(0))
    for (const j of await jobsOf(s))
      if (j.state === 'running') await h.client.request('DELETE', `/v1/sessions/${s}/jobs/${j.id}`);
});

// A new session's first reads answer 404 (nothing sent to it yet).
const NOT_YET = [/Failed to load resource: the server responded with a status of 404/];

interface Job {
  id: string;
  state: string;
  exit_code: number | null;
  ended_at: string | null;
  output_tail: string | null;
}

const jobsOf = async (session: string) =>
  (await h.client.get<{ jobs: Job[] }>(`/v1/sessions/${session}/jobs`)).body.jobs;

/** Opens `session`, has the agent start `command` in the background from the page, and opens the jobs panel. */
async function startFromPage(session: string, command: string) {
  const p = await openPage(b.browser, sessionUrl(h.api.url, session));
  pages.push(p);
  sessions.push(session);
  h.stack.script(
    session,
    { kind: 'tool_calls', calls: [{ name: 'run_shell_command', arguments: { command, background: true } }] },
    { kind: 'text', text: 'The job runs in the background.' },
  );
  await send(p.page, 'start the job');
  await waitForReply(p.page, 'The job runs in the background.');
  await p.page.getByRole('button', { name: /^Background jobs/ }).click();
  const panel = p.page.getByRole('complementary', { name: 'Background jobs' });
  const [job] = await jobsOf(session);
  expect(job?.state).toBe('running');
  return { p, panel, item: panel.locator(`li.job[data-job="${job!.id}"]`), jobId: job!.id };
}

/** The panel's item of job `id` while it shows `state`. */
const inState = (panel: Locator, id: string, state: string) =>
  panel.locator(`li.job[data-job="${id}"][data-state="${state}"]`);

describe('the Background jobs panel', () => {
  it('lists a running job as running with its command, kills it with its Kill button, and shows it killed', async () => {
    const session = uniqueId('web');
    const marker = `${51 + Math.floor(Math.random() * 1000)}.5`;
    const { p, panel, item, jobId } = await startFromPage(session, `sleep ${marker}; echo never`);

    await inState(panel, jobId, 'running').waitFor();
    expect(await item.locator('.state').textContent()).toBe('⏳ running');
    expect(await item.locator('.command').textContent()).toBe(`$ sleep ${marker}; echo never`);
    expect(await item.locator('.id').textContent()).toBe(jobId);
    expect(await item.locator('.times').textContent()).toMatch(
      /^started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · running for [\d.]+s \(killed after 1h\)$/,
    );
    expect(await p.page.getByRole('button', { name: 'Background jobs (1, 1 running)' }).textContent()).toBe(
      '⚙ Jobs (1 running)',
    );

    await item.getByRole('button', { name: `Kill job ${jobId}` }).click();
    await inState(panel, jobId, 'killed').waitFor({ timeout: 20_000 });
    expect(await item.locator('.state').textContent()).toBe('⏹️ killed');
    expect(await item.getByRole('button', { name: /^Kill/ }).count()).toBe(0);
    expect(await item.locator('.times time').nth(1).getAttribute('datetime')).not.toBeNull();
    const [stored] = await jobsOf(session);
    expect(stored).toMatchObject({ id: jobId, state: 'killed', exit_code: null });
    await expect
      .poll(() => p.page.getByRole('button', { name: /^Background jobs/ }).textContent())
      .toBe('⚙ Jobs (1)');

    // The kill's background alert wakes the session once; its turn ends before the stack stops.
    await h.stack.waitForStatus(jobAlertMessageId(jobId), ['processed'], 30_000);
    expectCleanPage(p, NOT_YET);
  }, 90_000);

  it('shows a job that ends by itself, without a reload: failed, its exit code, how it ended and its output (collapsed)', async () => {
    const session = uniqueId('web');
    const word = `kiwi-${Date.now().toString(36)}`;
    // The command waits for a file the test writes once the page has shown it running.
    const { p, panel, item, jobId } = await startFromPage(
      session,
      `while [ ! -e go ]; do sleep 0.2; done; echo ${word}; echo broken >&2; exit 3`,
    );
    await inState(panel, jobId, 'running').waitFor();
    fs.writeFileSync(path.join(sessionWorkspaceDir(h.stack.dataDir, session), 'go'), '');

    await inState(panel, jobId, 'failed').waitFor({ timeout: 20_000 });
    const [stored] = await jobsOf(session);
    expect(stored).toMatchObject({ id: jobId, state: 'failed', exit_code: 3 });
    expect(await item.locator('.state').textContent()).toBe('❌ failed · exit 3');
    expect(await item.locator('.times time').nth(1).getAttribute('datetime')).toBe(stored!.ended_at);
    expect(await item.locator('.summary').textContent()).not.toBe('');
    const output = item.locator('details.job-output');
    expect(await output.getAttribute('open')).toBeNull();
    expect(await output.locator('.tail').isVisible()).toBe(false);
    await output.locator('summary').click();
    const tail = (await output.locator('.tail').textContent()) ?? '';
    expect(tail).toBe((stored!.output_tail ?? '').trimEnd());
    expect(tail).toMatch(new RegExp(`=== STDOUT ===\\n${word}\\n[^]*=== STDERR ===\\nbroken`));
    expect(await item.getByRole('button', { name: /^Kill/ }).count()).toBe(0);

    await h.stack.waitForStatus(jobAlertMessageId(jobId), ['processed'], 30_000);
    expectCleanPage(p, NOT_YET);
  }, 90_000);
});

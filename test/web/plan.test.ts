// The web page's plan panel in real Chromium on the real stack (Temporal, Postgres, the worker with its sandbox,
// the fake model): the plan the model sets with update_plan appears above the transcript while the turn still
// runs, moves on with the next update_plan of the same turn, and is still there after a reload.
import { afterEach, describe, expect, it } from 'vitest';
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
afterEach(async () => {
  for (const p of pages.splice(0)) await p.context.close();
});

// A new session's first reads answer 404 (nothing sent to it yet).
const EXPECTED = [/Failed to load resource: the server responded with a status of 404/];

const plan = (second: 'pending' | 'in_progress' | 'done', third: 'pending' | 'done') => ({
  name: 'update_plan',
  arguments: {
    steps: [
      { title: 'Read the logs', status: 'done' },
      { title: 'Fix the bug', status: second },
      { title: 'Run the tests', status: third },
    ],
  },
});

describe('the plan panel', () => {
  it('shows the plan while the turn runs, each update of it live, and keeps it after a reload', async () => {
    const session = uniqueId('web-plan');
    h.stack.script(
      session,
      { kind: 'tool_calls', calls: [plan('in_progress', 'pending')] },
      { kind: 'tool_calls', calls: [{ name: 'run_shell_command', arguments: { command: 'sleep 4' } }] },
      { kind: 'tool_calls', calls: [plan('done', 'done')] },
      { kind: 'text', text: 'All three steps are done.' },
    );
    const p = await openPage(b.browser, sessionUrl(h.api.url, session));
    pages.push(p);
    const { page } = p;
    const panel = page.getByRole('region', { name: 'Plan' });
    expect(await panel.count()).toBe(0); // no plan yet: no panel

    await send(page, 'fix it, step by step');
    // While the command sleeps (the turn is still running), the first plan is shown.
    await page.locator('.live .tool.running', { hasText: 'run_shell_command' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => panel.locator('h2').textContent()).toBe('📋 Plan 1/3 done');
    expect(
      await panel.locator('li').evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))),
    ).toEqual(['done', 'in_progress', 'pending']);
    expect(await panel.locator('li.in_progress .title').textContent()).toBe('Fix the bug');
    expect(await page.locator('.live .tool.running').count()).toBe(1);

    // The second update of the same turn replaces it.
    await waitForReply(page, 'All three steps are done.');
    await expect.poll(() => panel.locator('h2').textContent()).toBe('📋 Plan 3/3 done');
    expect(await panel.locator('li.done').count()).toBe(3);

    // After a reload the plan comes from the session itself.
    await page.reload();
    await expect.poll(() => panel.locator('h2').textContent(), { timeout: 15_000 }).toBe('📋 Plan 3/3 done');
    expect(await panel.locator('li .title').allTextContents()).toEqual([
      'Read the logs',
      'Fix the bug',
      'Run the tests',
    ]);
    expectCleanPage(p, EXPECTED);
  });
});

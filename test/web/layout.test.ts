// The web page everywhere: at 360 px (a phone) and on a desktop, light and dark, keyboard only, every control
// named for screen readers. The screenshots of docs/web/ are made here: `npm run screenshots` sets
// KESOKU_SCREENSHOTS=docs/web; without it they go to a temporary directory (the states are still drawn and checked).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobAlertMessageId } from '../../domain/jobs.ts';
import { uniqueId } from '../support/stack.ts';
import { eventually } from '../api/support.ts';
import {
  expectCleanPage,
  openPage,
  sessionUrl,
  useBrowser,
  useWebHarness,
  waitForReply,
  type BrowserWindow,
  type OpenPage,
} from './support.ts';

const h = useWebHarness();
const b = useBrowser();
const shots = process.env.KESOKU_SCREENSHOTS
  ? path.resolve(process.env.KESOKU_SCREENSHOTS)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-shots-'));
const chat = uniqueId('web-demo');
const approval = uniqueId('web-approval');
const withJobs = uniqueId('web-jobs');
/** The job of `withJobs` that runs until the file is done (killed at the end). */
let runningJob = '';

const REPLY = [
  'There is **plenty** of room on `/` (the line above: size, used, free, use%).',
  '',
  '| to see | run |',
  '|---|---|',
  '| free space | `df -h /` |',
  '| the biggest folders | `du -sh * \\| sort -h` |',
  '',
  'To watch it over time:',
  '',
  '```sh',
  'watch -n 60 df -h /',
  '```',
].join('\n');

beforeAll(async () => {
  fs.mkdirSync(shots, { recursive: true });
  // A finished tool turn with a Markdown reply, and a session waiting for an approval.
  await h.client.patch(`/v1/sessions/${chat}`, { title: 'Disk space check' });
  h.stack.script(
    chat,
    {
      kind: 'tool_calls',
      text: 'I will look at the free space of the root filesystem.',
      calls: [{ name: 'run_shell_command', arguments: { command: 'df -h / | tail -n 1' } }],
    },
    { kind: 'text', text: REPLY },
  );
  await h.client.post(`/v1/sessions/${chat}/messages`, {
    content: 'How much disk space is free? Use the shell.',
    wait: 60,
  });
  await h.client.patch(`/v1/sessions/${approval}`, { title: 'Clean the build output', approval: 'writes' });
  h.stack.script(approval, {
    kind: 'tool_calls',
    text: 'I will remove the old build directory.',
    calls: [{ name: 'run_shell_command', arguments: { command: 'rm -rf build/ && mkdir build' } }],
  });
  await h.client.post(`/v1/sessions/${approval}/messages`, { content: 'Please clean the build output.' });
  await eventually(async () => {
    const s = await h.client.get<{ pending_approvals: unknown[] }>(`/v1/sessions/${approval}`);
    return s.body.pending_approvals.length === 1;
  });
  // A session with background jobs: one that ended with its output, one still running.
  await h.client.patch(`/v1/sessions/${withJobs}`, { title: 'Nightly build' });
  const background = (command: string) => ({
    name: 'run_shell_command',
    arguments: { command, background: true },
  });
  h.stack.script(
    withJobs,
    {
      kind: 'tool_calls',
      text: 'I will run the build and the long test suite in the background.',
      calls: [
        background("echo 'build: 128 files compiled'; echo 'warning: 2 deprecated calls' >&2"),
        background('sleep 600; echo tests done'),
      ],
    },
    { kind: 'text', text: 'Both run in the background: the build, and the long tests.' },
  );
  await h.client.post(`/v1/sessions/${withJobs}/messages`, { content: 'Build it and test it.', wait: 60 });
  let ended = '';
  await eventually(async () => {
    const r = await h.client.get<{ jobs: { id: string; state: string }[] }>(`/v1/sessions/${withJobs}/jobs`);
    runningJob = r.body.jobs.find((j) => j.state === 'running')?.id ?? '';
    ended = r.body.jobs.find((j) => j.state === 'succeeded')?.id ?? '';
    return ended !== '' && runningJob !== '';
  });
  // The ended job's alert has its turn, so the transcript stands still for the pictures.
  await h.stack.waitForStatus(jobAlertMessageId(ended), ['processed'], 30_000);
});

afterAll(async () => {
  if (runningJob !== '') await h.client.request('DELETE', `/v1/sessions/${withJobs}/jobs/${runningJob}`);
});

afterAll(() => {
  if (!process.env.KESOKU_SCREENSHOTS) fs.rmSync(shots, { recursive: true, force: true });
});

const opened: OpenPage[] = [];
afterAll(async () => {
  for (const p of opened) await p.context.close();
});

async function view(session: string, opts: Parameters<typeof openPage>[2]): Promise<OpenPage> {
  const p = await openPage(b.browser, sessionUrl(h.api.url, session), opts);
  opened.push(p);
  await p.page.getByRole('textbox', { name: 'Message' }).waitFor();
  return p;
}

/** Nothing wider than the window: no horizontal scrolling of the page. */
async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const el = (globalThis as unknown as BrowserWindow).document.scrollingElement;
    return { scrollWidth: el?.scrollWidth ?? 0, clientWidth: el?.clientWidth ?? 0 };
  });
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

/** Every button, field and list box has a name a screen reader can say. */
async function expectNamedControls(page: Page): Promise<void> {
  const unnamed = await page.evaluate(() => {
    type El = {
      tagName: string;
      hidden?: boolean;
      textContent: string | null;
      getAttribute(n: string): string | null;
      labels?: ArrayLike<{ textContent: string | null }> | null;
      outerHTML: string;
      closest(s: string): unknown;
    };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> } })
      .document;
    return Array.from(doc.querySelectorAll('button, input, select, textarea, [role=button]'))
      .filter((el) => el.getAttribute('type') !== 'file' && !el.closest('[aria-hidden=true]'))
      .filter((el) => {
        const label = Array.from(el.labels ?? [])
          .map((l) => l.textContent ?? '')
          .join('');
        const name =
          el.getAttribute('aria-label') ?? (label || el.textContent || el.getAttribute('title') || '');
        return name.trim() === '';
      })
      .map((el) => el.outerHTML.slice(0, 120));
  });
  expect(unnamed).toEqual([]);
}

describe('the web page everywhere', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`on a desktop, ${scheme}: the tool turn and the reply, and a call waiting for approval`, async () => {
      const p = await view(chat, { width: 1280, height: 860, colorScheme: scheme });
      await waitForReply(p.page, 'plenty');
      const text = await p.page.evaluate(() => {
        const w = globalThis as unknown as BrowserWindow & { document: { body: unknown } };
        return w.getComputedStyle(w.document.body).color;
      });
      expect(text).toBe(scheme === 'dark' ? 'rgb(230, 237, 243)' : 'rgb(31, 35, 40)');
      await p.page.locator('.panel.tool-result summary').click();
      await expectNoHorizontalScroll(p.page);
      await expectNamedControls(p.page);
      await p.page.screenshot({ path: path.join(shots, `desktop-${scheme}.png`) });
      await p.page.locator(`button.session[data-session="${approval}"]`).click();
      await p.page.getByRole('group', { name: 'Approval needed: run_shell_command' }).waitFor();
      await expectNamedControls(p.page);
      await p.page.screenshot({ path: path.join(shots, `desktop-approval-${scheme}.png`) });
      // The background jobs beside the transcript: the ended one with its output open, the running one.
      await p.page.locator(`button.session[data-session="${withJobs}"]`).click();
      await p.page.getByRole('button', { name: /^Background jobs/ }).click();
      const jobs = p.page.getByRole('complementary', { name: 'Background jobs' });
      await jobs.locator('li.job[data-state="running"]').waitFor();
      await jobs.locator('li.job[data-state="succeeded"] details.job-output summary').click();
      await expectNoHorizontalScroll(p.page);
      await expectNamedControls(p.page);
      await p.page.screenshot({ path: path.join(shots, `desktop-jobs-${scheme}.png`) });
      expectCleanPage(p);
    });

    it(`at 360 px, ${scheme}: no sideways scrolling, the sessions list as a drawer`, async () => {
      const p = await view(chat, { width: 360, height: 740, colorScheme: scheme });
      await waitForReply(p.page, 'plenty');
      await expectNoHorizontalScroll(p.page);
      expect(await p.page.getByRole('navigation', { name: 'Sessions' }).isVisible()).toBe(false);
      await p.page.screenshot({ path: path.join(shots, `phone-${scheme}.png`) });
      await p.page.getByRole('button', { name: 'Show sessions' }).click();
      await p.page.getByRole('navigation', { name: 'Sessions' }).waitFor();
      await expectNoHorizontalScroll(p.page);
      await p.page.screenshot({ path: path.join(shots, `phone-sessions-${scheme}.png`) });
      await p.page.locator(`button.session[data-session="${approval}"]`).click();
      const card = p.page.getByRole('group', { name: 'Approval needed: run_shell_command' });
      await card.waitFor();
      await expectNoHorizontalScroll(p.page);
      expect(await card.getByRole('button', { name: 'Approve' }).isVisible()).toBe(true);
      await p.page.screenshot({ path: path.join(shots, `phone-approval-${scheme}.png`) });
      await p.page.getByRole('button', { name: 'Show sessions' }).click();
      await p.page.locator(`button.session[data-session="${withJobs}"]`).click();
      await p.page.getByRole('button', { name: /^Background jobs/ }).click();
      const jobs = p.page.getByRole('complementary', { name: 'Background jobs' });
      await jobs.locator('li.job[data-state="running"]').waitFor();
      expect(await jobs.getByRole('button', { name: /^Kill job/ }).isVisible()).toBe(true);
      await expectNoHorizontalScroll(p.page);
      await expectNamedControls(p.page);
      await p.page.screenshot({ path: path.join(shots, `phone-jobs-${scheme}.png`) });
      expectCleanPage(p);
    });
  }

  it('works from the keyboard alone at 360 px: Tab to the message box, Enter sends, Esc stops', async () => {
    const session = uniqueId('web');
    const p = await openPage(b.browser, sessionUrl(h.api.url, session), { width: 360, height: 740 });
    opened.push(p);
    await p.page.getByRole('textbox', { name: 'Message' }).waitFor();
    const focused = () =>
      p.page.evaluate(
        () =>
          (
            globalThis as unknown as {
              document: { activeElement: { getAttribute(n: string): string | null } | null };
            }
          ).document.activeElement?.getAttribute('aria-label') ?? null,
      );
    let presses = 0;
    while ((await focused()) !== 'Message' && presses < 30) {
      await p.page.keyboard.press('Tab');
      presses++;
    }
    expect(await focused()).toBe('Message');
    await p.page.keyboard.type('run: sleep 30');
    await p.page.keyboard.press('Enter');
    await p.page.locator('.live .tool.running').waitFor();
    await p.page.keyboard.press('Escape');
    await p.page.locator('.panel.tool-result.interrupted').waitFor();
    await p.page.keyboard.type('and now?');
    await p.page.keyboard.press('Enter');
    await waitForReply(p.page, 'echo: and now?');
    await expectNoHorizontalScroll(p.page);
    // The theme switch is a named control too, and changes the page.
    await p.page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    const theme = await p.page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } })
          .document.documentElement.dataset.theme,
    );
    expect(theme).toBe('dark');
    expectCleanPage(p, [/Failed to load resource: the server responded with a status of 404/]);
  });

  it('the sign-in at 360 px', async () => {
    // A page of a server that needs a token: the same API with one, on the same stack.
    await h.stopApi();
    await h.startApi([{ name: 'admin', token: 'x'.repeat(40), admin: true }]);
    try {
      const p = await openPage(b.browser, `${h.api.url}/`, { width: 360, height: 640 });
      opened.push(p);
      await p.page.getByLabel('API token').waitFor();
      await expectNoHorizontalScroll(p.page);
      await expectNamedControls(p.page);
      await p.page.screenshot({ path: path.join(shots, 'phone-signin-light.png') });
    } finally {
      await h.stopApi();
      await h.startApi([]);
    }
  });
});

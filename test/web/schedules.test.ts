// The web page's Schedules panel in real Chromium on the real stack (real Temporal Schedules, real Postgres, the
// fake model): create from the page, see it listed with its next run in its zone, its prompt answered in the chat
// and its run recorded, pause / resume, refusals shown as the API's problem detail, and delete.
import { afterEach, describe, expect, it } from 'vitest';
import { uniqueId } from '../support/stack.ts';
import { replyWhen } from '../api/support.ts';
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
const pages: OpenPage[] = [];
afterEach(async () => {
  for (const p of pages.splice(0)) await p.context.close();
});

// A new session's first reads answer 404 (nothing sent to it yet); an invalid zone answers 400 on purpose.
const EXPECTED = [/Failed to load resource: the server responded with a status of (404|400)/];

describe('the Schedules panel', () => {
  it('creates an "in 3s" schedule, lists it with its next run in its zone, shows its reply in the chat and its run delivered, then deletes it', async () => {
    const session = uniqueId('web');
    const p = await openPage(b.browser, sessionUrl(h.api.url, session));
    pages.push(p);
    const { page } = p;
    const restore = replyWhen(h.stack, 'Check the backups', { kind: 'text', text: 'The backups are fine.' });
    try {
      await page.getByRole('button', { name: /^Schedules/ }).click();
      const panel = page.getByRole('complementary', { name: 'Schedules' });
      await panel.getByText('No scheduled prompts in this session.').waitFor();

      // A refusal changes nothing and shows the API's detail, naming the field.
      await panel.getByLabel('Schedule prompt').fill('Check the backups');
      await panel.getByLabel('Schedule kind').selectOption('in');
      await panel.getByLabel('Schedule timing').fill('3s');
      await panel.getByLabel('Schedule time zone').fill('Mars/Olympus');
      await panel.getByRole('button', { name: 'Create' }).click();
      await expect
        .poll(() => panel.getByRole('alert').textContent())
        .toBe('timezone "Mars/Olympus" is not a known IANA time zone');
      expect(
        (await h.client.get<{ schedules: unknown[] }>(`/v1/sessions/${session}/schedules`)).body.schedules ??
          [],
      ).toEqual([]);

      await panel.getByLabel('Schedule time zone').fill('asia/tokyo');
      await panel.getByRole('button', { name: 'Create' }).click();
      const item = panel.locator('li.schedule', { hasText: 'Check the backups' });
      await item.waitFor();
      expect(await item.locator('.zone').textContent()).toBe('Asia/Tokyo');
      expect(await item.locator('.timing').textContent()).toBe('once, in 3s · Asia/Tokyo');
      const next = await item.locator('.next time').getAttribute('datetime');
      expect(next).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
      expect(await item.locator('.next time').textContent()).toBe(
        `${next!.slice(0, 10)} ${next!.slice(11, 19)} +09:00`,
      );
      expect(await page.getByRole('button', { name: 'Schedules (1)' }).count()).toBe(1);

      // It fires: the cron prompt and its reply arrive in the chat through the event stream.
      await waitForReply(page, 'The backups are fine.', 30_000);
      const prompt = page.locator('.transcript .msg.user', { hasText: 'Check the backups' });
      expect(await prompt.locator('.who').textContent()).toBe('⏰ Cronjob');
      // Its run is listed, processed and delivered; a one-time schedule has no next run.
      await item
        .locator('.run[data-outcome="processed"]', { hasText: 'delivered' })
        .waitFor({ timeout: 15_000 });
      expect(await item.locator('.run').count()).toBe(1);
      expect(await item.locator('.next').textContent()).toBe('no next run');

      // Delete asks once more, then the schedule is gone here and in the API.
      await item.getByRole('button', { name: 'Delete' }).click();
      await item.getByRole('button', { name: 'Delete for good' }).click();
      await panel.getByText('No scheduled prompts in this session.').waitFor();
      expect(
        (await h.client.get<{ schedules: unknown[] }>(`/v1/sessions/${session}/schedules`)).body.schedules,
      ).toEqual([]);
      expect(await page.getByRole('button', { name: 'Schedules (0)' }).count()).toBe(1);
    } finally {
      restore();
    }
    expectCleanPage(p, EXPECTED);
  }, 90_000);

  it('sets the session\'s zone for new schedules, pauses and resumes an "every" schedule and runs it now, its reply arriving in the chat', async () => {
    const session = uniqueId('web');
    const p = await openPage(b.browser, sessionUrl(h.api.url, session));
    pages.push(p);
    const { page } = p;
    const restore = replyWhen(h.stack, 'Hourly digest', { kind: 'text', text: 'Digest: nothing new.' });
    try {
      await page.getByRole('button', { name: /^Schedules/ }).click();
      const panel = page.getByRole('complementary', { name: 'Schedules' });
      // The session's zone: refused with the API's detail, then set (canonical) and the default of new schedules.
      const zone = panel.getByRole('textbox', { name: 'Session time zone' });
      await zone.fill('Nowhere/Special');
      await panel.getByRole('button', { name: 'Set' }).click();
      await expect
        .poll(() => panel.getByRole('alert').textContent())
        .toBe('timezone: "Nowhere/Special" is not a known IANA time zone, e.g. "Asia/Tokyo"');
      await zone.fill('america/new_york');
      await panel.getByRole('button', { name: 'Set' }).click();
      await expect.poll(() => zone.inputValue()).toBe('America/New_York');
      expect((await h.client.get<{ timezone: string }>(`/v1/sessions/${session}`)).body.timezone).toBe(
        'America/New_York',
      );

      await panel.getByLabel('Schedule prompt').fill('Hourly digest');
      await panel.getByLabel('Schedule kind').selectOption('every');
      await panel.getByLabel('Schedule timing').fill('1h');
      await panel.getByRole('button', { name: 'Create' }).click();
      const item = panel.locator('li.schedule', { hasText: 'Hourly digest' });
      await item.waitFor();
      expect(await item.locator('.timing').textContent()).toBe('every 1h · America/New_York');
      expect(await item.locator('.next').textContent()).toMatch(/^next .* -0[45]:00 \(in (59m \d+s|1h)\)$/);

      await item.getByRole('button', { name: 'Pause' }).click();
      await item.getByText('paused').waitFor();
      const row = async () =>
        (await h.client.get<{ schedules: { paused: boolean }[] }>(`/v1/sessions/${session}/schedules`)).body
          .schedules[0];
      expect(await row()).toMatchObject({ paused: true });

      await item.getByRole('button', { name: 'Run now' }).click();
      await waitForReply(page, 'Digest: nothing new.', 30_000);
      await item.getByRole('button', { name: 'Resume' }).click();
      await item.locator('.next time').waitFor();
      expect(await row()).toMatchObject({ paused: false });
    } finally {
      restore();
    }
    expectCleanPage(p, EXPECTED);
  }, 90_000);

  it('fits a 360 px wide phone with the panel open', async () => {
    const p = await openPage(b.browser, sessionUrl(h.api.url, uniqueId('web')), { width: 360, height: 740 });
    pages.push(p);
    await p.page.getByRole('button', { name: /^Schedules/ }).click();
    const panel = p.page.getByRole('complementary', { name: 'Schedules' });
    await panel.getByText('No scheduled prompts in this session.').waitFor();
    expect(await panel.getByLabel('Schedule prompt').isVisible()).toBe(true);
    const { scrollWidth, clientWidth } = await p.page.evaluate(() => {
      const el = (globalThis as unknown as BrowserWindow).document.scrollingElement;
      return { scrollWidth: el?.scrollWidth ?? 0, clientWidth: el?.clientWidth ?? 0 };
    });
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    expect(await p.page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
    expectCleanPage(p, EXPECTED);
  });
});

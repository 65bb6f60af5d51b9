// The web page when things happen while it is not looking: a reload mid-stream, an approval asked while the page
// was closed, the API restarting, a message typed while the API is down or the browser is offline.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionDirName } from '../../activities/tools/activities.ts';
import { uniqueId } from '../support/stack.ts';
import { eventually, replyWhen } from '../api/support.ts';
import {
  expectCleanPage,
  openPage,
  replies,
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

async function open(session: string): Promise<OpenPage> {
  const p = await openPage(b.browser, sessionUrl(h.api.url, session));
  pages.push(p);
  return p;
}

const NOT_YET = [/Failed to load resource: the server responded with a status of 404/];
/** What Chromium logs while the API is down (the page's retries). */
const API_DOWN = [/Failed to load resource: net::ERR_CONNECTION_REFUSED/, /net::ERR_CONNECTION_REFUSED/];

const WORDS = Array.from({ length: 45 }, (_, i) => `w${i}`).join(' ');

describe('the web page resumes', () => {
  it('after a reload mid-stream: the streamed text is rebuilt from its first word, and the reply is shown once, as stored', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    // Every text the live region shows, across the reload (session storage survives it). The document itself is
    // observed: an init script runs before the root element exists.
    await p.context.addInitScript(() => {
      const w = globalThis as unknown as {
        sessionStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void };
        document: { querySelector(s: string): { textContent: string | null } | null };
        MutationObserver: new (cb: () => void) => { observe(n: unknown, o: Record<string, boolean>): void };
      };
      const seen: string[] = JSON.parse(w.sessionStorage.getItem('test.live') ?? '[]') as string[];
      new w.MutationObserver(() => {
        const text = w.document.querySelector('.live .streaming .markdown')?.textContent?.trim();
        if (text && text !== seen.at(-1)) {
          seen.push(text);
          w.sessionStorage.setItem('test.live', JSON.stringify(seen));
        }
      }).observe(w.document, { childList: true, subtree: true, characterData: true });
    });
    await p.page.reload();
    const restore = replyWhen(h.stack, 'long answer please', {
      kind: 'text',
      text: WORDS,
      chunkDelayMs: 120,
    });
    try {
      await send(p.page, 'long answer please');
      const live = p.page.locator('.live .streaming .markdown');
      await expect
        .poll(async () => ((await live.textContent()) ?? '').split(' ').length, { timeout: 10_000 })
        .toBeGreaterThan(6);
      const before = ((await live.textContent()) ?? '').trim();
      await p.page.reload();
      await live.waitFor();
      const after = ((await live.textContent()) ?? '').trim();
      // Nothing missing: the first text after the reload holds everything shown before it, from the first word.
      expect(after.startsWith(before), `${after} / ${before}`).toBe(true);
      await waitForReply(p.page, 'w44');
    } finally {
      restore();
    }
    const stored = (await h.stack.messages(session)).find((m) => m.role === 'assistant' && m.type === 'text');
    expect(stored?.content).toBe(WORDS);
    // Shown once, exactly as stored; no live text left over.
    expect(await replies(p.page)).toEqual([WORDS]);
    expect(await p.page.locator('.live').count()).toBe(0);
    // Every live text was a prefix of the reply: nothing doubled, nothing out of order.
    const seen = JSON.parse(
      (await p.page.evaluate(() =>
        (
          globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }
        ).sessionStorage.getItem('test.live'),
      )) ?? '[]',
    ) as string[];
    expect(seen.length).toBeGreaterThan(3);
    for (const t of seen) expect(WORDS.startsWith(t), t).toBe(true);
    expectCleanPage(p, NOT_YET);
  });

  it('shows on opening an approval asked while the page was closed; approving runs the command once', async () => {
    const session = uniqueId('web');
    await h.client.patch(`/v1/sessions/${session}`, { approval: 'writes' });
    const posted = await h.client.post<{ message: { id: string } }>(`/v1/sessions/${session}/messages`, {
      content: 'run: echo once >> count.txt',
    });
    await eventually(async () => {
      const s = await h.client.get<{ pending_approvals: unknown[] }>(`/v1/sessions/${session}`);
      return s.body.pending_approvals.length === 1;
    });
    const p = await open(session);
    const card = p.page.getByRole('group', { name: 'Approval needed: run_shell_command' });
    await card.waitFor();
    expect(await card.locator('.subject').textContent()).toBe('echo once >> count.txt');
    await expect(p.page.locator('.live .tool.waiting').textContent()).resolves.toContain(
      'waiting for approval',
    );
    await card.getByRole('button', { name: 'Approve' }).click();
    await waitForReply(p.page, 'Done');
    await expect.poll(() => card.count()).toBe(0);
    const workspace = path.join(h.stack.dataDir, 'workspaces', sessionDirName(session));
    expect(fs.readFileSync(path.join(workspace, 'count.txt'), 'utf8')).toBe('once\n');
    const call = (await h.stack.messages(session)).find((m) => m.type === 'tool_call');
    expect(call?.metadata?.approval).toMatchObject({
      state: 'approved',
      by: 'api:local',
      decision: 'approve',
    });
    await expect(p.page.locator('.panel.tool-call .badge').textContent()).resolves.toBe(
      'approved by api:local',
    );
    expect((await h.stack.messages(session)).find((m) => m.id === posted.body.message.id)?.status).toBe(
      'processed',
    );
    expectCleanPage(p);
  });

  it('sends a message once when the answer to its post was lost: the retry with the same id is acknowledged', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    let posts = 0;
    // The first post reaches the API, which stores the message; the page never hears the answer.
    await p.page.route('**/v1/sessions/*/messages', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      posts += 1;
      if (posts > 1) return route.continue();
      await route.fetch();
      await route.abort('connectionreset');
    });
    await send(p.page, 'answer lost on the way back');
    await waitForReply(p.page, 'echo: answer lost on the way back');
    // The page tried again (same id) and was told it is the same message.
    await expect.poll(() => posts, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => p.page.locator('.msg.unsent').count(), { timeout: 20_000 }).toBe(0);
    await eventually(async () =>
      (await h.stack.messages(session)).every((m) => m.role !== 'user' || m.status === 'processed'),
    );
    const users = (await h.stack.messages(session)).filter((m) => m.role === 'user');
    expect(users.map((m) => m.content)).toEqual(['answer lost on the way back']);
    expect(await replies(p.page)).toEqual(['echo: answer lost on the way back']);
    expect(await p.page.locator('.transcript > .msg.user').count()).toBe(1);
    expectCleanPage(p, [...NOT_YET, /net::ERR_CONNECTION_RESET/]);
  });

  it('while the API restarts: says it is reconnecting, then catches up and sends what was typed meanwhile, once', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    await send(p.page, 'before the restart');
    await waitForReply(p.page, 'echo: before the restart');

    await h.stopApi();
    await p.page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
    // Committed while the page cannot hear: the turn runs on the worker regardless.
    const away = await h.stack.submit(session, 'sent while the page was away');
    await h.stack.waitForStatus(away.message.id, ['processed']);
    await send(p.page, 'typed while the API is down');
    const unsent = p.page.locator('.msg.unsent', { hasText: 'typed while the API is down' });
    await expect
      .poll(() => unsent.locator('.badge').textContent(), { timeout: 15_000 })
      .toMatch(/^not sent yet/);

    await h.startApi();
    await waitForReply(p.page, 'echo: sent while the page was away');
    await waitForReply(p.page, 'echo: typed while the API is down');
    await expect.poll(() => p.page.getByText('Reconnecting…').count()).toBe(0);
    expect(await p.page.locator('.msg.unsent').count()).toBe(0);
    expect(await replies(p.page)).toEqual([
      'echo: before the restart',
      'echo: sent while the page was away',
      'echo: typed while the API is down',
    ]);
    const users = (await h.stack.messages(session)).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual([
      'before the restart',
      'sent while the page was away',
      'typed while the API is down',
    ]);
    expect(await p.page.locator('.transcript > .msg.user').count()).toBe(3);
    expectCleanPage(p, [...NOT_YET, ...API_DOWN]);
  });

  it('with the browser offline: a message typed meanwhile is marked not sent, then sent once when it is back online', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    await send(p.page, 'while online');
    await waitForReply(p.page, 'echo: while online');

    await p.context.setOffline(true);
    await send(p.page, 'typed while offline');
    const unsent = p.page.locator('.msg.unsent', { hasText: 'typed while offline' });
    await expect
      .poll(() => unsent.locator('.badge').textContent(), { timeout: 15_000 })
      .toMatch(/^not sent yet/);
    // Its retries while offline store nothing.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await h.stack.messages(session)).filter((m) => m.role === 'user')).toHaveLength(1);

    await p.context.setOffline(false);
    await waitForReply(p.page, 'echo: typed while offline');
    await expect.poll(() => p.page.locator('.msg.unsent').count()).toBe(0);
    const users = (await h.stack.messages(session)).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual(['while online', 'typed while offline']);
    expect(await replies(p.page)).toEqual(['echo: while online', 'echo: typed while offline']);
    expect(await p.page.locator('.transcript > .msg.user').count()).toBe(2);
    expectCleanPage(p, [...NOT_YET, /net::ERR_INTERNET_DISCONNECTED/]);
  });
});

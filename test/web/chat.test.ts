// The web page in real Chromium on the real stack: streaming replies, tool turns, stop, safe Markdown, code
// copy, attachments, two tabs, and the sessions list.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionDirName } from '../../activities/tools/activities.ts';
import type { Message } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import { eventually, replyWhen } from '../api/support.ts';
import {
  expectCleanPage,
  useWebHarness,
  openPage,
  replies,
  send,
  sessionUrl,
  useBrowser,
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

/** A new session's page (a 404 for the session not created yet is expected on the console). */
async function open(session: string, opts: Parameters<typeof openPage>[2] = {}): Promise<OpenPage> {
  const p = await openPage(b.browser, sessionUrl(h.api.url, session), opts);
  pages.push(p);
  return p;
}

const NOT_YET = [/Failed to load resource: the server responded with a status of 404/];

async function stored(session: string): Promise<Message[]> {
  return h.stack.messages(session);
}

/** The computed left border colour of the first element matching `selector`. */
const borderColor = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => (globalThis as unknown as BrowserWindow).getComputedStyle(el).borderLeftColor);

describe('the web page', () => {
  it('sends with Enter (Shift+Enter is a new line), streams the reply as it is written, then shows it with its metrics line', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    const text = 'The answer streams in word by word until it is complete.';
    const restore = replyWhen(h.stack, 'stream to me', { kind: 'text', text, chunkDelayMs: 120 });
    try {
      const box = p.page.getByRole('textbox', { name: 'Message' });
      await box.fill('stream to me');
      await box.press('Shift+Enter');
      await box.pressSequentially('please');
      expect(await box.inputValue()).toBe('stream to me\nplease');
      await box.press('Enter');
      // Live: a partial text of the answer, not the whole of it.
      const live = p.page.locator('.live .streaming .markdown');
      await live.waitFor();
      const partial = (await live.textContent())?.trim() ?? '';
      expect(partial.length).toBeGreaterThan(0);
      expect(text.startsWith(partial.replace(/▍$/, '').trim())).toBe(true);
      await waitForReply(p.page, 'until it is complete');
      expect(await replies(p.page)).toEqual([text]);
      await expect.poll(() => p.page.locator('.live').count()).toBe(0);
      const metrics = await p.page.locator('.msg.reply .metrics').textContent();
      expect(metrics).toMatch(/^⏱ \d+(\.\d)?s · 🔧 0 tools · \d+ tokens · turn 1$/);
      const user = (await stored(session)).find((m) => m.role === 'user');
      expect(user).toMatchObject({ content: 'stream to me\nplease', sender: 'web', status: 'processed' });
      await expect(p.page.locator('.transcript .msg.user .text').first().textContent()).resolves.toBe(
        'stream to me\nplease',
      );
    } finally {
      restore();
    }
    expectCleanPage(p, NOT_YET);
  });

  it("shows a running command's last output lines under its ⏳ line, gone once it finished", async () => {
    const session = uniqueId('web');
    const p = await open(session);
    await send(p.page, 'run: echo web-first; sleep 3; echo web-done');
    const tail = p.page.locator('.live .tool.running .tail');
    await expect.poll(() => tail.textContent(), { timeout: 15_000 }).toBe('web-first');
    await waitForReply(p.page, 'Done: web-first');
    expect(await p.page.locator('.live .tool .tail').count()).toBe(0);
  });

  it('shows a tool turn: ⏳ with the elapsed time, then thought, tool call and output panels in their colours with ✅', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    await send(p.page, 'run: sleep 1.5; echo tool-said-hi');
    const running = p.page.locator('.live .tool.running', { hasText: 'run_shell_command' });
    await running.waitFor();
    await expect.poll(() => running.textContent()).toMatch(/^⏳ run_shell_command\s*\d+(\.\d)?s$/);
    await waitForReply(p.page, 'Done: tool-said-hi');
    const thought = p.page.locator('.panel.thought');
    const call = p.page.locator('.panel.tool-call');
    const result = p.page.locator('.panel.tool-result');
    await expect(thought.locator('summary').textContent()).resolves.toContain('💭 thought');
    await expect(call.locator('summary').textContent()).resolves.toContain('🔧 run_shell_command');
    await expect(call.locator('summary').textContent()).resolves.toContain('$ sleep 1.5; echo tool-said-hi');
    const summary = (await result.locator('summary').textContent()) ?? '';
    expect(summary).toMatch(/^✅ run_shell_command\s*tool-said-hi\s*\d+(\.\d)?s$/);
    // Elapsed time of a 1.5 s command.
    expect(Number(/(\d+(?:\.\d)?)s$/.exec(summary)?.[1])).toBeGreaterThanOrEqual(1.5);
    // Collapsed by default; opening shows the output.
    expect(await result.evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(false);
    await result.locator('summary').click();
    await expect(result.locator('.body').textContent()).resolves.toContain('tool-said-hi');
    // The terminal client's colours: cyan, yellow, magenta (light theme values of adapters/web/src/styles.css).
    expect(await borderColor(p.page, '.panel.thought')).toBe('rgb(14, 116, 144)');
    expect(await borderColor(p.page, '.panel.tool-call')).toBe('rgb(154, 103, 0)');
    expect(await borderColor(p.page, '.panel.tool-result')).toBe('rgb(162, 28, 175)');
    expect(await p.page.locator('.msg.reply .metrics').last().textContent()).toMatch(/🔧 1 tool · /);
    expectCleanPage(p, NOT_YET);
  });

  it('stops a running sleep with the Stop button and with Esc: ⏹️ and the stopped notice', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    for (const how of ['button', 'escape'] as const) {
      await send(p.page, `run: sleep 30 # ${how}`);
      await p.page.locator('.live .tool.running').waitFor();
      const started = Date.now();
      if (how === 'button') await p.page.getByRole('button', { name: /Stop the running turn/ }).click();
      else await p.page.keyboard.press('Escape');
      await p.page
        .locator('.panel.tool-result.interrupted')
        .nth(how === 'button' ? 0 : 1)
        .waitFor();
      expect(Date.now() - started).toBeLessThan(20_000);
      await expect.poll(() => p.page.locator('.live').count()).toBe(0);
    }
    const notices = await p.page.locator('.transcript > .msg.notice').allTextContents();
    expect(notices.filter((n) => n.includes('⏹️ Stopped.'))).toHaveLength(2);
    const results = (await p.page.locator('.panel.tool-result summary').allTextContents()).map((s) =>
      s.trim(),
    );
    expect(results.every((s) => s.startsWith('⏹️ run_shell_command'))).toBe(true);
    const triggers = (await stored(session)).filter((m) => m.role === 'user');
    expect(triggers.map((m) => m.status)).toEqual(['interrupted', 'interrupted']);
    expectCleanPage(p, NOT_YET);
  });

  it('renders a reply carrying <img onerror>, <script> and javascript: links inert, and loads nothing from elsewhere', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    const foreign: string[] = [];
    p.page.on('request', (r) => {
      if (!r.url().startsWith(h.api.url)) foreign.push(r.url());
    });
    const evil = [
      'Look: <img src=x onerror="window.__pwned = 1"> and [click me](javascript:window.__pwned=2)',
      '<script>window.__pwned = 3</script> <a href="javascript:window.__pwned=4">raw link</a>',
      '<svg onload="window.__pwned=5"></svg> <iframe src="https://example.com/"></iframe>',
      '![tracker](https://example.com/pixel.png?secret=1) <b style="color:red" onclick="window.__pwned=6">bold</b>',
    ].join('\n\n');
    const restore = replyWhen(h.stack, 'be evil', { kind: 'text', text: evil });
    try {
      await send(p.page, 'be evil');
      await waitForReply(p.page, 'raw link');
    } finally {
      restore();
    }
    const reply = p.page.locator('.transcript > .msg.reply .markdown').last();
    expect(await reply.locator('img, script, svg, iframe').count()).toBe(0);
    const hrefs = await reply.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.some((href) => href !== null && /^javascript:/i.test(href))).toBe(false);
    expect(await reply.locator('[onerror], [onclick], [onload], [style]').count()).toBe(0);
    await reply.getByText('click me').click();
    await reply.getByText('raw link').click();
    await reply.getByText('bold').click();
    expect(await p.page.evaluate(() => (globalThis as unknown as BrowserWindow).__pwned)).toBeUndefined();
    // The image is a link to its address, never loaded.
    const tracker = reply.getByRole('link', { name: /tracker/ });
    expect(await tracker.getAttribute('href')).toBe('https://example.com/pixel.png?secret=1');
    expect(await tracker.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(foreign).toEqual([]);
    // Chromium reports the handlers and the style of the hostile markup that the sanitiser parses (in an inert
    // document) as blocked by the page's CSP: the second wall held too.
    expectCleanPage(p, [
      ...NOT_YET,
      /Executing inline event handler violates the following Content Security Policy/,
      /Applying inline style violates the following Content Security Policy/,
    ]);
  });

  it('highlights code blocks and copies them with their button', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    await p.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.api.url });
    const code = 'const answer = 42;\nconsole.log(answer);';
    const restore = replyWhen(h.stack, 'show code', {
      kind: 'text',
      text: `Here:\n\n\`\`\`js\n${code}\n\`\`\`\n`,
    });
    try {
      await send(p.page, 'show code');
      await waitForReply(p.page, 'Here');
    } finally {
      restore();
    }
    const block = p.page.locator('.msg.reply pre').last();
    expect(await block.locator('code.hljs .hljs-keyword').first().textContent()).toBe('const');
    await block.getByRole('button', { name: 'Copy code' }).click();
    await expect.poll(() => block.getByRole('button', { name: 'Copy code' }).textContent()).toBe('Copied ✓');
    expect(
      await p.page.evaluate(() => (globalThis as unknown as BrowserWindow).navigator.clipboard.readText()),
    ).toBe(code);
    expectCleanPage(p, NOT_YET);
  });

  it('sends files as attachments (picked, dropped, pasted) that the model then reads', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    const word = `zebra-${Date.now().toString(36)}`;
    await p.page.locator('input[type=file]').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(`the secret word is ${word}\n`),
    });
    // Dropped onto the chat, and pasted into the message box.
    await dropFile(p.page, '.chat', 'dropped.txt', 'dropped file body');
    await pasteFile(p.page, 'pasted.txt', 'pasted file body');
    await expect
      .poll(() => p.page.locator('.picked li').allTextContents())
      .toEqual([
        expect.stringContaining('notes.txt'),
        expect.stringContaining('dropped.txt'),
        expect.stringContaining('pasted.txt'),
      ]);
    await expect.poll(() => p.page.locator('.picked li', { hasText: 'reading…' }).count()).toBe(0);
    await send(p.page, 'what is the secret word?');
    // The fake model echoes what it was given: the files' text is part of its input.
    await waitForReply(p.page, word);
    const user = (await stored(session)).find((m) => m.role === 'user');
    const names = (user?.metadata?.attachments ?? []).map((a) => a.name);
    expect(names).toEqual(['notes.txt', 'dropped.txt', 'pasted.txt']);
    const saved = user?.metadata?.attachments?.[0]?.path ?? '';
    const workspace = path.join(h.stack.dataDir, 'workspaces', sessionDirName(session));
    expect(fs.readFileSync(path.resolve(workspace, saved), 'utf8')).toContain(word);
    expect(await p.page.locator('.msg.user .attachments li').allTextContents()).toEqual([
      expect.stringContaining('notes.txt'),
      expect.stringContaining('dropped.txt'),
      expect.stringContaining('pasted.txt'),
    ]);
    expectCleanPage(p, NOT_YET);
  });

  it('refuses a file over the limit before uploading anything, naming the limit', async () => {
    const session = uniqueId('web');
    const p = await open(session);
    const posts: string[] = [];
    p.page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await p.page.locator('input[type=file]').setInputFiles({
      name: 'big.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(200 * 1024, 1),
    });
    const problem = p.page.locator('.composer .problem');
    await expect(problem.textContent()).resolves.toBe(
      'big.bin is 200 KiB: files are sent up to 180 KiB each',
    );
    expect(await p.page.locator('.picked li').count()).toBe(0);
    expect(posts).toEqual([]);
    expectCleanPage(p, NOT_YET);
  });

  it('keeps two tabs on one session in step: what either sends shows in both', async () => {
    const session = uniqueId('web');
    const a = await open(session);
    const b2 = await open(session);
    await send(a.page, 'from tab A');
    await waitForReply(a.page, 'echo: from tab A');
    await waitForReply(b2.page, 'echo: from tab A');
    await send(b2.page, 'from tab B');
    await waitForReply(b2.page, 'echo: from tab B');
    await waitForReply(a.page, 'echo: from tab B');
    for (const p of [a, b2]) {
      expect(await replies(p.page)).toEqual(['echo: from tab A', 'echo: from tab B']);
      expect(await p.page.locator('.transcript > .msg.user').count()).toBe(2);
    }
    expect((await stored(session)).filter((m) => m.role === 'user')).toHaveLength(2);
    expectCleanPage(a, NOT_YET);
    expectCleanPage(b2, NOT_YET);
  });

  it('lists sessions live with unread marks; renames, switches mode and approval policy, searches, starts a new one', async () => {
    const first = uniqueId('web');
    const other = uniqueId('web');
    await h.client.post(`/v1/sessions/${other}/messages`, { content: 'other session', wait: 30 });
    const p = await open(first);
    await send(p.page, 'hello list');
    await waitForReply(p.page, 'echo: hello list');
    const list = p.page.getByRole('navigation', { name: 'Sessions' });
    const otherItem = list.locator(`button.session[data-session="${other}"]`);
    await otherItem.waitFor();
    expect(await otherItem.getAttribute('aria-label')).not.toMatch(/unread/);

    // Activity elsewhere: the list marks the other session unread, live.
    await h.client.post(`/v1/sessions/${other}/messages`, { content: 'while you look away', wait: 30 });
    await expect.poll(() => otherItem.getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/, unread$/);
    expect(
      await otherItem.evaluate(
        (el) =>
          (globalThis as unknown as BrowserWindow).getComputedStyle(el.querySelector('.name')).fontWeight,
      ),
    ).toBe('700');

    // Rename, mode and approval policy of the open session.
    await p.page.getByRole('button', { name: /^Rename session/ }).click();
    const title = p.page.getByRole('textbox', { name: 'Session title' });
    await title.fill('Renamed from the page');
    await title.press('Enter');
    await p.page.getByRole('button', { name: 'Rename session: Renamed from the page' }).waitFor();
    await p.page.getByRole('combobox', { name: /^Mode/ }).selectOption('queue');
    await p.page.getByRole('combobox', { name: /^Tool approval/ }).selectOption('all');
    await eventually(async () => {
      const s = await h.client.get<{ title: string; mode: string; approval: string }>(
        `/v1/sessions/${first}`,
      );
      return s.body.title === 'Renamed from the page' && s.body.mode === 'queue' && s.body.approval === 'all';
    });
    await list.getByRole('button', { name: /^Renamed from the page/ }).waitFor({ timeout: 15_000 });

    // Search by title.
    await list.getByRole('searchbox', { name: 'Search sessions by title' }).fill('renamed FROM');
    await expect.poll(() => list.locator('button.session').count()).toBe(1);
    await list.getByRole('searchbox', { name: 'Search sessions by title' }).fill('');

    // Opening the other session reads it; a new session starts empty.
    await otherItem.click();
    await waitForReply(p.page, 'echo: while you look away');
    await expect.poll(() => otherItem.getAttribute('aria-label')).not.toMatch(/unread/);
    expect(p.page.url()).toContain(`#s=${other}`);
    await list.getByRole('button', { name: '+ New session' }).click();
    await p.page.getByText('No messages yet.').waitFor();
    expect(p.page.url()).toMatch(/#s=web-[0-9a-f]{20}$/);
    expectCleanPage(p, NOT_YET);
  });
});

/** Drops a file onto `selector` as a browser does (dragover, then drop with a DataTransfer holding the file). */
async function dropFile(page: Page, selector: string, name: string, body: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ name, body }) => {
      const w = globalThis as unknown as BrowserWindow;
      const dt = new w.DataTransfer();
      dt.items.add(new w.File([body], name, { type: 'text/plain' }));
      return dt;
    },
    { name, body },
  );
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

/** Pastes a file into the message box (a paste event whose clipboard data holds the file). */
async function pasteFile(page: Page, name: string, body: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).evaluate(
    (el, { name, body }) => {
      const w = globalThis as unknown as BrowserWindow;
      const dt = new w.DataTransfer();
      dt.items.add(new w.File([body], name, { type: 'text/plain' }));
      el.dispatchEvent(
        new w.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }) as Event,
      );
    },
    { name, body },
  );
}

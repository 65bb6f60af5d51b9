/**
 * Browser tests of the web page (adapters/web/) on the real stack: the API of test/api/support.ts (real Temporal,
 * real Postgres, the fake model server) serving the page, and Debian's Chromium (`/usr/bin/chromium`, or
 * `KESOKU_CHROMIUM`) driven by playwright-core, headless. One browser per test file; each test gets its own
 * browser context (its own storage), so tests never see each other's tokens or outboxes. Playwright starts the
 * browser with a fresh temporary profile (`--user-data-dir`) of its own.
 *
 * Every page's console errors, uncaught exceptions and Content-Security-Policy violations are collected, and
 * {@link expectCleanPage} fails a test that had any.
 */
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ApiToken } from '../../api/auth.ts';
import type { ApiServer, ApiServerOptions } from '../../api/server.ts';
import { ApiClient, startApiFor } from '../api/support.ts';
import { startStack, type Stack, type StackOptions } from '../support/stack.ts';

/** A stack and the API serving the page, which can be restarted on the same port. */
export interface WebHarness {
  readonly stack: Stack;
  readonly api: ApiServer;
  readonly client: ApiClient;
  /** Stops the API (the page loses its connection). */
  stopApi(): Promise<void>;
  /** Starts the API again on the same port, optionally with other tokens. */
  startApi(tokens?: ApiToken[]): Promise<void>;
}

/**
 * Registers hooks that start one stack and one API for the calling test file: the API stores attachments in the
 * stack's data dir and reports the worker's approval settings (default: `off`), like `npm start`.
 */
export function useWebHarness(
  opts: { stack?: StackOptions; tokens?: ApiToken[]; api?: Partial<ApiServerOptions> } = {},
): WebHarness {
  let stack: Stack | undefined;
  let api: ApiServer | undefined;
  let port = 0;
  let tokens = opts.tokens ?? [];
  const approvals = opts.stack?.approvals ?? { policy: 'off' as const };
  const start = async () => {
    const s = stack as Stack;
    api = await startApiFor(s, { ...opts.api, tokens, port, app: { approvals, dataDir: s.dataDir } });
    port = api.port;
  };
  beforeAll(async () => {
    stack = await startStack(opts.stack);
    await start();
  });
  afterAll(async () => {
    await api?.close();
    await stack?.stop();
  });
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} is not started`);
    return v;
  };
  return {
    get stack() {
      return need(stack, 'the stack');
    },
    get api() {
      return need(api, 'the API');
    },
    get client() {
      return new ApiClient(need(api, 'the API').url);
    },
    async stopApi() {
      await api?.close();
    },
    async startApi(next?: ApiToken[]) {
      if (next) tokens = next;
      await start();
    },
  };
}

/**
 * The browser globals the tests' in-page functions (`page.evaluate`) use, typed here because the tests compile
 * without the DOM library: write `const w = globalThis as unknown as BrowserWindow` inside such a function.
 */
export interface BrowserWindow {
  getComputedStyle(el: unknown): { borderLeftColor: string; fontWeight: string; color: string };
  navigator: { clipboard: { readText(): Promise<string> } };
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: string[], name: string, opts: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
  document: { scrollingElement: { scrollWidth: number; clientWidth: number } | null };
  __pwned?: number;
}

/** The Chromium binary the tests drive. */
export const CHROMIUM = process.env.KESOKU_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for a headless Chromium on a shared, offline CI machine (Playwright adds --headless and the profile). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches one headless Chromium for the calling test file (closed after it). */
export function useBrowser(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set KESOKU_CHROMIUM)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('the browser is not started yet');
      return browser;
    },
  };
}

/** A page and what went wrong on it. */
export interface OpenPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations, in order. */
  problems: string[];
}

/** Watches `page` for console errors, exceptions and CSP violations into `problems`. */
export function watch(page: Page, problems: string[]): void {
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
}

/** A new context (fresh storage) with one page at `url`. */
export async function openPage(
  browser: Browser,
  url: string,
  opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<OpenPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 860 },
    colorScheme: opts.colorScheme ?? 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const problems: string[] = [];
  watch(page, problems);
  await page.goto(url);
  return { context, page, problems };
}

/** The page's URL for session `id`. */
export const sessionUrl = (baseUrl: string, id: string) => `${baseUrl}/#s=${encodeURIComponent(id)}`;

/** Types `text` into the composer and presses Enter (the keyboard path: Enter sends). */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The texts of the committed final replies shown, in order. */
export async function replies(page: Page): Promise<string[]> {
  return (await page.locator('.transcript > .msg.reply .markdown').allTextContents()).map((t) => t.trim());
}

/** Waits until a committed final reply containing `text` is shown. */
export async function waitForReply(page: Page, text: string, timeoutMs = 30_000): Promise<void> {
  await page
    .locator('.transcript > .msg.reply .markdown', { hasText: text })
    .first()
    .waitFor({ timeout: timeoutMs });
}

/** Fails when the page logged errors, threw, or hit the Content-Security-Policy. */
export function expectCleanPage(p: OpenPage, allowed: RegExp[] = []): void {
  const bad = p.problems.filter((x) => !allowed.some((a) => a.test(x)));
  expect(bad, bad.join('\n')).toEqual([]);
}

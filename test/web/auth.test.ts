// The web page behind API tokens: sign-in, a refused token, the principal rules, the token kept out of URLs and
// logs; the page's security headers, and the loopback guards of a token-less API still holding for the page.
import http from 'node:http';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiToken } from '../../api/auth.ts';
import { PAGE_CSP } from '../../api/routes/web.ts';
import { uniqueId } from '../support/stack.ts';
import { startApiFor } from '../api/support.ts';
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

const ALICE: ApiToken = { name: 'alice', token: `alice-${'a'.repeat(40)}`, admin: false };
const BOB: ApiToken = { name: 'bob', token: `bob-${'b'.repeat(40)}`, admin: false };
const logLines: string[] = [];
const logger = pino({ level: 'debug' }, { write: (s: string) => void logLines.push(s) });

const h = useWebHarness({ tokens: [ALICE, BOB], api: { logger } });
const b = useBrowser();
const pages: OpenPage[] = [];
afterEach(async () => {
  for (const p of pages.splice(0)) await p.context.close();
});

async function open(url: string): Promise<OpenPage> {
  const p = await openPage(b.browser, url);
  pages.push(p);
  return p;
}

/** Signs in on the page's form; waits for the chat. */
async function signIn(p: OpenPage, token: string): Promise<void> {
  await p.page.getByLabel('API token').fill(token);
  await p.page.getByRole('button', { name: 'Sign in' }).click();
  await p.page.getByRole('textbox', { name: 'Message' }).waitFor();
}

/** Refused requests the page makes on purpose (a wrong token, another principal's session, a new session). */
const EXPECTED = [/Failed to load resource: the server responded with a status of (401|404)/];

describe('the web page behind tokens', () => {
  it('asks for a token, refuses a wrong one, works with a right one, and never puts it in a URL or a log line', async () => {
    const session = uniqueId('web');
    const p = await open(sessionUrl(h.api.url, session));
    const urls: string[] = [];
    p.page.on('request', (r) => urls.push(r.url()));
    await p.page.getByRole('heading', { name: 'Kesoku' }).waitFor();
    await p.page.getByLabel('API token').fill(`wrong-${'x'.repeat(40)}`);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await expect(p.page.getByRole('alert').textContent()).resolves.toBe('That token was not accepted (401).');
    await signIn(p, ALICE.token);
    await send(p.page, 'hello as alice');
    await waitForReply(p.page, 'echo: hello as alice');
    expect(
      await h.client.withHeaders({ authorization: `Bearer ${ALICE.token}` }).get(`/v1/sessions/${session}`),
    ).toMatchObject({ status: 200 });

    const storage = await p.page.evaluate(() => {
      const w = globalThis as unknown as { sessionStorage: Storage; localStorage: Storage };
      const all = (s: Storage) => Object.fromEntries(Object.keys(s).map((k) => [k, s.getItem(k)]));
      return { session: all(w.sessionStorage), local: all(w.localStorage) };
    });
    expect(storage.session['kesoku.token']).toBe(ALICE.token);
    expect(JSON.stringify(storage.local)).not.toContain(ALICE.token);
    expect(urls.length).toBeGreaterThan(5);
    for (const u of [...urls, p.page.url()]) expect(u).not.toContain(ALICE.token);
    expect(logLines.length).toBeGreaterThan(10);
    for (const line of logLines) expect(line).not.toContain(ALICE.token);

    // Another tab has its own session storage: it asks again.
    const other = await open(sessionUrl(h.api.url, session));
    await other.page.getByLabel('API token').waitFor();
    expectCleanPage(p, EXPECTED);
  });

  it("keeps each principal to its own sessions: bob neither lists nor reaches alice's", async () => {
    const session = uniqueId('web');
    const alice = await open(sessionUrl(h.api.url, session));
    await signIn(alice, ALICE.token);
    await send(alice.page, 'private to alice');
    await waitForReply(alice.page, 'echo: private to alice');

    const bob = await open(sessionUrl(h.api.url, session));
    await signIn(bob, BOB.token);
    await expect(bob.page.getByRole('alert').first().textContent()).resolves.toContain(
      'This session is not available to this token',
    );
    expect(await bob.page.locator(`button.session[data-session="${session}"]`).count()).toBe(0);
    expect(await bob.page.getByText('private to alice').count()).toBe(0);
    await send(bob.page, 'let me in');
    await expect
      .poll(() => bob.page.locator('.msg.unsent .badge').textContent(), { timeout: 15_000 })
      .toMatch(/^not sent: session .* was not found for this token/);
    const users = (await h.stack.messages(session)).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual(['private to alice']);
    expectCleanPage(alice, EXPECTED);
  });

  it('asks to sign in again when the token stops being accepted (the API restarted with other tokens)', async () => {
    const session = uniqueId('web');
    const p = await open(sessionUrl(h.api.url, session));
    await signIn(p, ALICE.token);
    await send(p.page, 'before rotation');
    await waitForReply(p.page, 'echo: before rotation');
    const rotated: ApiToken = { ...ALICE, token: `alice2-${'c'.repeat(40)}` };
    try {
      await h.stopApi();
      await h.startApi([rotated, BOB]);
      await expect(p.page.getByRole('alert').textContent({ timeout: 30_000 })).resolves.toBe(
        'The token was not accepted (401). Sign in again.',
      );
      await signIn(p, rotated.token);
      await waitForReply(p.page, 'echo: before rotation');
    } finally {
      await h.stopApi();
      await h.startApi([ALICE, BOB]);
    }
  });

  it('serves the page with a CSP that allows no inline script, and every answer with nosniff', async () => {
    const res = await fetch(`${h.api.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(PAGE_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    // Scripts only by src; the settings tag says tokens are needed.
    expect([...html.matchAll(/<script\b[^>]*>/g)].every((m) => /\bsrc="\/assets\//.test(m[0]))).toBe(true);
    expect(html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
    expect(html).toContain('&quot;auth&quot;:true');
    const asset = await fetch(`${h.api.url}/assets/app.js`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = asset.headers.get('etag') ?? '';
    expect((await fetch(`${h.api.url}/assets/app.js`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    expect((await fetch(`${h.api.url}/assets/missing.js`)).status).toBe(404);
    const api = await fetch(`${h.api.url}/v1/sessions`);
    expect(api.status).toBe(401);
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('without tokens, the loopback guards still refuse a foreign Host (DNS rebinding) and a cross-site POST', async () => {
    const open = await startApiFor(h.stack, { tokens: [], app: { dataDir: h.stack.dataDir } });
    try {
      const port = open.port;
      const request = (method: string, path: string, headers: Record<string, string>, body?: string) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end(body);
        });
      expect(await request('GET', '/', { host: `127.0.0.1:${port}` })).toBe(200);
      expect(await request('GET', '/', { host: `rebound.example:${port}` })).toBe(403);
      expect(await request('GET', '/assets/app.js', { host: `rebound.example:${port}` })).toBe(403);
      const post = JSON.stringify({ content: 'cross-site' });
      const json = { 'content-type': 'application/json', host: `127.0.0.1:${port}` };
      const session = uniqueId('web');
      expect(
        await request(
          'POST',
          `/v1/sessions/${session}/messages`,
          { ...json, origin: 'http://evil.example' },
          post,
        ),
      ).toBe(403);
      // The page's own origin passes.
      expect(
        await request(
          'POST',
          `/v1/sessions/${session}/messages`,
          { ...json, origin: `http://127.0.0.1:${port}` },
          post,
        ),
      ).toBe(202);
    } finally {
      await open.close();
    }
  });
});

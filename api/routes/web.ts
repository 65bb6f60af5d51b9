/**
 * The web page (adapters/web/) at `/`, from the API's own origin, so the page calls the REST API without CORS and
 * the API's guards apply to it as to any client: without tokens the loopback Host and Origin checks (api/auth.ts),
 * with tokens the principal of the token the person signs in with (api/access.ts). The page is static and holds no
 * data, so it needs no token itself; everything it shows comes from `/v1` with the token.
 *
 * What is served: `GET`/`HEAD` of `/` (and `/index.html`) — the built page with its settings in a
 * `<meta name="kesoku-config">` tag (whether a token is needed; the API's size limits, so files over them are
 * refused before upload) — and the files under `/assets/` of adapters/web/dist, the committed build (kept in memory,
 * `Cache-Control: no-cache` with an ETag). It is served by a middleware, not by express routes: the page is not
 * part of the REST API, whose OpenAPI document lists every route.
 *
 * Headers: the page's Content-Security-Policy allows scripts, styles and connections from this origin only (no
 * inline script, no `eval`, nothing from a CDN), no frames, no form submissions, images only from this origin or
 * `data:`; every answer of the API (page or not) gets `X-Content-Type-Options: nosniff`, `Referrer-Policy:
 * no-referrer` and a CSP that refuses framing, and JSON answers one that allows nothing at all.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { LIMITS } from '../../domain/inbound.ts';
import { HttpProblem } from '../problems.ts';
import { API_LIMITS } from '../schemas.ts';

/** The committed build of the page. */
export const WEB_DIST = fileURLToPath(new URL('../../adapters/web/dist/', import.meta.url));

/** The page's Content-Security-Policy. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The CSP of every other answer (JSON, problems, the event stream): nothing may run or load, nothing may frame it. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** What the page is told about the server (adapters/web/src/storage.tsx `PageConfig`). */
export interface PageConfig {
  auth: boolean;
  limits: { attachmentBytes: number; attachments: number; bodyBytes: number; contentBytes: number };
}

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

const escapeAttribute = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

function asset(body: Buffer, file: string): Asset {
  return {
    body,
    type: TYPES[path.extname(file)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/**
 * The page's files from `dist`, read once: `/` (index.html with `config` in its meta tag) and every file under
 * `assets/`. @returns null when the page is not built (no index.html)
 */
export function loadPage(dist: string, config: PageConfig): Map<string, Asset> | null {
  const indexFile = path.join(dist, 'index.html');
  if (!fs.existsSync(indexFile)) return null;
  const html = fs
    .readFileSync(indexFile, 'utf8')
    .replace(
      /<meta name="kesoku-config" content="[^"]*"\s*\/?>/,
      `<meta name="kesoku-config" content="${escapeAttribute(JSON.stringify(config))}" />`,
    );
  const files = new Map<string, Asset>();
  files.set('/', asset(Buffer.from(html), indexFile));
  files.set('/index.html', files.get('/') as Asset);
  const assets = path.join(dist, 'assets');
  if (fs.existsSync(assets)) {
    for (const e of fs.readdirSync(assets, { withFileTypes: true })) {
      if (e.isFile())
        files.set(`/assets/${e.name}`, asset(fs.readFileSync(path.join(assets, e.name)), e.name));
    }
  }
  return files;
}

/** The page's settings for a server with or without tokens, from the API's own limits. */
export function pageConfig(auth: boolean): PageConfig {
  return {
    auth,
    limits: {
      attachmentBytes: API_LIMITS.attachmentDataMaxBytes,
      attachments: LIMITS.maxAttachments,
      bodyBytes: API_LIMITS.bodyBytes,
      contentBytes: LIMITS.maxContentBytes,
    },
  };
}

/** Security headers on every answer (see the module comment); the page's own CSP is set where it is served. */
export const securityHeaders: RequestHandler = (_req: Request, res: Response, next: NextFunction) => {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('content-security-policy', API_CSP);
  res.setHeader('x-frame-options', 'DENY');
  next();
};

/**
 * Middleware serving the page (see the module comment). Other paths and methods pass on.
 * @param opts.auth whether the API needs a bearer token; `dist` the build to serve (default {@link WEB_DIST})
 * @throws HttpProblem unavailable (503) via `next` for `/` when the page is not built
 */
export function webPage(opts: { auth: boolean; dist?: string }): RequestHandler {
  const files = loadPage(opts.dist ?? WEB_DIST, pageConfig(opts.auth));
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path !== '/' && req.path !== '/index.html' && !req.path.startsWith('/assets/')) return next();
    if (!files) {
      if (req.path.startsWith('/assets/')) return next();
      return next(
        new HttpProblem(
          'unavailable',
          'the web page is not built: run `npm run web:build` (adapters/web/build.ts)',
        ),
      );
    }
    const file = files.get(req.path);
    if (!file) return next();
    res.setHeader('content-security-policy', PAGE_CSP);
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-resource-policy', 'same-origin');
    res.setHeader('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('etag', file.etag);
    res.setHeader('content-type', file.type);
    if (req.get('if-none-match') === file.etag) {
      res.status(304).end();
      return;
    }
    res.status(200);
    res.setHeader('content-length', String(file.body.length));
    if (req.method === 'HEAD') res.end();
    else res.end(file.body);
  };
}

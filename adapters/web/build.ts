/**
 * Builds the web page (adapters/web/src, entry index.html) into adapters/web/dist with Vite: one HTML file, the
 * page's script and the libraries' (preact, marked, DOMPurify, highlight.js, eventsource-parser) as ES modules
 * under fixed names, and one stylesheet. The output is committed, so `npm start` serves the page without a build
 * step and nothing is fetched from elsewhere at run time; it is written unminified and formatted with the
 * repository's Prettier settings, so it passes `prettier --check` and reads in a diff.
 *
 *     node adapters/web/build.ts           # rebuild adapters/web/dist
 *     node adapters/web/build.ts --check   # exit 1 when adapters/web/dist is not the build of the sources
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { build } from 'vite';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
/** Where the committed build lives (api/routes/web.ts serves it). */
export const DIST = path.join(ROOT, 'dist');

const BANNER =
  '/* Built by adapters/web/build.ts from adapters/web/src: edit the sources, then rebuild. */\n';
const LINT_OFF = '/* eslint-disable */\n';

/** Builds into `outDir` (emptied first). */
export async function buildPage(outDir: string): Promise<void> {
  await build({
    root: ROOT,
    // The same output whatever NODE_ENV says (a test runner sets it to `test`, which would pick the dev JSX runtime).
    mode: 'production',
    configFile: false,
    logLevel: 'warn',
    base: '/',
    publicDir: false,
    // Module paths as the checkout sees them (the bundle's comments name them), also where node_modules is a link.
    resolve: { preserveSymlinks: true },
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      sourcemap: false,
      reportCompressedSize: false,
      modulePreload: { polyfill: false },
      target: 'es2022',
      rolldownOptions: {
        output: {
          entryFileNames: 'assets/app.js',
          chunkFileNames: 'assets/[name].js',
          assetFileNames: 'assets/[name][extname]',
          codeSplitting: { groups: [{ name: 'vendor', test: /node_modules/ }] },
        },
      },
    },
  });
  const config = (await prettier.resolveConfig(path.join(ROOT, 'index.html'))) ?? {};
  for (const file of listFiles(outDir)) {
    const text = fs.readFileSync(file, 'utf8');
    const js = file.endsWith('.js');
    const formatted = await prettier.format(js ? BANNER + LINT_OFF + text : text, {
      ...config,
      filepath: file,
    });
    fs.writeFileSync(file, formatted);
  }
}

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The files of `dir` by relative path, with their text. */
export function snapshotOf(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((f) => [path.relative(dir, f), fs.readFileSync(f, 'utf8')]));
}

/** Builds into a temporary directory and lists what differs from `DIST` (empty: up to date). */
export async function checkPage(): Promise<string[]> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-web-'));
  try {
    await buildPage(tmp);
    const fresh = snapshotOf(tmp);
    const committed = fs.existsSync(DIST) ? snapshotOf(DIST) : new Map<string, string>();
    const names = new Set([...fresh.keys(), ...committed.keys()]);
    return [...names].filter((n) => fresh.get(n) !== committed.get(n)).sort();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const differ = await checkPage();
    if (differ.length > 0) {
      process.stderr.write(
        `adapters/web/dist is not the build of adapters/web/src (${differ.join(', ')}): run npm run web:build\n`,
      );
      process.exit(1);
    }
    process.stdout.write('adapters/web/dist is up to date\n');
  } else {
    await buildPage(DIST);
    process.stdout.write(
      `built ${path.relative(process.cwd(), DIST)}: ${[...snapshotOf(DIST).keys()].join(', ')}\n`,
    );
  }
}

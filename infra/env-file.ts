/**
 * The settings file: every Kesoku command (npm start, the worker, the API, the channels, the terminal client,
 * `npx kesoku …`) reads `.env` in the checkout — or the file `KESOKU_ENV_FILE` names — into its environment
 * before it reads its configuration (infra/config.ts). Variables already in the environment win over the file,
 * so a one-off `KESOKU_API_PORT=3101 npm start` still works. The syntax is Node's own (`util.parseEnv`:
 * `NAME=value`, `#` comments, quotes, `export` prefixes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError, unknownSettings } from './config.ts';

/** The checkout this file belongs to (where package.json and `.env` are). */
export const CHECKOUT_DIR = path.resolve(import.meta.dirname, '..');

/** The settings file's default path: `.env` in the checkout. */
export const DEFAULT_ENV_FILE = path.join(CHECKOUT_DIR, '.env');

/** What {@link loadEnvFile} did. */
export interface LoadedEnvFile {
  /** The file read; null when none was (no `.env`, or `KESOKU_ENV_FILE` empty). */
  file: string | null;
  /** Names set from the file (absent from the environment before). */
  applied: string[];
  /** Names in the file that the environment already had, so the environment's value stays. */
  overridden: string[];
}

/**
 * The settings file of `env`: `KESOKU_ENV_FILE` when set (empty: none), else `.env` in the checkout.
 * @returns an absolute path, or null for "read no file"
 */
export function envFilePath(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.KESOKU_ENV_FILE;
  if (named === undefined) return DEFAULT_ENV_FILE;
  return named.trim() === '' ? null : path.resolve(named.trim());
}

/**
 * Reads the settings file into `env`, setting only names `env` does not have.
 * @param env the environment to fill (default `process.env`)
 * @throws ConfigError when `KESOKU_ENV_FILE` names a file that does not exist or cannot be read
 */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): LoadedEnvFile {
  const file = envFilePath(env);
  if (file === null) return { file: null, applied: [], overridden: [] };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && env.KESOKU_ENV_FILE === undefined)
      return { file: null, applied: [], overridden: [] };
    throw new ConfigError(
      `KESOKU_ENV_FILE=${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
  const applied: string[] = [];
  const overridden: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) overridden.push(name);
    else {
      env[name] = value;
      applied.push(name);
    }
  }
  return { file, applied, overridden };
}

/**
 * Parses a settings file's text (Node's `.env` syntax) into names and values; never throws.
 */
export function parseEnvText(text: string): Record<string, string> {
  return parseEnv(text) as Record<string, string>;
}

/**
 * What each entry point does first: {@link loadEnvFile} into `process.env`, then one `kesoku: warning:` line on
 * stderr per unknown `KESOKU_*` name (infra/config.ts unknownSettings), saying whether it came from the file.
 * @param known the names the process reads besides the shared settings (the channels': adapters/registry.ts)
 * @throws ConfigError from {@link loadEnvFile}
 */
export function readSettings(known: Iterable<string> = []): LoadedEnvFile {
  const loaded = loadEnvFile(process.env);
  const fromFile = new Set(loaded.applied);
  for (const line of unknownSettings(process.env, known)) {
    const name = line.split(' ')[0] ?? '';
    const where =
      fromFile.has(name) && loaded.file
        ? ` (in ${path.relative(process.cwd(), loaded.file) || loaded.file})`
        : '';
    process.stderr.write(`kesoku: warning: ${line}${where}\n`);
  }
  return loaded;
}

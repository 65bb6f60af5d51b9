/**
 * `npx kesoku onboard`: from a fresh checkout to a configured model. It looks for the providers' keys in the
 * environment (and .env) and for a local Ollama, asks which model to use (`--yes`, or no terminal, takes the
 * detected default), writes the choice to the settings file (mode 0600; a value already there is kept unless
 * `--force`), makes one real call to the model, and prints the command to run next.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import {
  DEFAULT_OLLAMA_HOST,
  loadConfig,
  ollamaBaseUrl,
  PROVIDER_DEFAULT_MODELS,
  requireLlmConfig,
} from '../../infra/config.ts';
import { envFilePath, parseEnvText } from '../../infra/env-file.ts';
import { checkModel, getJson } from './common.ts';

export const ONBOARD_HELP = `usage: npx kesoku onboard [--yes] [--provider P] [--model M] [--base-url URL] [--force] [--no-test]

Finds a model to use and writes it to .env (mode 0600): a provider key in the environment or .env
(OPENAI_API_KEY with OPENAI_BASE_URL, ANTHROPIC_API_KEY, GEMINI_API_KEY) or a local Ollama
(OLLAMA_HOST, else ${DEFAULT_OLLAMA_HOST}); asks which one; makes one real test call; prints what to run next.

options:
  --yes             take the detected default without asking (also when there is no terminal)
  --provider P      openai, anthropic, google, ollama or openai-compatible (with --base-url)
  --model M         the model id (default: the provider's default, or Ollama's first model)
  --base-url URL    the API base URL (openai-compatible servers, a proxy for openai)
  --api-key-env V   the variable holding the key (default: the provider's usual one)
  --env-file F      the settings file to write (default: KESOKU_ENV_FILE, else .env in the checkout)
  --force           replace values the settings file already has
  --no-test         do not call the model
  -h, --help        this text

Exit codes: 0 configured (and the model answered), 1 the model did not answer, 2 nothing to configure or bad options.`;

/** One model Kesoku could use, as detected. */
interface Candidate {
  /** What the list shows. */
  label: string;
  provider: 'openai' | 'anthropic' | 'google' | 'openai-compatible';
  model: string;
  /** Other models to offer (Ollama's local models). */
  models: string[];
  /** Settings to write, besides KESOKU_LLM_PROVIDER and KESOKU_LLM_MODEL. */
  settings: Record<string, string>;
}

const KEY_VARIABLES = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GEMINI_API_KEY',
} as const;

/** The local Ollama's models (`GET /api/tags`), or null when none answers within 1.5 s. */
async function ollamaModels(host: string): Promise<string[] | null> {
  const base = ollamaBaseUrl(host).replace(/\/v1$/, '');
  const r = await getJson(`${base}/api/tags`, { timeoutMs: 1500 });
  if (!r || r.status !== 200) return null;
  const models = (r.body as { models?: { name?: string }[] } | null)?.models ?? [];
  return models.map((m) => m.name).filter((n): n is string => typeof n === 'string');
}

/** The candidates found in `env`, in the order the worker's own detection prefers them. */
async function detect(env: NodeJS.ProcessEnv): Promise<Candidate[]> {
  const found: Candidate[] = [];
  const has = (v: string | undefined) => v !== undefined && v.trim() !== '';
  if (has(env.OPENAI_API_KEY)) {
    const base = env.OPENAI_BASE_URL?.trim();
    found.push({
      label: `OpenAI (OPENAI_API_KEY${base ? `, OPENAI_BASE_URL=${base}` : ''})`,
      provider: 'openai',
      model: PROVIDER_DEFAULT_MODELS.openai,
      models: [],
      settings: {
        OPENAI_API_KEY: env.OPENAI_API_KEY!.trim(),
        ...(base ? { OPENAI_BASE_URL: base } : {}),
      },
    });
  }
  if (has(env.ANTHROPIC_API_KEY))
    found.push({
      label: 'Anthropic (ANTHROPIC_API_KEY)',
      provider: 'anthropic',
      model: PROVIDER_DEFAULT_MODELS.anthropic,
      models: [],
      settings: { ANTHROPIC_API_KEY: env.ANTHROPIC_API_KEY!.trim() },
    });
  const googleKey = has(env.GEMINI_API_KEY) ? env.GEMINI_API_KEY : env.GOOGLE_GENERATIVE_AI_API_KEY;
  if (has(googleKey))
    found.push({
      label: 'Google Gemini (GEMINI_API_KEY)',
      provider: 'google',
      model: PROVIDER_DEFAULT_MODELS.google,
      models: [],
      settings: { GEMINI_API_KEY: googleKey!.trim() },
    });
  const host = env.OLLAMA_HOST?.trim() || DEFAULT_OLLAMA_HOST;
  const local = await ollamaModels(host);
  if (local && local.length > 0)
    found.push({
      label: `Ollama at ${host} (${local.length} model${local.length === 1 ? '' : 's'})`,
      provider: 'openai-compatible',
      model: local[0] as string,
      models: local,
      settings: { KESOKU_LLM_BASE_URL: ollamaBaseUrl(host) },
    });
  return found;
}

/** A candidate from the options alone (`--provider`), with the key taken from the environment. */
function fromOptions(
  o: { provider: string; model?: string; baseUrl?: string; apiKeyEnv?: string },
  env: NodeJS.ProcessEnv,
): Candidate {
  const provider = o.provider === 'ollama' ? 'openai-compatible' : o.provider;
  if (!['openai', 'anthropic', 'google', 'openai-compatible'].includes(provider))
    throw new OnboardError(2, `--provider: one of openai, anthropic, google, ollama, openai-compatible`);
  const p = provider as Candidate['provider'];
  const settings: Record<string, string> = {};
  if (p !== 'openai-compatible') {
    const keyVar = o.apiKeyEnv ?? KEY_VARIABLES[p];
    const key = env[keyVar]?.trim();
    if (!key) throw new OnboardError(2, `${keyVar} is not set: export it (or put it in .env) first`);
    settings[keyVar === KEY_VARIABLES[p] ? keyVar : 'KESOKU_LLM_API_KEY'] = key;
    if (o.baseUrl) settings[p === 'openai' ? 'OPENAI_BASE_URL' : 'KESOKU_LLM_BASE_URL'] = o.baseUrl;
  } else {
    const base =
      o.baseUrl ?? (o.provider === 'ollama' ? ollamaBaseUrl(env.OLLAMA_HOST || undefined) : undefined);
    if (!base) throw new OnboardError(2, '--provider openai-compatible needs --base-url');
    settings.KESOKU_LLM_BASE_URL = base;
    const key = o.apiKeyEnv ? env[o.apiKeyEnv]?.trim() : undefined;
    if (key) settings.KESOKU_LLM_API_KEY = key;
  }
  const model = o.model ?? (p === 'openai-compatible' ? undefined : PROVIDER_DEFAULT_MODELS[p]);
  if (!model) throw new OnboardError(2, '--model is needed for an openai-compatible server');
  return { label: o.provider, provider: p, model, models: [], settings };
}

class OnboardError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** A value as written in a settings file: quoted when it holds anything but plain characters. */
function envValue(v: string): string {
  return /^[A-Za-z0-9_./:@%+,=-]*$/.test(v) ? v : JSON.stringify(v);
}

/**
 * Writes `values` into the settings file `file` (created 0600, kept 0600): a name already there with another
 * value is kept unless `force`.
 * @returns which names were written, left as they were, or kept although different
 */
export function writeSettings(
  file: string,
  values: Record<string, string>,
  force: boolean,
): { written: string[]; same: string[]; kept: string[] } {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const current = parseEnvText(existing);
  const written: string[] = [];
  const same: string[] = [];
  const kept: string[] = [];
  let lines =
    existing === ''
      ? ['# Kesoku settings (npx kesoku onboard wrote these; .env.example lists all)']
      : existing.replace(/\n$/, '').split('\n');
  for (const [name, value] of Object.entries(values)) {
    if (current[name] === value) {
      same.push(name);
      continue;
    }
    if (current[name] !== undefined && !force) {
      kept.push(name);
      continue;
    }
    const line = `${name}=${envValue(value)}`;
    const at = lines.findIndex((l) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(l));
    if (at >= 0) lines[at] = line;
    else lines = [...lines, line];
    written.push(name);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { written, same, kept };
}

/** Asks on the terminal; `fallback` on an empty answer. */
async function ask(question: string, fallback: string): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(`${question} [${fallback}]: `)).trim();
    return answer === '' ? fallback : answer;
  } finally {
    rl.close();
  }
}

/** Runs `onboard` with `argv` (after the command name). @returns the exit code */
export async function onboard(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const out = (s: string) => process.stdout.write(s);
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        yes: { type: 'boolean', short: 'y' },
        provider: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key-env': { type: 'string' },
        'env-file': { type: 'string' },
        force: { type: 'boolean' },
        'no-test': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`kesoku: ${(err as Error).message}\n\n${ONBOARD_HELP}\n`);
    return 2;
  }
  if (values.help) {
    out(`${ONBOARD_HELP}\n`);
    return 0;
  }
  const file = values['env-file'] ? path.resolve(values['env-file']) : (envFilePath(env) ?? envFilePath({})!);
  // What the settings file already holds counts as found, below what the environment says.
  const fileValues = fs.existsSync(file) ? parseEnvText(fs.readFileSync(file, 'utf8')) : {};
  const seen: NodeJS.ProcessEnv = { ...fileValues, ...env };
  const interactive = process.stdin.isTTY === true && values.yes !== true;
  try {
    let chosen: Candidate;
    if (values.provider) {
      chosen = fromOptions(
        {
          provider: values.provider,
          model: values.model,
          baseUrl: values['base-url'],
          apiKeyEnv: values['api-key-env'],
        },
        seen,
      );
    } else {
      const found = await detect(seen);
      if (found.length === 0)
        throw new OnboardError(
          2,
          'found no model: no OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY in the environment or .env, ' +
            `and no Ollama at ${seen.OLLAMA_HOST?.trim() || DEFAULT_OLLAMA_HOST}. Export a key and run this again, ` +
            'or name a server: npx kesoku onboard --provider openai-compatible --base-url URL --model M ' +
            '(or try the fake model: npm run demo)',
        );
      out(`Found ${found.length === 1 ? 'one model provider' : `${found.length} model providers`}:\n`);
      found.forEach((c, i) => out(`  ${i + 1}. ${c.label}\n`));
      let index = 0;
      if (interactive && found.length > 1) {
        const answer = await ask('Which one?', '1');
        index = Number(answer) - 1;
        if (!Number.isInteger(index) || index < 0 || index >= found.length)
          throw new OnboardError(2, `not one of 1-${found.length}: ${answer}`);
      }
      chosen = found[index] as Candidate;
      if (values.model) chosen.model = values.model;
      else if (interactive) {
        if (chosen.models.length > 1) out(`Models: ${chosen.models.join(', ')}\n`);
        chosen.model = await ask('Model', chosen.model);
      }
      if (values['base-url'])
        chosen.settings[chosen.provider === 'openai' ? 'OPENAI_BASE_URL' : 'KESOKU_LLM_BASE_URL'] =
          values['base-url'];
    }
    out(`Using ${chosen.model} (provider ${chosen.provider}).\n`);
    const result = writeSettings(
      file,
      { KESOKU_LLM_PROVIDER: chosen.provider, KESOKU_LLM_MODEL: chosen.model, ...chosen.settings },
      values.force === true,
    );
    const relative = path.relative(process.cwd(), file);
    const shown = relative && !relative.startsWith('..') ? relative : file;
    if (result.written.length > 0) out(`Wrote ${result.written.join(', ')} to ${shown} (mode 0600).\n`);
    if (result.same.length > 0 && result.written.length === 0 && result.kept.length === 0)
      out(`${shown} already has these settings.\n`);
    if (result.kept.length > 0)
      out(
        `Kept ${result.kept.join(', ')} as ${shown} has ${result.kept.length === 1 ? 'it' : 'them'} ` +
          '(different from the choice above; --force replaces them).\n',
      );
    // What npm start will use: the file as it is now, under the environment (which wins).
    const now = parseEnvText(fs.readFileSync(file, 'utf8'));
    const overridden = Object.keys(now).filter(
      (k) => k.startsWith('KESOKU_LLM_') && env[k] !== undefined && env[k] !== now[k],
    );
    if (overridden.length > 0)
      out(
        `Note: ${overridden.join(', ')} in your environment override${overridden.length === 1 ? 's' : ''} ${shown}.\n`,
      );
    const llm = requireLlmConfig(loadConfig({ ...now, ...env }));
    if (values['no-test']) out('Skipped the test call (--no-test).\n');
    else {
      out(`Asking ${llm.model} for one word… `);
      const check = await checkModel(llm);
      if (!check.ok) {
        out('no answer.\n');
        process.stderr.write(
          `kesoku: the model did not answer: ${check.reason}\n` +
            `Check the key and the model name, then run npx kesoku onboard again (--force to replace ${shown}'s values).\n`,
        );
        return 1;
      }
      out(`it answered "${check.answer}" in ${(check.ms / 1000).toFixed(1)} s.\n`);
    }
    out('\nNext: npm start\n      then, in another terminal: npm run chat\n');
    return 0;
  } catch (err) {
    if (err instanceof OnboardError) {
      process.stderr.write(`kesoku: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof Error && (err as { kind?: string }).kind === 'config') {
      process.stderr.write(`kesoku: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

/**
 * Configuration from the environment (docs/architecture.md "Configuration"), validated once with zod.
 *
 * Every process (worker, API, adapters, `npm start`) reads the same variables; a missing or malformed value
 * gives a `ConfigError` naming the variable, never a crash deep inside a component.
 */
import path from 'node:path';
import { z } from 'zod';
import { SESSION_LOCALES } from '../domain/failures.ts';
import { MAX_SHELL_TIMEOUT_S } from '../domain/tool-limits.ts';

export class ConfigError extends Error {
  readonly kind = 'config';
}

/** An integer variable in [min, max]; `def` when unset or empty (pass `undefined` for "no value"). */
export const intFrom = <D extends number | undefined>(def: D, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx): number | D => {
      if (v === undefined || v.trim() === '') return def;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** A comma-separated list variable; blanks dropped, `[]` when unset. */
export const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

/** A string variable, trimmed; undefined when unset or blank. */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const envSchema = z.object({
  DATABASE_URL: optionalString,
  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: optionalString.transform((v) => v ?? 'default'),
  KESOKU_TEMPORAL_CLI: optionalString,
  KESOKU_TEMPORAL_PORT: intFrom(7233, 1, 65535),
  KESOKU_TEMPORAL_UI_PORT: intFrom(8233, 1, 65535),
  KESOKU_POSTGRES_PORT: intFrom(5433, 1, 65535),
  KESOKU_DATA_DIR: optionalString.transform((v) => path.resolve(v ?? '.kesoku')),
  KESOKU_API_PORT: intFrom(3000, 0, 65535),
  KESOKU_API_HOST: optionalString,
  KESOKU_API_TOKENS: list,
  KESOKU_API_TOKENS_FILE: optionalString,
  KESOKU_API_ADMINS: list,
  KESOKU_PAYLOAD_KEYS: optionalString,
  KESOKU_CODEC_TOKEN: optionalString,
  KESOKU_CODEC_ORIGINS: list,
  KESOKU_API_URL: optionalString,
  KESOKU_LLM_PROVIDER: z
    .enum(['openai-compatible', 'openai', 'anthropic', 'google'])
    .optional()
    .transform((v) => v ?? 'openai-compatible'),
  KESOKU_LLM_BASE_URL: optionalString,
  KESOKU_LLM_API_KEY: optionalString,
  KESOKU_LLM_MODEL: optionalString,
  KESOKU_LLM_TIMEOUT_MS: intFrom(120_000, 1_000, 3_600_000),
  KESOKU_MAX_STEPS: intFrom(16, 1, 200),
  KESOKU_COMPACT_TOKENS: intFrom(64_000, 1_000, 10_000_000),
  KESOKU_CONTINUE_AS_NEW_TURNS: intFrom(200, 1, 100_000),
  /** Default timeout of a shell command, in seconds; lowered to MAX_SHELL_TIMEOUT_S so it ends before its activity. */
  KESOKU_SHELL_TIMEOUT_S: intFrom(300, 1, 86_400).transform((v) => Math.min(v, MAX_SHELL_TIMEOUT_S)),
  /** Session workflows a worker keeps in memory (Temporal's sticky cache); unset: the SDK's heap-based default. */
  KESOKU_WORKER_CACHED_SESSIONS: intFrom(undefined, 2, 1_000_000),
  /** Worker Deployment build id of this worker (e.g. the git commit); unset: an unversioned worker. */
  KESOKU_WORKER_BUILD_ID: optionalString,
  /** Worker Deployment name the build id belongs to. */
  KESOKU_WORKER_DEPLOYMENT: optionalString.transform((v) => v ?? 'kesoku'),
  /** Port of the metrics endpoint (`/metrics`, `/healthz`) of this process; unset: off, 0: a free port. */
  KESOKU_METRICS_PORT: intFrom(undefined, 0, 65535),
  /** Interface of the metrics endpoint (default loopback). */
  KESOKU_METRICS_HOST: optionalString.transform((v) => v ?? '127.0.0.1'),
  /** Seconds a stopping worker lets running tool commands and model calls finish before cancelling them. */
  KESOKU_WORKER_DRAIN_S: intFrom(300, 0, 86_400),
  /** Longest gap between heartbeats a worker sends for one activity, in ms (cancellation latency vs. cost). */
  KESOKU_WORKER_HEARTBEAT_THROTTLE_MS: intFrom(500, 100, 8_000),
  /** Shell tool sandbox: `auto` (bubblewrap when it works, else a loud warning), `required` or `off`. */
  KESOKU_SANDBOX: z
    .enum(['auto', 'required', 'off'])
    .optional()
    .transform((v) => v ?? 'auto'),
  /** Network inside the sandbox: `off` (own empty network namespace) or `on` (the host's network). */
  KESOKU_SANDBOX_NETWORK: z
    .enum(['off', 'on'])
    .optional()
    .transform((v) => v ?? 'off'),
  /** Names of worker environment variables passed into tool commands, besides PATH, HOME, LANG and TERM. */
  KESOKU_TOOL_ENV: list,
  /**
   * Which tool calls wait for a person's approval: `off`, `writes` (run_shell_command, write_file) or `all`;
   * unset: each channel's default (domain/tool-approval.ts). A session may override it.
   */
  KESOKU_TOOL_APPROVAL: z.enum(['off', 'writes', 'all']).optional(),
  /** Patterns of calls approved without asking, in every session (e.g. `ls *,git status`). */
  KESOKU_TOOL_AUTO_APPROVE: list,
  /** Seconds a tool call waits for approval before it counts as denied. */
  KESOKU_APPROVAL_TIMEOUT_S: intFrom(600, 1, 31_536_000),
  /** Per-process limits of a tool command: CPU seconds, data memory (MiB), processes/threads, file size (MiB). */
  KESOKU_SANDBOX_CPU_S: intFrom(1800, 1, 86_400),
  KESOKU_SANDBOX_MEMORY_MB: intFrom(4096, 16, 1_048_576),
  KESOKU_SANDBOX_PROCESSES: intFrom(512, 8, 1_000_000),
  KESOKU_SANDBOX_FILE_MB: intFrom(1024, 1, 1_048_576),
  /** User id (and group id) tool commands run as when the worker runs as root. */
  KESOKU_SANDBOX_UID: intFrom(65534, 1, 4_294_967_294),
  KESOKU_LOG_LEVEL: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
    .optional()
    .transform((v) => v ?? 'info'),
  /** Log lines: `json` or `pretty` (readable); unset: pretty on a terminal, else JSON (infra/logger.ts). */
  KESOKU_LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Locale of new sessions (notices and crash notices): `en` or `zh`. */
  KESOKU_LOCALE: z
    .enum(SESSION_LOCALES)
    .optional()
    .transform((v) => v ?? 'en'),
});

/** The validated configuration. Ports are TCP ports; durations carry their unit in the name. */
export type Config = z.output<typeof envSchema>;

/** A boolean variable: `true`/`1` or `false`/`0` (any case), false when unset or empty; anything else is refused. */
export const flag = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const t = (v ?? '').trim().toLowerCase();
    if (t === '' || t === 'false' || t === '0') return false;
    if (t === 'true' || t === '1') return true;
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  });

/**
 * Parses variables with `schema` (a zod object over the environment); the problems of one variable per line.
 * Shared by {@link loadConfig} and the chat channels' own schemas (adapters/kit/channel.ts `configSchema`).
 * @returns the parsed value, or the lines `VARIABLE: problem`
 */
export function parseEnv<T>(
  schema: z.ZodType<T>,
  env: NodeJS.ProcessEnv,
): { ok: true; value: T } | { ok: false; problems: string[] } {
  const parsed = schema.safeParse(env);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
}

/** The ConfigError for problem lines from {@link parseEnv}. */
export function invalidConfiguration(problems: readonly string[]): ConfigError {
  return new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
}

/**
 * Reads and validates the configuration shared by every process. The chat channels' variables
 * are each channel's own schema (adapters/registry.ts `loadChannelConfigs`).
 * @param env defaults to `process.env`
 * @throws ConfigError listing every invalid variable
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseEnv(envSchema, env);
  if (!parsed.ok) throw invalidConfiguration(parsed.problems);
  return parsed.value;
}

/**
 * Where the API listens: `KESOKU_API_HOST` when set, else all interfaces when bearer tokens are configured and
 * loopback otherwise. (A non-loopback host without tokens is refused when the server starts.)
 */
export function apiHost(cfg: Config, hasTokens: boolean): string {
  if (cfg.KESOKU_API_HOST) return cfg.KESOKU_API_HOST;
  return hasTokens ? '0.0.0.0' : '127.0.0.1';
}

/** The LLM settings the worker needs; throws a ConfigError naming what is missing. */
export function requireLlmConfig(cfg: Config): {
  provider: Config['KESOKU_LLM_PROVIDER'];
  baseUrl?: string;
  apiKey?: string;
  model: string;
  requestTimeoutMs: number;
} {
  const missing: string[] = [];
  if (!cfg.KESOKU_LLM_MODEL) missing.push('KESOKU_LLM_MODEL');
  if (cfg.KESOKU_LLM_PROVIDER === 'openai-compatible' && !cfg.KESOKU_LLM_BASE_URL)
    missing.push('KESOKU_LLM_BASE_URL');
  if (['openai', 'anthropic', 'google'].includes(cfg.KESOKU_LLM_PROVIDER) && !cfg.KESOKU_LLM_API_KEY)
    missing.push('KESOKU_LLM_API_KEY');
  if (missing.length > 0) {
    throw new ConfigError(
      `the model is not configured: set ${missing.join(', ')} (provider ${cfg.KESOKU_LLM_PROVIDER}); see README "Model providers"`,
    );
  }
  return {
    provider: cfg.KESOKU_LLM_PROVIDER,
    baseUrl: cfg.KESOKU_LLM_BASE_URL,
    apiKey: cfg.KESOKU_LLM_API_KEY,
    model: cfg.KESOKU_LLM_MODEL as string,
    requestTimeoutMs: cfg.KESOKU_LLM_TIMEOUT_MS,
  };
}

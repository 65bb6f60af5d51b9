/**
 * Configuration from the environment, validated once with zod. The settings file (`.env`, infra/env-file.ts)
 * is loaded into the environment first; docs/configuration.md and .env.example are generated from this schema
 * (`npm run docs:config`), each variable's text sitting next to it here.
 *
 * Every process (worker, API, adapters, `npm start`) reads the same variables; a missing or malformed value
 * gives a `ConfigError` naming the variable, never a crash deep inside a component.
 */
import path from 'node:path';
import { z } from 'zod';
import { SESSION_LOCALES } from '../domain/failures.ts';
import { MAX_SHELL_TIMEOUT_S } from '../domain/tool-limits.ts';
import { canonicalZone } from '../domain/schedules.ts';

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

/**
 * What the configuration reference (docs/configuration.md, .env.example) shows of a setting, attached to its
 * schema with `.meta()`: `group` (a section of the reference), `description` (one or two sentences) and,
 * where the parsed default would read badly (a path made absolute, a derived value), `default` as text.
 */
export interface SettingDoc {
  group: SettingGroup;
  description: string;
  default?: string;
  /** A secret: .env.example shows it without a value, and the reference says so. */
  secret?: boolean;
}

/** The sections of the configuration reference, in order. */
export const SETTING_GROUPS = {
  model: 'The model',
  providers: "Model providers' own variables",
  state: 'Local state and embedded servers',
  api: 'REST API and clients',
  tools: 'Tools, approval and the sandbox',
  worker: 'Worker and sessions',
  temporal: 'Temporal',
  logs: 'Logs and metrics',
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

/** Attaches the reference text of a setting to its schema (see {@link SettingDoc}). */
const doc = <T extends z.ZodType>(schema: T, meta: SettingDoc): T => schema.meta({ ...meta }) as T;

/** The sandbox's uid range, `first-last` or one uid (1 … 4294967294); a default when unset. */
const uidRange = z
  .string()
  .optional()
  .transform((v, ctx): { first: number; last: number } => {
    const t = (v ?? '').trim();
    if (t === '') return { first: 1_879_048_192, last: 1_879_048_192 + 65_535 };
    const m = /^(\d+)(?:-(\d+))?$/.exec(t);
    const first = Number(m?.[1]);
    const last = Number(m?.[2] ?? m?.[1]);
    if (!m || first < 1 || last > 4_294_967_294 || last < first) {
      ctx.addIssue({ code: 'custom', message: 'must be a uid or a range first-last (1 to 4294967294)' });
      return z.NEVER;
    }
    return { first, last };
  });

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

const envSchema = z.object({
  KESOKU_LLM_PROVIDER: doc(
    z
      .enum(['openai-compatible', 'openai', 'anthropic', 'google'])
      .optional()
      .transform((v) => v ?? 'openai-compatible'),
    {
      group: 'model',
      description:
        '`openai-compatible` (any Chat Completions server: Ollama, vLLM, LM Studio, …), `openai`, `anthropic` or `google`. Unset: the provider whose key is in the environment (`OPENAI_API_KEY`, then `ANTHROPIC_API_KEY`, then `GEMINI_API_KEY`), else `openai-compatible`.',
      default: 'openai-compatible (or as detected)',
    },
  ),
  KESOKU_LLM_MODEL: doc(optionalString, {
    group: 'model',
    description:
      "The model id, e.g. `gpt-4.1`, `claude-sonnet-4-5`, `gemini-2.5-flash`, `qwen3:8b`. Unset with a provider key: that provider's default model (`npx kesoku onboard` picks one for you).",
    default: 'the provider default, none for openai-compatible',
  }),
  KESOKU_LLM_BASE_URL: doc(optionalString, {
    group: 'model',
    description:
      'API base URL including the version segment (e.g. `http://127.0.0.1:11434/v1`). Required for `openai-compatible`; with `openai` it switches to the Chat Completions API so compatible servers work too.',
    default: '`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL` or `OLLAMA_HOST` + `/v1` when set',
  }),
  KESOKU_LLM_API_KEY: doc(optionalString, {
    group: 'model',
    description:
      "The provider's API key. Optional for `openai-compatible` (sent as a bearer token when set).",
    default: "the provider's own variable (below)",
    secret: true,
  }),
  KESOKU_LLM_TIMEOUT_MS: doc(intFrom(120_000, 1_000, 3_600_000), {
    group: 'model',
    description: 'A model call with no streamed output for this long (ms) fails as a timeout.',
  }),
  KESOKU_LLM_MAX_OUTPUT_TOKENS: doc(intFrom(8192, 1, 10_000_000), {
    group: 'model',
    description:
      'Most tokens one model call may generate (its `max_tokens`); a longer answer ends cut off. Lower it for a model whose maximum is smaller.',
  }),
  OPENAI_API_KEY: doc(optionalString, {
    group: 'providers',
    description: 'Your OpenAI key. Selects provider `openai` when `KESOKU_LLM_PROVIDER` is unset.',
    secret: true,
  }),
  OPENAI_BASE_URL: doc(optionalString, {
    group: 'providers',
    description:
      'Base URL for provider `openai` (an OpenAI-compatible server, a proxy); then the Chat Completions API is used.',
  }),
  ANTHROPIC_API_KEY: doc(optionalString, {
    group: 'providers',
    description: 'Your Anthropic key. Selects provider `anthropic` when no OpenAI key is set.',
    secret: true,
  }),
  ANTHROPIC_BASE_URL: doc(optionalString, {
    group: 'providers',
    description: 'Base URL for provider `anthropic`.',
  }),
  GEMINI_API_KEY: doc(optionalString, {
    group: 'providers',
    description:
      'Your Google Gemini key (`GOOGLE_GENERATIVE_AI_API_KEY` works too). Selects provider `google` when no OpenAI or Anthropic key is set.',
    secret: true,
  }),
  GOOGLE_GENERATIVE_AI_API_KEY: doc(optionalString, {
    group: 'providers',
    description: "The Google AI SDK's name for `GEMINI_API_KEY`.",
    secret: true,
  }),
  OLLAMA_HOST: doc(optionalString, {
    group: 'providers',
    description:
      "Where a local Ollama listens (`127.0.0.1:11434`, `http://host:11434`). With no provider key set, it makes `openai-compatible` talk to Ollama's `/v1`; `npx kesoku onboard` also looks at 127.0.0.1:11434.",
  }),
  KESOKU_ENV_FILE: doc(optionalString, {
    group: 'state',
    description:
      'The settings file every Kesoku command reads before it starts. Variables already in the environment win over the file. Empty: read no file.',
    default: '`.env` in the checkout',
  }),
  KESOKU_DATA_DIR: doc(
    optionalString.transform((v) => path.resolve(v ?? '.kesoku')),
    {
      group: 'state',
      description:
        "Local state: the embedded Postgres, Temporal's SQLite file, session workspaces, tool output, secrets, pid files.",
      default: '`.kesoku`',
    },
  ),
  DATABASE_URL: doc(optionalString, {
    group: 'state',
    description: 'Postgres to use. Unset: `npm start` runs an embedded PostgreSQL 18 under the data dir.',
    default: 'embedded Postgres',
    secret: true,
  }),
  KESOKU_POSTGRES_PORT: doc(intFrom(5433, 1, 65535), {
    group: 'state',
    description: 'Port of the embedded Postgres.',
  }),
  KESOKU_TEMPORAL_PORT: doc(intFrom(7233, 1, 65535), {
    group: 'state',
    description: 'gRPC port of the embedded Temporal dev server.',
  }),
  KESOKU_TEMPORAL_UI_PORT: doc(intFrom(8233, 1, 65535), {
    group: 'state',
    description: "Port of the embedded dev server's Temporal Web UI.",
  }),
  KESOKU_TEMPORAL_CLI: doc(optionalString, {
    group: 'state',
    description:
      'Path of a `temporal` binary to run the dev server from. Unset: `temporal` on PATH, the cached one, a download, or a build with Go.',
  }),
  KESOKU_TEMPORAL_DOWNLOAD_URL: doc(optionalString, {
    group: 'state',
    description:
      "Where the Temporal CLI's release archives are downloaded from (a mirror of the GitHub release layout `<url>/v1.5.1/temporal_cli_1.5.1_linux_amd64.tar.gz`).",
    default: '`https://github.com/temporalio/cli/releases/download`',
  }),
  KESOKU_API_PORT: doc(intFrom(3000, 0, 65535), {
    group: 'api',
    description: 'Port of the REST API (0: a free port).',
  }),
  KESOKU_API_HOST: doc(optionalString, {
    group: 'api',
    description:
      'Interface the API binds. A non-loopback address needs tokens; the start is refused without them.',
    default: '`127.0.0.1` without tokens, `0.0.0.0` with',
  }),
  KESOKU_API_TOKENS: doc(list, {
    group: 'api',
    description:
      'API principals, comma-separated `name:token` (tokens of at least 32 characters, e.g. `alice:$(openssl rand -hex 32)`). `admin` sees every session. Unset: no token, loopback only.',
    secret: true,
  }),
  KESOKU_API_TOKENS_FILE: doc(optionalString, {
    group: 'api',
    description: 'A file of more principals, one `name:token` per line (`#` comments).',
  }),
  KESOKU_API_ADMINS: doc(list, {
    group: 'api',
    description: 'Principal names that are admins besides `admin`, comma-separated.',
  }),
  KESOKU_API_URL: doc(optionalString, {
    group: 'api',
    description: 'Where the clients (`npm run chat`, `npx kesoku status`, `pairing`) find the API.',
    default: '`http://127.0.0.1:$KESOKU_API_PORT`',
  }),
  KESOKU_API_TOKEN: doc(optionalString, {
    group: 'api',
    description: 'The bearer token the clients send.',
    default: 'the `admin` (else the first) token of `KESOKU_API_TOKENS`',
    secret: true,
  }),
  KESOKU_PAYLOAD_KEYS: doc(optionalString, {
    group: 'api',
    description:
      'Temporal payload encryption keys, `id:<base64 of 32 bytes>,…`; the first encrypts, all decrypt. Every process needs the same keys.',
    default: '`<data dir>/payload-keys` (`npm start` creates it)',
    secret: true,
  }),
  KESOKU_CODEC_TOKEN: doc(optionalString, {
    group: 'api',
    description: "Token of the API's codec endpoint, through which the Temporal Web UI decrypts payloads.",
    default: '`<data dir>/codec-token` (`npm start` creates it)',
    secret: true,
  }),
  KESOKU_CODEC_ORIGINS: doc(list, {
    group: 'api',
    description: 'Extra browser origins (a remote Web UI) allowed to call the codec endpoint.',
    default: 'the local Web UI',
  }),
  KESOKU_CODEC_ACCEPT_PLAINTEXT: doc(flag, {
    group: 'temporal',
    description:
      'Accept unencrypted Temporal payloads (histories written before payload encryption): a one-time migration, warned at start. Off, anyone who reaches Temporal could drive a session without the keys.',
  }),
  KESOKU_MAX_SESSIONS_PER_PRINCIPAL: doc(intFrom(1000, 1, 100_000_000), {
    group: 'api',
    description: 'Sessions one non-admin API principal may create; past it a new session id is answered 429.',
  }),
  KESOKU_MAX_STREAMS_PER_PRINCIPAL: doc(intFrom(32, 1, 100_000), {
    group: 'api',
    description: 'Event streams (SSE) one API principal may hold open at once, per API process; past it 429.',
  }),
  KESOKU_MAX_NEW_CONVERSATIONS_PER_DAY: doc(intFrom(50, 1, 1_000_000), {
    group: 'worker',
    description: 'New conversations (`/new`) one chat user may start per 24 hours, per chat channel.',
  }),
  KESOKU_CODEC_URL: doc(optionalString, {
    group: 'api',
    description:
      'docker-compose.yml only: the codec endpoint as the browser reaches the API, without the token (e.g. `https://kesoku.example/codec`).',
    default: '`http://127.0.0.1:3000/codec`',
  }),
  KESOKU_MAX_STEPS: doc(intFrom(16, 1, 200), {
    group: 'worker',
    description: 'Model steps per turn; the last one is offered no tools.',
  }),
  KESOKU_COMPACT_TOKENS: doc(intFrom(64_000, 1_000, 10_000_000), {
    group: 'worker',
    description: 'Estimated prompt tokens above which the history is compacted automatically.',
  }),
  KESOKU_CONTINUE_AS_NEW_TURNS: doc(intFrom(200, 1, 100_000), {
    group: 'worker',
    description: 'Turns per workflow run before continue-as-new (the server may suggest it earlier).',
  }),
  KESOKU_CONTINUE_AS_NEW_EVENTS: doc(intFrom(1000, 100, 50_000), {
    group: 'worker',
    description:
      'History events per workflow run after which the session continues-as-new at the next turn boundary: it bounds the history a worker replays for a session it does not have cached (the first turn after a restart replays about 0.8 ms per event on 2 cores; bench section h). New runs take it; a run started before it existed takes it from its next run.',
  }),
  KESOKU_SESSION_IDLE_S: doc(intFrom(86_400, 5, 31_536_000), {
    group: 'worker',
    description:
      'Seconds a session workflow run waits idle before it ends (its state is in Postgres): the next message starts a run on the current worker build with a fresh history, so old builds drain and patches can be retired within this time (docs/operations.md).',
  }),
  KESOKU_LOCALE: doc(
    z
      .enum(SESSION_LOCALES)
      .optional()
      .transform((v) => v ?? 'en'),
    {
      group: 'worker',
      description:
        'Locale of new sessions (notices and crash notices): `en` or `zh`. Per session: `PATCH {"locale"}` or `/locale`.',
    },
  ),
  KESOKU_TIMEZONE: doc(
    z
      .string()
      .optional()
      .refine((v) => v === undefined || v === '' || canonicalZone(v) !== null, {
        message: 'must be an IANA time zone name such as Europe/Berlin',
      })
      .transform((v) => (v ? (canonicalZone(v) ?? undefined) : undefined)),
    {
      group: 'worker',
      description:
        "Time zone of scheduled prompts that name none and whose session has none (IANA name, e.g. `Asia/Tokyo`). Unset: the server's zone (`TZ`, else the system's).",
    },
  ),
  KESOKU_SHELL_TIMEOUT_S: doc(
    intFrom(300, 1, 86_400).transform((v) => Math.min(v, MAX_SHELL_TIMEOUT_S)),
    {
      group: 'tools',
      description: `Default timeout of a shell command (s). It and the model's \`timeout_s\` are lowered to ${MAX_SHELL_TIMEOUT_S} s, so a command ends before its activity.`,
    },
  ),
  KESOKU_JOB_TIMEOUT_S: doc(
    intFrom(3600, 1, 86_400).transform((v) => Math.min(v, MAX_SHELL_TIMEOUT_S)),
    {
      group: 'tools',
      description: `Default timeout of a background job (\`run_shell_command\` with \`background: true\`), in s; the job is killed after it and ends \`timed_out\`. It and the model's \`timeout_s\` are lowered to ${MAX_SHELL_TIMEOUT_S} s.`,
    },
  ),
  KESOKU_JOBS_PER_SESSION: doc(intFrom(4, 1, 1000), {
    group: 'tools',
    description:
      'Background jobs a session may have running at once; one more is refused (the model is told, REST answers 429).',
  }),
  KESOKU_TOOL_APPROVAL: doc(z.enum(['off', 'writes', 'all']).optional(), {
    group: 'tools',
    description:
      'Which tool calls wait for a person: `off`, `writes` (`run_shell_command`, `write_file`) or `all`. A session may override it.',
    default: 'per channel (its descriptor): `writes`, except `off` for the terminal client',
  }),
  KESOKU_TOOL_AUTO_APPROVE: doc(list, {
    group: 'tools',
    description:
      'Command patterns approved without asking in every session, comma-separated (`ls *,git status *`).',
  }),
  KESOKU_APPROVAL_TIMEOUT_S: doc(intFrom(600, 1, 31_536_000), {
    group: 'tools',
    description: 'Seconds a tool call waits for a decision; then it counts as denied.',
  }),
  KESOKU_SANDBOX: doc(
    z
      .enum(['auto', 'required', 'off'])
      .optional()
      .transform((v) => v ?? 'auto'),
    {
      group: 'tools',
      description:
        "Tools' sandbox (docs/sandbox.md): `auto` (bubblewrap when it works, else every shell and file tool call is refused with the fix), `required` (refuse to start without it) or `off` (tools run unsandboxed: the operator's explicit choice, warned at start and shown in /healthz).",
    },
  ),
  KESOKU_SANDBOX_NETWORK: doc(
    z
      .enum(['off', 'on'])
      .optional()
      .transform((v) => v ?? 'off'),
    {
      group: 'tools',
      description:
        "Network inside the sandbox: `off` (an empty network namespace) or `on` (the host's network, loopback services included).",
    },
  ),
  KESOKU_TOOL_ENV: doc(list, {
    group: 'tools',
    description:
      "Names of worker environment variables passed into tool commands, besides `PATH`, `HOME`, `LANG`, `TERM` (a channel's secret never is).",
  }),
  KESOKU_SANDBOX_CPU_S: doc(intFrom(1800, 1, 86_400), {
    group: 'tools',
    description: 'CPU seconds per process of a tool command.',
  }),
  KESOKU_SANDBOX_MEMORY_MB: doc(intFrom(4096, 16, 1_048_576), {
    group: 'tools',
    description: 'Data memory per process of a tool command (MiB).',
  }),
  KESOKU_SANDBOX_PROCESSES: doc(intFrom(512, 8, 1_000_000), {
    group: 'tools',
    description: 'Processes and threads of a whole tool command.',
  }),
  KESOKU_SANDBOX_FILE_MB: doc(intFrom(1024, 1, 1_048_576), {
    group: 'tools',
    description: 'Largest file a tool command may write (MiB).',
  }),
  KESOKU_SANDBOX_UID: doc(uidRange, {
    group: 'tools',
    description:
      'User ids (and group ids) tool commands run as when the worker runs as root: `first-last`, each session one of them (by its id), or one uid for every session.',
    default: '1879048192-1879113727',
  }),
  KESOKU_SANDBOX_PATHS: doc(list, {
    group: 'tools',
    description:
      'Extra read-only paths in the sandbox besides /usr, /bin, /lib*, /sbin and /etc (e.g. `/opt,/nix`).',
  }),
  KESOKU_SANDBOX_CGROUP: doc(
    optionalString.transform((v) => v ?? 'auto'),
    {
      group: 'tools',
      description:
        "Per-command cgroups (memory and process limits that hold as root): `auto` (the worker's delegated cgroup v2 or its cgroup v1 groups), `off`, or a cgroup v2 path.",
    },
  ),
  KESOKU_WORKSPACE_QUOTA_MB: doc(intFrom(10_240, 0, 1_073_741_824), {
    group: 'tools',
    description:
      "Largest size of one session's workspace, in MiB, before commands and writes are refused; 0: no quota.",
  }),
  KESOKU_RETENTION_DAYS: doc(intFrom(30, 0, 36_500), {
    group: 'tools',
    description: 'Days full tool output and attachment files are kept; 0: kept forever.',
  }),
  KESOKU_MCP_CONFIG: doc(optionalString, {
    group: 'tools',
    description:
      'JSON file of MCP servers whose tools the agent may call, in the `mcpServers` shape (docs/mcp.md). Unset: no MCP tools.',
  }),
  KESOKU_MCP_MAX_TOOLS: doc(intFrom(40, 0, 10_000), {
    group: 'tools',
    description:
      'MCP tools offered to the model by name; with more, the model gets `mcp_search_tools` to find them instead.',
  }),
  KESOKU_SKILLS_DIR: doc(optionalString, {
    group: 'tools',
    description:
      'Folder of skill files (Markdown with `name`, `description`, `when_to_use` front matter, docs/memory.md): listed in the system prompt, loaded by the model with `load_skill`. Unset: no skills; `skills/` of the repository holds examples.',
  }),
  KESOKU_MEMORY_SHARED_SCOPES: doc(list, {
    group: 'tools',
    description:
      'Sessions and channels whose memory has a shared scope besides each person’s, comma-separated: `session:<session id>`, `channel:<chatbot>:<channel id>` (`channel:<chatbot>:C0123`). There everyone recalls the entries stored with `remember {shared: true}`; entries stay the person’s unless asked (docs/memory.md "Shared scope").',
  }),
  KESOKU_WORKER_CACHED_SESSIONS: doc(intFrom(undefined, 2, 1_000_000), {
    group: 'worker',
    description:
      "Session workflows a worker keeps in memory (Temporal's sticky cache); an evicted one is replayed on its next message.",
    default: "the SDK's default, sized from the heap",
  }),
  KESOKU_WORKER_BUILD_ID: doc(optionalString, {
    group: 'worker',
    description:
      'Worker Deployment build id of this worker (e.g. the git commit). Unset: an unversioned worker.',
  }),
  KESOKU_WORKER_DEPLOYMENT: doc(
    optionalString.transform((v) => v ?? 'kesoku'),
    {
      group: 'worker',
      description: 'Worker Deployment name the build id belongs to.',
    },
  ),
  KESOKU_WORKER_DRAIN_S: doc(intFrom(300, 0, 86_400), {
    group: 'worker',
    description:
      'Seconds a stopping worker lets running tool commands and model calls finish before cancelling them.',
  }),
  KESOKU_WORKER_HEARTBEAT_THROTTLE_MS: doc(intFrom(500, 100, 8_000), {
    group: 'worker',
    description:
      'Longest time an activity heartbeat is held back (ms): `/stop` reaches a running command within about this; on Temporal Cloud each heartbeat is a billed action.',
  }),
  KESOKU_WORKER_ACTIVITY_SLOTS: doc(intFrom(100, 1, 10_000), {
    group: 'worker',
    description:
      'Activities one worker runs at once on the session task queue — model steps, deliveries, database writes — and as many local activities. Tool runs have slots of their own.',
  }),
  KESOKU_WORKER_TOOL_SLOTS: doc(intFrom(40, 1, 10_000), {
    group: 'worker',
    description:
      'Tool runs (shell commands, file tools, MCP calls) one worker runs at once, on the tool task queue `<KESOKU_TASK_QUEUE>-tools`. Busy tool slots never delay model steps or deliveries of other sessions; a step runs at most 8 of its tool calls at once.',
  }),
  KESOKU_DB_POOL_MAX: doc(intFrom(20, 2, 1_000), {
    group: 'worker',
    description:
      "Postgres connections of a process's main pool (API, model steps, deliveries, writes). A worker's tool runs use a pool of their own, of min(this, `KESOKU_WORKER_TOOL_SLOTS`) connections, so they never hold the main pool's. Keep the sum of every process's pools below the server's `max_connections`.",
  }),
  KESOKU_TASK_QUEUE: doc(
    optionalString.transform((v) => v ?? 'kesoku'),
    {
      group: 'worker',
      description: 'The Temporal task queue of the workers and clients.',
    },
  ),
  TEMPORAL_ADDRESS: doc(optionalString, {
    group: 'temporal',
    description:
      "A running Temporal frontend (`host:port`). Unset: `npm start` runs a dev server. Temporal's own environment configuration (`TEMPORAL_API_KEY`, `TEMPORAL_TLS_*`, `TEMPORAL_PROFILE`, `TEMPORAL_CONFIG_FILE`) is read too; see docs/operations.md.",
    default: 'an embedded dev server',
  }),
  TEMPORAL_NAMESPACE: doc(
    optionalString.transform((v) => v ?? 'default'),
    {
      group: 'temporal',
      description: 'The Temporal namespace.',
    },
  ),
  KESOKU_LOG_LEVEL: doc(
    z
      .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
      .optional()
      .transform((v) => v ?? 'info'),
    {
      group: 'logs',
      description: '`trace` … `silent`; log lines go to stderr.',
      default: '`info` (`warn` under `npm start`)',
    },
  ),
  KESOKU_LOG_FORMAT: doc(z.enum(['json', 'pretty']).optional(), {
    group: 'logs',
    description: '`json` (JSON lines) or `pretty` (one readable line per entry).',
    default: '`pretty` on a terminal, else `json`',
  }),
  KESOKU_METRICS_PORT: doc(intFrom(undefined, 0, 65535), {
    group: 'logs',
    description: "Port of this process's `/metrics` (Prometheus) and `/healthz`; 0: a free port. Unset: off.",
  }),
  KESOKU_METRICS_HOST: doc(
    optionalString.transform((v) => v ?? '127.0.0.1'),
    {
      group: 'logs',
      description: 'Interface of the metrics endpoint.',
    },
  ),
});

/** The validated configuration. Ports are TCP ports; durations carry their unit in the name. */
export type Config = z.output<typeof envSchema>;

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

/** The model each provider uses when only its key is configured (`KESOKU_LLM_MODEL` unset). */
export const PROVIDER_DEFAULT_MODELS = {
  openai: 'gpt-4.1',
  anthropic: 'claude-sonnet-4-5',
  google: 'gemini-2.5-flash',
} as const;

/** Ollama's address when `OLLAMA_HOST` is unset. */
export const DEFAULT_OLLAMA_HOST = '127.0.0.1:11434';

/**
 * The base URL of Ollama's OpenAI-compatible API for an `OLLAMA_HOST` value (`host`, `host:port`, or a URL;
 * a bind-all address means this machine). @example ollamaBaseUrl('0.0.0.0') === 'http://127.0.0.1:11434/v1'
 */
export function ollamaBaseUrl(host: string = DEFAULT_OLLAMA_HOST): string {
  const withScheme = /^[a-z]+:\/\//i.test(host.trim()) ? host.trim() : `http://${host.trim()}`;
  const u = new URL(withScheme);
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]') u.hostname = '127.0.0.1';
  if (u.port === '' && !/:\d+$/.test(host.trim())) u.port = '11434';
  return `${u.origin}/v1`;
}

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/**
 * The environment with the model providers' usual variables turned into Kesoku's: with `KESOKU_LLM_PROVIDER`
 * and `KESOKU_LLM_BASE_URL` unset, the first key found among `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
 * `GEMINI_API_KEY`/`GOOGLE_GENERATIVE_AI_API_KEY` picks the provider, else `OLLAMA_HOST` picks
 * `openai-compatible` on Ollama's `/v1`. The chosen provider's key and base URL (`OPENAI_BASE_URL`,
 * `ANTHROPIC_BASE_URL`) and its default model ({@link PROVIDER_DEFAULT_MODELS}) fill the `KESOKU_LLM_*`
 * variables that are unset; an explicit `KESOKU_LLM_*` always wins. An `openai-compatible` endpoint never gets
 * a provider's key (it would go to whatever server the base URL names).
 * @returns a new object; `env` is not changed
 */
export function withProviderDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const fill = (name: string, value: string | undefined) => {
    if (!present(out[name]) && present(value)) out[name] = value.trim();
  };
  const googleKey = present(env.GEMINI_API_KEY) ? env.GEMINI_API_KEY : env.GOOGLE_GENERATIVE_AI_API_KEY;
  let provider = env.KESOKU_LLM_PROVIDER?.trim();
  if (!present(provider) && !present(env.KESOKU_LLM_BASE_URL)) {
    if (present(env.OPENAI_API_KEY)) provider = 'openai';
    else if (present(env.ANTHROPIC_API_KEY)) provider = 'anthropic';
    else if (present(googleKey)) provider = 'google';
    else if (present(env.OLLAMA_HOST)) {
      provider = 'openai-compatible';
      out.KESOKU_LLM_BASE_URL = ollamaBaseUrl(env.OLLAMA_HOST);
    }
    if (provider) out.KESOKU_LLM_PROVIDER = provider;
  }
  switch (provider) {
    case 'openai':
      fill('KESOKU_LLM_API_KEY', env.OPENAI_API_KEY);
      fill('KESOKU_LLM_BASE_URL', env.OPENAI_BASE_URL);
      fill('KESOKU_LLM_MODEL', PROVIDER_DEFAULT_MODELS.openai);
      break;
    case 'anthropic':
      fill('KESOKU_LLM_API_KEY', env.ANTHROPIC_API_KEY);
      fill('KESOKU_LLM_BASE_URL', env.ANTHROPIC_BASE_URL);
      fill('KESOKU_LLM_MODEL', PROVIDER_DEFAULT_MODELS.anthropic);
      break;
    case 'google':
      fill('KESOKU_LLM_API_KEY', googleKey);
      fill('KESOKU_LLM_MODEL', PROVIDER_DEFAULT_MODELS.google);
      break;
  }
  return out;
}

/**
 * Reads and validates the configuration shared by every process, after {@link withProviderDefaults}. The chat
 * channels' variables are each channel's own schema (adapters/registry.ts `loadChannelConfigs`).
 * @param env defaults to `process.env`
 * @throws ConfigError listing every invalid variable
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseEnv(envSchema, withProviderDefaults(env));
  if (!parsed.ok) throw invalidConfiguration(parsed.problems);
  return parsed.value;
}

/** One setting of the shared schema with its reference text, in schema order. */
export interface SettingInfo extends SettingDoc {
  name: string;
  /** The parsed value when unset (`undefined`: no value). */
  parsedDefault: unknown;
}

/**
 * Every setting of the shared configuration with its {@link SettingDoc}, in schema order.
 * @throws Error naming a setting whose schema has no `.meta()` description (a new setting must say what it is)
 */
export function settings(): SettingInfo[] {
  return Object.entries(envSchema.shape).map(([name, schema]) => {
    const meta = (schema as z.ZodType).meta() as Partial<SettingDoc> | undefined;
    if (!meta?.description || !meta.group || !(meta.group in SETTING_GROUPS))
      throw new Error(
        `infra/config.ts: ${name} needs doc(schema, { group, description }) (groups: ${Object.keys(SETTING_GROUPS).join(', ')})`,
      );
    const parsed = (schema as z.ZodType).safeParse(undefined);
    return { name, ...(meta as SettingDoc), parsedDefault: parsed.success ? parsed.data : undefined };
  });
}

/** Names of the shared settings. */
export function settingNames(): string[] {
  return Object.keys(envSchema.shape);
}

/**
 * `KESOKU_*` names read only by the test suites, benchmarks and tools (documented in docs/testing.md), by
 * prefix: never reported as unknown.
 */
export const TOOLING_VARIABLE_PREFIXES: readonly string[] = [
  'KESOKU_TEST_',
  'KESOKU_FUZZ_',
  'KESOKU_CHAOS',
  'KESOKU_CLUSTER',
  'KESOKU_BENCH_',
  'KESOKU_RECORD_HISTORIES',
  'KESOKU_WRITE_TRANSCRIPT',
  'KESOKU_INTERRUPTED_',
  'KESOKU_CRASHED_',
  'KESOKU_GO',
];

/** Edit distance with adjacent transpositions (optimal string alignment) of `a` and `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The `KESOKU_*` names in `env` that no schema knows (likely typos, which would otherwise be ignored in
 * silence), each with the closest known name when one is near.
 * @param known every name a process reads: {@link settingNames} plus the channels' (adapters/registry.ts)
 * @returns one line per unknown name: `<name> is not a Kesoku setting (did you mean <closest>?)`
 */
export function unknownSettings(env: NodeJS.ProcessEnv, known: Iterable<string>): string[] {
  const names = new Set([...settingNames(), ...known]);
  const lines: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('KESOKU_') || names.has(name)) continue;
    if (TOOLING_VARIABLE_PREFIXES.some((p) => name.startsWith(p))) continue;
    let best: { name: string; distance: number } | undefined;
    for (const candidate of names) {
      const distance = editDistance(name, candidate);
      if (!best || distance < best.distance) best = { name: candidate, distance };
    }
    const near = best && best.distance <= Math.max(2, Math.floor(name.length / 6));
    lines.push(`${name} is not a Kesoku setting${near ? ` (did you mean ${best?.name}?)` : ''}`);
  }
  return lines;
}

/** What to do when the model is not configured: the lines `npm start` prints as its next steps. */
export const MODEL_NEXT_STEPS: readonly string[] = [
  'npx kesoku onboard         # finds OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or a local Ollama, writes .env',
  'npm run demo               # or try Kesoku with the fake model the tests use',
  'or put KESOKU_LLM_PROVIDER, KESOKU_LLM_MODEL and KESOKU_LLM_API_KEY (or KESOKU_LLM_BASE_URL) in .env (see .env.example)',
];

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
  maxOutputTokens: number;
} {
  const missing: string[] = [];
  if (!cfg.KESOKU_LLM_MODEL) missing.push('KESOKU_LLM_MODEL');
  if (cfg.KESOKU_LLM_PROVIDER === 'openai-compatible' && !cfg.KESOKU_LLM_BASE_URL)
    missing.push('KESOKU_LLM_BASE_URL');
  if (['openai', 'anthropic', 'google'].includes(cfg.KESOKU_LLM_PROVIDER) && !cfg.KESOKU_LLM_API_KEY)
    missing.push('KESOKU_LLM_API_KEY');
  if (missing.length > 0) {
    throw new ConfigError(
      `the model is not configured: set ${missing.join(', ')} (provider ${cfg.KESOKU_LLM_PROVIDER}), or run \`npx kesoku onboard\``,
    );
  }
  return {
    provider: cfg.KESOKU_LLM_PROVIDER,
    baseUrl: cfg.KESOKU_LLM_BASE_URL,
    apiKey: cfg.KESOKU_LLM_API_KEY,
    model: cfg.KESOKU_LLM_MODEL as string,
    requestTimeoutMs: cfg.KESOKU_LLM_TIMEOUT_MS,
    maxOutputTokens: cfg.KESOKU_LLM_MAX_OUTPUT_TOKENS,
  };
}

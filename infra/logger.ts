/**
 * The one structured logger (pino). Child loggers carry `sessionId`, `turnId`, `messageId`, `requestId`.
 * Secrets are redacted by key name wherever they appear in a logged object: Kesoku's own, plus the variables
 * each process passes in (the chat channels' `secretKeys`, adapters/registry.ts `channelSecretKeys`).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

const REDACT = [
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  '*.password',
  '*.DATABASE_URL',
  '*.KESOKU_LLM_API_KEY',
];

/** The redaction paths for `secretKeys` besides Kesoku's own (variable names, e.g. `DISCORD_TOKEN`). */
export function redactPaths(secretKeys: readonly string[] = []): string[] {
  return [
    ...new Set([
      ...REDACT,
      ...secretKeys.filter((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)).map((k) => `*.${k}`),
    ]),
  ];
}

/** How log lines are written: `json` (one JSON object a line) or `pretty` (one readable line each). */
export type LogFormat = 'json' | 'pretty';

/**
 * The log format: `KESOKU_LOG_FORMAT` (`json` or `pretty`) when set, else `pretty` when stderr is a terminal
 * (a person reads it) and `json` otherwise (a log collector reads it).
 */
export function logFormatOf(
  env: NodeJS.ProcessEnv = process.env,
  stderrIsTTY: boolean = process.stderr.isTTY === true,
): LogFormat {
  const v = env.KESOKU_LOG_FORMAT?.trim();
  if (v === 'json' || v === 'pretty') return v;
  return stderrIsTTY ? 'pretty' : 'json';
}

/**
 * Fields a readable line leaves out: process ids, the Temporal SDK's marker and an activity's opaque task token.
 * The JSON format keeps everything.
 */
const PRETTY_IGNORE = 'pid,hostname,temporal,taskToken';

/**
 * A synchronous pino-pretty stream: `HH:MM:ss LEVEL (name): message {fields}` on one line, colours when
 * `colorize`. @param destination a file descriptor (2: stderr) or a stream
 */
export function prettyDestination(
  destination: number | DestinationStream = 2,
  colorize = false,
): DestinationStream {
  return pretty({
    destination,
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: PRETTY_IGNORE,
  });
}

/**
 * Creates the process logger. Logs go to stderr, so stdout stays free for what a person reads (URLs at
 * start-up, the terminal client's panels): JSON lines, or readable lines per {@link logFormatOf}.
 * @param secretKeys further variable names whose values are redacted wherever logged (the channels' secrets)
 * @param opts.format overrides {@link logFormatOf}; `opts.destination` replaces stderr (tests)
 */
export function createLogger(
  name: string,
  level: string = process.env.KESOKU_LOG_LEVEL ?? 'info',
  secretKeys: readonly string[] = [],
  opts: { format?: LogFormat; destination?: DestinationStream } = {},
): Logger {
  const format = opts.format ?? logFormatOf();
  const destination =
    format === 'pretty'
      ? prettyDestination(opts.destination ?? 2, !opts.destination && process.stderr.isTTY === true)
      : (opts.destination ?? pino.destination(2));
  return pino({ name, level, redact: { paths: redactPaths(secretKeys), censor: '[redacted]' } }, destination);
}

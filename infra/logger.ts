/**
 * The one structured logger (pino). Child loggers carry `sessionId`, `turnId`, `messageId`, `requestId`.
 * Secrets are redacted by key name wherever they appear in a logged object: Kesoku's own, plus the variables
 * each process passes in (the chat channels' `secretKeys`, adapters/registry.ts `channelSecretKeys`).
 */
import { pino, type Logger } from 'pino';

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

/**
 * Creates the process logger. Logs go to stderr as JSON lines, so stdout stays free for what a person reads
 * (URLs at start-up, the terminal client's panels).
 * @param secretKeys further variable names whose values are redacted wherever logged (the channels' secrets)
 */
export function createLogger(
  name: string,
  level: string = process.env.KESOKU_LOG_LEVEL ?? 'info',
  secretKeys: readonly string[] = [],
): Logger {
  return pino(
    { name, level, redact: { paths: redactPaths(secretKeys), censor: '[redacted]' } },
    pino.destination(2),
  );
}

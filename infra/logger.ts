/**
 * The one structured logger (pino). Child loggers carry `sessionId`, `turnId`, `messageId`, `requestId`.
 * Secrets are redacted by key name wherever they appear in a logged object.
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
  '*.DISCORD_TOKEN',
];

/**
 * Creates the process logger. Logs go to stderr as JSON lines, so stdout stays free for what a person reads
 * (URLs at start-up, the terminal client's panels).
 */
export function createLogger(name: string, level: string = process.env.KESOKU_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } }, pino.destination(2));
}

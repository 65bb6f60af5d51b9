/**
 * The Discord gateway connection's health: which intents to ask for, which close codes mean "fix your setup",
 * and the state `/healthz` reports.
 *
 * - Intents: Guilds, GuildMessages and DirectMessages always; the privileged Message Content intent only with
 *   `DISCORD_RESPOND=always` or `DISCORD_THREADS=true`, where Kesoku reads messages that do not mention it, or
 *   `DISCORD_MESSAGE_CONTENT=true`. DMs and messages that mention the bot carry their content without it, so the
 *   default `mention` mode needs no approval in the developer portal ({@link messageContentOffNotice} says at
 *   start what it turns off).
 * - Close codes 4004 (authentication failed), 4010 (invalid shard), 4011 (sharding required), 4012 (invalid API
 *   version), 4013 (invalid intents) and 4014 (disallowed intents) end the connection for good: discord.js stops
 *   reconnecting and would sit there looking connected. {@link watchGateway} turns them into a
 *   {@link GatewayFatalError} with what to change, handed to `onFatal` (the process exits non-zero).
 * - Other disconnects are logged; discord.js resumes or identifies again by itself, and `onReconnected` runs once the
 *   connection is back (the adapter then fetches what it missed, catch-up.ts).
 */
import { Events, GatewayIntentBits, Status, type Client } from 'discord.js';
import type { Logger } from '../../infra/logger.ts';

/**
 * The gateway intents the adapter asks for (see the module comment). The Message Content intent is needed when
 * the bot reads messages that do not mention it: `respond` = `always`, or `threads` (DISCORD_THREADS: messages in
 * a conversation's thread need no mention). `messageContent` (DISCORD_MESSAGE_CONTENT) overrides that choice:
 * true also asks for it otherwise, where it lets a typed `/stop` without a mention and a reply to the bot without
 * the ping be read; false never asks for it.
 */
export function intentsFor(
  respond: 'mention' | 'always',
  messageContent?: boolean,
  threads = false,
): GatewayIntentBits[] {
  const intents = [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.GuildMessages,
    GatewayIntentBits.DirectMessages,
  ];
  if (messageContent ?? (respond === 'always' || threads)) intents.push(GatewayIntentBits.MessageContent);
  return intents;
}

/**
 * The start-up warning naming what does not work without the Message Content intent, or null when
 * {@link intentsFor} asks for it. Without it Discord sends a guild message's text only when it mentions the bot,
 * so a reply to the bot with the ping turned off and a typed command without a mention (a bare `/stop`) arrive
 * empty and are not acted on; mentions, DMs and the slash commands work. With `respond` = `always` (and
 * `messageContent` false) un-mentioned messages are not answered at all.
 */
export function messageContentOffNotice(
  respond: 'mention' | 'always',
  messageContent?: boolean,
  threads = false,
): string | null {
  if (intentsFor(respond, messageContent, threads).includes(GatewayIntentBits.MessageContent)) return null;
  const why =
    messageContent === false ? 'DISCORD_MESSAGE_CONTENT=false' : 'DISCORD_MESSAGE_CONTENT is not true';
  const unread =
    respond === 'always' ? 'messages without a mention (DISCORD_RESPOND=always answers none of them), ' : '';
  return (
    `Discord: the Message Content intent is not requested (${why}), so in server channels Kesoku cannot read ` +
    `${unread}replies to the bot sent without the ping, or a typed /stop (or other typed command) without a ` +
    'mention. Mentions, DMs and the slash commands (/stop, …) work. To turn these on, enable "Message Content ' +
    'Intent" under Bot → Privileged Gateway Intents in the developer portal and set DISCORD_MESSAGE_CONTENT=true.'
  );
}

/** Close codes after which the gateway will not take the bot back until the setup changes, with what to do. */
export const FATAL_CLOSE_CODES: Readonly<Record<number, string>> = {
  4004: 'authentication failed: DISCORD_TOKEN is wrong or was reset (copy the bot token again from the developer portal)',
  4010: 'invalid shard sent when identifying',
  4011: 'sharding is required: the bot is in too many guilds for one connection',
  4012: 'invalid gateway API version',
  4013: 'invalid intents were requested',
  4014:
    'disallowed intents: the Message Content intent is not enabled for this bot. Enable "Message Content Intent" ' +
    'under Bot → Privileged Gateway Intents in the developer portal, or use DISCORD_RESPOND=mention (without ' +
    'DISCORD_MESSAGE_CONTENT=true), which does not need it',
};

/** The gateway refused the bot for good (see {@link FATAL_CLOSE_CODES}); the adapter cannot work until fixed. */
export class GatewayFatalError extends Error {
  readonly closeCode: number;
  constructor(closeCode: number) {
    super(`Discord gateway closed with ${closeCode}: ${FATAL_CLOSE_CODES[closeCode] ?? 'unrecoverable'}`);
    this.name = 'GatewayFatalError';
    this.closeCode = closeCode;
  }
}

/** What `/healthz` shows for the gateway (infra/metrics.ts ComponentHealth entry `discord`). */
export interface GatewayHealthReport {
  ok: boolean;
  /** `ready`, `connecting`, `reconnecting`, `resuming`, or `failed`. */
  gateway: string;
  /** discord.js's own status name (Ready, Connecting, …). */
  status: string;
  /** Last heartbeat round trip, ms (-1 before the first). */
  pingMs: number;
  /** Reconnects since start. */
  reconnects: number;
  /** The close code that ended the connection for good, if any. */
  lastCloseCode?: number;
  /** Why it failed for good, when it did. */
  error?: string;
  /** When the state last changed, ISO time. */
  since: string;
}

/** Callbacks of {@link watchGateway}. */
export interface GatewayWatchOptions {
  logger: Logger;
  /** The gateway refused the bot for good. Called once. */
  onFatal(err: GatewayFatalError): void;
  /** The connection is back after a disconnect (resumed or identified again). */
  onReconnected?(how: 'resumed' | 'identified'): void;
}

/** A watched gateway. */
export interface GatewayWatch {
  report(): GatewayHealthReport;
  /**
   * The client is being destroyed on purpose (shutdown): the disconnects and reconnects that follow are logged
   * at debug, not as warnings.
   */
  stopping(): void;
}

/** Follows the client's shard events (see the module comment). Attach before `login`. */
export function watchGateway(client: Client, o: GatewayWatchOptions): GatewayWatch {
  const { logger } = o;
  let state: 'connecting' | 'ready' | 'reconnecting' | 'failed' = 'connecting';
  let since = new Date();
  let reconnects = 0;
  let everReady = false;
  let lastCloseCode: number | undefined;
  let fatal: GatewayFatalError | null = null;
  let closing = false;
  const set = (s: typeof state) => {
    state = s;
    since = new Date();
  };

  client.on(Events.ShardReady, () => {
    const again = everReady;
    everReady = true;
    set('ready');
    if (again) {
      logger.info({ reconnects }, 'discord gateway identified again');
      o.onReconnected?.('identified');
    }
  });
  client.on(Events.ShardResume, () => {
    set('ready');
    logger.info({ reconnects }, 'discord gateway resumed');
    o.onReconnected?.('resumed');
  });
  client.on(Events.ShardReconnecting, () => {
    if (closing) return void logger.debug('discord gateway closing');
    reconnects += 1;
    set('reconnecting');
    logger.warn({ reconnects }, 'discord gateway disconnected; reconnecting');
  });
  client.on(Events.ShardError, (err) => logger.warn({ err: String(err) }, 'discord gateway error'));
  client.on(Events.ShardDisconnect, (event) => {
    lastCloseCode = event.code;
    if (closing) return void logger.debug({ code: event.code }, 'discord gateway closed');
    if (FATAL_CLOSE_CODES[event.code] === undefined) {
      logger.warn({ code: event.code }, 'discord gateway closed');
      return;
    }
    set('failed');
    if (fatal) return;
    fatal = new GatewayFatalError(event.code);
    logger.error({ code: event.code }, fatal.message);
    o.onFatal(fatal);
  });

  return {
    report() {
      const status = Status[client.ws.status] ?? String(client.ws.status);
      const gateway = state === 'ready' && client.ws.status === Status.Resuming ? 'resuming' : state;
      return {
        ok: state === 'ready' && client.isReady(),
        gateway,
        status,
        pingMs: client.ws.ping,
        reconnects,
        ...(lastCloseCode !== undefined ? { lastCloseCode } : {}),
        ...(fatal ? { error: (fatal as GatewayFatalError).message } : {}),
        since: since.toISOString(),
      };
    },
    stopping() {
      closing = true;
    },
  };
}

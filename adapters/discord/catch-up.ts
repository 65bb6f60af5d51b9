/**
 * Catch-up after the adapter was away: messages posted in active channels while the gateway was disconnected (or
 * the process was down) are fetched with `GET /channels/{id}/messages?after=<last seen id>` and handled like live
 * ones, in order.
 *
 * "Active channels" are the channels this process saw a message in, plus the channels of Discord sessions updated
 * within `activeWindowMs`. The last seen id of a channel is the newest of: the last message this process saw there
 * (any author), and the newest Discord message stored in its sessions (`metadata.discord_message_id`,
 * docs/message-model.md). A message handled live and fetched again is handled once: see once.ts and the session's
 * message-id idempotency (ids.ts).
 *
 * Chat commands are never stored as messages, so a command answered just before a restart is newer than the
 * cursor and is fetched again. Two rules keep it from running or being answered a second time: a fetched message
 * the bot's own fetched messages reply to (`message_reference`) was answered and is not handed on, and the
 * ingress claims every command message in Postgres before running it (db/command-claims.ts, also across adapter
 * processes), so a command whose answer is not among the fetched messages is still run at most once. A command
 * posted while no adapter ran has neither and is answered as usual.
 */
import type { Client, Message as DiscordJsMessage } from 'discord.js';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import { forgetOldCommandClaims } from '../../db/command-claims.ts';
import { DISCORD_CHATBOT_ID } from './ids.ts';

/** What {@link createCatchUp} needs. */
export interface CatchUpOptions {
  client: Client;
  pool: Pool;
  logger: Logger;
  /** Handles one fetched message (the same path as a live MESSAGE_CREATE). */
  accept(message: DiscordJsMessage): Promise<unknown>;
  /** Sessions updated within this window count as active, ms. Default 1 hour. */
  activeWindowMs?: number;
  /** Most pages of 100 messages fetched per channel. Default 5. */
  maxPages?: number;
}

/** The catch-up of one adapter. */
export interface CatchUp {
  /** Records that message `messageId` of `channelId` was seen (live or fetched). */
  seen(channelId: string, messageId: string): void;
  /**
   * Fetches and handles what was missed in every active channel. Runs are serialised; never throws (a channel that
   * cannot be read is logged and skipped). @returns how many messages were handed to `accept`
   */
  run(reason: string): Promise<number>;
}

const newer = (a: string, b: string | undefined) => b === undefined || BigInt(a) > BigInt(b);

/**
 * The ids of messages in `messages` that a message of the bot `botUserId` among them replies to (its
 * `message_reference`): the bot answered them already (a chat command's answer, a turn's reply, a refusal).
 */
export function answeredIn(messages: readonly DiscordJsMessage[], botUserId: string | null): Set<string> {
  const answered = new Set<string>();
  if (botUserId === null) return answered;
  for (const m of messages) {
    const ref = m.reference?.messageId;
    if (m.author.id === botUserId && ref !== undefined) answered.add(ref);
  }
  return answered;
}

/** Builds the catch-up (see the module comment). */
export function createCatchUp(o: CatchUpOptions): CatchUp {
  const { client, pool, logger } = o;
  const lastSeen = new Map<string, string>();
  let running: Promise<number> = Promise.resolve(0);

  function seen(channelId: string, messageId: string): void {
    if (newer(messageId, lastSeen.get(channelId))) lastSeen.set(channelId, messageId);
  }

  async function storedCursors(): Promise<Map<string, string>> {
    const r = await pool.query<{ channel_id: string; last_id: string | null }>(
      `SELECT s.channel_id,
              max((m.metadata->>'discord_message_id')::numeric)::text AS last_id
         FROM sessions s
         JOIN messages m ON m.session_id = s.id AND m.metadata ? 'discord_message_id'
        WHERE s.chatbot_id = $1 AND s.updated_at > now() - make_interval(secs => $2)
        GROUP BY s.channel_id`,
      [DISCORD_CHATBOT_ID, (o.activeWindowMs ?? 3_600_000) / 1000],
    );
    return new Map(r.rows.filter((x) => x.last_id !== null).map((x) => [x.channel_id, x.last_id as string]));
  }

  async function channelCatchUp(channelId: string, after: string): Promise<number> {
    const channel = await client.channels.fetch(channelId);
    if (!channel?.isTextBased()) return 0;
    // Every page first: the bot's answer to a message may be on the page after the message's.
    const missed: DiscordJsMessage[] = [];
    let cursor = after;
    for (let page = 0; page < (o.maxPages ?? 5); page++) {
      const batch = await channel.messages.fetch({ after: cursor, limit: 100, cache: false });
      const ordered = [...batch.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      missed.push(...ordered);
      cursor = ordered.at(-1)?.id ?? cursor;
      if (batch.size < 100) break;
    }
    const answered = answeredIn(missed, client.user?.id ?? null);
    const tasks: Promise<unknown>[] = [];
    for (const m of missed) {
      seen(channelId, m.id);
      if (!answered.has(m.id)) tasks.push(o.accept(m));
    }
    await Promise.all(tasks);
    if (answered.size > 0)
      logger.debug(
        { channelId, answered: answered.size },
        'discord catch-up: already answered messages skipped',
      );
    return tasks.length;
  }

  async function runOnce(reason: string): Promise<number> {
    let cursors: Map<string, string>;
    try {
      cursors = await storedCursors();
    } catch (err) {
      logger.warn({ err: String(err) }, 'discord catch-up: could not read the active channels');
      cursors = new Map();
    }
    for (const [channelId, id] of lastSeen) if (newer(id, cursors.get(channelId))) cursors.set(channelId, id);
    let total = 0;
    for (const [channelId, after] of cursors) {
      try {
        total += await channelCatchUp(channelId, after);
      } catch (err) {
        logger.warn({ channelId, err: String(err) }, 'discord catch-up: channel skipped');
      }
    }
    logger.info({ reason, channels: cursors.size, messages: total }, 'discord catch-up done');
    await forgetOldCommandClaims(pool, DISCORD_CHATBOT_ID).catch((err: unknown) =>
      logger.warn({ err: String(err) }, 'discord catch-up: old command claims not deleted'),
    );
    return total;
  }

  return {
    seen,
    run(reason) {
      running = running.then(() => runOnce(reason));
      return running;
    },
  };
}

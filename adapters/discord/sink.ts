/**
 * Discord egress: the {@link ChannelSink} the delivery activities call for sessions with chatbot id "discord"
 * (seed 1 §4.2, §4.3, §5.3). It needs only a REST client, so a worker process can build it without the gateway.
 *
 * - `send`: the final reply as a direct reply to the user's message with the turn-metrics header; notifications
 *   and crash notices as plain replies (no header). Split into ≤ 2000-character chunks; idempotent per Kesoku
 *   message id through nonces (see rest.ts). Before a turn's last message goes out, the turn's live status is
 *   brought to its final state and the typing indicator stops.
 * - `presentProgress`: one live status message per turn (live-status.ts). Never throws: live rendering must not
 *   fail a turn.
 * - `setActivity`: the typing indicator, refreshed every `typingIntervalMs` until the turn ends, `active: false`,
 *   or `typingMaxMs` passed.
 *
 * The message a reply refers to: the turn trigger's `reply_to` / `discord_message_id` metadata when a loader is
 * given, else the Discord id inside the trigger's Kesoku id (`discord-<snowflake>`, see ingress.ts).
 */
import type { REST } from 'discord.js';
import type { ChannelSink } from '../../activities/delivery.ts';
import { ids as persistenceIds } from '../../activities/persistence.ts';
import { messageKind } from '../../domain/message-kind.ts';
import type { Message } from '../../domain/message.ts';
import type { SessionRow } from '../../db/sessions.ts';
import type { Logger } from '../../infra/logger.ts';
import { metricsHeader } from './format.ts';
import { discordIdOfInbound } from './ids.ts';
import { LiveStatus } from './live-status.ts';
import { sendText, sendTyping } from './rest.ts';

/** What {@link createDiscordSink} needs: only a REST client and a logger; the loaders are optional. */
export interface DiscordSinkOptions {
  rest: REST;
  logger: Logger;
  /** Reads a stored message (the turn's trigger) by id; improves reply targets. Optional. */
  loadMessage?: (id: string) => Promise<Message | null>;
  /**
   * Reads a turn's stored messages (phased order); when a turn's status is first rendered in this process, the
   * thoughts/tool calls already presented elsewhere (another worker, before a restart) are shown again. Optional.
   */
  loadTurnMessages?: (turnId: string) => Promise<Message[]>;
  /** ms between edits of a live status message. Default 1000. */
  editIntervalMs?: number;
  /** ms between typing refreshes. Default 8000 (the indicator lasts about 10 s). */
  typingIntervalMs?: number;
  /** Longest time one typing indicator is kept up without the turn ending, ms. Default 30 minutes. */
  typingMaxMs?: number;
}

/** A {@link ChannelSink} with a shutdown hook. */
export interface DiscordSink extends ChannelSink {
  /** Stops typing timers and pending status edits (process shutdown). */
  close(): void;
}

/** Live statuses kept in memory at most (oldest dropped first). */
const MAX_LIVE = 500;

/**
 * Builds the Discord sink (see the module comment). `send` throws a DiscordSendError when a chunk could not be
 * posted (the delivery activity retries; nonces make the retry safe); `presentProgress` and `setActivity` never throw.
 */
export function createDiscordSink(opts: DiscordSinkOptions): DiscordSink {
  const { rest, logger } = opts;
  const editIntervalMs = opts.editIntervalMs ?? 1000;
  const typingIntervalMs = opts.typingIntervalMs ?? 8000;
  const typingMaxMs = opts.typingMaxMs ?? 30 * 60_000;
  const live = new Map<string, LiveStatus>();
  const typing = new Map<string, { timer: NodeJS.Timeout; since: number }>();

  function stopTyping(channelId: string): void {
    const t = typing.get(channelId);
    if (t) clearInterval(t.timer);
    typing.delete(channelId);
  }

  async function statusFor(turnId: string, channelId: string): Promise<LiveStatus> {
    let status = live.get(turnId);
    if (status) return status;
    status = new LiveStatus({ rest, logger, editIntervalMs }, turnId, channelId);
    if (opts.loadTurnMessages) {
      const earlier = await opts.loadTurnMessages(turnId).catch(() => []);
      status.apply(earlier.filter((m) => m.status === 'delivered' && m.type !== 'text'));
    }
    live.set(turnId, status);
    if (live.size > MAX_LIVE) {
      const oldest = live.keys().next().value;
      if (oldest !== undefined) {
        live.get(oldest)?.dispose();
        live.delete(oldest);
      }
    }
    return status;
  }

  /** The Discord message a reply to `message` refers to, or null. */
  async function replyTarget(message: Message): Promise<string | null> {
    const triggerId = message.turn_id ?? message.parent_id;
    if (!triggerId) return null;
    if (opts.loadMessage) {
      const trigger = await opts.loadMessage(triggerId).catch(() => null);
      const md = trigger?.metadata ?? {};
      const id = md.reply_to ?? md.discord_message_id;
      if (typeof id === 'string' && id !== '') return id;
    }
    return discordIdOfInbound(triggerId);
  }

  return {
    async send(message, session) {
      const channelId = session.channel_id;
      const kind = messageKind(message);
      const turnId = message.turn_id;
      const endsTurn =
        turnId !== null &&
        (kind === 'final_reply' ||
          kind === 'crash_notice' ||
          (kind === 'notification' && message.id === persistenceIds.notice(turnId)));
      if (endsTurn && turnId !== null) {
        stopTyping(channelId);
        const status = live.get(turnId);
        if (status) {
          await status.finish(
            kind === 'final_reply' ? null : kind === 'crash_notice' ? 'failed' : 'interrupted',
          );
          live.delete(turnId);
        }
      }
      const metrics = message.metadata?.turn_metrics;
      const header = kind === 'final_reply' && metrics ? metricsHeader(metrics) : null;
      await sendText(rest, logger, {
        channelId,
        content: header ? `${header}\n${message.content}` : message.content,
        nonceKey: message.id,
        replyTo: await replyTarget(message),
        pingReplied: kind === 'final_reply',
      });
    },

    async presentProgress(messages: Message[], session: SessionRow) {
      const byTurn = new Map<string, Message[]>();
      for (const m of messages) {
        if (m.turn_id === null) continue;
        byTurn.set(m.turn_id, [...(byTurn.get(m.turn_id) ?? []), m]);
      }
      for (const [turnId, list] of byTurn) {
        const status = await statusFor(turnId, session.channel_id);
        status.apply(list);
        await status.sync();
      }
    },

    async setActivity(session, active) {
      const channelId = session.channel_id;
      if (!active) return stopTyping(channelId);
      if (typing.has(channelId)) return;
      const since = Date.now();
      const timer = setInterval(() => {
        if (Date.now() - since > typingMaxMs) return stopTyping(channelId);
        sendTyping(rest, channelId).catch((err: unknown) =>
          logger.debug({ channelId, err: String(err) }, 'typing failed'),
        );
      }, typingIntervalMs);
      timer.unref?.();
      typing.set(channelId, { timer, since });
      await sendTyping(rest, channelId).catch((err: unknown) =>
        logger.debug({ channelId, err: String(err) }, 'typing failed'),
      );
    },

    close() {
      for (const channelId of [...typing.keys()]) stopTyping(channelId);
      for (const status of live.values()) status.dispose();
      live.clear();
    },
  };
}

/**
 * Delivery activities: hand `pending` messages to the session's channel sink and mark them `delivered`
 * (seed 1 §4.2), present intermediate messages on live-rendering channels (seed 1 §4.3), typing indicators.
 *
 * Sinks are injected per chatbot id; the REST API's sink sends nothing itself (clients read the database and
 * the event stream), so its delivery is the status change. Every sink must be idempotent per message id: a
 * retried delivery must never post twice (Discord: nonce with enforce_nonce).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DeliveryActivities } from './contracts.ts';
import { failureType } from '../domain/failures.ts';
import type { Message } from '../domain/message.ts';
import { commit, getMessage, getMessages } from '../db/messages.ts';
import type { Pool } from '../db/pool.ts';
import { getSession, type SessionRow } from '../db/sessions.ts';
import type { Logger } from '../infra/logger.ts';

/**
 * Thrown by a sink when the platform refuses a message for good (deleted channel, missing access): delivery
 * is then not retried. Sinks may also throw any error whose `kind` is `rejected` (the Discord sink's
 * DiscordSendError for a 4xx other than 429).
 */
export class PermanentDeliveryError extends Error {
  readonly kind = 'permanent_delivery';
}

/** A channel's egress. */
export interface ChannelSink {
  /** Sends a final reply, notification or crash notice. Must be idempotent per `message.id`. */
  send(message: Message, session: SessionRow): Promise<void>;
  /** Renders thoughts/tool calls/tool results live (seed 1 §4.3); marks nothing itself. */
  presentProgress?(messages: Message[], session: SessionRow): Promise<void>;
  /** Typing indicator on/off. Best effort. */
  setActivity?(session: SessionRow, active: boolean): Promise<void>;
}

/** The REST API's sink: clients read replies from Postgres and the SSE stream, so there is nothing to send. */
export const apiSink: ChannelSink = {
  async send() {},
};

export interface DeliveryDeps {
  pool: Pool;
  logger: Logger;
  /** Sinks by chatbot id; unknown chatbots use {@link apiSink}. */
  sinks: Record<string, ChannelSink>;
}

export function createDeliveryActivities({ pool, logger, sinks }: DeliveryDeps): DeliveryActivities {
  const sinkFor = (chatbotId: string) => sinks[chatbotId] ?? apiSink;
  return {
    async deliverMessage({ sessionId, messageId }) {
      const message = await getMessage(pool, messageId);
      if (!message || message.session_id !== sessionId) {
        throw ApplicationFailure.nonRetryable(`unknown message ${messageId}`, failureType('delivery'));
      }
      if (message.status === 'delivered') return { delivered: false };
      if (message.status !== 'pending') {
        throw ApplicationFailure.nonRetryable(`message ${messageId} is ${message.status}, not pending`, failureType('delivery'));
      }
      const session = await getSession(pool, sessionId);
      if (!session) throw ApplicationFailure.nonRetryable(`unknown session ${sessionId}`, failureType('delivery'));
      try {
        await sinkFor(message.chatbot_id).send(message, session);
      } catch (err) {
        logger.warn({ sessionId, messageId, err: String(err) }, 'delivery failed');
        const kind = (err as { kind?: string } | null)?.kind;
        if (err instanceof PermanentDeliveryError || kind === 'permanent_delivery' || kind === 'rejected') {
          throw ApplicationFailure.nonRetryable('the channel refused the message for good', failureType('delivery', 'permanent'));
        }
        throw ApplicationFailure.retryable('the channel did not accept the message', failureType('delivery'));
      }
      await commit(pool, sessionId, { transitions: [{ id: messageId, to: 'delivered' }] });
      return { delivered: true };
    },

    async presentProgress({ sessionId, messageIds }) {
      const session = await getSession(pool, sessionId);
      if (!session) return;
      const sink = sinkFor(session.chatbot_id);
      const messages = await getMessages(pool, messageIds);
      if (sink.presentProgress) await sink.presentProgress(messages, session);
      const toMark = messages.filter((m) => m.status === 'responded');
      if (toMark.length > 0) await commit(pool, sessionId, { transitions: toMark.map((m) => ({ id: m.id, to: 'delivered' as const })) });
    },

    async signalActivity({ sessionId, active }) {
      const session = await getSession(pool, sessionId);
      if (!session) return;
      await sinkFor(session.chatbot_id).setActivity?.(session, active).catch((err: unknown) => logger.debug({ err: String(err) }, 'typing failed'));
    },
  };
}

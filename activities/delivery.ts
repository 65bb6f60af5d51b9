/**
 * Delivery activities: hand `pending` messages to the session's channel sink and mark them `delivered`,
 * present intermediate messages on live-rendering channels, typing indicators.
 *
 * Sinks are given per chatbot id; the REST API's sink (`api`) sends nothing itself (clients read the database and
 * the event stream), so its delivery is the status change. The terminal client's sink (`cli`) sends nothing and
 * leaves the message `pending`: the client marks it `delivered` once printed (api/routes/deliveries.ts). A chatbot
 * without a sink on this worker (a chat channel's session on a worker whose configuration leaves that channel
 * off) is a delivery failure, never `delivered`.
 *
 * When the sink refuses a message for good (a permanent {@link SinkError}, or a transient one on the activity's
 * last attempt), the body is sent once as a plain message through the sink's fallback — claimed in Postgres
 * before it is attempted, so a retry never sends a second one — and the failure is recorded in
 * `metadata.delivery_failure`. A fallback that was sent reached the user: the message becomes `delivered` and
 * the activity succeeds, so the turn ends `processed` with no crash notice (seed 004 §5.2 rules 3–4). A
 * fallback that failed (or a channel without one) leaves the message `pending` and gives the workflow a
 * non-retryable ApplicationFailure of type `delivery:<reason>`. A crash notice about a reply that could not be
 * delivered gets no fallback of its own: a turn sends at most one plain fallback. A send that succeeds, even
 * after transient failures, sends no fallback. A refusal saying the recipient cannot be reached at all (SinkError `recipientUnreachable`, e.g.
 * WeChat's closed 48-hour reply window) sends no fallback either — it could not get through — and is recorded
 * with reason `unreachable`; the session then stores no crash notice for it (activities/persistence.ts).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DeliveryActivities } from '../workflows/activity-contracts.ts';
import { apiSink, cliSink, isPermanentSinkError, isUnreachableSinkError, type ChannelSink } from './sink.ts';
import { failureType } from '../domain/failures.ts';
import type { Message } from '../domain/message.ts';
import { commit, getMessage, getMessages, listTurnMessages } from '../db/messages.ts';
import { indexToolFlows } from '../domain/tool-flow.ts';
import { recordTurn } from '../infra/metrics.ts';
import {
  claimFallback,
  getDeliveryRecord,
  recordDeliveryFailure,
  setFallbackOutcome,
  type DeliveryFailure,
  type FallbackOutcome,
} from '../db/deliveries.ts';
import type { Pool } from '../db/pool.ts';
import { getSession, incrementTurnCount, type SessionRow } from '../db/sessions.ts';
import type { Logger } from '../infra/logger.ts';

/** The sink interface, for the workers that register channel sinks with the delivery activities. */
export type { ChannelSink } from './sink.ts';

export interface DeliveryDeps {
  pool: Pool;
  logger: Logger;
  /**
   * Sinks by chatbot id. `api` gets {@link apiSink} and `cli` {@link cliSink} unless given; other chatbots without
   * a sink fail delivery.
   */
  sinks: Record<string, ChannelSink>;
}

/** The ApplicationFailure type for a recorded delivery failure (`delivery:refused`, `delivery:no_sink`, …). */
export function deliveryFailureType(reason: DeliveryFailure['reason']): string {
  return failureType('delivery', reason);
}

/** True when this is the last attempt the activity's retry policy allows (false outside an activity). */
function isLastAttempt(): boolean {
  let info;
  try {
    info = Context.current().info;
  } catch {
    return false;
  }
  const max = info.retryPolicy?.maximumAttempts;
  return max !== undefined && max > 0 && info.attempt >= max;
}

/** Where a running command's output tail goes (see {@link createToolOutputPresenter}). */
export type ToolOutputPresenter = (o: {
  sessionId: string;
  turnId: string;
  toolCallMessageId: string;
  tail: string;
  /** How long the call has been running, ms. */
  elapsedMs: number;
}) => Promise<void>;

/**
 * Hands a running command's output tail to the live status of the session's channel (the sink's
 * `presentToolOutput`; channels without one, such as REST, see it in `turn.updated` instead). Best effort: never
 * throws, a failure is logged at debug.
 */
export function createToolOutputPresenter({ pool, logger, sinks }: DeliveryDeps): ToolOutputPresenter {
  return async ({ sessionId, turnId, toolCallMessageId, tail, elapsedMs }) => {
    try {
      const session = await getSession(pool, sessionId);
      const sink = session ? sinks[session.chatbot_id] : undefined;
      if (session && sink?.presentToolOutput)
        await sink.presentToolOutput(session, turnId, toolCallMessageId, { tail, elapsedMs });
    } catch (err) {
      logger.debug({ sessionId, toolCallMessageId, err: String(err) }, 'output tail not shown');
    }
  };
}

export function createDeliveryActivities({ pool, logger, sinks }: DeliveryDeps): DeliveryActivities {
  // Looked up per call: a process may register a sink after building the activities (a channel's ingress).
  const builtIn: Record<string, ChannelSink> = { api: apiSink, cli: cliSink };
  const sinkFor = (chatbotId: string): ChannelSink | undefined => sinks[chatbotId] ?? builtIn[chatbotId];

  /** Records the failure on the message and returns the non-retryable error for the workflow. */
  async function fail(message: Message, failure: Omit<DeliveryFailure, 'at'>): Promise<ApplicationFailure> {
    const stored = await recordDeliveryFailure(pool, message.session_id, message.id, {
      ...failure,
      at: new Date().toISOString(),
    });
    logger.warn(
      { sessionId: message.session_id, messageId: message.id, failure: stored },
      'message not delivered',
    );
    return ApplicationFailure.nonRetryable(
      `message ${message.id} could not be delivered (${stored.reason}; fallback: ${stored.fallback ?? 'none'})`,
      deliveryFailureType(stored.reason),
      stored,
    );
  }

  /**
   * The body reached the user through the fallback: the failure of the normal send is recorded, and the message is
   * `delivered` (idempotent: a retry after a crash between the two writes finds the record and only commits).
   */
  async function deliveredByFallback(
    message: Message,
    failure: Omit<DeliveryFailure, 'at'> | null,
    endsTurn: string | undefined,
    session: SessionRow,
  ): Promise<{ delivered: boolean; turnCount?: number }> {
    if (failure !== null)
      await recordDeliveryFailure(pool, message.session_id, message.id, {
        ...failure,
        at: new Date().toISOString(),
      });
    logger.info(
      { sessionId: message.session_id, messageId: message.id },
      'message delivered through the fallback',
    );
    return { delivered: true, ...(await markDelivered(message, endsTurn, session)) };
  }

  /** Ends the typing indicator of a turn its delivery ended (best effort, as `signalActivity` is). */
  async function endTyping(chatbotId: string, session: SessionRow): Promise<void> {
    const sink = sinkFor(chatbotId);
    if (!sink?.setActivity) return;
    await sink
      .setActivity(session, false)
      .catch((err: unknown) => logger.debug({ err: String(err) }, 'typing not ended'));
  }

  /** The sink's `settleProgress` of `message`'s turn, when it has one (best effort: never throws). */
  async function settleProgress(
    sink: ChannelSink | undefined,
    message: Message,
    session: SessionRow,
  ): Promise<void> {
    if (!sink?.settleProgress) return;
    await sink
      .settleProgress(message, session)
      .catch((err: unknown) =>
        logger.warn({ messageId: message.id, err: String(err) }, 'live status not settled'),
      );
  }

  /** The one fallback send: claimed before it is attempted; a claim found from an earlier attempt is not repeated. */
  async function fallback(
    sink: ChannelSink,
    message: Message,
    session: SessionRow,
  ): Promise<FallbackOutcome | null> {
    if (isDeliveryFailureNotice(message)) return null;
    if (!sink.sendFallback) return 'unsupported';
    if (!(await claimFallback(pool, message.id))) {
      return (await getDeliveryRecord(pool, message.id))?.fallbackOutcome ?? 'failed';
    }
    let outcome: FallbackOutcome;
    try {
      await sink.sendFallback(message, session);
      outcome = 'sent';
    } catch (err) {
      logger.warn(
        { sessionId: message.session_id, messageId: message.id, err: String(err) },
        'fallback send failed',
      );
      outcome = 'failed';
    }
    await setFallbackOutcome(pool, message.id, outcome);
    return outcome;
  }

  /**
   * Marks `message` delivered; with `endsTurn`, ends that turn processed in the same transaction, then its typing
   * (see DeliveryActivities.deliverMessage). @returns the turn count when the turn is processed after the commit
   */
  async function markDelivered(
    message: Message,
    endsTurn: string | undefined,
    session: SessionRow,
  ): Promise<{ turnCount?: number }> {
    const sessionId = message.session_id;
    if (endsTurn === undefined) {
      await commit(pool, sessionId, { transitions: [{ id: message.id, to: 'delivered' }] });
      return {};
    }
    const turn = await listTurnMessages(pool, endsTurn);
    const trigger = turn.find((m) => m.id === endsTurn);
    const ending = trigger?.status === 'processing';
    const { resultOf } = indexToolFlows(turn);
    const dangling = ending
      ? turn.filter((m) => m.type === 'tool_call' && !resultOf.has(m.id) && m.status === 'responded')
      : [];
    let turnCount: number | undefined;
    await commit(pool, sessionId, {
      transitions: [
        { id: message.id, to: 'delivered' },
        ...dangling.map((m) => ({ id: m.id, to: 'interrupted' as const })),
        ...(ending ? [{ id: endsTurn, to: 'processed' as const }] : []),
      ],
      // Counted in the transaction of the final status, so a retry cannot count the turn twice.
      alsoInTransaction: async (client, { updated }) => {
        if (updated.some((m) => m.id === endsTurn)) turnCount = await incrementTurnCount(client, sessionId);
      },
    });
    if (turnCount !== undefined) recordTurn('processed', trigger?.created_at ?? new Date().toISOString());
    else if (trigger?.status === 'processed') turnCount = session.turn_count;
    if (turnCount === undefined) return {};
    await endTyping(message.chatbot_id, session);
    return { turnCount };
  }

  return {
    async deliverMessage({ sessionId, messageId, endsTurn }) {
      const message = await getMessage(pool, messageId);
      if (!message || message.session_id !== sessionId) {
        throw ApplicationFailure.nonRetryable(`unknown message ${messageId}`, failureType('delivery'));
      }
      if (message.status === 'delivered') {
        // An earlier attempt committed; the turn ended with it unless it was ended otherwise.
        const [trigger, session] = await Promise.all([
          endsTurn === undefined ? null : getMessage(pool, endsTurn),
          getSession(pool, sessionId),
        ]);
        if (session) await settleProgress(sinkFor(message.chatbot_id), message, session);
        if (endsTurn === undefined || trigger?.status !== 'processed' || !session)
          return { delivered: false };
        await endTyping(message.chatbot_id, session);
        return { delivered: false, turnCount: session.turn_count };
      }
      if (message.status !== 'pending') {
        throw ApplicationFailure.nonRetryable(
          `message ${messageId} is ${message.status}, not pending`,
          failureType('delivery'),
        );
      }
      const session = await getSession(pool, sessionId);
      if (!session)
        throw ApplicationFailure.nonRetryable(`unknown session ${sessionId}`, failureType('delivery'));

      const record = await getDeliveryRecord(pool, messageId);
      if (record?.failure?.fallback === 'sent') return deliveredByFallback(message, null, endsTurn, session);
      if (record?.failure) {
        // An earlier attempt already gave up and recorded why: never send again.
        throw ApplicationFailure.nonRetryable(
          `message ${messageId} could not be delivered (${record.failure.reason})`,
          deliveryFailureType(record.failure.reason),
          record.failure,
        );
      }
      const sink = sinkFor(message.chatbot_id);
      if (!sink) {
        throw await fail(message, {
          reason: 'no_sink',
          fallback: null,
          error: `this worker has no sink for chatbot "${message.chatbot_id}" (the channel is not enabled in this worker's configuration)`,
        });
      }
      if (record?.fallbackClaimedAt) {
        // An earlier attempt gave up on the normal send and started the fallback, then stopped before recording.
        const failure = {
          reason: 'refused' as const,
          fallback: record.fallbackOutcome ?? ('failed' as const),
          error: 'the fallback had been started by an earlier attempt',
        };
        if (failure.fallback === 'sent') return deliveredByFallback(message, failure, endsTurn, session);
        throw await fail(message, failure);
      }
      try {
        await sink.send(message, session);
      } catch (err) {
        const permanent = isPermanentSinkError(err);
        const last = isLastAttempt();
        logger.warn(
          { sessionId, messageId, permanent, lastAttempt: last, err: String(err) },
          'delivery failed',
        );
        if (!permanent && !last) {
          throw ApplicationFailure.retryable(
            'the channel did not accept the message',
            failureType('delivery'),
          );
        }
        await settleProgress(sink, message, session);
        const error = err instanceof Error ? err.message : String(err);
        // Nothing else gets through to a recipient the channel cannot reach: no fallback send.
        if (isUnreachableSinkError(err))
          throw await fail(message, { reason: 'unreachable', fallback: null, error });
        const outcome = await fallback(sink, message, session);
        const failure = {
          reason: permanent ? ('refused' as const) : ('retries_exhausted' as const),
          fallback: outcome,
          error,
        };
        if (outcome === 'sent') return deliveredByFallback(message, failure, endsTurn, session);
        throw await fail(message, failure);
      }
      // A client-acknowledged channel marks the message itself once it printed it.
      if (sink.acknowledgedByClient) return { delivered: false };
      const delivered = { delivered: true, ...(await markDelivered(message, endsTurn, session)) };
      await settleProgress(sink, message, session);
      return delivered;
    },

    async presentProgress({ sessionId, messageIds }) {
      const session = await getSession(pool, sessionId);
      if (!session) return;
      const sink = sinkFor(session.chatbot_id);
      // Only what the channel shows becomes `delivered`: no sink, or a status that can no longer be edited,
      // leaves the messages `responded`.
      if (!sink?.presentProgress) {
        logger.warn(
          { sessionId, chatbotId: session.chatbot_id },
          'no live rendering for this chatbot on this worker',
        );
        return;
      }
      const messages = await getMessages(pool, messageIds);
      const shown = new Set(await sink.presentProgress(messages, session));
      const toMark = messages.filter((m) => m.status === 'responded' && shown.has(m.id));
      if (toMark.length > 0)
        await commit(pool, sessionId, {
          transitions: toMark.map((m) => ({ id: m.id, to: 'delivered' as const })),
        });
    },

    async signalActivity({ sessionId, active }) {
      const session = await getSession(pool, sessionId);
      if (!session) return;
      await sinkFor(session.chatbot_id)
        ?.setActivity?.(session, active)
        .catch((err: unknown) => logger.debug({ err: String(err) }, 'typing failed'));
    },
  };
}

/**
 * True for the crash notice of a turn whose reply could not be delivered (`failure_kind` `delivery:…`): the reply
 * already had the turn's one fallback.
 */
function isDeliveryFailureNotice(message: Message): boolean {
  const kind = message.metadata?.failure_kind;
  return typeof kind === 'string' && (kind === 'delivery' || kind.startsWith('delivery:'));
}

/**
 * Persistence activities: short, idempotent Postgres writes the session workflow runs as local activities.
 * Ids of messages created here are derived from the turn (never random), so a retried activity finds its own
 * earlier write instead of adding a second one.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { PersistenceActivities, TurnOutcome } from '../workflows/activity-contracts.ts';
import { deliveryFailureType } from './delivery.ts';
import type { NewMessage } from '../domain/factories.ts';
import {
  backgroundAlert,
  cronPrompt,
  crashNotice,
  manualCompactionPrompt,
  notification,
  userQuestion,
} from '../domain/factories.ts';
import { failureType, presentFailure, presentInterruption, presentQueueFull } from '../domain/failures.ts';
import type { Message } from '../domain/message.ts';
import { messageKind } from '../domain/message-kind.ts';
import { indexToolFlows } from '../domain/tool-flow.ts';
import { IllegalTransitionError } from '../domain/status-machine.ts';
import {
  MessageIdTakenError,
  commit,
  getMessage,
  listOpenInputs,
  listTurnMessages,
  markStale,
  requestStop,
} from '../db/messages.ts';
import { cancelPendingApprovals } from '../db/approvals.ts';
import type { Pool } from '../db/pool.ts';
import { editPendingInput, withdrawPendingInput } from '../db/queued-inputs.ts';
import {
  ensureSession,
  getSession,
  incrementTurnCount,
  keepSeenCommands,
  readSeenCommands,
  setMode,
  setUserTitle,
} from '../db/sessions.ts';
import type { Logger } from '../infra/logger.ts';
import type { InboundMessage } from '../domain/inbound.ts';
import { recordTurn } from '../infra/metrics.ts';
import type { QueueItem, SeenCommand, SessionAddress } from '../workflows/definitions.ts';

/** Deterministic ids of the messages Kesoku writes for a turn. */
export const ids = {
  notice: (turnId: string) => `${turnId}:notice`,
  rejectedNotice: (messageId: string) => `${messageId}:rejected`,
};

export interface PersistenceDeps {
  pool: Pool;
  logger: Logger;
  /** Locale of sessions created from now on (KESOKU_LOCALE). Default `en`. */
  defaultLocale?: string;
  /**
   * Chatbot id → the metadata key that keeps an inbound message's `platformMessageId` (adapters/registry.ts
   * `platformMessageIdKeys`); a chatbot without one stores no platform id.
   */
  platformMessageIdKeys?: Readonly<Record<string, string>>;
}

/**
 * Builds the stored form of an inbound message (docs/message-model.md §3 "标准用户提问", "定时任务消息" or
 * "后台唤醒警报"). The
 * platform message id is kept under `platformMessageIdKey` (the channel's key, docs/message-model.md §3.3).
 */
export function inboundToMessage(
  address: SessionAddress,
  m: InboundMessage,
  platformMessageIdKey?: string,
): NewMessage {
  const base = {
    id: m.id,
    session_id: address.sessionId,
    chatbot_id: address.chatbotId,
    channel_id: address.channelId,
  };
  if (m.kind === 'cron') return cronPrompt({ ...base, content: m.content, received_at: m.receivedAt });
  if (m.kind === 'background_alert')
    return backgroundAlert({
      ...base,
      job_id: m.jobId ?? m.id,
      report: m.content,
      received_at: m.receivedAt,
    });
  return userQuestion({
    ...base,
    sender: m.sender,
    content: m.content,
    received_at: m.receivedAt,
    attachments: m.attachments,
    platform_ids:
      platformMessageIdKey && m.platformMessageId !== undefined
        ? { [platformMessageIdKey]: m.platformMessageId }
        : undefined,
    reply_to: m.replyTo,
    channel_context: m.channelContext,
    sender_id: m.senderId,
  });
}

export function createPersistenceActivities({
  pool,
  logger,
  defaultLocale,
  platformMessageIdKeys = {},
}: PersistenceDeps): PersistenceActivities {
  async function storeInbound(
    address: SessionAddress,
    m: InboundMessage,
  ): Promise<{ message: Message; created: boolean }> {
    const existing = await getMessage(pool, m.id);
    if (existing) return ownedBy(existing, address.sessionId, false);
    await ensureSession(pool, {
      id: address.sessionId,
      chatbotId: address.chatbotId,
      channelId: address.channelId,
      channelContext: m.channelContext,
      locale: defaultLocale,
    });
    try {
      const r = await commit(pool, address.sessionId, {
        insert: [inboundToMessage(address, m, platformMessageIdKeys[address.chatbotId])],
      });
      const stored = r.inserted[0] ?? r.unchanged[0];
      if (!stored) throw new Error(`message ${m.id} was neither inserted nor found`);
      return ownedBy(stored, address.sessionId, r.inserted.length > 0);
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      if (err instanceof MessageIdTakenError) throw idTaken(m.id);
      throw err;
    }
  }

  function ownedBy(message: Message, sessionId: string, created: boolean) {
    if (message.session_id !== sessionId) throw idTaken(message.id);
    return { message, created };
  }

  function idTaken(id: string): ApplicationFailure {
    return ApplicationFailure.nonRetryable(`message id ${id} is already used by another session`, 'id_taken');
  }

  /** See {@link PersistenceActivities.finishTurn}. */
  async function endTurn(sessionId: string, turnId: string, result: TurnOutcome) {
    const session = await getSession(pool, sessionId);
    if (!session)
      throw ApplicationFailure.nonRetryable(`unknown session ${sessionId}`, 'turn_persistence:unknown_turn');
    // A turn that ends otherwise than processed takes no decision any more: its approvals still `pending` are
    // closed (`cancelled`, by the stop reason or `error`), so no record or channel button stays live. Before the
    // turn ends, so that a retry of this activity still finds them.
    if (result.outcome !== 'processed')
      await cancelPendingApprovals(
        pool,
        sessionId,
        turnId,
        result.outcome === 'interrupted' ? result.reason : 'error',
      );
    const turn = await listTurnMessages(pool, turnId);
    const trigger = turn.find((m) => m.id === turnId);
    if (!trigger)
      throw ApplicationFailure.nonRetryable(`unknown turn ${turnId}`, 'turn_persistence:unknown_turn');
    const address = { session_id: sessionId, chatbot_id: trigger.chatbot_id, channel_id: trigger.channel_id };

    // Tool calls left without a result end `interrupted`; the model later sees an interrupted result built in
    // memory by the clean-history step (domain/clean-history.ts), which is never stored.
    const { resultOf } = indexToolFlows(turn);
    const dangling = turn.filter(
      (m) => m.type === 'tool_call' && !resultOf.has(m.id) && m.status === 'responded',
    );
    const insert: NewMessage[] = [];
    const notice = noticeFor(result, session.locale);
    if (notice !== null) {
      const base = { id: ids.notice(turnId), ...address, turn_id: turnId, parent_id: turnId };
      insert.push(
        result.outcome === 'error'
          ? crashNotice({ ...base, content: notice, failure_kind: failureType(result.kind, result.detail) })
          : notification({ ...base, content: notice }),
      );
    }
    const to = result.outcome;
    const metadata =
      result.outcome === 'error'
        ? { failure_kind: failureType(result.kind, result.detail) }
        : result.outcome === 'interrupted'
          ? { interrupt_reason: result.reason }
          : undefined;
    // Replies a step committed just before the stop reached it are not delivered (the workflow drops a stale
    // step): they are marked stale so that the model never takes them for answers the user saw.
    const stale =
      result.outcome === 'interrupted'
        ? turn.filter(
            (m) => m.status === 'pending' && messageKind(m) === 'final_reply' && m.metadata?.partial !== true,
          )
        : [];
    const alreadyEnded = trigger.status !== 'processing' && trigger.status !== 'pending_agent';
    await commit(pool, sessionId, {
      insert,
      transitions: [
        ...dangling.map((m) => ({ id: m.id, to: 'interrupted' as const })),
        ...(alreadyEnded ? [] : [{ id: turnId, to, metadata }]),
      ],
      // The turn is counted in the same transaction as its final status, so a retry cannot count it twice.
      alsoInTransaction: async (client, { updated }) => {
        if (updated.some((m) => m.id === turnId)) await incrementTurnCount(client, sessionId);
        await markStale(
          client,
          sessionId,
          stale.map((m) => m.id),
        );
      },
    });
    if (!alreadyEnded) recordTurn(to, trigger.created_at);
    if (alreadyEnded && trigger.status !== to) {
      logger.warn(
        { sessionId, turnId, status: trigger.status, wanted: to },
        'turn had already ended differently',
      );
    }
    const noticeRow = notice === null ? null : await getMessage(pool, ids.notice(turnId));
    return {
      noticeId: noticeRow && noticeRow.status === 'pending' ? noticeRow.id : null,
      partialIds: turn.filter((m) => m.status === 'pending' && m.metadata?.partial === true).map((m) => m.id),
      turnCount: (await getSession(pool, sessionId))?.turn_count ?? session.turn_count,
    };
  }

  return {
    async acceptInbound({ address, message }) {
      return storeInbound(address, message);
    },

    async rejectInbound({ address, message, capacity }) {
      const { message: stored } = await storeInbound(address, message);
      if (stored.status !== 'pending_agent') {
        // A retry after the first attempt committed: its notice is still owed while it is pending.
        const earlier = await getMessage(pool, ids.rejectedNotice(stored.id));
        return { noticeId: earlier && earlier.status === 'pending' ? earlier.id : null };
      }
      const session = await getSession(pool, address.sessionId);
      const notice = notification({
        id: ids.rejectedNotice(stored.id),
        session_id: address.sessionId,
        chatbot_id: address.chatbotId,
        channel_id: address.channelId,
        content: presentQueueFull(capacity, session?.locale),
        turn_id: stored.id,
        parent_id: stored.id,
      });
      await commit(pool, address.sessionId, {
        insert: [notice],
        transitions: [{ id: stored.id, to: 'error', metadata: { failure_kind: 'queue_full' } }],
      });
      return { noticeId: notice.id };
    },

    async createCompactionPrompt({ address, id, receivedAt }) {
      await ensureSession(pool, {
        id: address.sessionId,
        chatbotId: address.chatbotId,
        channelId: address.channelId,
        locale: defaultLocale,
      });
      const msg = manualCompactionPrompt({
        id,
        session_id: address.sessionId,
        chatbot_id: address.chatbotId,
        channel_id: address.channelId,
        received_at: receivedAt,
      });
      const r = await commit(pool, address.sessionId, { insert: [msg] });
      const stored = r.inserted[0] ?? r.unchanged[0];
      if (!stored) throw new Error(`compaction prompt ${id} was neither inserted nor found`);
      return { message: stored };
    },

    async claimTurn({ sessionId, messageId }) {
      const msg = await getMessage(pool, messageId);
      if (!msg || msg.session_id !== sessionId)
        throw ApplicationFailure.nonRetryable(`unknown message ${messageId}`, 'input_persistence');
      const kind = msg.metadata?.is_compaction === true ? 'compaction' : 'user';
      if (msg.status === 'processing') return { claimed: true, kind }; // a retried claim
      if (msg.status !== 'pending_agent') return { claimed: false, kind };
      await commit(pool, sessionId, { transitions: [{ id: messageId, to: 'processing' }] });
      return { claimed: true, kind };
    },

    async supersede({ sessionId, messageIds }) {
      await commit(pool, sessionId, {
        transitions: messageIds.map((id) => ({ id, to: 'interrupted' as const })),
      });
    },

    async finishTurn({ sessionId, turnId, result }) {
      try {
        return await endTurn(sessionId, turnId, result);
      } catch (err) {
        // A status change the state machine forbids will not succeed on a retry.
        if (err instanceof IllegalTransitionError)
          throw ApplicationFailure.nonRetryable(err.message, 'IllegalTransitionError');
        throw err;
      }
    },

    async restoreSession({ sessionId }) {
      const session = await getSession(pool, sessionId);
      const open = await listOpenInputs(pool, sessionId);
      const queue: QueueItem[] = [];
      const noticeIds: string[] = [];
      for (const m of open) {
        if (m.status === 'pending_agent') {
          // The sender id, as the signal carried it: the same-sender interrupt rule needs it after a restore.
          const senderId = m.metadata?.sender_id;
          queue.push({
            messageId: m.id,
            kind:
              m.metadata?.is_compaction === true
                ? 'compaction'
                : m.metadata?.is_cronjob === true
                  ? 'cron'
                  : m.role === 'system'
                    ? 'alert'
                    : 'user',
            ...(typeof senderId === 'string' ? { senderId } : {}),
          });
          continue;
        }
        // Its calls waiting for approval are cancelled by endTurn (by `restart`).
        const r = await endTurn(sessionId, m.id, { outcome: 'interrupted', reason: 'restart' });
        noticeIds.push(...r.partialIds, ...(r.noticeId ? [r.noticeId] : []));
      }
      const after = await getSession(pool, sessionId);
      const seenCommands = (await readSeenCommands(pool, sessionId)).filter(isSeenCommand);
      return {
        found: session !== null,
        mode: session?.mode ?? 'interrupt',
        title: session?.title ?? null,
        titleSource: session?.title_source ?? 'default',
        turnCount: after?.turn_count ?? 0,
        queue,
        noticeIds,
        ...(seenCommands.length > 0 ? { seenCommands } : {}),
      };
    },

    async keepSeenCommands({ sessionId, commands }) {
      await keepSeenCommands(pool, sessionId, commands);
    },

    async requestStop({ sessionId, turnId }) {
      return { marked: await requestStop(pool, sessionId, turnId) };
    },

    async editQueuedInput({ sessionId, messageId, content, editedAt }) {
      return { edited: await editPendingInput(pool, sessionId, messageId, content, editedAt) };
    },

    async withdrawQueuedInput({ sessionId, messageId }) {
      return { withdrawn: await withdrawPendingInput(pool, sessionId, messageId) };
    },

    async updateSession({ sessionId, title, mode }) {
      if (title !== undefined) await setUserTitle(pool, sessionId, title);
      if (mode !== undefined) await setMode(pool, sessionId, mode);
    },
  };
}

/** A kept command as {@link keepSeenCommands} wrote it (anything else in the column is skipped). */
function isSeenCommand(c: unknown): c is SeenCommand {
  const o = c as Partial<SeenCommand> | null;
  return typeof o === 'object' && o !== null && typeof o.updateId === 'string' && typeof o.name === 'string';
}

/**
 * The notice owed to the user for a turn's outcome, or null (docs/message-model.md §3 rows "轻量系统通知",
 * "崩溃报错通知"). None for a reply the channel could not deliver because it cannot reach the user at all
 * (`delivery:unreachable`, activities/delivery.ts): the notice could not get through either.
 */
function noticeFor(result: TurnOutcome, locale: string): string | null {
  if (result.outcome === 'processed') return null;
  if (result.outcome === 'interrupted') return presentInterruption(result.reason, locale);
  if (failureType(result.kind, result.detail) === deliveryFailureType('unreachable')) return null;
  return presentFailure(result.kind, result.detail, locale);
}

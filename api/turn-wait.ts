/**
 * `wait` for `POST /v1/sessions/{id}/messages` (and for a decision's turn, `POST …/tool-calls/{callId}/approval`):
 * after the message was accepted, wait on the database (never by holding a Temporal update open,
 * docs/architecture.md "REST API v1") until the message reaches a final input status (processed | interrupted |
 * error) or its turn waits for a person to decide a tool call. Wakes on the session's commit announcements
 * (EventHub.onCommit) and re-checks; a slow poll covers a lost notification.
 */
import type { Message } from '../domain/message.ts';
import { isTerminalStatus } from '../domain/status-machine.ts';
import { listPendingApprovals, type PendingApprovalRow } from '../db/approvals.ts';
import { getMessage, listTurnMessages } from '../db/messages.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';
import type { EventHub } from './event-hub.ts';
import { findReply, turnNotices } from './history.ts';

/**
 * The message in its final status, the message that answers it (null when the turn ended without one) and the
 * texts of the turn's system notices (api/history.ts `turnNotices`: why a stopped turn ended, a compaction).
 */
export interface TurnEnd {
  kind: 'ended';
  message: Message;
  reply: Message | null;
  notices: string[];
}

/**
 * The message's turn is still running and waits for a person's decision on `pending` (its tool calls waiting for
 * approval, oldest first; never empty). The message is as stored (`processing`).
 */
export interface TurnWaitingForApproval {
  kind: 'waiting_for_approval';
  message: Message;
  pending: PendingApprovalRow[];
}

export interface WaitOptions {
  pool: Pool;
  events: EventHub;
  log: Logger;
  sessionId: string;
  messageId: string;
  /** How long to wait, in ms. */
  timeoutMs: number;
  /** Aborts the wait (the client went away). */
  signal: AbortSignal;
  /** Fallback poll interval, in ms (default 2000). */
  pollMs?: number;
  /**
   * A tool call whose decision was just taken: the turn records it a moment later, so until then its stored
   * approval still reads `pending` and must not count as waiting.
   */
  decidedCallId?: string;
}

/**
 * Waits until the message's turn ended or waits for a tool-call approval.
 * @returns the end or the approval wait, or null when `timeoutMs` passed, the signal aborted or the hub closed
 *   first. Database errors while waiting are logged and retried until the deadline (the message is already
 *   accepted).
 */
export async function waitForTurnEnd(o: WaitOptions): Promise<TurnEnd | TurnWaitingForApproval | null> {
  const deadline = Date.now() + o.timeoutMs;
  let woken = false;
  let wake: (() => void) | null = null;
  const unsubscribe = o.events.onCommit(o.sessionId, () => {
    woken = true;
    wake?.();
  });
  try {
    for (;;) {
      woken = false;
      try {
        const message = await getMessage(o.pool, o.messageId);
        if (message && isTerminalStatus(message.status)) {
          const turn = await listTurnMessages(o.pool, o.messageId);
          return {
            kind: 'ended',
            message,
            reply: findReply(turn, message),
            notices: turnNotices(turn, message.id),
          };
        }
        if (message?.status === 'processing') {
          // A turn's id is its trigger message's id.
          const pending = (await listPendingApprovals(o.pool, o.sessionId)).filter(
            (p) => p.turn_id === o.messageId && p.call_id !== o.decidedCallId,
          );
          if (pending.length > 0) return { kind: 'waiting_for_approval', message, pending };
        }
      } catch (err) {
        o.log.warn(
          { messageId: o.messageId, err: String(err) },
          'wait: could not read the message; retrying',
        );
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || o.signal.aborted || o.events.closed) return null;
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          o.signal.removeEventListener('abort', done);
          wake = null;
          resolve();
        };
        const timer = setTimeout(done, Math.min(o.pollMs ?? 2000, remaining));
        o.signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    }
  } finally {
    unsubscribe();
  }
}

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
import type { Response } from 'express';
import type { Logger } from '../infra/logger.ts';
import type { ResolvedDeps } from './deps.ts';
import type { EventHub } from './event-hub.ts';
import { findReply, turnNotices } from './history.ts';
import { HttpProblem } from './problems.ts';
import type { TurnResult, TurnWaitingForApproval as WaitingForApprovalBody } from './schemas.ts';

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
   * Tool calls whose decisions were taken: the turn records each a moment later, so until then its stored
   * approval still reads `pending` and must not count as waiting.
   */
  decidedCallIds?: readonly string[];
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
            (p) => p.turn_id === o.messageId && !(o.decidedCallIds ?? []).includes(p.call_id),
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

/** What {@link answerAfterWait} waits for: message `messageId`'s turn, for `waitS` seconds. */
export interface WaitTarget {
  sessionId: string;
  messageId: string;
  waitS: number;
  /** Tool calls whose decisions were taken but not yet recorded (not counted as waiting, see api/turn-wait.ts). */
  decidedCallIds?: readonly string[];
  /** The post repeated an accepted message id: `duplicate` of the 200 answer. */
  duplicate?: boolean;
}

/**
 * Waits for a turn and answers the request (the `wait` of POST …/messages and of POST …/approval):
 * - `200 {message, reply, notices, duplicate?}` when the turn ended (`duplicate` for a message post);
 * - `202 {state: "waiting_for_approval", message, pending_approvals, detail}` as soon as the turn waits for a
 *   person's decision on a tool call (`detail` names the first call and the route that decides it);
 * - nothing when the client went away.
 * @throws HttpProblem unavailable (503) when the server shuts down; wait_timeout (504, `message_id` and the
 *   session's `pending_approvals`) when the time ran out
 */
export async function answerAfterWait(
  d: ResolvedDeps,
  res: Response,
  log: Logger,
  t: WaitTarget,
): Promise<void> {
  const { sessionId, messageId, waitS } = t;
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const end = await waitForTurnEnd({
    pool: d.pool,
    events: d.events,
    log,
    sessionId,
    messageId,
    timeoutMs: waitS * 1000,
    signal: gone.signal,
    pollMs: d.waitPollMs,
    ...(t.decidedCallIds !== undefined ? { decidedCallIds: t.decidedCallIds } : {}),
  });
  if (gone.signal.aborted) return;
  if (end?.kind === 'ended') {
    res.status(200).json({
      message: end.message,
      reply: end.reply,
      notices: end.notices,
      ...(t.duplicate !== undefined ? { duplicate: t.duplicate } : {}),
    } satisfies TurnResult);
    return;
  }
  if (end?.kind === 'waiting_for_approval') {
    log.info({ callId: end.pending[0]?.call_id }, 'wait: the turn waits for a tool-call approval');
    res.status(202).json({
      state: 'waiting_for_approval',
      message: end.message,
      pending_approvals: end.pending,
      detail: `the turn is waiting${waitingFor(sessionId, end.pending)}; with "wait": N in the decision's body it answers like this route when the turn ends or waits again`,
    } satisfies WaitingForApprovalBody);
    return;
  }
  const extensions = { message_id: messageId };
  if (d.events.closed) {
    throw new HttpProblem('unavailable', 'the server is shutting down; the message stays accepted', {
      extensions,
      expected: true,
    });
  }
  const pending = await listPendingApprovals(d.pool, sessionId).catch(() => []);
  const waits = pending.length > 0 ? `: it is waiting${waitingFor(sessionId, pending)}` : '';
  const detail = `the turn did not end within ${waitS} s${waits}; the message stays accepted and will be answered`;
  throw new HttpProblem('wait_timeout', detail, {
    extensions: { ...extensions, pending_approvals: pending },
  });
}

/** How much of a tool call's subject a wait-timeout detail quotes, in characters. */
const SUBJECT_QUOTE_MAX = 80;

/**
 * The part of a wait detail naming what the session waits for: " for approval of <tool> `<subject>`…; decide
 * with POST …" for the first tool call waiting for approval ("" when none waits).
 */
function waitingFor(sessionId: string, pending: PendingApprovalRow[]): string {
  const first = pending[0];
  if (!first) return '';
  const subject =
    first.subject.length > SUBJECT_QUOTE_MAX
      ? `${first.subject.slice(0, SUBJECT_QUOTE_MAX)}…`
      : first.subject;
  const more = pending.length > 1 ? ` (and ${pending.length - 1} more, see pending_approvals)` : '';
  return (
    ` for approval of ${first.tool_name} \`${subject}\`${more}; decide with ` +
    `POST /v1/sessions/${sessionId}/tool-calls/${first.call_id}/approval {"decision":"approve"} (or "deny", or "always" to approve such calls for the rest of the session)`
  );
}

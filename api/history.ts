/**
 * History reads for the API (docs/message-flow.md §11: history deltas with a monotonic revision). A delta is every message
 * committed (inserted or changed) after a revision, in phased order (docs/message-model.md §5.1), with the revision the
 * client holds afterwards. Used by `GET /v1/sessions/{id}/messages` and by the event stream's
 * `turn.committed` events, so both agree on what "after revision N" means.
 */
import type { Message } from '../domain/message.ts';
import { sortHistory } from '../domain/history.ts';
import { messageKind } from '../domain/message-kind.ts';
import { listSessionMessages } from '../db/messages.ts';
import type { Queryable } from '../db/pool.ts';

/** A history read: `messages` in phased order, and the revision the reader is at once it applied them. */
export interface HistoryDelta {
  revision: number;
  messages: Message[];
  /**
   * False when `limit` cut the read: for a delta, read again after `revision` for the rest; for the newest
   * messages (no `afterRevision`), older ones exist (read them with `beforeSeq` = the smallest `seq` returned).
   */
  complete: boolean;
}

const maxRevision = (messages: readonly Message[], floor: number): number =>
  messages.reduce((m, x) => (x.revision > m ? x.revision : m), floor);

/**
 * Reads a session's history, or only what changed after `afterRevision`, or (`beforeSeq`, without
 * `afterRevision`) the messages inserted before the one with that `seq`.
 *
 * `sessionRevision` is the session's revision read *before* this call (a lower bound of the answer). The
 * messages come from one SELECT, i.e. one snapshot, so every change with a revision up to the highest one
 * returned is included. When `limit` cuts a delta, only whole revisions are returned (`complete` false) and
 * `revision` is the last whole one, so reading again after it loses nothing; a single revision larger than
 * `limit` is returned whole.
 *
 * Without `afterRevision`: the newest `limit` messages (by insertion order, `seq`) of the full history, or of
 * those inserted before `beforeSeq`; `complete` is false when older ones exist.
 * @param limit maximum messages (a positive integer)
 */
export async function readHistory(
  q: Queryable,
  sessionId: string,
  sessionRevision: number,
  afterRevision: number | undefined,
  limit: number,
  opts: { beforeSeq?: number } = {},
): Promise<HistoryDelta> {
  if (afterRevision === undefined) {
    const rows = await listSessionMessages(q, sessionId, { limit: limit + 1, beforeSeq: opts.beforeSeq });
    // One row more than asked for tells whether older messages exist; the oldest (smallest seq) is dropped.
    const oldest = rows.length > limit ? Math.min(...rows.map((m) => m.seq)) : null;
    const messages = oldest === null ? rows : sortHistory(rows.filter((m) => m.seq !== oldest));
    return { revision: maxRevision(messages, sessionRevision), messages, complete: oldest === null };
  }
  const rows = await listSessionMessages(q, sessionId, { afterRevision, limit: limit + 1 });
  if (rows.length <= limit)
    return { revision: maxRevision(rows, sessionRevision), messages: rows, complete: true };
  const top = maxRevision(rows, afterRevision);
  const whole = rows.filter((m) => m.revision < top);
  if (whole.length > 0) return { revision: top - 1, messages: whole, complete: false };
  const all = await listSessionMessages(q, sessionId, { afterRevision });
  return { revision: maxRevision(all, sessionRevision), messages: all, complete: true };
}

/**
 * Which kind answers a turn that ended with each final status (docs/message-model.md §3 rows), best first: the
 * kinds of the visibility matrix's "final text" row (§5.3). Notifications are the "system interaction log" row,
 * `live` for REST clients: they are the turn's {@link turnNotices}, never its reply.
 */
const REPLY_KINDS: Record<string, readonly string[]> = {
  processed: ['final_reply'],
  error: ['crash_notice', 'final_reply'],
  interrupted: ['crash_notice', 'final_reply'],
};

/**
 * The texts of a turn's system notices (notifications with `turn_id` = the trigger's id: the automatic
 * compaction notice, a stopped or interrupted turn's notice), in the order of `turn` (phased order). REST
 * clients get them with the turn (`TurnResult.notices`, the `turn.updated` snapshot's `notices`), not as replies.
 */
export function turnNotices(turn: readonly Message[], triggerId: string): string[] {
  return turn
    .filter((m) => m.turn_id === triggerId && messageKind(m) === 'notification')
    .map((m) => m.content);
}

/**
 * The message that answers a finished turn, among the turn's messages (phased order): for a processed turn the
 * final reply (assistant/text from "Kesoku", `turn_id` = the trigger's id), for a failed turn the crash notice,
 * for an interrupted turn the partial reply it kept. Null when the turn ended without one (a stopped or
 * superseded turn without a partial reply, or a turn that has not ended); a stopped turn's notice is among its
 * {@link turnNotices}.
 */
export function findReply(turn: readonly Message[], trigger: Message): Message | null {
  const kinds = REPLY_KINDS[trigger.status] ?? [];
  const answers = turn.filter(
    (m) => m.id !== trigger.id && m.turn_id === trigger.id && m.role === 'assistant' && m.type === 'text',
  );
  for (const kind of kinds) {
    const found = answers.filter((m) => messageKind(m) === kind).at(-1);
    if (found) return found;
  }
  return null;
}

/**
 * The history the model actually reads (docs/message-model.md §5.2 `build_clean_history`), compaction over it, and the token
 * estimate that decides when to compact.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { Message } from './message.ts';
import { messageKind } from './message-kind.ts';
import { groupTurns, sortHistory } from './history.ts';
import { indexToolFlows, syntheticInterruptedResult } from './tool-flow.ts';

/** Options of {@link buildCleanHistory}. */
export interface CleanHistoryOptions {
  /** The running turn's id (its trigger message's id), or null between turns. */
  currentTurnId: string | null;
}

/** The compaction in force: the prompt/summary pair and the highest `seq` the summary covers. */
export interface Compaction {
  prompt: Message;
  summary: Message;
  throughSeq: number;
}

/**
 * The latest compaction summary, if any: an assistant text (a final reply) whose `metadata.compacted_through_seq`
 * is a number, in a turn whose trigger (the message whose id is the summary's `turn_id`) has
 * `metadata.is_compaction === true`. "Latest" is the highest summary `seq`.
 */
export function findCompaction(messages: readonly Message[]): Compaction | null {
  const byId = new Map(messages.map((message) => [message.id, message]));
  let found: Compaction | null = null;
  for (const message of messages) {
    const throughSeq = message.metadata?.compacted_through_seq;
    if (message.role !== 'assistant' || message.type !== 'text' || typeof throughSeq !== 'number') continue;
    if (message.metadata?.stale === true) continue;
    const prompt = message.turn_id === null ? undefined : byId.get(message.turn_id);
    if (prompt?.metadata?.is_compaction !== true) continue;
    if (found === null || message.seq > found.summary.seq) found = { prompt, summary: message, throughSeq };
  }
  return found;
}

/** The placeholder appended to a historical user message whose attachments were removed (docs/message-model.md §5.2). */
export function attachmentPlaceholder(names: readonly string[]): string {
  return `[Attachments stripped from history: ${names.join(', ')}]`;
}

function stripAttachments(message: Message): Message {
  const attachments = message.metadata?.attachments;
  if (attachments === undefined || attachments.length === 0) return message;
  const { attachments: _stripped, ...rest } = message.metadata ?? {};
  return {
    ...message,
    content: `${message.content}\n${attachmentPlaceholder(attachments.map((attachment) => attachment.name))}`,
    metadata: Object.keys(rest).length === 0 ? null : rest,
  };
}

/**
 * Keeps tool flows whole (docs/message-model.md §5.2 "保留工具流", §4.4): drops tool_results without a call (and duplicate
 * results of one call), and gives every tool_call without a result a synthetic interrupted result placed right
 * after the last tool_call/tool_result of the same turn and step.
 */
function repairToolFlows(messages: readonly Message[]): Message[] {
  const { resultOf, callOf } = indexToolFlows(messages);
  const kept = messages.filter((message) => message.type !== 'tool_result' || callOf.has(message.id));
  const flowKey = (message: Message): string =>
    message.turn_id === null ? `call:${message.id}` : `turn:${message.turn_id}:${message.step ?? 'none'}`;
  const lastFlowIndex = new Map<string, number>();
  kept.forEach((message, index) => {
    if (message.type === 'tool_call' || message.type === 'tool_result')
      lastFlowIndex.set(flowKey(message), index);
  });
  const syntheticAfter = new Map<number, Message[]>();
  for (const message of kept) {
    if (message.type !== 'tool_call' || resultOf.has(message.id)) continue;
    const anchor =
      message.turn_id === null ? kept.indexOf(message) : (lastFlowIndex.get(flowKey(message)) ?? 0);
    syntheticAfter.set(anchor, [...(syntheticAfter.get(anchor) ?? []), syntheticInterruptedResult(message)]);
  }
  return kept.flatMap((message, index) => [message, ...(syntheticAfter.get(index) ?? [])]);
}

/**
 * docs/message-model.md §5.2: the model's view of a session history. Input in any order (it is phase-sorted first); returns new
 * arrays and copies of changed messages, never mutating the input.
 *
 * 1. Compaction: when {@link findCompaction} finds a summary, the history starts with its prompt + summary pair,
 *    and every message with `seq <= throughSeq` (and the rest of the compaction turn) is dropped.
 * 2. System exclusion: messages from sender "Notification" are dropped; so is a stored system-prompt record (the
 *    system prompt is injected separately, see transpile.ts).
 * 3. Thought stripping: thoughts are kept only for `currentTurnId`.
 * 4. Attachment stripping: every user message except the current turn's trigger loses `metadata.attachments`,
 *    and its content gets `\n[Attachments stripped from history: a.csv, b.png]`.
 * 5. Tool flows stay whole: a tool_call without a result (matched by `metadata.tool_call_id` or `parent_id`)
 *    gets a synthetic interrupted result (docs/message-model.md §4.4) right after its step's other results; results without a
 *    call are dropped.
 *
 * 6. Queued inputs stay out: a trigger still `pending_agent` that arrived after the current turn's trigger is
 *    waiting for its own turn (queue mode) and is not part of the conversation yet.
 *
 * Crash notices, interrupted and failed user messages stay: the model sees them (docs/message-model.md §3).
 */
export function buildCleanHistory(messages: readonly Message[], opts: CleanHistoryOptions): Message[] {
  const sorted = sortHistory(messages);
  const compaction = findCompaction(sorted);
  const history =
    compaction === null
      ? sorted
      : [
          compaction.prompt,
          compaction.summary,
          ...sorted.filter(
            (message) =>
              message.seq > compaction.throughSeq && message.turn_id !== compaction.summary.turn_id,
          ),
        ];
  const currentSeq = sorted.find((message) => message.id === opts.currentTurnId)?.seq ?? null;
  const visible = history
    .filter((message) => {
      const kind = messageKind(message);
      if (kind === 'notification' || kind === 'system_prompt') return false;
      // A reply a stop made stale was never delivered: the model must not take it for an answer it gave.
      if (message.metadata?.stale === true) return false;
      if (message.status === 'pending_agent' && currentSeq !== null && message.seq > currentSeq) return false;
      return kind !== 'thought' || message.turn_id === opts.currentTurnId;
    })
    .map((message) =>
      message.role === 'user' && message.id !== opts.currentTurnId ? stripAttachments(message) : message,
    );
  return repairToolFlows(visible);
}

/**
 * The highest `seq` a compaction may summarise, or null when there is nothing (new) to compact.
 *
 * Compaction works on whole turns (see {@link groupTurns}) before `keepFromTurnId` (the current turn, which is
 * kept; null or unknown: every turn is a candidate). It takes the longest prefix of turns such that every message
 * with `seq <= cut` is inside the prefix (turns whose seqs interleave are never split) and no tool_call is
 * separated from its tool_result. Null when that prefix holds nothing beyond what the latest compaction already
 * covers (its own prompt/summary turn and notifications do not count).
 */
export function selectCompactionCut(
  sorted: readonly Message[],
  keepFromTurnId: string | null,
): number | null {
  const groups = groupTurns(sorted);
  const keepIndex =
    keepFromTurnId === null
      ? -1
      : groups.findIndex((group) => group.some((m) => m.turn_id === keepFromTurnId));
  const candidates = keepIndex === -1 ? groups.length : keepIndex;
  const { resultOf } = indexToolFlows(sorted);
  const seqOf = new Map(sorted.map((message) => [message.id, message.seq]));
  const previous = findCompaction(sorted);
  for (let size = candidates; size > 0; size -= 1) {
    const prefix = groups.slice(0, size).flat();
    const cut = Math.max(...prefix.map((message) => message.seq));
    const restMinSeq = Math.min(
      ...groups.slice(size).flatMap((group) => group.map((message) => message.seq)),
    );
    if (restMinSeq <= cut) continue;
    const splitsToolFlow = [...resultOf].some(
      ([callId, result]) => (seqOf.get(callId) ?? result.seq) <= cut !== result.seq <= cut,
    );
    if (splitsToolFlow) continue;
    const fresh = prefix.filter(
      (message) =>
        (previous === null ||
          (message.seq > previous.throughSeq && message.turn_id !== previous.summary.turn_id)) &&
        messageKind(message) !== 'notification',
    );
    return fresh.length === 0 ? null : cut;
  }
  return null;
}

const CJK =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/**
 * A cheap token estimate for compaction thresholds and `context_tokens`: each CJK character (Han, kana, Hangul,
 * CJK and full-width punctuation) counts as 1 token; all other characters count ~4 per token, rounded up.
 * Counts code points, so emoji and astral characters are one character each. Returns tokens (integer >= 0).
 */
export function estimateTokens(text: string): number {
  let cjk = 0;
  let other = 0;
  for (const char of text) {
    if (CJK.test(char)) cjk += 1;
    else other += 1;
  }
  return cjk + Math.ceil(other / 4);
}

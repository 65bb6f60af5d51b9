/**
 * The message status state machine (docs/message-model.md §4), as data. This is the only module that knows which status
 * changes are legal; the database layer calls {@link assertTransition} inside every status update.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { Status } from './message.ts';

/**
 * docs/message-model.md §2.3 / §4.1: the user-message (input) lifecycle. Also used by every other trigger the worker claims
 * (cron prompts, compaction prompts, background alerts).
 */
export const INPUT_STATUSES = ['pending_agent', 'processing', 'processed', 'interrupted', 'error'] as const;
export type InputStatus = (typeof INPUT_STATUSES)[number];

/** docs/message-model.md §2.3 / §4.2 / §4.3: the assistant/tool (output) lifecycle. */
export const OUTPUT_STATUSES = ['pending', 'delivered', 'responded'] as const;
export type OutputStatus = (typeof OUTPUT_STATUSES)[number];

/**
 * docs/message-model.md §4: for each status, the statuses it may move to (self-transitions excluded; see
 * {@link isAllowedTransition}).
 *
 * - Input lifecycle (§4.1): `pending_agent → processing` (the worker's CAS claim), `processing → processed |
 *   interrupted | error`. Kesoku adds `pending_agent → interrupted` (a queued message dropped by `/stop`) and
 *   `pending_agent → error` (a message that fails before it is claimed, e.g. context preparation).
 * - Output lifecycle (§4.2, §4.3): `pending → delivered` (final replies, notifications, crash notices) and
 *   `responded → delivered` (thoughts and tool messages rendered by a channel).
 *
 * - A tool_call that never got its result (its turn was stopped, interrupted or failed): `responded →
 *   interrupted` (one a live channel already showed stays `delivered`, which is final). Its interrupted result
 *   is built in memory when history is cleaned, never stored.
 *
 * Not included, on purpose: the orphan sweep `processing → pending_agent` (Temporal resumes a killed worker's
 * turn instead).
 */
export const ALLOWED_TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  pending_agent: ['processing', 'interrupted', 'error'],
  processing: ['processed', 'interrupted', 'error'],
  processed: [],
  interrupted: [],
  error: [],
  pending: ['delivered'],
  // A tool_call left without a result when its turn was stopped or failed ends `interrupted`.
  responded: ['delivered', 'interrupted'],
  delivered: [],
};

/** Statuses with no way out (docs/message-model.md §3 "终态 status"): a message here never changes status again. */
export const TERMINAL_STATUSES = ['processed', 'interrupted', 'error', 'delivered'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

/**
 * Statuses that may be re-applied to themselves (`from === to`) without harm: re-persisting a queued message,
 * re-publishing a reply, and repeating a final status (an activity retried after its write committed).
 * `processing` is deliberately absent: `processing → processing` would be a second claim of the same message,
 * which the CAS claim must refuse.
 */
const IDEMPOTENT_STATUSES: ReadonlySet<Status> = new Set<Status>([
  'pending_agent',
  'pending',
  'responded',
  ...TERMINAL_STATUSES,
]);

/** True when `status` belongs to the input (user-message) lifecycle of docs/message-model.md §4.1. */
export function isInputStatus(status: Status): status is InputStatus {
  return (INPUT_STATUSES as readonly Status[]).includes(status);
}

/** True when `status` belongs to the output (assistant/tool) lifecycle of docs/message-model.md §4.2–§4.3. */
export function isOutputStatus(status: Status): status is OutputStatus {
  return (OUTPUT_STATUSES as readonly Status[]).includes(status);
}

/** True when no transition leaves `status`. */
export function isTerminalStatus(status: Status): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly Status[]).includes(status);
}

/**
 * Whether a message may move from `from` to `to` (docs/message-model.md §4). A self-transition is allowed only for the
 * harmless idempotent re-applications listed above (every status except `processing`), so a retried write is
 * not an error but a double claim is.
 */
export function isAllowedTransition(from: Status, to: Status): boolean {
  if (from === to) return IDEMPOTENT_STATUSES.has(from);
  return ALLOWED_TRANSITIONS[from].includes(to);
}

/**
 * A status change the state machine forbids. `kind` lets the HTTP layer and presenters map it without
 * parsing the message text.
 */
export class IllegalTransitionError extends Error {
  readonly kind = 'illegal_transition' as const;
  readonly messageId: string;
  readonly from: Status;
  readonly to: Status;

  constructor(messageId: string, from: Status, to: Status) {
    super(`illegal status transition for message ${messageId}: ${from} -> ${to}`);
    this.name = 'IllegalTransitionError';
    this.messageId = messageId;
    this.from = from;
    this.to = to;
  }
}

/**
 * Throws {@link IllegalTransitionError} unless {@link isAllowedTransition}`(from, to)`.
 * @throws IllegalTransitionError
 */
export function assertTransition(messageId: string, from: Status, to: Status): void {
  if (!isAllowedTransition(from, to)) throw new IllegalTransitionError(messageId, from, to);
}

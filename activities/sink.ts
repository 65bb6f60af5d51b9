/**
 * The channel sink contract: what a channel's egress implements for the delivery activities, and the one typed
 * error a sink throws across that boundary. Delivery decides retry, fallback and failure from the error's
 * `kind` alone; it knows nothing of a platform's own error codes.
 */
import type { Message } from '../domain/message.ts';
import type { SessionRow } from '../db/sessions.ts';
import type { ToolApproval } from '../domain/tool-approval.ts';

/**
 * Whether retrying the same send can help: `permanent` = the channel refused the message for good (deleted
 * channel, missing access or permission, content it will never take); `transient` = anything else (network,
 * timeouts, rate limits, platform outages).
 */
export type SinkFailureKind = 'permanent' | 'transient';

/** Options of a {@link SinkError} besides the standard `cause`. */
export interface SinkErrorOptions extends ErrorOptions {
  /**
   * The channel cannot reach the recipient at all for now (WeChat: the user unfollowed or blocked the account,
   * the 48-hour reply window is over, the reply quota for the user's last message is used up; an unknown user
   * id). Not the message's own fault: any other message to the same recipient would be refused the same way, so
   * delivery sends no fallback and the turn gets no crash notice. Only taken on a `permanent` error.
   */
  recipientUnreachable?: boolean;
}

/**
 * A failed sink call. Sinks throw this (or a subclass, e.g. the Discord sink's DiscordSendError); any other
 * error thrown by a sink counts as `transient`.
 */
export class SinkError extends Error {
  readonly kind: SinkFailureKind;
  /** See {@link SinkErrorOptions.recipientUnreachable}; always false on a `transient` error. */
  readonly recipientUnreachable: boolean;
  constructor(kind: SinkFailureKind, message: string, options?: SinkErrorOptions) {
    super(message, options);
    this.name = 'SinkError';
    this.kind = kind;
    this.recipientUnreachable = kind === 'permanent' && options?.recipientUnreachable === true;
  }
}

/** True when `err` is a {@link SinkError} that says retrying cannot help. */
export function isPermanentSinkError(err: unknown): boolean {
  return err instanceof SinkError && err.kind === 'permanent';
}

/** True when `err` is a permanent {@link SinkError} saying that the recipient cannot be reached at all for now. */
export function isUnreachableSinkError(err: unknown): boolean {
  return err instanceof SinkError && err.recipientUnreachable;
}

/** A channel's egress. */
export interface ChannelSink {
  /**
   * Sends a final reply, notification or crash notice. Must be idempotent per `message.id`: a retry after a
   * partial send must not post again what was already posted.
   * @throws SinkError
   */
  send(message: Message, session: SessionRow): Promise<void>;
  /**
   * The fallback for a message `send` could not deliver: the body alone, as a plain message (no reply
   * reference, no header, no live status). Called at most once per message. Optional: without it, no fallback
   * is possible and the failure is recorded straight away.
   * @throws SinkError
   */
  sendFallback?(message: Message, session: SessionRow): Promise<void>;
  /**
   * Renders thoughts/tool calls/tool results live; marks nothing itself. Never throws.
   * @returns the ids of the messages the channel now shows (the others stay `responded`)
   */
  presentProgress?(messages: Message[], session: SessionRow): Promise<string[]>;
  /**
   * Shows how long tool call `toolCallMessageId` of turn `turnId` has been running (`elapsedMs`) and the last
   * lines of its command's output (`tail`, `\n`-separated, at most 5 lines of 200 characters; '' before any)
   * under its line in the live status, replacing what was shown before; nothing when the status does not show
   * that call (yet) or the call has ended. Called about once a second while the command prints and every few
   * seconds while it is silent; the channel throttles its own writes. Best effort: never throws.
   */
  presentToolOutput?(
    session: SessionRow,
    turnId: string,
    toolCallMessageId: string,
    progress: { tail: string; elapsedMs: number },
  ): Promise<void>;
  /**
   * Brings the live status of `message`'s turn to its final state once `message` has gone out or failed for
   * good: after a final reply no tool line is left running, a crash notice ends the running ones ❌. Delivery
   * calls it after the message is marked delivered (so a reply never waits for the status's edit throttle), after
   * a send that failed for good, and on a retry that finds the message already delivered. Idempotent; best
   * effort: never throws.
   */
  settleProgress?(message: Message, session: SessionRow): Promise<void>;
  /** Typing indicator on/off. Best effort. */
  setActivity?(session: SessionRow, active: boolean): Promise<void>;
  /**
   * The channel's own client marks messages `delivered` once it has shown them (the terminal client,
   * `POST /v1/sessions/{id}/deliveries`): after `send`, delivery leaves the message `pending` instead of marking
   * it. docs/message-model.md §4.2: `delivered` means printed, and only the client knows when that happened.
   */
  acknowledgedByClient?: boolean;
  /**
   * Asks the channel's people to decide tool call `call`, which waits for approval (`approval.state` is
   * `pending`): e.g. Discord posts a message with Approve / Deny / Always buttons replying to the requester.
   * Called by the `requestApprovals` activity, again on its retries and after a continue-as-new: must post at
   * most once per call id (the delivery records in Postgres, as for `send`). Optional: a channel without it is
   * decided over REST only.
   * @throws SinkError
   */
  askApproval?(call: Message, approval: ToolApproval, session: SessionRow): Promise<void>;
  /**
   * Shows how the approval of `call` ended (`approval.state` is no longer `pending`) on what {@link askApproval}
   * posted, e.g. the Discord message edited to "⌛ timed out" with its buttons removed. Nothing when nothing was
   * posted. Best effort. @throws SinkError
   */
  showApprovalOutcome?(call: Message, approval: ToolApproval, session: SessionRow): Promise<void>;
}

/** The REST API's sink: clients read replies from Postgres and the SSE stream, so there is nothing to send. */
export const apiSink: ChannelSink = {
  async send() {},
};

/**
 * The terminal client's sink (chatbot `cli`): the client reads messages like any REST client and acknowledges
 * what it printed, so delivery sends nothing and marks nothing. A reply nobody printed stays `pending` until a
 * client attached to the session prints it; the turn does not wait for that.
 */
export const cliSink: ChannelSink = {
  async send() {},
  acknowledgedByClient: true,
};

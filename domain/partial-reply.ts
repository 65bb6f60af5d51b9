/**
 * An interrupted partial reply: the answer text a model had streamed when the turn was stopped or
 * interrupted. It is stored like a final reply (assistant/text from "Kesoku", `pending`) with
 * `metadata.partial === true`, its content ending with a marker line that tells both the user and, next turn,
 * the model that the answer was cut off (so "go on" can continue it).
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { NewMessage } from './factories.ts';
import { finalReply } from './factories.ts';
import type { Message } from './message.ts';

/** The id of the partial reply of `step` of turn `turnId` (one per step, so a retry cannot write twice). */
export function partialReplyId(turnId: string, step: number): string {
  return `${turnId}:${step}:partial`;
}

/** The marker line appended to a partial reply's text, in the session's locale (`zh…` → Chinese). */
export function partialReplyMarker(locale: string | null | undefined): string {
  return locale?.toLowerCase().startsWith('zh') === true
    ? '⏹️（回复被中断，以上内容不完整）'
    : '⏹️ (interrupted: this reply was cut off)';
}

/** Whether a stored message is an interrupted partial reply. */
export function isPartialReply(message: Pick<Message, 'metadata'>): boolean {
  return message.metadata?.partial === true;
}

/**
 * Builds the partial reply row: `text` (the streamed answer, trimmed at the end) plus the marker line.
 * Metadata `{partial: true}`; no turn metrics (the turn did not finish).
 */
export function partialReply(input: {
  session_id: string;
  chatbot_id: string;
  channel_id: string;
  turn_id: string;
  step: number;
  text: string;
  locale?: string | null;
}): NewMessage {
  const message = finalReply({
    id: partialReplyId(input.turn_id, input.step),
    session_id: input.session_id,
    chatbot_id: input.chatbot_id,
    channel_id: input.channel_id,
    turn_id: input.turn_id,
    step: input.step,
    content: `${input.text.trimEnd()}\n\n${partialReplyMarker(input.locale)}`,
    turn_metrics: { session_turns: 0, context_tokens: 0, turn_tool_calls: 0, turn_tokens: 0, turn_time: 0 },
  });
  return { ...message, metadata: { partial: true } };
}

/**
 * Provider-neutral model input: what the transpiler (docs/message-model.md §5.4) produces from a clean history and what the
 * model activity maps onto the SDK's message format. Pure types; no I/O.
 */
import type { Attachment } from './message.ts';

/** One tool call requested by the model. `arguments` is the parsed JSON object. */
export interface ProviderToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Set when the model's arguments were not one JSON object (glued objects, a stray brace, truncation…):
   * what is wrong, for the call's error result; `arguments` is then `{}` and the tool does not run.
   */
  argumentsProblem?: string;
}

/** An image sent to the model with a user message: raw bytes and their MIME type (e.g. `image/png`). */
export interface ProviderImage {
  name: string;
  mediaType: string;
  data: Uint8Array;
}

/**
 * - `user.attachments`: the files of the current turn's question (only the current trigger keeps them, see
 *   clean history); the model activity reads them, adds text files to the content and images as `images`.
 * - `assistant.reasoning`: the model's own reasoning of this step (thinking models), sent back in the form the
 *   provider needs (`reasoning_content` on Chat Completions servers); only for the current turn.
 * - `assistant.partial`: the reply was cut off by a stop; the content ends with a marker saying so.
 * - `tool.attachments`: images the tool returned (`metadata.attachments` of its tool_result); the model activity
 *   shows those of the current turn's results to a model that takes images, after the results.
 */
export type ProviderMessage =
  | { role: 'user'; content: string; attachments?: Attachment[]; images?: ProviderImage[] }
  | { role: 'assistant'; content: string; tool_calls?: ProviderToolCall[]; reasoning?: string }
  | { role: 'tool'; tool_call_id: string; name: string; content: string; attachments?: Attachment[] };

/** The whole model input: the system instruction plus alternating conversation turns. */
export interface ProviderInput {
  system: string;
  messages: ProviderMessage[];
}

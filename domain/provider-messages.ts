/**
 * Provider-neutral model input: what the transpiler (seed 1 §5.4) produces from a clean history and what the
 * model activity maps onto the SDK's message format. Pure types; no I/O.
 */

/** One tool call requested by the model. `arguments` is the parsed JSON object. */
export interface ProviderToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ProviderMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ProviderToolCall[] }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

/** The whole model input: the system instruction plus alternating conversation turns. */
export interface ProviderInput {
  system: string;
  messages: ProviderMessage[];
}

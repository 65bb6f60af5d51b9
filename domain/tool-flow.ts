/**
 * Pairing of `tool_call` and `tool_result` messages (docs/message-model.md §4.4, §5.2 "保留工具流"). Clean history, compaction
 * and transpilation all need the same pairing rule, so it lives here once.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { Message } from './message.ts';

/** Content of the synthetic result written for a tool_call that never got one (docs/message-model.md §4.4). */
export const INTERRUPTED_TOOL_RESULT = '[Tool execution interrupted: no result was recorded]';

/**
 * The id the model knows a tool call by: `metadata.tool_call_id`, or the message id when the call has none
 * (the docs/message-model.md §6.1 trace records no provider id).
 */
export function toolCallIdOf(call: Message): string {
  const id = call.metadata?.tool_call_id;
  return typeof id === 'string' && id !== '' ? id : call.id;
}

/** The tool name of a call or result: `metadata.tool_name`, else the sender (a result's sender is the tool). */
export function toolNameOf(message: Message): string {
  const name = message.metadata?.tool_name;
  return typeof name === 'string' ? name : message.sender;
}

/** Result of {@link indexToolFlows}. Keys are message ids. */
export interface ToolFlowIndex {
  /** tool_call message id → its (first) tool_result. */
  resultOf: ReadonlyMap<string, Message>;
  /** tool_result message id → its tool_call, only for results that are the call's first result. */
  callOf: ReadonlyMap<string, Message>;
}

/**
 * Pairs every tool_result with its tool_call: a result belongs to the call whose message id is its `parent_id`
 * (what Kesoku stores), or else to the call of the same turn whose {@link toolCallIdOf} equals the result's
 * `metadata.tool_call_id` — never to a call of another turn, since providers reuse ids such as `call_0` from
 * turn to turn. A call keeps only its first result (in the given order); later duplicates and results without a
 * call are unpaired.
 */
export function indexToolFlows(messages: readonly Message[]): ToolFlowIndex {
  const inTurn = (message: Message, toolCallId: string) => `${message.turn_id ?? ''}\u0000${toolCallId}`;
  const callsByToolCallId = new Map<string, Message>();
  const callsById = new Map<string, Message>();
  for (const message of messages) {
    if (message.type !== 'tool_call') continue;
    callsById.set(message.id, message);
    const key = inTurn(message, toolCallIdOf(message));
    if (!callsByToolCallId.has(key)) callsByToolCallId.set(key, message);
  }
  const resultOf = new Map<string, Message>();
  const callOf = new Map<string, Message>();
  for (const message of messages) {
    if (message.type !== 'tool_result') continue;
    const toolCallId = message.metadata?.tool_call_id;
    const call =
      (message.parent_id === null ? undefined : callsById.get(message.parent_id)) ??
      (typeof toolCallId === 'string' ? callsByToolCallId.get(inTurn(message, toolCallId)) : undefined);
    if (call === undefined || resultOf.has(call.id)) continue;
    resultOf.set(call.id, message);
    callOf.set(message.id, call);
  }
  return { resultOf, callOf };
}

/**
 * The in-memory result for a tool_call without one (docs/message-model.md §4.4): tool/tool_result, sender the tool name,
 * `parent_id` the call, same turn, step, seq, revision and timestamps as the call, id `<call id>:interrupted`,
 * content {@link INTERRUPTED_TOOL_RESULT}, metadata `{tool_name, tool_call_id, tool_result: 'interrupted',
 * synthetic: true}`. Never stored; rebuilt each time history is prepared.
 */
export function syntheticInterruptedResult(call: Message): Message {
  const toolName = toolNameOf(call);
  return {
    ...call,
    id: `${call.id}:interrupted`,
    parent_id: call.id,
    sender: toolName,
    role: 'tool',
    type: 'tool_result',
    status: 'responded',
    content: INTERRUPTED_TOOL_RESULT,
    metadata: {
      tool_name: toolName,
      tool_call_id: toolCallIdOf(call),
      tool_result: 'interrupted',
      synthetic: true,
    },
    received_at: null,
  };
}

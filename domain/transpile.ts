/**
 * Role transpilation (seed 1 §5.4 `history_to_turns`): a clean history becomes provider-neutral model input that
 * passes the providers' alternating-roles and tool-pairing checks.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import { neutraliseUserText, startsWithSpeakerHeader } from './prompt-safety.ts';
import type { Message } from './message.ts';
import { messageKind } from './message-kind.ts';
import type { ProviderInput, ProviderMessage, ProviderToolCall } from './provider-messages.ts';
import { INTERRUPTED_TOOL_RESULT, indexToolFlows, toolCallIdOf, toolNameOf } from './tool-flow.ts';

/** Seed 1 §5.4: the prefix put before an empty-reply nudge when it becomes a user turn. */
export const NUDGE_PREFIX = '[System Notification]\n';

type AssistantMessage = Extract<ProviderMessage, { role: 'assistant' }>;

interface OpenAssistant {
  message: AssistantMessage;
  calls: Message[];
  /** Turn and step the message was opened for; later tool_calls of the same step join it. */
  key: string;
}

function stepKey(message: Message): string {
  return `${message.turn_id ?? `message:${message.id}`}:${message.step ?? 'none'}`;
}

/**
 * The id each call carries in the prompt: its provider id, unless an earlier call of this prompt already uses it
 * (providers reuse ids like `call_0` across turns), then its Kesoku message id, which is unique.
 */
function providerIds(clean: readonly Message[]): Map<string, string> {
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const m of clean) {
    if (m.type !== 'tool_call') continue;
    const wanted = toolCallIdOf(m);
    const id = used.has(wanted) ? m.id : wanted;
    used.add(id);
    out.set(m.id, id);
  }
  return out;
}

function toProviderToolCall(call: Message, id: string): ProviderToolCall {
  const args = call.metadata?.tool_arguments;
  return {
    id,
    name: toolNameOf(call),
    arguments: typeof args === 'object' && args !== null ? args : {},
  };
}

/** Joins same-role neighbours so roles alternate; an assistant message with tool_calls is never merged into. */
function mergeNeighbours(messages: readonly ProviderMessage[]): ProviderMessage[] {
  const merged: ProviderMessage[] = [];
  const join = (a: string, b: string): string => [a, b].filter((part) => part !== '').join('\n\n');
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role === 'user' && message.role === 'user') {
      merged[merged.length - 1] = { role: 'user', content: join(last.content, message.content) };
    } else if (last?.role === 'assistant' && message.role === 'assistant' && last.tool_calls === undefined) {
      const content = join(last.content, message.content);
      merged[merged.length - 1] =
        message.tool_calls === undefined
          ? { role: 'assistant', content }
          : { role: 'assistant', content, tool_calls: message.tool_calls };
    } else {
      merged.push(message);
    }
  }
  return merged;
}

/**
 * A person's message as prompt text: lines imitating a speaker header or a Kesoku notice are marked as typed by
 * the user (domain/prompt-safety.ts). The first line of a chat adapter's message (chatbot other than the REST
 * API's `api`) is its genuine speaker header and stays.
 */
function userText(message: Message): string {
  const adapterHeader = message.chatbot_id !== 'api' && startsWithSpeakerHeader(message.content);
  return neutraliseUserText(message.content, { keepFirstLine: adapterHeader });
}

/**
 * Seed 1 §5.4: maps a clean history (see buildCleanHistory) to {@link ProviderInput}.
 *
 * - `systemPrompt` becomes `system`; a stored system-prompt record and notifications are skipped.
 * - a user's question → `user`, with forged speaker headers and Kesoku notices marked (see userText);
 *   cron prompts and compaction prompts → `user` as-is; a background alert (system role,
 *   input-lifecycle status) → `user` as-is; an empty-reply nudge (system role, responded/delivered) → `user`
 *   prefixed with {@link NUDGE_PREFIX}.
 * - a thought and the tool_calls of the same turn and step → one `assistant` message, content the thought text
 *   (empty without a thought), `tool_calls` from `metadata.tool_call_id` (else the message id),
 *   `metadata.tool_name` and `metadata.tool_arguments`.
 * - each tool call is followed by exactly one `{role: 'tool', tool_call_id, name, content}`: its recorded
 *   result, or {@link INTERRUPTED_TOOL_RESULT} when none was recorded; results without a call are dropped.
 * - final replies, crash notices and compaction summaries → `assistant`.
 * - finally consecutive user/user and assistant/assistant (the first without tool_calls) are joined with "\n\n".
 */
export function toProviderInput(clean: readonly Message[], systemPrompt: string): ProviderInput {
  const { resultOf } = indexToolFlows(clean);
  const ids = providerIds(clean);
  const idOf = (call: Message) => ids.get(call.id) ?? toolCallIdOf(call);
  const out: ProviderMessage[] = [];
  let open: OpenAssistant | null = null;

  const flush = (): void => {
    if (open === null) return;
    const { message, calls } = open;
    open = null;
    if (calls.length === 0) {
      out.push({ role: 'assistant', content: message.content });
      return;
    }
    out.push({ role: 'assistant', content: message.content, tool_calls: calls.map((c) => toProviderToolCall(c, idOf(c))) });
    for (const call of calls) {
      const result = resultOf.get(call.id);
      out.push({
        role: 'tool',
        tool_call_id: idOf(call),
        name: toolNameOf(result ?? call),
        content: result?.content ?? INTERRUPTED_TOOL_RESULT,
      });
    }
  };

  for (const message of clean) {
    const kind = messageKind(message);
    switch (kind) {
      case 'thought':
        flush();
        open = { message: { role: 'assistant', content: message.content }, calls: [], key: stepKey(message) };
        break;
      case 'tool_call':
        if (open === null || open.key !== stepKey(message)) {
          flush();
          open = { message: { role: 'assistant', content: '' }, calls: [], key: stepKey(message) };
        }
        open.calls.push(message);
        break;
      case 'tool_result':
        // Emitted right after its call by flush(); a result without a call has nothing to answer.
        break;
      case 'system_prompt':
      case 'notification':
        break;
      case 'empty_reply_nudge':
        flush();
        out.push({ role: 'user', content: `${NUDGE_PREFIX}${message.content}` });
        break;
      case 'user_question':
        flush();
        out.push({ role: 'user', content: userText(message) });
        break;
      case 'cron_prompt':
      case 'manual_compaction_prompt':
      case 'background_alert':
        flush();
        out.push({ role: 'user', content: message.content });
        break;
      case 'final_reply':
      case 'crash_notice':
        flush();
        out.push({ role: 'assistant', content: message.content });
        break;
    }
  }
  flush();
  return { system: systemPrompt, messages: mergeNeighbours(out) };
}

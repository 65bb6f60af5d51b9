/**
 * Role transpilation (docs/message-model.md §5.4 `history_to_turns`): a clean history becomes provider-neutral model input that
 * passes the providers' alternating-roles and tool-pairing checks.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import { neutraliseUserText, startsWithSpeakerHeader } from './prompt-safety.ts';
import type { Message } from './message.ts';
import { messageKind } from './message-kind.ts';
import { stepwiseOrder } from './history.ts';
import type { ProviderInput, ProviderMessage, ProviderToolCall } from './provider-messages.ts';
import { INTERRUPTED_TOOL_RESULT, indexToolFlows, toolCallIdOf, toolNameOf } from './tool-flow.ts';

/** docs/message-model.md §5.4: the prefix put before an empty-reply nudge when it becomes a user turn. */
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

/**
 * Joins same-role neighbours so roles alternate; an assistant message with tool_calls is never merged into.
 * Attachments of joined user messages and reasoning of joined assistant messages are kept.
 */
function mergeNeighbours(messages: readonly ProviderMessage[]): ProviderMessage[] {
  const merged: ProviderMessage[] = [];
  const join = (a: string, b: string): string => [a, b].filter((part) => part !== '').join('\n\n');
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role === 'user' && message.role === 'user') {
      const attachments = [...(last.attachments ?? []), ...(message.attachments ?? [])];
      merged[merged.length - 1] = {
        role: 'user',
        content: join(last.content, message.content),
        ...(attachments.length > 0 ? { attachments } : {}),
      };
    } else if (last?.role === 'assistant' && message.role === 'assistant' && last.tool_calls === undefined) {
      const content = join(last.content, message.content);
      const reasoning = join(last.reasoning ?? '', message.reasoning ?? '');
      merged[merged.length - 1] = {
        role: 'assistant',
        content,
        ...(message.tool_calls !== undefined ? { tool_calls: message.tool_calls } : {}),
        ...(reasoning !== '' ? { reasoning } : {}),
      };
    } else {
      merged.push(message);
    }
  }
  return merged;
}

/** Options of {@link toProviderInput}. */
export interface TranspileOptions {
  /**
   * The current turn's id: tool calls and results of every other turn are written as plain assistant text
   * instead of tool-call messages (the plainer form for providers that refuse past tool calls as sent, e.g.
   * thinking servers that want reasoning on every one). Unset: all tool flows are tool-call messages.
   */
  pastToolFlowsAsText?: string;
}

/** A past tool call and its result as plain assistant text (see {@link TranspileOptions}). */
export function toolFlowAsText(call: Message, result: Message | undefined): string {
  const args = JSON.stringify(call.metadata?.tool_arguments ?? {});
  const output = result?.content ?? INTERRUPTED_TOOL_RESULT;
  return `[Earlier tool call: ${toolNameOf(call)} ${args}]\n[Its result:]\n${output}`;
}

/** The text of a thought without its reasoning part (`metadata.reasoning_content`, stored first). */
function thoughtVisibleText(message: Message): { content: string; reasoning?: string } {
  const reasoning = message.metadata?.reasoning_content;
  if (typeof reasoning !== 'string' || reasoning === '') return { content: message.content };
  const content = message.content.startsWith(reasoning)
    ? message.content.slice(reasoning.length).replace(/^\n\n/, '')
    : '';
  return { content, reasoning };
}

/** Chatbots that store a person's text as typed, without a speaker header of their own (the REST API's). */
const UNFORMATTED_CHATBOTS: ReadonlySet<string> = new Set(['api', 'cli']);

/**
 * A person's message as prompt text: lines imitating a speaker header or a Kesoku notice are marked as typed by
 * the user (domain/prompt-safety.ts). The first line of a chat adapter's message (chatbot other than the REST
 * API's `api` and `cli`, whose text is stored as typed) is its genuine speaker header and stays.
 */
function userText(message: Message): string {
  const adapterHeader =
    !UNFORMATTED_CHATBOTS.has(message.chatbot_id) && startsWithSpeakerHeader(message.content);
  const text = neutraliseUserText(message.content, { keepFirstLine: adapterHeader });
  const ending =
    message.status === 'interrupted' ? ENDED_UNANSWERED[message.metadata?.interrupt_reason ?? ''] : undefined;
  return ending === undefined ? text : `${text}\n\n${ending}`;
}

/**
 * The Kesoku notice put after a question whose turn ended without an answer, keyed by `metadata.interrupt_reason`.
 * Without it, a stopped question joined with the next one (see mergeNeighbours) reads as still asked, and the
 * model would carry out what the user stopped. An `interrupt` (a newer message of the same sender) gets none: the
 * sender meant the two to be read together.
 */
const ENDED_UNANSWERED: Readonly<Record<string, string>> = {
  stop: `${NUDGE_PREFIX}The user stopped the request above (/stop) before it was finished. Do not carry it out or continue it unless they ask for it again.`,
  restart: `${NUDGE_PREFIX}The request above was not answered: the session restarted while handling it (what was done for it is unknown), and the user may send it again.`,
};

/**
 * docs/message-model.md §5.4: maps a clean history (see buildCleanHistory) to {@link ProviderInput}.
 *
 * - `systemPrompt` becomes `system`; a stored system-prompt record and notifications are skipped.
 * - a user's question → `user`, with forged speaker headers and Kesoku notices marked (see userText);
 *   cron prompts and compaction prompts → `user` as-is; a background alert (system role,
 *   input-lifecycle status) → `user` as-is; an empty-reply nudge (system role, responded/delivered) → `user`
 *   prefixed with {@link NUDGE_PREFIX}.
 * - a thought and the tool_calls of the same turn and step → one `assistant` message, content the thought text
 *   (empty without a thought; its reasoning part, `metadata.reasoning_content`, goes to `reasoning`), `tool_calls` from `metadata.tool_call_id` (else the message id),
 *   `metadata.tool_name` and `metadata.tool_arguments`.
 * - each tool call is followed by exactly one `{role: 'tool', tool_call_id, name, content}`: its recorded
 *   result (with the images it returned, `metadata.attachments`, as `attachments`), or
 *   {@link INTERRUPTED_TOOL_RESULT} when none was recorded; results without a call are dropped.
 * - final replies, crash notices and compaction summaries → `assistant`.
 * - a user question that still has `metadata.attachments` (only the current trigger does) carries them as
 *   `attachments`, for the model activity to read in.
 * - an interrupted partial reply (`metadata.partial`) is assistant text like a final reply; its content ends
 *   with the marker that says it was cut off.
 * - with `opts.pastToolFlowsAsText`, tool flows of other turns become assistant text ({@link toolFlowAsText}).
 * - finally consecutive user/user and assistant/assistant (the first without tool_calls) are joined with "\n\n".
 */
export function toProviderInput(
  cleanHistory: readonly Message[],
  systemPrompt: string,
  opts: TranspileOptions = {},
): ProviderInput {
  // The stored order is phase-first across a turn; a conversation needs each step's thought, calls and results
  // together.
  const clean = stepwiseOrder(cleanHistory);
  const { resultOf } = indexToolFlows(clean);
  const ids = providerIds(clean);
  const idOf = (call: Message) => ids.get(call.id) ?? toolCallIdOf(call);
  const out: ProviderMessage[] = [];
  let open: OpenAssistant | null = null;

  const flush = (): void => {
    if (open === null) return;
    const { message, calls } = open;
    open = null;
    const reasoning = message.reasoning !== undefined ? { reasoning: message.reasoning } : {};
    if (calls.length === 0) {
      out.push({ role: 'assistant', content: message.content, ...reasoning });
      return;
    }
    out.push({
      role: 'assistant',
      content: message.content,
      tool_calls: calls.map((c) => toProviderToolCall(c, idOf(c))),
      ...reasoning,
    });
    for (const call of calls) {
      const result = resultOf.get(call.id);
      const attachments = result?.metadata?.attachments;
      out.push({
        role: 'tool',
        tool_call_id: idOf(call),
        name: toolNameOf(result ?? call),
        content: result?.content ?? INTERRUPTED_TOOL_RESULT,
        ...(Array.isArray(attachments) && attachments.length > 0 ? { attachments } : {}),
      });
    }
  };

  const current = opts.pastToolFlowsAsText;
  for (const message of clean) {
    const kind = messageKind(message);
    if (
      current !== undefined &&
      message.turn_id !== current &&
      (kind === 'tool_call' || kind === 'tool_result')
    ) {
      if (kind === 'tool_call') {
        flush();
        out.push({ role: 'assistant', content: toolFlowAsText(message, resultOf.get(message.id)) });
      }
      continue;
    }
    switch (kind) {
      case 'thought': {
        flush();
        const { content, reasoning } = thoughtVisibleText(message);
        const assistant: AssistantMessage =
          reasoning === undefined
            ? { role: 'assistant', content }
            : { role: 'assistant', content, reasoning };
        open = { message: assistant, calls: [], key: stepKey(message) };
        break;
      }
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
      case 'user_question': {
        flush();
        const attachments = message.metadata?.attachments;
        const content = userText(message);
        out.push(
          attachments !== undefined && attachments.length > 0
            ? { role: 'user', content, attachments }
            : { role: 'user', content },
        );
        break;
      }
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

/**
 * The model-provider layer: one streamed model call (one step) through the Vercel AI SDK, from the
 * provider-neutral input IR (`domain/provider-messages.ts`) to a small result, with typed errors.
 * No Temporal imports: the model activity calls {@link streamModelStep} with its cancellation signal and
 * callbacks (token deltas, heartbeats) and maps {@link ModelCallError} onto its retry policy.
 */
import { InvalidResponseDataError, NoSuchToolError, jsonSchema, streamText, tool } from 'ai';
import type { LanguageModel, ModelMessage, ToolSet, AssistantModelMessage, ToolModelMessage } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import type { ProviderInput, ProviderMessage, ProviderToolCall } from '../../domain/provider-messages.ts';
import { toolArgumentsProblem } from '../../domain/tool-arguments.ts';
import { ModelCallError, classifyModelError } from './errors.ts';
import { InlineReasoningSplitter } from './think.ts';

/**
 * Which model to call and how.
 * - `provider`: `openai-compatible` (any Chat Completions endpoint; needs `baseUrl`), `openai`, `anthropic`, `google`.
 * - `baseUrl`: API base including the version segment (e.g. `http://127.0.0.1:4010/v1`); optional except for
 *   `openai-compatible`. With `openai` it switches to the Chat Completions API so compatible servers work too.
 * - `apiKey`: optional; when absent the SDK's own environment variable is used (`OPENAI_API_KEY`, …), and an
 *   openai-compatible endpoint is called without `Authorization`.
 * - `requestTimeoutMs`: inactivity timeout in ms, see {@link streamModelStep}.
 */
export interface LlmConfig {
  provider: 'openai-compatible' | 'openai' | 'anthropic' | 'google';
  baseUrl?: string;
  apiKey?: string;
  model: string;
  requestTimeoutMs: number;
  /** Most tokens one call may generate (KESOKU_LLM_MAX_OUTPUT_TOKENS); default {@link DEFAULT_MAX_OUTPUT_TOKENS}. */
  maxOutputTokens?: number;
}

/** Default bound of a call's output, tokens: a runaway generation ends there (finish reason `length`). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;

/** A tool offered to the model. `parameters` is a JSON Schema object describing the arguments object. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Token usage of one call; 0 where the provider did not report a number. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Why the model stopped: the AI SDK's finish reasons (`tool-calls` when it asked for tools). */
export type ModelFinishReason =
  'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other';

/**
 * The result of one model step: the answer text (inline `<think>` reasoning removed), the model's reasoning
 * (streamed reasoning deltas plus inline `<think>` text; empty when none), the requested tool calls (arguments
 * parsed), usage, finish reason.
 */
export interface ModelStepResult {
  text: string;
  reasoning: string;
  toolCalls: ProviderToolCall[];
  usage: ModelUsage;
  finishReason: ModelFinishReason;
}

/** Options of one call: `signal` cancels it (the HTTP request is aborted); callbacks observe the stream. */
export interface ModelStepOptions {
  signal?: AbortSignal;
  /** Called with each answer-text delta (reasoning excluded), in order, as it arrives. Must not throw. */
  onTextDelta?: (delta: string) => void;
  /** Called with each reasoning delta, in order, as it arrives. Must not throw. */
  onReasoningDelta?: (delta: string) => void;
  /** Called once per complete tool call, as soon as its arguments are complete. Must not throw. */
  onToolCall?: (call: ProviderToolCall) => void;
}

/**
 * Builds the AI SDK language model for `cfg`.
 * @throws ModelCallError `bad_request` when `openai-compatible` has no `baseUrl`.
 */
export function createLanguageModel(cfg: LlmConfig): LanguageModel {
  const apiKey = cfg.apiKey;
  const baseURL = cfg.baseUrl;
  switch (cfg.provider) {
    case 'openai-compatible': {
      if (baseURL === undefined || baseURL === '') {
        throw new ModelCallError({
          kind: 'bad_request',
          detail: 'openai-compatible provider needs a base URL',
        });
      }
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        includeUsage: true,
        ...(apiKey !== undefined ? { apiKey } : {}),
      }).chatModel(cfg.model);
    }
    case 'openai': {
      const provider = createOpenAI({
        ...(baseURL !== undefined ? { baseURL } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
      });
      // A custom base URL usually means an OpenAI-compatible server, which speaks Chat Completions, not Responses.
      return baseURL !== undefined ? provider.chat(cfg.model) : provider(cfg.model);
    }
    case 'anthropic':
      return createAnthropic({
        ...(baseURL !== undefined ? { baseURL } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
      })(cfg.model);
    case 'google':
      return createGoogle({
        ...(baseURL !== undefined ? { baseURL } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
      })(cfg.model);
  }
}

/**
 * Performs ONE streamed model call (a single step: tools are declared without `execute`, so the SDK returns
 * tool calls and never runs them; SDK retries are off because Temporal retries the activity).
 *
 * Timeout: `cfg.requestTimeoutMs` is an INACTIVITY timeout — the call fails when no stream event (response
 * start, text delta, tool-call fragment, finish…) arrives for that many ms, counted from the start of the call
 * and reset by every event. A long answer that keeps streaming is never cut; the overall bound belongs to the
 * activity's start-to-close timeout. Keep-alive comments of an SSE stream do not count as activity.
 *
 * @returns text (all text deltas joined), tool calls with parsed argument objects, usage (0 when unknown) and
 *   the finish reason.
 * @throws ModelCallError — `cancelled` when `opts.signal` aborts (the HTTP request is aborted too), `timeout`
 *   on inactivity, `invalid_response` for a stream without a finish event (a tool call whose arguments are not one
 *   JSON object is returned with `argumentsProblem` set, not thrown), otherwise
 *   what {@link classifyModelError} makes of the provider's failure.
 */
export async function streamModelStep(
  cfg: LlmConfig,
  input: ProviderInput,
  tools: ModelToolSpec[],
  opts: ModelStepOptions = {},
): Promise<ModelStepResult> {
  const { signal } = opts;
  if (signal?.aborted === true) throw new ModelCallError({ kind: 'cancelled', cause: signal.reason });

  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException(`no model output for ${cfg.requestTimeoutMs} ms`, 'TimeoutError'));
    }, cfg.requestTimeoutMs);
  };
  const onCallerAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });

  const failure = (err: unknown): ModelCallError => {
    if (signal?.aborted === true) return new ModelCallError({ kind: 'cancelled', cause: signal.reason });
    if (timedOut)
      return new ModelCallError({
        kind: 'timeout',
        detail: `no stream activity for ${cfg.requestTimeoutMs} ms`,
        cause: err,
      });
    return classifyModelError(err);
  };

  const split = new InlineReasoningSplitter();
  let streamedReasoning = '';
  const toolCalls: ProviderToolCall[] = [];
  let usage: ModelUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let finishReason: ModelFinishReason = 'other';
  let finished = false;
  let missingFinishReason = false;
  const emit = (d: { text: string; reasoning: string }) => {
    if (d.text !== '') opts.onTextDelta?.(d.text);
    if (d.reasoning !== '') opts.onReasoningDelta?.(d.reasoning);
  };

  try {
    touch();
    const model = createLanguageModel(cfg);
    const result = streamText({
      model,
      ...(input.system !== '' ? { instructions: input.system } : {}),
      messages: toModelMessages(input.messages, { reasoning: sendsReasoningBack(cfg) }),
      ...(tools.length > 0 ? { tools: toToolSet(tools) } : {}),
      maxRetries: 0,
      maxOutputTokens: cfg.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      abortSignal: controller.signal,
      // Errors are read from the stream below; without this the SDK also prints them to the console.
      onError: () => {},
    });

    for await (const part of result.stream) {
      touch();
      switch (part.type) {
        case 'text-delta':
          if (part.text === '') break;
          emit(split.push(part.text));
          break;
        case 'reasoning-delta':
          if (part.text === '') break;
          streamedReasoning += part.text;
          opts.onReasoningDelta?.(part.text);
          break;
        case 'tool-call': {
          // Arguments that are not one JSON object are the model's mistake, not a failed call: the call is kept
          // with what is wrong, and answered with an error result the model can correct itself from.
          const call: ProviderToolCall =
            part.invalid === true || !isPlainObject(part.input)
              ? {
                  id: part.toolCallId,
                  name: part.toolName,
                  arguments: {},
                  argumentsProblem: NoSuchToolError.isInstance(part.error)
                    ? `there is no tool named "${part.toolName}"`
                    : toolArgumentsProblem(part.input, part.error ? describeCause(part.error) : undefined),
                }
              : { id: part.toolCallId, name: part.toolName, arguments: part.input };
          toolCalls.push(call);
          opts.onToolCall?.(call);
          break;
        }
        case 'finish-step':
          usage = toUsage(part.usage);
          finishReason = part.finishReason;
          finished = true;
          break;
        case 'error':
          // A stream that reached its end without any finish reason: decided below by what it contains.
          if (isMissingFinishReason(part.error)) {
            missingFinishReason = true;
            break;
          }
          throw part.error;
        case 'abort':
          throw controller.signal.reason ?? new DOMException('aborted', 'AbortError');
        default:
          break;
      }
    }
    if (controller.signal.aborted) throw controller.signal.reason;
    if (!finished)
      throw new ModelCallError({
        kind: 'invalid_response',
        detail: 'model stream ended without a finish event',
      });
    emit(split.end());
    // The answer is judged by what it contains: complete tool calls or text that arrived over a stream that
    // ended cleanly are accepted whatever the finish reason said (many compatible servers send none, or null).
    if (missingFinishReason || finishReason === 'error' || finishReason === 'other') {
      finishReason = toolCalls.length > 0 ? 'tool-calls' : 'stop';
    }
    const reasoning = [streamedReasoning, split.reasoning].filter((r) => r.trim() !== '').join('\n\n');
    const text = split.reasoning !== '' ? split.text.trim() : split.text;
    return { text, reasoning, toolCalls, usage, finishReason };
  } catch (err) {
    throw failure(err);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCallerAbort);
    // Make sure the HTTP request is gone whatever happened (a thrown callback, an invalid tool call…).
    if (!controller.signal.aborted) controller.abort(new DOMException('model step finished', 'AbortError'));
  }
}

/**
 * A tool-less call returning only the text (e.g. title generation). Same timeout, cancellation and errors as
 * {@link streamModelStep}.
 */
export async function completeText(
  cfg: LlmConfig,
  input: ProviderInput,
  opts: Omit<ModelStepOptions, 'onToolCall'> = {},
): Promise<string> {
  const result = await streamModelStep(cfg, input, [], opts);
  return result.text;
}

/**
 * Whether the provider takes the model's reasoning back on assistant messages. Chat Completions servers
 * (DeepSeek, Kimi, Qwen on vLLM…) read it as `reasoning_content`, and some refuse a tool-call message without
 * it; Anthropic and Google would need their own signed thinking blocks, which are not kept, so they get none.
 */
export function sendsReasoningBack(cfg: Pick<LlmConfig, 'provider'>): boolean {
  return cfg.provider === 'openai-compatible';
}

/** The SDK's signal for a stream that ended without any finish reason (an error part without data). */
function isMissingFinishReason(err: unknown): boolean {
  return InvalidResponseDataError.isInstance(err) && err.data === undefined;
}

/**
 * Maps the IR onto the SDK's ModelMessage list: assistant tool calls become `tool-call` parts, and each run of
 * consecutive `tool` messages becomes one tool message of `tool-result` parts (providers such as Anthropic
 * want all results of one step together). With `reasoning`, an assistant message's reasoning goes along as a
 * `reasoning` part (sent as `reasoning_content` by Chat Completions providers), and every assistant message with
 * tool calls carries `reasoning_content`, empty when there is none; a user message's images
 * become `image` parts after its text.
 */
export function toModelMessages(
  messages: ProviderMessage[],
  opts: { reasoning?: boolean } = {},
): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'user': {
        const images = m.images ?? [];
        if (images.length === 0) {
          out.push({ role: 'user', content: m.content });
          break;
        }
        out.push({
          role: 'user',
          content: [
            { type: 'text', text: m.content },
            ...images.map((i) => ({ type: 'image' as const, image: i.data, mediaType: i.mediaType })),
          ],
        });
        break;
      }
      case 'assistant': {
        const calls = m.tool_calls ?? [];
        const reasoning =
          opts.reasoning === true && m.reasoning !== undefined && m.reasoning !== '' ? m.reasoning : null;
        if (calls.length === 0 && reasoning === null) {
          out.push({ role: 'assistant', content: m.content });
          break;
        }
        const content: Exclude<AssistantModelMessage['content'], string> = [];
        if (reasoning !== null) content.push({ type: 'reasoning', text: reasoning });
        if (m.content !== '') content.push({ type: 'text', text: m.content });
        for (const c of calls)
          content.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.arguments });
        // Thinking servers (DeepSeek, Moonshot) refuse an assistant tool-call message without the field: every
        // such message carries it, empty when the model gave no reasoning (the SDK omits an empty one).
        const always =
          opts.reasoning === true && calls.length > 0
            ? { providerOptions: { openaiCompatible: { reasoning_content: reasoning ?? '' } } }
            : {};
        out.push({ role: 'assistant', content, ...always });
        break;
      }
      case 'tool': {
        const part: ToolModelMessage['content'][number] = {
          type: 'tool-result',
          toolCallId: m.tool_call_id,
          toolName: m.name,
          output: { type: 'text', value: m.content },
        };
        const prev = out.at(-1);
        if (prev?.role === 'tool') prev.content.push(part);
        else out.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return out;
}

function toToolSet(tools: ModelToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    // No `execute`: the SDK reports the call and stops; Kesoku runs tools in their own activities.
    set[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.parameters),
    });
  }
  return set;
}

function toUsage(u: {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
}): ModelUsage {
  const inputTokens = u.inputTokens ?? 0;
  const outputTokens = u.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: u.totalTokens ?? inputTokens + outputTokens };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeCause(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

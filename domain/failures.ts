/**
 * The typed turn-failure model (docs/message-flow.md §13) and the presenter that turns a failure kind into the user-visible
 * crash notice (docs/message-model.md §3 "崩溃报错通知"). Raw provider or database text never reaches this module's output:
 * it only knows kinds.
 *
 * Pure module: importable by workflow code.
 */

/** docs/message-flow.md §13 `TurnFailureKind`, plus `tool` (a tool activity that failed as infrastructure). */
export const TURN_FAILURE_KINDS = [
  'input_persistence',
  'agent_creation',
  'context_preparation',
  'provider',
  'tool',
  'turn_persistence',
  'delivery',
] as const;
export type TurnFailureKind = (typeof TURN_FAILURE_KINDS)[number];

/**
 * Detail of a provider failure (from the model activity's error classification). `empty` is Kesoku's: the
 * model kept answering with nothing after the nudges.
 */
export const PROVIDER_FAILURE_DETAILS = [
  'rate_limited',
  'server',
  'timeout',
  'network',
  'auth',
  'bad_request',
  'context_overflow',
  'invalid_response',
  'empty',
] as const;
export type ProviderFailureDetail = (typeof PROVIDER_FAILURE_DETAILS)[number];

/**
 * The Temporal ApplicationFailure `type` activities use: `<kind>` or `<kind>:<detail>`, e.g.
 * `provider:context_overflow`. The workflow reads the kind back with {@link parseFailureType}.
 */
export function failureType(kind: TurnFailureKind, detail?: string): string {
  return detail ? `${kind}:${detail}` : kind;
}

/** Reads `{kind, detail}` from an ApplicationFailure type; unknown types yield null. */
export function parseFailureType(
  type: string | null | undefined,
): { kind: TurnFailureKind; detail?: string } | null {
  if (!type) return null;
  const [kind, detail] = type.split(':', 2);
  if (!(TURN_FAILURE_KINDS as readonly string[]).includes(kind ?? '')) return null;
  return detail ? { kind: kind as TurnFailureKind, detail } : { kind: kind as TurnFailureKind };
}

const EN: Record<TurnFailureKind, string> = {
  input_persistence: 'your message could not be saved. Please send it again.',
  agent_creation: 'the agent is not configured correctly. An operator has to check the model settings.',
  context_preparation: 'the conversation history could not be prepared for the model.',
  provider: 'the model provider did not answer properly.',
  tool: 'a tool could not be run.',
  turn_persistence: 'the reply could not be saved.',
  delivery: 'the reply could not be delivered.',
};

const ZH: Record<TurnFailureKind, string> = {
  input_persistence: '您的消息未能保存，请重新发送。',
  agent_creation: '智能体配置有误，请管理员检查模型设置。',
  context_preparation: '无法为模型准备会话历史。',
  provider: '模型服务未能正常响应。',
  tool: '工具无法运行。',
  turn_persistence: '回复未能保存。',
  delivery: '回复未能送达。',
};

const EN_DETAIL: Partial<Record<ProviderFailureDetail, string>> = {
  auth: 'the model provider rejected the API key. An operator has to check KESOKU_LLM_API_KEY.',
  rate_limited: 'the model provider is rate limiting requests. Please try again later.',
  timeout: 'the model did not answer in time.',
  context_overflow:
    'the conversation is too long for the model, even after compaction. Try /compact or start a new session.',
  empty: 'the model returned an empty reply several times.',
  bad_request: 'the model provider rejected the request.',
};

const ZH_DETAIL: Partial<Record<ProviderFailureDetail, string>> = {
  auth: '模型服务拒绝了 API 密钥，请管理员检查 KESOKU_LLM_API_KEY。',
  rate_limited: '模型服务正在限流，请稍后再试。',
  timeout: '模型未能及时响应。',
  context_overflow: '会话过长，压缩后仍超出模型上下文。请尝试 /compact 或开启新会话。',
  empty: '模型多次返回空回复。',
  bad_request: '模型服务拒绝了该请求。',
};

/**
 * The locales a session can have: `en` (the default) and `zh` (the spec's Chinese notices). Set per session
 * (REST PATCH, the `/locale` chat command) and for new sessions by KESOKU_LOCALE.
 */
export const SESSION_LOCALES = ['en', 'zh'] as const;
export type SessionLocale = (typeof SESSION_LOCALES)[number];

/** True for locales that get the Chinese presentation (`zh`, `zh-CN`, `zh_TW`, …). */
export function isChineseLocale(locale: string | null | undefined): boolean {
  return /^zh([-_].*)?$/i.test(locale ?? '');
}

/**
 * The crash-notice text for a failure (docs/message-model.md §3 "崩溃报错通知": `⚠️ 处理您的请求时发生异常: ...`).
 * English by default; Chinese for a `zh` locale. Contains only fixed text chosen by kind and detail.
 */
export function presentFailure(
  kind: TurnFailureKind,
  detail: string | undefined,
  locale: string | null | undefined,
): string {
  const zh = isChineseLocale(locale);
  const specific =
    kind === 'provider' && detail ? (zh ? ZH_DETAIL : EN_DETAIL)[detail as ProviderFailureDetail] : undefined;
  const text = specific ?? (zh ? ZH : EN)[kind];
  return zh
    ? `⚠️ 处理您的请求时发生异常: ${text}`
    : `⚠️ Something went wrong while handling your request: ${text}`;
}

/** The short notice delivered when a turn is stopped or interrupted (a lightweight notification, docs/message-model.md §3). */
export function presentInterruption(
  reason: 'stop' | 'interrupt' | 'superseded' | 'restart',
  locale: string | null | undefined,
): string {
  const zh = isChineseLocale(locale);
  if (reason === 'stop') return zh ? '⏹️ 已停止。' : '⏹️ Stopped.';
  if (reason === 'restart')
    return zh
      ? '⏹️ 会话已重启，此消息的处理被中断，请重新发送。'
      : '⏹️ The session restarted while handling this message; please send it again.';
  return zh ? '↪️ 已中断，正在处理您的新消息。' : '↪️ Interrupted: handling your new message.';
}

/** The notice for a message that could not be queued because the session's queue was full (docs/message-flow.md §6.3). */
export function presentQueueFull(capacity: number, locale: string | null | undefined): string {
  return isChineseLocale(locale)
    ? `⚠️ 队列已满（最多 ${capacity} 条），该消息未被处理。`
    : `⚠️ The queue is full (at most ${capacity} messages); this message was not processed.`;
}

/** The notice after automatic compaction (docs/message-model.md §3 "轻量系统通知": `🔄 聊天历史已自动压缩。`). */
export function presentAutoCompaction(locale: string | null | undefined): string {
  return isChineseLocale(locale) ? '🔄 聊天历史已自动压缩。' : '🔄 Chat history was compacted automatically.';
}

/**
 * The ApplicationFailure types the session workflow's updates fail with, read by the session client to choose
 * an error kind (and by the API to choose a status code). Matched by value, never by message text.
 * - `invalid_message`: the update's argument failed validation (bad message, title or mode)
 * - `queue_full`: the session already holds its queue capacity
 * - `id_taken`: the message id belongs to another session
 * - `input_persistence`: the message (or compaction prompt, or setting) could not be stored; nothing changed
 * - `approval_not_pending`: a `decideApproval` names a tool call that is not waiting for approval
 */
export const WORKFLOW_FAILURE_TYPES = [
  'invalid_message',
  'queue_full',
  'id_taken',
  'input_persistence',
  'approval_not_pending',
] as const;
export type WorkflowFailureType = (typeof WORKFLOW_FAILURE_TYPES)[number];

/** Narrows an ApplicationFailure type to a {@link WorkflowFailureType}, or null for any other value. */
export function asWorkflowFailureType(type: string | null | undefined): WorkflowFailureType | null {
  return (WORKFLOW_FAILURE_TYPES as readonly string[]).includes(type ?? '')
    ? (type as WorkflowFailureType)
    : null;
}

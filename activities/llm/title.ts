/** Title generation for a session (docs/message-flow.md §12), see ModelActivities.generateTitle. */
import { Context } from '@temporalio/activity';
import type { ModelActivities } from '../../workflows/activity-contracts.ts';
import { TITLE_SYSTEM_PROMPT, cleanTitle } from '../../domain/prompts.ts';
import { listSessionMessages } from '../../db/messages.ts';
import { getSession, setAutoTitle } from '../../db/sessions.ts';
import { asModelCallError, providerFailure, requireLlm, type ModelDeps } from './model-deps.ts';
import { streamModelStep, type ModelStepResult } from './provider.ts';

/**
 * Asks the model for a title from the session's first request and first answer, and commits it only while
 * the title is still the default: a user's title always wins. A session whose automatic title is already
 * stored gets that title back (`committed: true`) without a model call.
 * @throws ApplicationFailure `provider:<kind>`, retried when the provider error is retryable
 */
export async function generateTitle(
  deps: ModelDeps,
  { sessionId }: Parameters<ModelActivities['generateTitle']>[0],
): ReturnType<ModelActivities['generateTitle']> {
  const llm = requireLlm(deps);
  const session = await getSession(deps.pool, sessionId);
  // An automatic title committed by an earlier attempt whose signal never reached the session: answered again,
  // without a model call, so this attempt's workflow tells the session.
  if (session?.title_source === 'auto' && session.title) return { title: session.title, committed: true };
  if (!session || session.title_source !== 'default') return { title: null, committed: false };
  const history = await listSessionMessages(deps.pool, sessionId, { limit: 50 });
  const firstUser = history.find((m) => m.role === 'user' && m.type === 'text');
  const firstReply = history.find(
    (m) => m.role === 'assistant' && m.type === 'text' && m.sender === 'Kesoku',
  );
  if (!firstUser) return { title: null, committed: false };
  // The user's first message is the request; the first answer goes along as context in the instruction.
  const system = firstReply
    ? `${TITLE_SYSTEM_PROMPT}\n\nThe assistant answered:\n${firstReply.content.slice(0, 2000)}`
    : TITLE_SYSTEM_PROMPT;
  let result: ModelStepResult;
  try {
    result = await streamModelStep(
      llm,
      { system, messages: [{ role: 'user', content: firstUser.content.slice(0, 4000) }] },
      [],
      { signal: Context.current().cancellationSignal },
    );
  } catch (err) {
    const e = asModelCallError(err);
    throw providerFailure(e, { nonRetryable: !e.retryable });
  }
  const title = cleanTitle(result.text);
  if (!title) return { title: null, committed: false };
  const committed = await setAutoTitle(deps.pool, sessionId, title);
  return { title, committed };
}

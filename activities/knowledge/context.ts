/**
 * The runtime context of a model step (docs/memory.md "Runtime context", docs/message-flow.md §7.1): the time,
 * the channel, who is speaking, the session's active plan and the remembered entries most relevant to the
 * current message. The plan and the memory are read concurrently. Appended once to the last user message of the
 * model input by the preparation path (activities/llm/prepare.ts), never stored in the history.
 */
import type { Message } from '../../domain/message.ts';
import type { ProviderInput } from '../../domain/provider-messages.ts';
import { searchEntries } from '../../db/memory.ts';
import { getPlan, type SessionPlan } from '../../db/plans.ts';
import type { Pool } from '../../db/pool.ts';
import { recallKeys, type SharedScope } from '../../domain/people.ts';
import { speakerOf } from './speaker.ts';

/** The heading that opens the runtime context (the system prompt tells the model what it is). */
export const RUNTIME_CONTEXT_HEADING = '[Runtime Context]';

/** Entries recalled automatically for each message. */
export const AUTO_RECALL_LIMIT = 5;

/** The time zone of the runtime context: `TZ` of the worker process, else what the host reports. */
const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** "2026-12-01 14:03 (Europe/Berlin)" for `now`. */
export function localTime(now: Date, zone = timeZone()): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    weekday: 'short',
  }).formatToParts(now);
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '';
  return `${p('weekday')} ${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')} (${zone})`;
}

/** The plan as lines `1. [done] title`. */
export function planLines(plan: SessionPlan): string[] {
  return plan.steps.map((s, i) => `${i + 1}. [${s.status}] ${s.title}`);
}

/**
 * The runtime context text of the turn whose trigger is `trigger` (null: a turn without a stored trigger). The
 * entries recalled are the speaker's and, where `sharedScopes` covers the session or its channel, the shared ones.
 * @throws whatever Postgres throws (the preparation maps it onto `context_preparation`)
 */
export async function runtimeContext(
  pool: Pool,
  sessionId: string,
  trigger: Message | null,
  now = new Date(),
  sharedScopes: ReadonlySet<SharedScope> = new Set(),
): Promise<string> {
  const query = trigger?.content ?? '';
  // The plan does not depend on who is speaking: its read runs beside the speaker lookup and the recall.
  const [plan, [speaker, recalled]] = await Promise.all([
    getPlan(pool, sessionId),
    speakerOf(pool, sessionId, trigger, sharedScopes).then(
      async (who) =>
        [
          who,
          query.trim() === ''
            ? []
            : await searchEntries(pool, { persons: recallKeys(who), query, limit: AUTO_RECALL_LIMIT }),
        ] as const,
    ),
  ]);
  const lines = [
    RUNTIME_CONTEXT_HEADING,
    `- Time: ${localTime(now)}`,
    `- Channel: ${trigger?.chatbot_id ?? 'api'}`,
    `- Speaking: ${speaker.name}`,
  ];
  if (plan)
    lines.push('- Active plan (update it with update_plan):', ...planLines(plan).map((l) => `  ${l}`));
  if (recalled.length > 0)
    lines.push(
      `- Remembered about ${speaker.name}${speaker.shared ? ' or shared here' : ''} (most relevant to this message; ids for recall/forget):`,
      ...recalled.map((e) => `  - [${e.id} r${e.revision}] ${e.text}`),
    );
  return lines.join('\n');
}

/**
 * `input` with `context` appended to its last user message (a new object; `input` is not changed). An input
 * without a user message is returned as it is.
 */
export function withRuntimeContext(input: ProviderInput, context: string): ProviderInput {
  let last = -1;
  input.messages.forEach((m, i) => {
    if (m.role === 'user') last = i;
  });
  if (last < 0) return input;
  const messages = input.messages.map((m, i) =>
    i === last && m.role === 'user' ? { ...m, content: `${m.content}\n\n${context}` } : m,
  );
  return { ...input, messages };
}

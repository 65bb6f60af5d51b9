/**
 * The model's tools for what the agent knows (docs/memory.md): `remember`, `recall`, `forget` (knowledge memory of
 * the person speaking), `update_plan` (the session's active plan) and `load_skill` (a skill's body). They run in
 * the tool activity like every tool (activities/tools/registry.ts `ToolSource`); each is safe to run again on a
 * retry (a remember is keyed by its tool call, a plan update replaces the plan, the others only read or forget).
 */
import { z } from 'zod';
import { getMessage } from '../../db/messages.ts';
import {
  MEMORY_MAX_CHARS,
  MemoryError,
  forgetEntry,
  rememberEntry,
  reviseEntry,
  searchEntries,
  type MemoryEntry,
} from '../../db/memory.ts';
import { MAX_EVENT_TEXT, publishTurnEvent, type LivePlan } from '../../db/notify.ts';
import { PLAN_STATUSES, setPlan, type SessionPlan } from '../../db/plans.ts';
import type { Pool } from '../../db/pool.ts';
import type { ModelToolSpec } from '../llm/provider.ts';
import { ToolInputError } from '../tools/errors.ts';
import type { ToolCallRef, ToolContext, ToolSource } from '../tools/registry.ts';
import { clip, parseToolArgs, type ToolResult } from '../tools/tool.ts';
import type { SkillCatalog } from './skills.ts';
import { recallKeys, type SharedScope } from '../../domain/people.ts';
import { speakerOf } from './speaker.ts';

/** Most steps a plan holds. */
export const PLAN_MAX_STEPS = 30;

const rememberSchema = z
  .object({
    text: z
      .string()
      .min(1)
      .describe(`What to remember, one fact or preference (at most ${MEMORY_MAX_CHARS} characters).`),
    id: z
      .string()
      .max(64)
      .optional()
      .describe('To correct an entry instead of adding one: its id (from recall).'),
    revision: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('With id: the revision recall showed (required with id).'),
    shared: z
      .boolean()
      .optional()
      .describe(
        'Store it in the memory shared by everyone in this conversation instead of the person’s own (only where a shared memory is configured).',
      ),
  })
  .strict();
const recallSchema = z
  .object({
    query: z.string().max(500).describe('Words to look for; empty: the most recent entries.'),
    limit: z.number().int().min(1).max(50).optional().describe('Most entries returned (default 10).'),
  })
  .strict();
const forgetSchema = z
  .object({ id: z.string().min(1).max(64).describe('The entry id (from recall).') })
  .strict();
const planSchema = z
  .object({
    steps: z
      .array(
        z
          .object({
            title: z.string().trim().min(1).max(200),
            status: z.enum(PLAN_STATUSES),
          })
          .strict(),
      )
      .max(PLAN_MAX_STEPS)
      .describe('The whole plan, in order; an empty list clears it.'),
  })
  .strict();
const loadSkillSchema = z
  .object({ name: z.string().min(1).max(64).describe('The skill name from the system prompt.') })
  .strict();

/** Characters a title keeps in a plan event when the whole plan would not fit one NOTIFY. */
const EVENT_TITLE_CHARS = 40;

/**
 * `plan` as a `plan_updated` turn event carries it: whole when its JSON fits {@link MAX_EVENT_TEXT} bytes, else
 * each title cut to {@link EVENT_TITLE_CHARS} code points (30 steps of 40 characters of 4 bytes stay below it).
 */
export function livePlan(plan: Pick<SessionPlan, 'steps' | 'revision'>): LivePlan {
  const whole = {
    steps: plan.steps.map((s) => ({ title: s.title, status: s.status })),
    revision: plan.revision,
  };
  if (Buffer.byteLength(JSON.stringify(whole)) <= MAX_EVENT_TEXT) return whole;
  const cut = (t: string) => {
    const points = [...t];
    return points.length <= EVENT_TITLE_CHARS ? t : `${points.slice(0, EVENT_TITLE_CHARS - 1).join('')}…`;
  };
  return { ...whole, steps: whole.steps.map((s) => ({ ...s, title: cut(s.title) })) };
}

const specOf = (name: string, description: string, schema: z.ZodType): ModelToolSpec => {
  const { $schema: _, ...parameters } = z.toJSONSchema(schema, { io: 'input' });
  return { name, description, parameters };
};

/** Names of the knowledge tools. */
export const KNOWLEDGE_TOOL_NAMES = ['remember', 'recall', 'forget', 'update_plan', 'load_skill'] as const;

/** The specs of the knowledge tools, for the model request (`load_skill` only when there are skills). */
export function knowledgeToolSpecs(skills: SkillCatalog): ModelToolSpec[] {
  const specs = [
    specOf(
      'remember',
      'Remember a lasting fact about the person you are talking to or their work (a preference, a name, a decision), ' +
        'so it is known in their later conversations, on any channel. One entry per fact; to correct one, pass its id ' +
        'and revision.',
      rememberSchema,
    ),
    specOf(
      'recall',
      "Search the person's remembered entries by words. The entries most relevant to the current message are " +
        'already in the runtime context; use this to look for more.',
      recallSchema,
    ),
    specOf('forget', 'Forget one remembered entry of the person, by id.', forgetSchema),
    specOf(
      'update_plan',
      'Set the plan for a task of several steps: the whole list with each step pending, in_progress or done. ' +
        'Update it as you go; it is shown to the user and to you in every turn of this session.',
      planSchema,
    ),
  ];
  if (skills.skills.length > 0)
    specs.push(
      specOf(
        'load_skill',
        'Load the full instructions of one skill listed in the system prompt.',
        loadSkillSchema,
      ),
    );
  return specs;
}

const entryLine = (e: MemoryEntry) => `[${e.id} r${e.revision}] ${e.text}`;

/** The knowledge tools of one worker. */
export class KnowledgeTools implements ToolSource {
  private readonly pool: Pool;
  private readonly skills: SkillCatalog;
  private readonly sharedScopes: ReadonlySet<SharedScope>;

  /** @param deps.sharedScopes sessions and channels with a shared memory (KESOKU_MEMORY_SHARED_SCOPES); default none */
  constructor(deps: { pool: Pool; skills: SkillCatalog; sharedScopes?: ReadonlySet<SharedScope> }) {
    this.pool = deps.pool;
    this.skills = deps.skills;
    this.sharedScopes = deps.sharedScopes ?? new Set();
  }

  handles(name: string): boolean {
    return (KNOWLEDGE_TOOL_NAMES as readonly string[]).includes(name);
  }

  rerunnable(name: string): boolean {
    return this.handles(name);
  }

  /**
   * Runs one knowledge tool.
   * @throws ToolInputError for bad arguments and refused writes (too long, full, conflict, unknown entry or skill)
   */
  async run(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    const call = ctx.call;
    if (!call) throw new ToolInputError(`${name} needs a session`);
    switch (name) {
      case 'remember':
        return this.remember(parseToolArgs(rememberSchema, args, name), call);
      case 'recall':
        return this.recall(parseToolArgs(recallSchema, args, name), call);
      case 'forget':
        return this.forget(parseToolArgs(forgetSchema, args, name), call);
      case 'update_plan':
        return this.updatePlan(parseToolArgs(planSchema, args, name), call);
      case 'load_skill':
        return this.loadSkill(parseToolArgs(loadSkillSchema, args, name));
      default:
        throw new ToolInputError(`unknown tool "${name}"`);
    }
  }

  private async speaker(call: ToolCallRef) {
    return speakerOf(this.pool, call.sessionId, await getMessage(this.pool, call.turnId), this.sharedScopes);
  }

  private async remember(a: z.output<typeof rememberSchema>, call: ToolCallRef): Promise<ToolResult> {
    const who = await this.speaker(call);
    try {
      if (a.id !== undefined) {
        if (a.revision === undefined)
          throw new ToolInputError('to correct an entry, pass the revision recall showed with its id');
        const e = await reviseEntry(this.pool, {
          id: a.id,
          persons: recallKeys(who),
          text: a.text,
          expectedRevision: a.revision,
        });
        return { content: `Updated ${entryLine(e)}`, summary: clip(`updated ${e.id}`) };
      }
      if (a.shared && !who.shared)
        throw new ToolInputError(
          'this conversation has no shared memory; remember it without `shared` (it is kept for this person)',
        );
      const e = await rememberEntry(this.pool, {
        person: a.shared && who.shared ? who.shared : who.person,
        text: a.text,
        author: who.name,
        sessionId: call.sessionId,
        sourceMessageId: call.turnId,
        sourceCallId: call.toolCallMessageId,
      });
      return { content: `Remembered ${entryLine(e)}`, summary: clip(`remembered ${e.id}`) };
    } catch (err) {
      if (err instanceof MemoryError) {
        const now = err.current ? `\nThe entry now reads: ${entryLine(err.current)}` : '';
        throw new ToolInputError(`${err.message}${now}`);
      }
      throw err;
    }
  }

  private async recall(a: z.output<typeof recallSchema>, call: ToolCallRef): Promise<ToolResult> {
    const who = await this.speaker(call);
    const found = await searchEntries(this.pool, {
      persons: recallKeys(who),
      query: a.query,
      limit: a.limit ?? 10,
    });
    if (found.length === 0) return { content: 'No remembered entries match.', summary: 'no entries' };
    return { content: found.map(entryLine).join('\n'), summary: clip(`${found.length} entries`) };
  }

  private async forget(a: z.output<typeof forgetSchema>, call: ToolCallRef): Promise<ToolResult> {
    const who = await this.speaker(call);
    const e = await forgetEntry(this.pool, { id: a.id, persons: recallKeys(who), by: who.name });
    if (!e)
      throw new ToolInputError(`there is no memory entry ${a.id} of this person (recall lists the ids)`);
    return { content: `Forgot ${e.id}: ${e.text}`, summary: clip(`forgot ${e.id}`) };
  }

  private async updatePlan(a: z.output<typeof planSchema>, call: ToolCallRef): Promise<ToolResult> {
    const plan = await setPlan(this.pool, call.sessionId, a.steps);
    // Whoever watches the turn sees the plan change at once (best effort: the stored plan is what counts).
    await publishTurnEvent(this.pool, {
      s: call.sessionId,
      t: call.turnId,
      type: 'plan_updated',
      plan: livePlan(plan),
    }).catch(() => undefined);
    const done = plan.steps.filter((s) => s.status === 'done').length;
    return {
      content:
        plan.steps.length === 0 ? 'Plan cleared.' : `Plan updated (${done}/${plan.steps.length} done).`,
      summary: clip(plan.steps.length === 0 ? 'plan cleared' : `plan ${done}/${plan.steps.length} done`),
    };
  }

  private loadSkill(a: z.output<typeof loadSkillSchema>): ToolResult {
    const skill = this.skills.get(a.name);
    if (!skill) {
      const names = this.skills.skills.map((s) => s.name).join(', ') || 'none';
      throw new ToolInputError(`there is no skill "${a.name}"; the skills are: ${names}`);
    }
    return {
      content: `# Skill: ${skill.name}\n\n${skill.body}`,
      summary: clip(`loaded skill ${skill.name}`),
    };
  }
}

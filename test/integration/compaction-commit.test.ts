/**
 * Compaction commits are guarded like model steps (real Temporal, real Postgres, the fake model):
 * - a commit that fails once (a Postgres trigger refusing the first summary insert) is tried again without
 *   asking the model a second time, for a manual `/compact` and for the automatic compaction of an overflow;
 * - a `/compact` stopped after the model answered, but before its summary was written, stores no summary, so
 *   the history stays whole;
 * - a compaction is committed only against the version it was built from: of two built from the same history,
 *   exactly one commits, and an automatic compaction overtaken by another is refused and built again.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompactionBaseMovedError,
  commit,
  compactionBaseOf,
  listSessionMessages,
} from '../../db/messages.ts';
import { finalReply, manualCompactionPrompt, type NewMessage } from '../../domain/factories.ts';
import { AUTO_COMPACTION_PROMPT } from '../../domain/prompts.ts';
import { NO_TURN_METRICS } from '../../activities/llm/turn-metrics.ts';
import type { FakeRequest } from '../fakes/model-server.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { recordHistory } from '../support/histories.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

const ENDED = ['processed', 'interrupted', 'error'] as const;

/** Makes the first insert of a compaction summary of `sessionId` fail (a sequence counts across rollbacks). */
async function failFirstSummaryInsert(sessionId: string): Promise<{ (): Promise<void>; sequence: string }> {
  const name = `fail_once_${Math.random().toString(36).slice(2, 10)}`;
  await stack.pool.query(`CREATE SEQUENCE ${name}`);
  await stack.pool.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       -- Nested: SQL does not promise to evaluate AND from left to right, and nextval must count summaries only.
       IF NEW.session_id = '${sessionId}' AND NEW.metadata ? 'compacted_through_seq' THEN
         IF nextval('${name}') = 1 THEN
           RAISE EXCEPTION 'injected: the first compaction commit fails';
         END IF;
       END IF;
       RETURN NEW;
     END $$`,
  );
  await stack.pool.query(
    `CREATE TRIGGER ${name} BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  const restore = async () => {
    await stack.pool.query(`DROP TRIGGER ${name} ON messages`);
    await stack.pool.query(`DROP FUNCTION ${name}()`);
    await stack.pool.query(`DROP SEQUENCE ${name}`);
  };
  return Object.assign(restore, { sequence: name });
}

/** The model requests of `sessionId` whose last message is `prompt` (compaction requests). */
function requestsEndingWith(sessionId: string, prompt: (text: string) => boolean): FakeRequest[] {
  return stack.requestsOf(sessionId).filter((q) => {
    const last = q.body?.messages?.at(-1);
    return typeof last?.content === 'string' && prompt(last.content);
  });
}

/** How many statements matching `like` (SQL LIKE) wait for a lock now. */
async function lockWaiters(like: string): Promise<number | undefined> {
  const r = await stack.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
    [like],
  );
  return r.rows[0]?.n;
}

async function withHistory(session: string): Promise<void> {
  for (const text of ['the first fact is apples', 'the second fact is pears']) {
    await stack.waitForStatus((await stack.submit(session, text)).message.id, ['processed']);
  }
}

const isManualPrompt = (text: string) => text.startsWith('[System Notification] The user manually requested');

describe('a compaction whose commit failed', () => {
  it('/compact: the retry stores the first answer and never asks the model again', async () => {
    const session = uniqueId('s');
    await withHistory(session);
    const restore = await failFirstSummaryInsert(session);
    try {
      stack.script(session, { kind: 'text', text: 'SUMMARY: apples and pears' });
      const { message_id } = await stack.sessions.compact(session);
      expect((await stack.waitForStatus(message_id, [...ENDED])).status).toBe('processed');
      expect(requestsEndingWith(session, isManualPrompt)).toHaveLength(1);
      const summaries = (await stack.messages(session)).filter(
        (m) => m.metadata?.compacted_through_seq !== undefined,
      );
      expect(summaries.map((m) => [m.content, m.status])).toEqual([
        ['SUMMARY: apples and pears', 'delivered'],
      ]);
    } finally {
      await restore();
    }
  });

  it('automatic (overflow recovery): one compaction request, then the turn completes', async () => {
    const session = uniqueId('s');
    await withHistory(session);
    const restore = await failFirstSummaryInsert(session);
    try {
      stack.script(
        session,
        { kind: 'context_overflow' },
        { kind: 'text', text: 'SUMMARY of the earlier context' },
      );
      const r = await stack.submit(session, 'now a big question');
      expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('processed');
      expect(requestsEndingWith(session, (t) => t === AUTO_COMPACTION_PROMPT)).toHaveLength(1);
      const msgs = await stack.messages(session);
      const summaries = msgs.filter((m) => m.metadata?.compacted_through_seq !== undefined);
      expect(summaries.map((m) => m.content)).toEqual(['SUMMARY of the earlier context']);
      const injected = await stack.pool.query<{ n: string }>(
        `SELECT last_value AS n FROM ${restore.sequence}`,
      );
      expect(Number(injected.rows[0]?.n)).toBeGreaterThanOrEqual(1); // the injected failure did happen
      expect(msgs.find((m) => m.sender === 'Kesoku' && m.parent_id === r.message.id)?.content).toBe(
        'echo: now a big question',
      );
    } finally {
      await restore();
    }
  });
});

describe('a /compact stopped after the model answered', () => {
  it('stores no summary: the next turn still sees the whole history', async () => {
    const session = uniqueId('s');
    await withHistory(session);
    stack.script(session, { kind: 'text', text: 'SUMMARY: apples and pears', delayMs: 1000 });
    const { message_id } = await stack.sessions.compact(session);
    await expect.poll(() => requestsEndingWith(session, isManualPrompt).length, { timeout: 20_000 }).toBe(1);
    // Hold the compaction between the model's answer and its commit: its metrics read waits for this lock.
    const holder = new pg.Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE turn_steps IN ACCESS EXCLUSIVE MODE');
      await expect.poll(() => lockWaiters('%FROM turn_steps%'), { timeout: 10_000 }).toBeGreaterThan(0);
      await stack.sessions.stop(session);
      await expect
        .poll(async () => (await stack.waitForStatus(message_id, ['processing'])).metadata?.stop_requested, {
          timeout: 10_000,
        })
        .toBe(true);
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end();
    }
    expect((await stack.waitForStatus(message_id, [...ENDED])).status).toBe('interrupted');
    const msgs = await stack.messages(session);
    expect(msgs.filter((m) => m.metadata?.compacted_through_seq !== undefined)).toEqual([]);

    const after = await stack.submit(session, 'what do you remember?');
    await stack.waitForStatus(after.message.id, ['processed']);
    const sent = JSON.stringify(stack.requestsOf(session).at(-1)?.body?.messages);
    expect(sent).toContain('the first fact is apples');
    await recordHistory('compaction-stopped', stack.client, sessionWorkflowId(session));
  });
});

/** The rows of a compaction of `session` (prompt `id`, summary `id:summary`) covering messages up to `through`. */
function compactionPair(
  session: string,
  id: string,
  through: number,
  summary: string,
): { insert: NewMessage[]; transitions: { id: string; to: 'processing' | 'processed' | 'delivered' }[] } {
  const address = { session_id: session, chatbot_id: 'api', channel_id: session };
  return {
    insert: [
      manualCompactionPrompt({ id, ...address }),
      finalReply({
        id: `${id}:summary`,
        ...address,
        turn_id: id,
        step: 0,
        content: summary,
        turn_metrics: { ...NO_TURN_METRICS },
        compacted_through_seq: through,
      }),
    ],
    transitions: [
      { id, to: 'processing' },
      { id, to: 'processed' },
      { id: `${id}:summary`, to: 'delivered' },
    ],
  };
}

const summariesOf = async (session: string) =>
  (await stack.messages(session))
    .filter((m) => m.metadata?.compacted_through_seq !== undefined)
    .map((m) => m.content);

describe('a compaction is committed only against the version it was built from', () => {
  it('of two compactions built from the same history and committed at the same moment, exactly one is stored', async () => {
    const session = uniqueId('s');
    await withHistory(session);
    const history = await listSessionMessages(stack.pool, session);
    const base = compactionBaseOf(history);
    expect(base).toBe(0);
    const through = Math.max(...history.map((m) => m.seq));
    // Both commits wait on the session row while it is held, so both have started before either can commit.
    const holder = new pg.Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    let outcomes: PromiseSettledResult<unknown>[];
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [session]);
      const racing = Promise.allSettled(
        ['one', 'two'].map((tag) =>
          commit(stack.pool, session, {
            compactionBase: base,
            ...compactionPair(session, `${session}:c-${tag}`, through, `SUMMARY ${tag}`),
          }),
        ),
      );
      await expect.poll(() => lockWaiters('UPDATE sessions SET revision%'), { timeout: 10_000 }).toBe(2);
      await holder.query('COMMIT');
      outcomes = await racing;
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(CompactionBaseMovedError);
    expect(await summariesOf(session)).toHaveLength(1);
    // The refused commit wrote nothing, its compaction prompt included.
    const prompts = (await stack.messages(session)).filter((m) => m.metadata?.is_compaction === true);
    expect(prompts).toHaveLength(1);
  });

  it('an automatic compaction overtaken by another one is refused and built again from the new history', async () => {
    const session = uniqueId('s');
    await stack.waitForStatus((await stack.submit(session, 'the first fact is apples')).message.id, [
      'processed',
    ]);
    const firstTurnEnd = Math.max(...(await stack.messages(session)).map((m) => m.seq));
    await stack.waitForStatus((await stack.submit(session, 'the second fact is pears')).message.id, [
      'processed',
    ]);
    stack.script(
      session,
      { kind: 'context_overflow' },
      { kind: 'text', text: 'SUMMARY built from the old history', delayMs: 3000 },
      { kind: 'text', text: 'SUMMARY built again' },
    );
    const r = await stack.submit(session, 'now a big question');
    // While the model writes the first summary, another compaction of the first turn is committed.
    await expect
      .poll(() => requestsEndingWith(session, (t) => t === AUTO_COMPACTION_PROMPT).length, {
        timeout: 20_000,
      })
      .toBe(1);
    await commit(stack.pool, session, {
      compactionBase: 0,
      ...compactionPair(session, `${session}:rival`, firstTurnEnd, 'SUMMARY of the rival'),
    });
    expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('processed');

    const compactions = requestsEndingWith(session, (t) => t === AUTO_COMPACTION_PROMPT);
    expect(compactions).toHaveLength(2);
    // The second build starts from the rival's summary, not from the first fact.
    const rebuilt = JSON.stringify(compactions[1]?.body?.messages);
    expect(rebuilt).toContain('SUMMARY of the rival');
    expect(rebuilt).not.toContain('the first fact is apples');
    expect(await summariesOf(session)).toEqual(['SUMMARY of the rival', 'SUMMARY built again']);
    const msgs = await stack.messages(session);
    // The turn goes on with the new context (the fake echoes the user text it got last).
    expect(msgs.find((m) => m.sender === 'Kesoku' && m.parent_id === r.message.id)?.content).toMatch(
      /^echo: now a big question/,
    );
  });
});

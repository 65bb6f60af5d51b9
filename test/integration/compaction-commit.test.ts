/**
 * Compaction commits are guarded like model steps (real Temporal, real Postgres, the fake model):
 * - a commit that fails once (a Postgres trigger refusing the first summary insert) is tried again without
 *   asking the model a second time, for a manual `/compact` and for the automatic compaction of an overflow;
 * - a `/compact` stopped after the model answered, but before its summary was written, stores no summary, so
 *   the history stays whole.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_COMPACTION_PROMPT } from '../../domain/prompts.ts';
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
      await expect
        .poll(
          async () =>
            (
              await stack.pool.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM pg_stat_activity
                  WHERE wait_event_type = 'Lock' AND query LIKE '%FROM turn_steps%'`,
              )
            ).rows[0]?.n,
          { timeout: 10_000 },
        )
        .toBeGreaterThan(0);
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

/**
 * A final reply a model step committed just before a `/stop` reached Postgres (the step's guarded commit won the
 * race against the stop's record): the turn ends `interrupted` without delivering it, and the reply is left out
 * of the model's history, so the next turn does not show the model an answer the user never saw. Real Temporal,
 * real Postgres, the fake model; a channel whose sink is not inline (a recording sink).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelSink } from '../../activities/delivery.ts';
import type { Message } from '../../domain/message.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const CHATBOT = 'recording';
const sent: Message[] = [];
const sink = {
  async send(message: Message) {
    sent.push(message);
  },
} as unknown as ChannelSink;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sinks: { [CHATBOT]: sink } });
});
afterAll(async () => stack?.stop());

async function submit(sessionId: string, content: string): Promise<string> {
  const r = await stack.sessions.submit(
    { sessionId, chatbotId: CHATBOT, channelId: sessionId },
    { id: uniqueId('m'), content, sender: 'tester', receivedAt: new Date().toISOString() },
  );
  return r.message.id;
}

/**
 * Backends whose query mentions `text` and that wait, directly or behind another waiter, on a lock held by backend
 * `holder`. Other test files share the database, so a waiter is only counted when the holder is what it waits for.
 */
async function waitersOn(holder: number, text: string): Promise<number> {
  const r = await stack.pool.query<{ pid: number; query: string; blockers: number[] }>(
    `SELECT pid, query, pg_blocking_pids(pid) AS blockers FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
  );
  const behindHolder = new Set<number>([holder]);
  for (let grew = true; grew;) {
    grew = false;
    for (const w of r.rows)
      if (!behindHolder.has(w.pid) && w.blockers.some((b) => behindHolder.has(b))) {
        behindHolder.add(w.pid);
        grew = true;
      }
  }
  return r.rows.filter((w) => w.pid !== holder && behindHolder.has(w.pid) && w.query.includes(text)).length;
}

describe('a reply committed just before /stop', () => {
  it('is not delivered and does not enter the next turn’s history', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'text', text: 'LATE ANSWER about plums', delayMs: 3000 });
    const first = await submit(session, 'tell me about plums');
    await expect.poll(() => stack.requestsOf(session).length, { timeout: 20_000 }).toBe(1);

    // Hold the trigger row: the step's guarded commit queues on it first, then the stop's record behind it.
    const holder = new pg.Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    const holderPid =
      (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? -1;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM messages WHERE id = $1 FOR UPDATE', [first]);
      await expect
        .poll(() => waitersOn(holderPid, 'AS stop FROM messages'), { timeout: 10_000 })
        .toBeGreaterThan(0);
      await stack.sessions.stop(session);
      await expect
        .poll(() => waitersOn(holderPid, '"stop_requested": true'), { timeout: 10_000 })
        .toBeGreaterThan(0);
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end();
    }
    expect((await stack.waitForStatus(first, ['processed', 'interrupted', 'error'])).status).toBe(
      'interrupted',
    );
    const late = (await stack.messages(session)).find((m) => m.content === 'LATE ANSWER about plums');
    expect(late?.status).toBe('pending'); // committed: the commit won the race
    expect(sent.map((m) => m.content)).not.toContain('LATE ANSWER about plums');

    const second = await submit(session, 'and pears?');
    await stack.waitForStatus(second, ['processed']);
    const history = JSON.stringify(stack.requestsOf(session).at(-1)?.body?.messages);
    expect(history).toContain('tell me about plums');
    expect(history).not.toContain('LATE ANSWER about plums');
    expect((await stack.messages(session)).find((m) => m.id === late?.id)?.metadata?.stale).toBe(true);
  });
});

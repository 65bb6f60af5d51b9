/**
 * Fair under load (real Temporal dev server, real Postgres, the fake model over HTTP): sessions running long
 * commands hold tool slots only. With more such sessions than the worker has tool slots, another session's plain
 * turns are still answered while every long command is still running or waiting for a slot; and one step's many
 * tool calls run at most MAX_PARALLEL_TOOL_CALLS at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARALLEL_TOOL_CALLS } from '../../domain/tool-limits.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

const TOOL_SLOTS = 2;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ toolSlots: TOOL_SLOTS, activitySlots: 8 });
});
afterAll(async () => {
  await stack.stop();
});

/** Polls until `check` returns true, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within ${ms} ms`);
}

const countOf = async (sql: string, params: unknown[]) =>
  Number((await stack.pool.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);

describe('a worker under load from long commands', () => {
  it("answers another session's plain turns while more sessions than tool slots run long commands", async () => {
    const busy = Array.from({ length: TOOL_SLOTS + 2 }, () => uniqueId('busy'));
    const triggers: string[] = [];
    for (const s of busy) triggers.push((await stack.submit(s, 'run: sleep 45; echo late')).message.id);
    // Every busy session's step asked for its command: TOOL_SLOTS commands run, the others wait for a slot.
    await until(
      async () =>
        (await countOf(
          `SELECT count(*) AS n FROM messages WHERE session_id = ANY($1) AND type = 'tool_call'`,
          [busy],
        )) === busy.length,
      30_000,
      'every busy session asking for its command',
    );
    await until(
      async () =>
        (await countOf(`SELECT count(*) AS n FROM tool_runs WHERE session_id = ANY($1)`, [busy])) ===
        TOOL_SLOTS,
      30_000,
      'the tool slots filling',
    );

    const plain = uniqueId('plain');
    for (const text of ['hello', 'and again']) {
      const { message } = await stack.submit(plain, text);
      await stack.waitForStatus(message.id, ['processed'], 40_000);
      const reply = (await stack.messages(plain)).find(
        (m) => m.turn_id === message.id && m.type === 'text' && m.role === 'assistant',
      );
      expect(reply?.content).toBe(`echo: ${text}`);
    }
    // The load was there all along: no long command has finished, and some still wait for a slot.
    expect(
      await countOf(
        `SELECT count(*) AS n FROM messages WHERE session_id = ANY($1) AND type = 'tool_result'`,
        [busy],
      ),
    ).toBe(0);
    expect(await countOf(`SELECT count(*) AS n FROM tool_runs WHERE session_id = ANY($1)`, [busy])).toBe(
      TOOL_SLOTS,
    );
    // /stop ends every busy turn, those whose command still waited for a slot included (the server cancels an
    // activity no worker started with details of its own, which the session must be able to read).
    await Promise.all(busy.map((s) => stack.sessions.stop({ sessionId: s, chatbotId: 'api', channelId: s })));
    for (const id of triggers) await stack.waitForStatus(id, ['interrupted'], 30_000);
  });

  it('runs at most MAX_PARALLEL_TOOL_CALLS of one step at once and the rest after', async () => {
    const session = uniqueId('many');
    const calls = MAX_PARALLEL_TOOL_CALLS + 3;
    stack.script(
      session,
      {
        kind: 'tool_calls',
        calls: Array.from({ length: calls }, (_, i) => ({
          name: 'read_file',
          arguments: { path: `missing-${i}.txt` },
        })),
      },
      { kind: 'text', text: 'all read' },
    );
    const { message } = await stack.submit(session, 'read them all');
    await stack.waitForStatus(message.id, ['processed'], 60_000);
    // In the session's history, at most the cap of tool runs are scheduled before the first of them completes.
    const history = await stack.client.workflow.getHandle(sessionWorkflowId(session)).fetchHistory();
    let scheduled = 0;
    let most = 0;
    const toolRun = new Set<string>();
    for (const e of history.events ?? []) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s?.activityType?.name === 'runToolCall') {
        toolRun.add(String(e.eventId));
        scheduled += 1;
        most = Math.max(most, scheduled);
      }
      const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
      if (done && toolRun.has(String(done.scheduledEventId))) scheduled -= 1;
    }
    expect(toolRun.size).toBe(calls);
    expect(most).toBe(MAX_PARALLEL_TOOL_CALLS);
  });
});

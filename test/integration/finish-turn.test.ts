/**
 * Ending a stopped turn in Postgres (the finishTurn activity, real database): the unanswered tool_call ends
 * `interrupted` and no tool_result is stored (the interrupted result is built in memory by the clean-history
 * step), the stop notice is a light notification, and the turn's pending partial answers (assistant text rows
 * with metadata `{partial: true}` that an interrupted model step stored) are returned for delivery.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPersistenceActivities } from '../../activities/persistence.ts';
import { StaleTurnError, commit, getMessage, listTurnMessages, requestStop } from '../../db/messages.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { ensureSession } from '../../db/sessions.ts';
import { listPendingApprovals, writeApproval } from '../../db/approvals.ts';
import { buildCleanHistory } from '../../domain/clean-history.ts';
import { finalReply, toolCall, userQuestion } from '../../domain/factories.ts';
import { createLogger } from '../../infra/logger.ts';
import { uniqueId } from '../support/stack.ts';

let pool: Pool;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'));
});
afterAll(async () => pool?.end());

describe('finishTurn after /stop', () => {
  it('marks the dangling tool_call interrupted, stores no tool_result, and returns the partial answer before the notice', async () => {
    const sessionId = uniqueId('s');
    const turnId = uniqueId('m');
    const address = { session_id: sessionId, chatbot_id: 'api', channel_id: sessionId };
    await ensureSession(pool, { id: sessionId, chatbotId: 'api', channelId: sessionId });
    await commit(pool, sessionId, {
      insert: [userQuestion({ id: turnId, ...address, sender: 'u', content: 'run it', received_at: null })],
    });
    await commit(pool, sessionId, { transitions: [{ id: turnId, to: 'processing' }] });
    const call = toolCall({
      id: `${turnId}:s0:call0`,
      ...address,
      turn_id: turnId,
      step: 0,
      tool_name: 'run_shell_command',
      tool_arguments: { command: 'sleep 300' },
      tool_call_id: 'c0',
    });
    // The row the model-activity helper stores for the streamed part of an interrupted answer.
    const partial = {
      ...finalReply({
        id: `${turnId}:1:partial`,
        ...address,
        turn_id: turnId,
        step: 1,
        content: 'Half an ans',
        turn_metrics: { turn_time: 0, tokens: 0, context_tokens: 0, session_turns: 0 } as never,
      }),
      metadata: { partial: true },
    };
    await commit(pool, sessionId, { insert: [call, partial] });

    const activities = createPersistenceActivities({ pool, logger: createLogger('test', 'silent') });
    const r = await activities.finishTurn({
      sessionId,
      turnId,
      result: { outcome: 'interrupted', reason: 'stop' },
    });
    expect(r.partialIds).toEqual([`${turnId}:1:partial`]);
    expect(r.noticeId).toBe(`${turnId}:notice`);

    const rows = await listTurnMessages(pool, turnId);
    expect(rows.find((m) => m.id === turnId)?.status).toBe('interrupted');
    expect(rows.find((m) => m.id === call.id)?.status).toBe('interrupted');
    expect(rows.filter((m) => m.type === 'tool_result')).toEqual([]);
    expect(rows.find((m) => m.id === `${turnId}:notice`)).toMatchObject({
      sender: 'Notification',
      status: 'pending',
      content: '⏹️ Stopped.',
    });
    // The model's view: the call is answered by an in-memory interrupted result; the notice is filtered out.
    const clean = buildCleanHistory(rows, { currentTurnId: 'next' });
    expect(clean.map((m) => m.id)).toContain(`${call.id}:interrupted`);
    expect(clean.some((m) => m.sender === 'Notification')).toBe(false);

    // Idempotent: a retry finds what the first attempt did.
    const again = await activities.finishTurn({
      sessionId,
      turnId,
      result: { outcome: 'interrupted', reason: 'stop' },
    });
    expect(again).toMatchObject({ noticeId: `${turnId}:notice`, turnCount: r.turnCount });
  });

  it('a model step commit guarded by its turn is refused once a stop was recorded, and nothing of it is written', async () => {
    const sessionId = uniqueId('s');
    const turnId = uniqueId('m');
    const address = { session_id: sessionId, chatbot_id: 'api', channel_id: sessionId };
    await ensureSession(pool, { id: sessionId, chatbotId: 'api', channelId: sessionId });
    await commit(pool, sessionId, {
      insert: [userQuestion({ id: turnId, ...address, sender: 'u', content: 'hi', received_at: null })],
    });
    await commit(pool, sessionId, { transitions: [{ id: turnId, to: 'processing' }] });
    const reply = (step: number) =>
      finalReply({
        id: `${turnId}:s${step}:reply`,
        ...address,
        turn_id: turnId,
        step,
        content: 'answer',
        turn_metrics: { turn_time: 0, tokens: 0, context_tokens: 0, session_turns: 0 } as never,
      });
    // Before the stop: the guarded commit lands.
    expect((await commit(pool, sessionId, { guardTurn: turnId, insert: [reply(0)] })).inserted).toHaveLength(
      1,
    );
    expect(await requestStop(pool, sessionId, turnId)).toBe(true);
    await expect(commit(pool, sessionId, { guardTurn: turnId, insert: [reply(1)] })).rejects.toBeInstanceOf(
      StaleTurnError,
    );
    expect(await getMessage(pool, `${turnId}:s1:reply`)).toBeNull();
    // A trigger that already ended refuses too.
    await commit(pool, sessionId, { transitions: [{ id: turnId, to: 'interrupted' }] });
    expect(await requestStop(pool, sessionId, turnId)).toBe(false);
    await expect(commit(pool, sessionId, { guardTurn: turnId, insert: [reply(2)] })).rejects.toThrow(
      /is interrupted/,
    );
  });
});

describe('finishTurn closes approvals', () => {
  it.each([
    [{ outcome: 'interrupted', reason: 'stop' } as const, 'stop'],
    [{ outcome: 'error', kind: 'tool', detail: 'failed' } as const, 'error'],
  ])('a turn ending %j leaves no approval pending (cancelled by %s)', async (result, by) => {
    const sessionId = uniqueId('s');
    const turnId = uniqueId('m');
    const address = { session_id: sessionId, chatbot_id: 'api', channel_id: sessionId };
    await ensureSession(pool, { id: sessionId, chatbotId: 'api', channelId: sessionId });
    await commit(pool, sessionId, {
      insert: [userQuestion({ id: turnId, ...address, sender: 'u', content: 'run it', received_at: null })],
    });
    await commit(pool, sessionId, { transitions: [{ id: turnId, to: 'processing' }] });
    const call = toolCall({
      id: `${turnId}:s0:call0`,
      ...address,
      turn_id: turnId,
      step: 0,
      tool_name: 'run_shell_command',
      tool_arguments: { command: 'rm -rf build' },
      tool_call_id: 'c0',
    });
    await commit(pool, sessionId, { insert: [call] });
    await writeApproval(
      pool,
      sessionId,
      call.id,
      { state: 'pending', subject: 'rm -rf build', requested_at: new Date().toISOString() },
      [null],
    );
    expect(await listPendingApprovals(pool, sessionId)).toHaveLength(1);

    const activities = createPersistenceActivities({ pool, logger: createLogger('test', 'silent') });
    await activities.finishTurn({ sessionId, turnId, result });
    expect(await listPendingApprovals(pool, sessionId)).toEqual([]);
    expect((await getMessage(pool, call.id))?.metadata?.approval).toMatchObject({ state: 'cancelled', by });
    expect((await getMessage(pool, turnId))?.status).toBe(result.outcome);
  });
});

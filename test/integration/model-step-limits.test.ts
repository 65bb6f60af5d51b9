/**
 * A model step's time limits and its commit (MockActivityEnvironment for the activity context, real Postgres, the
 * fake provider over HTTP): an answer whose commit failed is kept in the heartbeat checkpoint and the retry only
 * stores it, without calling the model again; a call still streaming when its attempt's time is nearly up is
 * stopped by the activity as a timeout the workflow does not retry.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StepOutcome } from '../../workflows/activity-contracts.ts';
import { createModelActivities } from '../../activities/llm/activities.ts';
import { commit, getMessage } from '../../db/messages.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { ensureSession } from '../../db/sessions.ts';
import { userQuestion } from '../../domain/factories.ts';
import { MODEL_STEP_MARGIN_MS } from '../../domain/model-limits.ts';
import { createLogger } from '../../infra/logger.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model-server.ts';

let pool: Pool;
let fake: FakeModelServer;
let dataDir: string;
let n = 0;

beforeAll(async () => {
  pool = createPool(inject('databaseUrl'));
  fake = await startFakeModelServer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-step-limits-'));
});
afterAll(async () => {
  await fake.close();
  await pool.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function activities() {
  return createModelActivities({
    pool,
    logger: createLogger('test', 'silent'),
    llm: { provider: 'openai-compatible', baseUrl: fake.url, model: 'fake', requestTimeoutMs: 10_000 },
    tools: [],
    maxSteps: 8,
    compactTokens: 64_000,
    workspaceDirFor: (id) => path.join(dataDir, id),
    commitRetryMs: 500,
  });
}

/** A session with one pending user message; returns the step input of its first model step. */
async function pendingTurn() {
  n += 1;
  const sessionId = `step-limits-${process.pid}-${Date.now().toString(36)}-${n}`;
  await ensureSession(pool, { id: sessionId, chatbotId: 'api', channelId: sessionId });
  const turnId = `${sessionId}-m1`;
  await commit(pool, sessionId, {
    insert: [
      userQuestion({
        id: turnId,
        session_id: sessionId,
        chatbot_id: 'api',
        channel_id: sessionId,
        sender: 'user',
        content: 'hello',
        received_at: null,
      }),
    ],
  });
  return {
    sessionId,
    turnId,
    step: 0,
    recovery: false,
    turnStartedAt: Date.now(),
    canNudge: true,
    claim: true,
    completeInline: true,
  };
}

const info = { startToCloseTimeoutMs: 20 * 60_000, heartbeatTimeoutMs: 60_000 };

describe('a model step', () => {
  it('whose commit failed is only committed by the retry: the model is called once', async () => {
    const input = await pendingTurn();
    const refuse = `refuse_${n}_${process.pid}`;
    // Postgres refuses this turn's step record, as during a failover: the step's transaction fails at commit.
    await pool.query(`CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.turn_id = '${input.turnId}' THEN RAISE EXCEPTION 'database unavailable'; END IF;
      RETURN NEW; END $$`);
    await pool.query(
      `CREATE TRIGGER ${refuse} BEFORE INSERT ON turn_steps FOR EACH ROW EXECUTE FUNCTION ${refuse}()`,
    );
    const before = fake.chatRequests().length;
    fake.enqueue({ kind: 'text', text: 'the one answer' });
    const first = new MockActivityEnvironment(info);
    let lastBeat: unknown;
    first.on('heartbeat', (d: unknown) => (lastBeat = d));
    try {
      const failed = await first.run(activities().runModelStep, input).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(ApplicationFailure);
      expect((failed as ApplicationFailure).type).toBe('turn_persistence');
      expect((failed as ApplicationFailure).nonRetryable).toBe(false);
    } finally {
      await pool.query(`DROP TRIGGER ${refuse} ON turn_steps`);
      await pool.query(`DROP FUNCTION ${refuse}()`);
    }

    // Were the model called again, the fake's default rules would answer it (and the count below would say so).
    const retry = new MockActivityEnvironment({ ...info, attempt: 2, heartbeatDetails: lastBeat });
    const outcome: StepOutcome = await retry.run(activities().runModelStep, input);
    expect(outcome.kind).toBe('final');
    expect(fake.chatRequests().length - before).toBe(1);
    const replyId = outcome.kind === 'final' ? outcome.replyId : '';
    expect((await getMessage(pool, replyId))?.content).toBe('the one answer');
    expect((await getMessage(pool, input.turnId))?.status).toBe('processed');
  });

  it('still streaming when its attempt is nearly out of time is stopped as a timeout that is not retried', async () => {
    const input = await pendingTurn();
    // 1.5 s left before the margin kept for the commit; the answer keeps streaming (no inactivity timeout).
    const env = new MockActivityEnvironment({
      ...info,
      startToCloseTimeoutMs: MODEL_STEP_MARGIN_MS / 2 + 1500,
    });
    fake.enqueue({ kind: 'slow_text', text: 'word '.repeat(40), chunkDelayMs: 250 });
    const startedAt = Date.now();
    const failed = await env.run(activities().runModelStep, input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(ApplicationFailure);
    expect((failed as ApplicationFailure).type).toBe('provider:timeout');
    expect((failed as ApplicationFailure).nonRetryable).toBe(true);
    expect(Date.now() - startedAt).toBeLessThan(8000);
  });
});

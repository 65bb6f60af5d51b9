/**
 * The docs/message-model.md §4 state machine enforced by Postgres writes: every status change goes through db/messages.ts
 * `commit` (a conditional UPDATE). Every pair of statuses is tried on real rows: allowed changes land with a new
 * revision, illegal ones throw IllegalTransitionError and leave the row exactly as it was.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { commit, getMessage } from '../../db/messages.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { ensureSession } from '../../db/sessions.ts';
import { userQuestion } from '../../domain/factories.ts';
import { STATUSES, type Status } from '../../domain/message.ts';
import { IllegalTransitionError, isAllowedTransition } from '../../domain/status-machine.ts';
import { uniqueId } from '../support/stack.ts';

let pool: Pool;
const session = uniqueId('transitions');
beforeAll(async () => {
  pool = createPool(inject('databaseUrl'));
  await ensureSession(pool, { id: session, chatbotId: 'api', channelId: session });
});
afterAll(async () => pool?.end());

/** A stored message in status `from` (inserted directly in that status, as the row's starting point). */
async function messageIn(from: Status): Promise<string> {
  const m = {
    ...userQuestion({
      id: uniqueId('m'),
      session_id: session,
      chatbot_id: 'api',
      channel_id: session,
      sender: 't',
      content: 'x',
      received_at: null,
    }),
    status: from,
  };
  await commit(pool, session, { insert: [m] });
  return m.id;
}

const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

describe('status changes on real Postgres (docs/message-model.md §4)', () => {
  it.each(pairs)('%s → %s', async (from, to) => {
    const id = await messageIn(from);
    const before = await getMessage(pool, id);
    if (isAllowedTransition(from, to)) {
      const r = await commit(pool, session, { transitions: [{ id, to }] });
      const after = await getMessage(pool, id);
      expect(after?.status).toBe(to);
      if (from !== to) {
        expect(r.updated.map((m) => m.id)).toEqual([id]);
        expect(after?.revision).toBeGreaterThan(before?.revision ?? 0);
      }
    } else {
      const err = await commit(pool, session, { transitions: [{ id, to }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IllegalTransitionError);
      expect(err).toMatchObject({ kind: 'illegal_transition', messageId: id, from, to });
      expect(await getMessage(pool, id)).toEqual(before);
    }
  });

  it('a change and an insert in one commit land together or not at all', async () => {
    const id = await messageIn('processed');
    const extra = {
      ...userQuestion({
        id: uniqueId('m'),
        session_id: session,
        chatbot_id: 'api',
        channel_id: session,
        sender: 't',
        content: 'y',
        received_at: null,
      }),
    };
    await expect(
      commit(pool, session, { insert: [extra], transitions: [{ id, to: 'pending_agent' }] }),
    ).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await getMessage(pool, extra.id)).toBeNull();
  });
});

/**
 * Tool-call approval with Google Chat card buttons, end to end: the real channel (HTTP endpoint, Chat API
 * client) against the fake Google Chat, a real Kesoku stack (Temporal dev server, Postgres, the fake model, real
 * shell commands) under Google Chat's default policy (`writes`).
 *
 * A waiting call gets one card with Approve / Deny / Always buttons in the thread, mentioning the requester; a
 * CARD_CLICKED by the requester or a GOOGLE_CHAT_APPROVERS user decides it and is answered with the updated card
 * (UPDATE_MESSAGE, no buttons); anyone else gets a private message and the call keeps waiting.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../../activities/tools/activities.ts';
import { APPROVAL_FUNCTION } from '../approvals.ts';
import { getApprovalSettings, listPendingApprovals, type PendingApprovalRow } from '../../../db/approvals.ts';
import type { Message } from '../../../domain/message.ts';
import type { ToolApproval } from '../../../domain/tool-approval.ts';
import { cardClickedEvent, messageEvent, type FakeChatMessage } from './fake-server.ts';
import { startGoogleChatBench, type GoogleChatBench } from './harness.ts';

const carol = { name: 'users/3003', displayName: 'Carol' };
const mallory = { name: 'users/6666', displayName: 'Mallory' };
const stranger = { name: 'users/7777', displayName: 'Stranger' };

let bench: GoogleChatBench;
beforeAll(async () => {
  // No KESOKU_TOOL_APPROVAL: Google Chat's own default applies (writes).
  bench = await startGoogleChatBench(
    // Carol, the approver, may use the app like Alice (1001) and Mallory; the stranger may not.
    { GOOGLE_CHAT_ALLOWED_USERS: 'users/1001,users/6666,users/3003', GOOGLE_CHAT_APPROVERS: '3003' },
    { approvals: { timeoutS: 600 } },
  );
});
afterAll(async () => bench?.stop());

const approvalOf = (m: Message | undefined) => (m?.metadata as { approval?: ToolApproval } | null)?.approval;

async function waitPending(session: string): Promise<PendingApprovalRow> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [pending] = await listPendingApprovals(bench.stack.pool, session);
    if (pending) return pending;
    if (Date.now() > deadline) throw new Error(`no pending approval in ${session}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const cardText = (m: { cardsV2?: unknown[] }) => JSON.stringify(m.cardsV2 ?? []);

/** Asks for a command in a fresh space and waits for the approval card. */
async function ask(command: string) {
  const space = `spaces/S${randomBytes(6).toString('hex')}`;
  const thread = `${space}/threads/T1`;
  await bench.fake.postEvent(
    bench.endpoint,
    messageEvent({ space, thread, messageId: 'M1', text: `run: ${command}` }),
  );
  const session = `googlechat:${space.slice(7)}:T1`;
  const pending = await waitPending(session);
  const card = await bench.fake.waitFor(
    () => bench.fake.messagesIn(space).find((m) => cardText(m).includes(APPROVAL_FUNCTION)),
    20_000,
    'the approval card',
  );
  return { space, thread, session, pending, card, inbound: `googlechat-${space.slice(7)}-M1` };
}

const click = async (
  card: FakeChatMessage,
  callId: string,
  decision: string,
  user?: { name: string; displayName: string },
) => {
  const res = await bench.fake.postEvent(
    bench.endpoint,
    cardClickedEvent({
      message: card,
      ...(user ? { user } : {}),
      function: APPROVAL_FUNCTION,
      parameters: { decision, call: callId },
    }),
  );
  expect(res.status).toBe(200);
  return JSON.parse(res.body) as Record<string, unknown>;
};

const linesOf = (session: string): string[] => {
  const p = path.join(workspaceDirFor(bench.stack.dataDir, session), 'runs.txt');
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n').filter(Boolean) : [];
};

describe('Google Chat approval cards', () => {
  it('approve: one card in the thread mentions the requester; her click runs the command once', async () => {
    const { thread, session, pending, card, inbound } = await ask(
      'echo ran >> runs.txt; echo gchat-approved',
    );
    expect(card.thread.name).toBe(thread);
    expect(card.text).toBe('<users/1001> please decide:');
    expect(cardText(card)).toContain('echo ran &gt;&gt; runs.txt; echo gchat-approved');
    for (const d of ['approve', 'deny', 'always']) expect(cardText(card)).toContain(`"value":"${d}"`);
    expect(linesOf(session)).toEqual([]);

    const answer = await click(card, pending.call_id, 'approve');
    expect(answer.actionResponse).toEqual({ type: 'UPDATE_MESSAGE' });
    expect(cardText(answer)).toContain('✅ Approved by googlechat:users/1001');
    expect(cardText(answer)).not.toContain(APPROVAL_FUNCTION);

    expect((await bench.stack.waitForStatus(inbound, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    const msgs = await bench.stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'approved',
      by: 'googlechat:users/1001',
    });
    expect(linesOf(session)).toEqual(['ran']);
    // The card was also patched to the outcome once recorded (no buttons left).
    const patched = await bench.fake.waitFor(() => !cardText(card).includes(APPROVAL_FUNCTION) && card);
    expect(cardText(patched)).toContain('Approved');
  }, 90_000);

  it('a click by someone else gets a private note and nothing is decided; an approver then denies', async () => {
    const { session, pending, card, inbound } = await ask('echo ran >> runs.txt');
    const refused = await click(card, pending.call_id, 'approve', mallory);
    expect(refused).toMatchObject({
      actionResponse: { type: 'NEW_MESSAGE' },
      privateMessageViewer: { name: mallory.name },
    });
    expect(String(refused.text)).toMatch(/Only the person who asked, or an approver/);
    // Someone who may not use the app at all is refused before the requester/approver rule.
    const stray = await click(card, pending.call_id, 'approve', stranger);
    expect(stray).toMatchObject({ privateMessageViewer: { name: stranger.name } });
    expect(String(stray.text)).toMatch(/not allowed to use this app/);
    await new Promise((r) => setTimeout(r, 500));
    expect((await listPendingApprovals(bench.stack.pool, session)).map((p) => p.call_id)).toEqual([
      pending.call_id,
    ]);
    expect(cardText(card)).toContain(APPROVAL_FUNCTION);

    const denied = await click(card, pending.call_id, 'deny', carol);
    expect(denied.actionResponse).toEqual({ type: 'UPDATE_MESSAGE' });
    expect(cardText(denied)).toContain('❌ Denied by googlechat:users/3003');
    expect((await bench.stack.waitForStatus(inbound, ['processed', 'error', 'interrupted'])).status).toBe(
      'processed',
    );
    const msgs = await bench.stack.messages(session);
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toMatch(/the user denied this command/);
    expect(linesOf(session)).toEqual([]);

    // A late click shows the recorded outcome and decides nothing.
    const late = await click(card, pending.call_id, 'approve');
    expect(late.actionResponse).toEqual({ type: 'UPDATE_MESSAGE' });
    expect(cardText(late)).toContain('❌ Denied by googlechat:users/3003');
    expect(linesOf(session)).toEqual([]);
  }, 90_000);

  it('/approval in a space: anyone allowed tightens it, only an approver loosens it', async () => {
    const space = `spaces/S${randomBytes(6).toString('hex')}`;
    const thread = `${space}/threads/T1`;
    const session = `googlechat:${space.slice(7)}:T1`;
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M1', text: 'hello' }),
    );
    await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M1`, ['processed', 'error', 'interrupted']);
    let n = 1;
    const approval = async (policy: string, user?: { name: string; displayName: string }) => {
      const messageId = `C${++n}`;
      await bench.fake.postEvent(
        bench.endpoint,
        messageEvent({ space, thread, messageId, text: `/approval ${policy}`, ...(user ? { user } : {}) }),
      );
      const before = n;
      return bench.fake.waitFor(
        () =>
          bench.fake
            .messagesIn(space)
            .filter((m) => /Approval:|approver/.test(m.text ?? ''))
            .at(before - 2)?.text,
        20_000,
        `the answer to /approval ${policy}`,
      );
    };
    expect(await approval('all')).toContain('Approval: all');
    // Alice may talk but is no GOOGLE_CHAT_APPROVERS user: she cannot switch approval off for the space.
    expect(await approval('off')).toContain('Only an approver can loosen');
    expect(await getApprovalSettings(bench.stack.pool, session)).toMatchObject({ policy: 'all' });
    expect(await approval('off', carol)).toContain('Approval: off');
    expect(await getApprovalSettings(bench.stack.pool, session)).toMatchObject({ policy: 'off' });
  }, 60_000);
});

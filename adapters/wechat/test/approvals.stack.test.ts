/**
 * Tool-call approval on WeChat, end to end: the real channel (HTTP endpoint, customer-service API client) against
 * the fake WeChat, a real Kesoku stack (Temporal dev server, Postgres, the fake model, real shell commands) under
 * WeChat's default policy (`writes`).
 *
 * A waiting call is asked about in one plain text to the follower; the follower answers by typing `/approve`,
 * `/deny` or `/always` (the oldest waiting call is decided, by `wechat:<OpenID>`) and is told what was decided;
 * a decision taken elsewhere (REST) or the end of the turn (`/stop`) is told in a short text; a typed answer with
 * nothing waiting says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../../activities/tools/activities.ts';
import { listPendingApprovals, type PendingApprovalRow } from '../../../db/approvals.ts';
import { getSession } from '../../../db/sessions.ts';
import type { Message } from '../../../domain/message.ts';
import type { ToolApproval } from '../../../domain/tool-approval.ts';
import { startWechatBench, type WechatBench } from './harness.ts';

let bench: WechatBench;
beforeAll(async () => {
  // No KESOKU_TOOL_APPROVAL: WeChat's own default applies (writes).
  bench = await startWechatBench({}, { retryIntervalMs: 0 }, { approvals: { timeoutS: 600 } });
});
afterAll(async () => bench?.stop());

const sessionOf = (openId: string) => `wechat:${openId}`;
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

const linesOf = (session: string): string[] => {
  const p = path.join(workspaceDirFor(bench.stack.dataDir, session), 'runs.txt');
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n').filter(Boolean) : [];
};

/** The texts sent to `user` once there are at least `n`. */
const texts = (user: string, n: number) =>
  bench.fake.waitFor(
    () => (bench.fake.sentTo(user).length >= n ? bench.fake.sentTo(user) : undefined),
    20_000,
    `${n} texts to ${user}`,
  );

/** A new follower asks for `command`; resolves once the call waits and its request text reached the fake. */
async function ask(command: string) {
  const user = await bench.pairedUser();
  const session = sessionOf(user);
  const { msgId } = await bench.fake.push({ from: user, content: `run: ${command}` });
  const pending = await waitPending(session);
  const [request] = await texts(user, 1);
  return { user, session, pending, request: request as string, inbound: `wechat-${msgId}` };
}

const settled = async (inbound: string) =>
  (await bench.stack.waitForStatus(inbound, ['processed', 'error', 'interrupted'], 45_000)).status;

describe('WeChat typed approvals', () => {
  it('approve: one request text names the call; a typed /approve runs the command once and the reply comes', async () => {
    const command = 'echo ran >> runs.txt; echo wechat-approved';
    const { user, session, pending, request, inbound } = await ask(command);
    expect(request).toContain(`🔐 Approval needed: run_shell_command: ${command}`);
    for (const c of ['/approve', '/deny', '/always']) expect(request).toContain(c);
    expect(request).toContain('No answer within 10 minutes counts as /deny.');
    expect(Buffer.byteLength(request, 'utf8')).toBeLessThanOrEqual(2048);
    expect(linesOf(session)).toEqual([]);

    // Asked again (an activity retry, a continue-as-new, another worker): the recorded text stands.
    const call = (await bench.stack.messages(session)).find((m) => m.id === pending.call_id) as Message;
    const row = await getSession(bench.stack.pool, session);
    await bench.channel.sink?.askApproval?.(call, approvalOf(call) as ToolApproval, row!);
    await new Promise((r) => setTimeout(r, 300));
    expect(bench.fake.sentTo(user)).toEqual([request]);

    await bench.fake.push({ from: user, content: '/approve' });
    expect(await settled(inbound)).toBe('processed');
    const msgs = await bench.stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'approved',
      by: `wechat:${user}`,
      decision: 'approve',
    });
    expect(linesOf(session)).toEqual(['ran']);
    // The answer to /approve and the final reply; no outcome text (the follower decided it themselves).
    const sent = await texts(user, 3);
    expect(sent).toContain(`✅ Approved: run_shell_command: ${command}`);
    expect(sent).toContain('Done: wechat-approved');
    await new Promise((r) => setTimeout(r, 500));
    expect(bench.fake.sentTo(user)).toHaveLength(3);
    // No command became a message of the conversation.
    expect(msgs.some((m) => m.content.includes('/approve'))).toBe(false);
  }, 90_000);

  it('deny: the model gets a denied result and answers; /approve afterwards finds nothing waiting', async () => {
    const { user, session, inbound } = await ask('echo ran >> runs.txt');
    await bench.fake.push({ from: user, content: '/deny' });
    expect(await settled(inbound)).toBe('processed');
    const msgs = await bench.stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'denied',
      by: `wechat:${user}`,
    });
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toMatch(/the user denied this command/);
    expect(linesOf(session)).toEqual([]);
    const sent = await texts(user, 3);
    expect(sent).toContain('❌ Denied: run_shell_command: echo ran >> runs.txt');
    expect(sent.find((t) => t.startsWith('Done:'))).toMatch(/^Done: Error: the user denied this command/);

    await bench.fake.push({ from: user, content: '/approve' });
    expect((await texts(user, 4))[3]).toBe('Nothing is waiting for your approval.');
  }, 90_000);

  it('/approve from a follower with no conversation yet answers that nothing waits', async () => {
    const user = await bench.pairedUser();
    await bench.fake.push({ from: user, content: '/approve' });
    expect(await texts(user, 1)).toEqual(['Nothing is waiting for your approval.']);
    expect(await bench.stack.messages(sessionOf(user))).toEqual([]);
  });

  it('a decision taken elsewhere (REST) is told in a short text; /always adds the pattern', async () => {
    const { user, session, pending, inbound } = await ask('echo ran >> runs.txt');
    await bench.stack.sessions.decideApproval(session, {
      callId: pending.call_id,
      decision: 'approve',
      by: 'api:alice',
    });
    expect(await settled(inbound)).toBe('processed');
    const sent = await texts(user, 3);
    expect(sent).toContain('✅ Approved by api:alice: run_shell_command: echo ran >> runs.txt');
    expect(linesOf(session)).toEqual(['ran']);

    // `/always` on the next call: it runs, and a later call of the same program runs without asking.
    const second = await bench.fake.push({ from: user, content: 'run: touch again.txt' });
    await bench.fake.waitFor(
      () => bench.fake.sentTo(user).filter((t) => t.startsWith('🔐')).length === 2 || undefined,
      30_000,
      'the second request',
    );
    await bench.fake.push({ from: user, content: '/always' });
    expect(await settled(`wechat-${second.msgId}`)).toBe('processed');
    const answer = await bench.fake.waitFor(
      () => bench.fake.sentTo(user).find((t) => t.startsWith('✅ Approved (always)')),
      20_000,
      'the /always answer',
    );
    expect(answer).toContain('From now on touch * runs without asking in this conversation.');
    const third = await bench.fake.push({ from: user, content: 'run: touch third.txt' });
    expect(await settled(`wechat-${third.msgId}`)).toBe('processed');
    const workspace = workspaceDirFor(bench.stack.dataDir, session);
    for (const f of ['again.txt', 'third.txt']) expect(fs.existsSync(path.join(workspace, f)), f).toBe(true);
    expect(bench.fake.sentTo(user).filter((t) => t.startsWith('🔐'))).toHaveLength(2);
  }, 120_000);

  it('/stop while waiting ends the turn; the follower is told the call was not run', async () => {
    const { user, session, inbound } = await ask('echo ran >> runs.txt');
    await bench.fake.push({ from: user, content: '/stop' });
    expect(await settled(inbound)).toBe('interrupted');
    const sent = await texts(user, 3);
    expect(sent).toContain('⏹️ Stopping the current turn.');
    expect(sent).toContain(
      '⏹️ No longer waiting (the turn ended), not run: run_shell_command: echo ran >> runs.txt',
    );
    const msgs = await bench.stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({ state: 'cancelled' });
    expect(linesOf(session)).toEqual([]);
    await bench.fake.push({ from: user, content: '/approve' });
    expect((await texts(user, 4))[3]).toBe('Nothing is waiting for your approval.');
  }, 90_000);
});

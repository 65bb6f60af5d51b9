/**
 * Tool-call approval with Discord buttons, end to end: the real discord.js client against the fake Discord
 * (INTERACTION_CREATE type 3, the interaction callback, the edited message), a real Kesoku stack (Temporal dev
 * server, Postgres, the fake model, real shell commands) under Discord's default policy (`writes`).
 *
 * A call that waits gets one message with Approve / Deny / Always buttons replying to the requester; a click by
 * the requester or a DISCORD_APPROVERS user decides it (callback 7 edits the message, buttons removed); anyone
 * else gets an ephemeral refusal and the call keeps waiting; a late click shows the recorded outcome; `/stop`
 * edits the message too, and so does a timeout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDirFor } from '../../../activities/tools/activities.ts';
import { parseApprovalCustomId } from '../approvals.ts';
import { listPendingApprovals, type PendingApprovalRow } from '../../../db/approvals.ts';
import { revokePairing } from '../../../db/pairings.ts';
import { getSession } from '../../../db/sessions.ts';
import type { Message } from '../../../domain/message.ts';
import type { ToolApproval } from '../../../domain/tool-approval.ts';
import { snowflake, type FakeInteraction, type FakeMessage } from './fake-server.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

const EPHEMERAL = 1 << 6;
const bob = { id: snowflake(), username: 'bob', global_name: 'Bob' };
const carol = { id: snowflake(), username: 'carol', global_name: 'Carol' };

let bench: DiscordBench;
beforeAll(async () => {
  // No KESOKU_TOOL_APPROVAL: Discord's own default applies (writes).
  bench = await startDiscordBench({ DISCORD_APPROVERS: `123,${bob.id}` }, 6, {
    stack: { approvals: { timeoutS: 600 } },
  });
  // Bob (an approver) and Carol may use the bot like Alice; Mallory may not.
  await pair(bob.id, 'Bob');
  await pair(carol.id, 'Carol');
});
async function pair(id: string, name: string): Promise<void> {
  await bench.stack.pool.query(
    `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('discord', $1, $2, 'cli')
     ON CONFLICT DO NOTHING`,
    [id, name],
  );
}
afterAll(async () => bench?.stop());

const approvalOf = (m: Message | undefined) => (m?.metadata as { approval?: ToolApproval } | null)?.approval;

/** Polls until the session has a tool call waiting for approval. */
async function waitPending(session: string): Promise<PendingApprovalRow> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [pending] = await listPendingApprovals(bench.stack.pool, session);
    if (pending) return pending;
    if (Date.now() > deadline) throw new Error(`no pending approval in ${session}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The bot's messages with buttons in `channelId`, and the custom id of each button of the first. */
function approvalMessages(channelId: string): FakeMessage[] {
  return bench.fake.botMessages(channelId).filter((m) => m.content.startsWith('🔐'));
}
function buttonsOf(m: FakeMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of (m.components ?? []) as { components: { custom_id: string }[] }[])
    for (const b of row.components) {
      const parsed = parseApprovalCustomId(b.custom_id);
      if (parsed) out[parsed.decision] = b.custom_id;
    }
  return out;
}

const answered = (it: FakeInteraction) =>
  bench.fake.waitFor(() => {
    const x = bench.fake.gateway.interaction(it.id);
    return x && x.callbacks.length > 0 ? x : undefined;
  }, 20_000);

const linesOf = (session: string, file = 'runs.txt'): string[] => {
  const p = path.join(workspaceDirFor(bench.stack.dataDir, session), file);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n').filter(Boolean) : [];
};

/** Asks for a command in a fresh channel and waits for the approval message. */
async function ask(channel: string, command: string) {
  const session = `discord:${channel}`;
  const { id } = await bench.say({ channelId: channel, content: `run: ${command}`, mentionBot: true });
  const pending = await waitPending(session);
  const message = await bench.fake.waitFor(() => approvalMessages(channel)[0], 20_000, 'approval message');
  return { id, session, pending, message };
}

describe('Discord approval buttons', () => {
  it('approve: one message with buttons replies to the requester; her click runs the command once', async () => {
    const channel = bench.channels[0] as string;
    const { id, session, pending, message } = await ask(channel, 'echo ran >> runs.txt; echo approved-run');
    // A reply to Alice's message that pings her, with the command and the three buttons.
    expect(message.message_reference?.message_id).toBe(id);
    expect(message.allowed_mentions).toEqual({ parse: [], replied_user: true });
    expect(message.content).toContain('echo ran >> runs.txt; echo approved-run');
    const buttons = buttonsOf(message);
    expect(Object.keys(buttons).sort()).toEqual(['always', 'approve', 'deny']);
    expect(parseApprovalCustomId(buttons.approve as string)?.callId).toBe(pending.call_id);
    expect(linesOf(session)).toEqual([]);

    // Asked again (an activity retry, a continue-as-new): the recorded message stands, nothing is posted.
    const call = (await bench.stack.messages(session)).find((m) => m.id === pending.call_id) as Message;
    const row = await getSession(bench.stack.pool, session);
    await bench.adapter.sink.askApproval?.(call, approvalOf(call) as ToolApproval, row!);
    expect(approvalMessages(channel)).toHaveLength(1);

    const click = bench.fake.gateway.clickButton({
      messageId: message.id,
      customId: buttons.approve as string,
      author: bench.alice,
    });
    const answer = await answered(click);
    expect(answer.callbacks[0]).toMatchObject({ type: 7, data: { components: [] } });
    expect(answer.callbacks[0]?.afterMs).toBeLessThan(3000);
    expect(String(answer.callbacks[0]?.data?.content)).toContain(`✅ Approved by <@${bench.alice.id}>`);

    const done = await bench.waitInbound(id);
    expect(done.status).toBe('processed');
    const msgs = await bench.stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'approved',
      by: `discord:${bench.alice.id}`,
      decision: 'approve',
    });
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toContain('approved-run');
    expect(linesOf(session)).toEqual(['ran']);
    const reply = await bench.fake.waitFor(() =>
      bench.repliesTo(channel, id).find((m) => m.content.includes('Done:')),
    );
    expect(reply.content).toContain('approved-run');
    // The edited message shows the decision and has no buttons; still one approval message.
    const edited = approvalMessages(channel);
    expect(edited).toHaveLength(1);
    expect(edited[0]?.content).toContain(`✅ Approved by <@${bench.alice.id}>`);
    expect(edited[0]?.components ?? []).toEqual([]);
  }, 90_000);

  it('deny: the command does not run, the model is told and answers, the message says denied', async () => {
    const channel = bench.channels[1] as string;
    const { id, session, message } = await ask(channel, 'echo ran >> runs.txt');
    const click = bench.fake.gateway.clickButton({
      messageId: message.id,
      customId: buttonsOf(message).deny as string,
      author: bench.alice,
    });
    const answer = await answered(click);
    expect(answer.callbacks[0]?.type).toBe(7);
    expect(String(answer.callbacks[0]?.data?.content)).toContain(`❌ Denied by <@${bench.alice.id}>`);

    expect((await bench.waitInbound(id)).status).toBe('processed');
    const msgs = await bench.stack.messages(session);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({
      state: 'denied',
      by: `discord:${bench.alice.id}`,
    });
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toMatch(/the user denied this command/);
    const reply = await bench.fake.waitFor(() =>
      bench.repliesTo(channel, id).find((m) => m.content.includes('Done:')),
    );
    expect(reply.content).toMatch(/Done: Error: the user denied/);
    expect(linesOf(session)).toEqual([]);
    expect(approvalMessages(channel)[0]?.content).toContain('❌ Denied by');
  }, 90_000);

  it('a click by someone else is refused (ephemeral) and the call still waits; an approver then decides', async () => {
    const channel = bench.channels[2] as string;
    const { id, session, pending, message } = await ask(channel, 'echo ran >> runs.txt');
    const buttons = buttonsOf(message);
    const refusal = async (author: DiscordBench['alice']) => {
      const it = await answered(
        bench.fake.gateway.clickButton({
          messageId: message.id,
          customId: buttons.approve as string,
          author,
        }),
      );
      expect(it.callbacks[0]?.type).toBe(4);
      expect(Number(it.callbacks[0]?.data?.flags) & EPHEMERAL).toBe(EPHEMERAL);
      return String(it.callbacks[0]?.data?.content);
    };

    // Carol may talk to the bot but did not ask and is no approver.
    expect(await refusal(carol)).toMatch(/Only the person who asked, or an approver/);
    // Mallory may not use the bot at all.
    expect(await refusal(bench.mallory)).toMatch(/not allowed to use this bot/);
    // Alice asked, but her pairing was revoked since: her click is refused like any stranger's.
    await revokePairing(bench.stack.pool, 'discord', bench.alice.id);
    try {
      expect(await refusal(bench.alice)).toMatch(/not allowed to use this bot/);
    } finally {
      await pair(bench.alice.id, 'Alice');
    }
    // Nothing was decided: the call still waits and the message still has its buttons.
    await new Promise((r) => setTimeout(r, 500));
    expect((await listPendingApprovals(bench.stack.pool, session)).map((p) => p.call_id)).toEqual([
      pending.call_id,
    ]);
    expect(Object.keys(buttonsOf(approvalMessages(channel)[0] as FakeMessage))).toHaveLength(3);
    expect(linesOf(session)).toEqual([]);

    // Bob is in DISCORD_APPROVERS: his click decides.
    const approved = await answered(
      bench.fake.gateway.clickButton({
        messageId: message.id,
        customId: buttons.approve as string,
        author: bob,
      }),
    );
    expect(approved.callbacks[0]).toMatchObject({ type: 7, data: { components: [] } });
    expect(String(approved.callbacks[0]?.data?.content)).toContain(`✅ Approved by <@${bob.id}>`);
    expect((await bench.waitInbound(id)).status).toBe('processed');
    expect(
      approvalOf((await bench.stack.messages(session)).find((m) => m.type === 'tool_call')),
    ).toMatchObject({ state: 'approved', by: `discord:${bob.id}` });
    expect(linesOf(session)).toEqual(['ran']);

    // A late click (a client still showing the buttons) decides nothing and shows the recorded outcome.
    const late = await answered(
      bench.fake.gateway.clickButton({
        messageId: message.id,
        customId: buttons.deny as string,
        author: bench.alice,
        stale: true,
      }),
    );
    expect(late.callbacks[0]?.type).toBe(7);
    expect(String(late.callbacks[0]?.data?.content)).toContain(`✅ Approved by <@${bob.id}>`);
    expect(linesOf(session)).toEqual(['ran']);
  }, 90_000);

  it('a decision that went through, whose message update failed, is not reported as failed', async () => {
    const channel = bench.channels[4] as string;
    const { id, session, message } = await ask(channel, 'echo ran >> runs.txt');
    // The update (callback 7) is refused; the note that follows goes through.
    bench.fake.failNext('POST /interactions/:id/:token/callback', {
      kind: 'error',
      status: 400,
      code: 50035,
      message: 'Invalid Form Body',
    });
    const click = await answered(
      bench.fake.gateway.clickButton({
        messageId: message.id,
        customId: buttonsOf(message).approve as string,
        author: bench.alice,
      }),
    );
    const note = String(click.callbacks.at(-1)?.data?.content);
    expect(note).toContain('Your decision was recorded');
    expect(note).not.toContain('please try again');
    expect((await bench.waitInbound(id)).status).toBe('processed');
    expect(linesOf(session)).toEqual(['ran']);
  }, 90_000);

  it('/stop while waiting: the message is edited to say the call was not decided', async () => {
    const channel = bench.channels[3] as string;
    const { id, message } = await ask(channel, 'echo ran >> runs.txt');
    bench.fake.gateway.injectCommand({ channelId: channel, author: bench.alice, name: 'stop' });
    expect((await bench.waitInbound(id)).status).toBe('interrupted');
    const edited = await bench.fake.waitFor(
      () => bench.fake.messages.find((m) => m.id === message.id && m.content.includes('⏹️')),
      20_000,
      'the edit after /stop',
    );
    expect(edited.content).toContain('⏹️ Not decided: the turn ended.');
    expect(edited.components ?? []).toEqual([]);
    // The stop notice is shown in the turn's live status (the visibility matrix's system_log row), not in the
    // approval message.
    await bench.fake.waitFor(
      () =>
        bench.fake.botMessages(channel).find((m) => m.id !== message.id && m.content.includes('⏹️ Stopped.')),
      20_000,
      'the stop notice',
    );
  }, 90_000);
});

describe('Discord approval buttons in a thread (DISCORD_THREADS), short timeout', () => {
  let threads: DiscordBench;
  beforeAll(async () => {
    threads = await startDiscordBench({ DISCORD_THREADS: 'true' }, 2, {
      stack: { approvals: { timeoutS: 8 } },
    });
  });
  afterAll(async () => threads?.stop());

  it('the message mentions the requester (a thread is not a reply) and her click decides', async () => {
    const channel = threads.channels[1] as string;
    const { id } = await threads.say({
      channelId: channel,
      content: 'run: echo ran >> runs.txt',
      mentionBot: true,
    });
    const thread = id; // a thread started from a message has the message's id
    const message = await threads.fake.waitFor(
      () => threads.fake.botMessages(thread).find((m) => m.content.startsWith(`<@${threads.alice.id}> 🔐`)),
      30_000,
      'the approval message in the thread',
    );
    expect(message.message_reference).toBeUndefined();
    expect(message.allowed_mentions).toEqual({ parse: [], users: [threads.alice.id] });
    const custom = buttonsOf(message).approve as string;
    const click = threads.fake.gateway.clickButton({
      messageId: message.id,
      customId: custom,
      author: threads.alice,
    });
    const answer = await threads.fake.waitFor(() => {
      const x = threads.fake.gateway.interaction(click.id);
      return x && x.callbacks.length > 0 ? x : undefined;
    });
    expect(answer.callbacks[0]?.type).toBe(7);
    expect((await threads.waitInbound(id)).status).toBe('processed');
    const p = path.join(workspaceDirFor(threads.stack.dataDir, `discord:${thread}`), 'runs.txt');
    expect(fs.readFileSync(p, 'utf8')).toBe('ran\n');
  }, 60_000);

  it('a timeout counts as deny and the message is edited to say so', async () => {
    const channel = threads.channels[0] as string;
    const { id } = await threads.say({
      channelId: channel,
      content: 'run: echo ran >> runs.txt',
      mentionBot: true,
    });
    const message = await threads.fake.waitFor(
      () => threads.fake.botMessages(id).find((m) => m.content.includes('🔐')),
      30_000,
      'the approval message in the thread',
    );
    const edited = await threads.fake.waitFor(
      () => threads.fake.messages.find((m) => m.id === message.id && m.content.includes('⌛')),
      30_000,
      'the edit after the timeout',
    );
    expect(edited.content).toContain('⌛ Nobody decided in time: not run.');
    expect(edited.components ?? []).toEqual([]);
    expect((await threads.waitInbound(id)).status).toBe('processed');
    const msgs = await threads.stack.messages(`discord:${id}`);
    expect(approvalOf(msgs.find((m) => m.type === 'tool_call'))).toMatchObject({ state: 'timed_out' });
    expect(msgs.find((m) => m.type === 'tool_result')?.content).toMatch(/nobody approved this command/);
  }, 60_000);
});

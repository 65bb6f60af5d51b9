/**
 * Slash commands as Discord application commands, end to end (the real discord.js client against the fake
 * Discord, a real Kesoku stack): registered at start, answered through interaction callbacks within 3 s (deferred
 * for a slow one, then the original response edited), under the same access rule as messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppCommandExtension } from '../app-commands.ts';
import { conversationChannelOf, createConversations } from '../conversations.ts';
import { getApprovalSettings } from '../../../db/approvals.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

const EPHEMERAL = 1 << 6;

/** A slow command another module could add (as the approval command does): proves the hook and deferral. */
const slow: AppCommandExtension = {
  definition: { name: 'slowpoke', description: 'Takes a while' },
  async run(invocation, sessionId) {
    await new Promise((r) => setTimeout(r, 2500));
    return { content: `done for ${invocation.user.displayName} in ${sessionId}` };
  },
};

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench(
    ({ aliceId, guildId }) => ({ DISCORD_ALLOWED_USERS: aliceId, DISCORD_ALLOWED_GUILDS: guildId }),
    6,
    { adapter: { appCommands: [slow] } },
  );
});
afterAll(async () => bench?.stop());

const answered = (id: string) =>
  bench.fake.waitFor(() => {
    const it = bench.fake.gateway.interaction(id);
    return it && it.callbacks.length > 0 ? it : undefined;
  });

describe('Discord slash commands', () => {
  it('registers the commands for each allowed guild at start, in one bulk overwrite', async () => {
    const names = (bench.fake.gateway.commands(bench.guildId) ?? []).map((c) => c.name).sort();
    expect(names).toEqual([
      'approval',
      'compact',
      'help',
      'locale',
      'mode',
      'new',
      'slowpoke',
      'status',
      'stop',
      'title',
    ]);
    expect(bench.fake.gateway.commands()).toBeUndefined(); // not global when guilds are listed
    const title = bench.fake.gateway.commands(bench.guildId)?.find((c) => c.name === 'title');
    expect(title?.options?.[0]).toMatchObject({ name: 'text', type: 3, required: true });
    const puts = bench.fake.calls.filter((c) => c.method === 'PUT' && c.route.endsWith('/commands'));
    expect(puts).toHaveLength(1);
    expect(puts[0]?.status).toBe(200);
  });

  it('sets the title with /title and shows the state with /status, answering within 3 s', async () => {
    const channel = bench.channels[0] as string;
    const first = await bench.say({ channelId: channel, content: 'hello', mentionBot: true });
    await bench.waitInbound(first.id);

    const title = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.alice,
      name: 'title',
      options: { text: 'Groceries' },
    });
    const t = await answered(title.id);
    expect(t.callbacks[0]).toMatchObject({ type: 4, data: { content: '📝 Title set: Groceries' } });
    expect(t.callbacks[0]?.afterMs).toBeLessThan(3000);
    expect(await bench.stack.sessions.state(`discord:${channel}`)).toMatchObject({ title: 'Groceries' });

    const status = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.alice,
      name: 'status',
    });
    const s = await answered(status.id);
    expect(s.callbacks[0]?.type).toBe(4);
    expect(String(s.callbacks[0]?.data?.content)).toMatch(/Idle[\s\S]*Title: Groceries/);
    expect(Number(s.callbacks[0]?.data?.flags) & EPHEMERAL).toBe(EPHEMERAL);
    // Commands are never queued as messages.
    expect(
      (await bench.stack.messages(`discord:${channel}`)).some((m) => m.content.includes('Groceries')),
    ).toBe(false);
  });

  it('/approval in a server channel: anyone allowed tightens it, only an approver loosens it', async () => {
    const channel = bench.channels[0] as string;
    await bench.waitInbound((await bench.say({ channelId: channel, content: 'hi', mentionBot: true })).id);
    const approval = async (policy: string) => {
      const i = bench.fake.gateway.injectCommand({
        channelId: channel,
        author: bench.alice,
        name: 'approval',
        options: { policy },
      });
      return String((await answered(i.id)).callbacks[0]?.data?.content);
    };
    expect(await approval('all')).toContain('Approval: all');
    // Alice may talk but is no DISCORD_APPROVERS user: she cannot switch approval off for the channel.
    expect(await approval('off')).toContain('Only an approver can loosen');
    expect(await approval('writes')).toContain('Only an approver can loosen');
    expect(await getApprovalSettings(bench.stack.pool, `discord:${channel}`)).toMatchObject({
      policy: 'all',
    });
  });

  it('stops a running turn with /stop, without any mention', async () => {
    const channel = bench.channels[1] as string;
    const { id } = await bench.say({ channelId: channel, content: 'sleep: 20', mentionBot: true });
    await bench.waitInbound(id, ['processing']);
    const stop = bench.fake.gateway.injectCommand({ channelId: channel, author: bench.alice, name: 'stop' });
    const s = await answered(stop.id);
    expect(s.callbacks[0]?.data?.content).toBe('⏹️ Stopping the current turn.');
    expect((await bench.waitInbound(id, ['interrupted', 'processed', 'error'])).status).toBe('interrupted');
  });

  it('defers a slow command and then edits the deferred response', async () => {
    const channel = bench.channels[2] as string;
    const run = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.alice,
      name: 'slowpoke',
    });
    const it1 = await answered(run.id);
    expect(it1.callbacks[0]?.type).toBe(5);
    expect(it1.callbacks[0]?.afterMs).toBeLessThan(3000);
    const done = await bench.fake.waitFor(() => (it1.response?.content ? it1.response : undefined));
    expect(done.content).toBe(`done for Alice in discord:${channel}`);
  });

  it('runs no command for a user who may not talk to the bot: only a private note', async () => {
    const channel = bench.channels[3] as string;
    const first = await bench.say({ channelId: channel, content: 'hi', mentionBot: true });
    await bench.waitInbound(first.id);
    const title = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.mallory,
      name: 'title',
      options: { text: 'Pwned' },
    });
    const t = await answered(title.id);
    expect(t.callbacks[0]?.type).toBe(4);
    expect(String(t.callbacks[0]?.data?.content)).toMatch(/^🔒/);
    expect(Number(t.callbacks[0]?.data?.flags) & EPHEMERAL).toBe(EPHEMERAL);
    expect((await bench.stack.sessions.state(`discord:${channel}`)).title).not.toBe('Pwned');
    // The slow extension is not run for a stranger either (the answer is immediate).
    const slowRun = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.mallory,
      name: 'slowpoke',
    });
    expect((await answered(slowRun.id)).callbacks[0]?.type).toBe(4);
  });

  it('starts a new conversation with /new: the next message goes to a fresh session without the old history', async () => {
    const channel = bench.channels[5] as string;
    const first = await bench.say({
      channelId: channel,
      content: 'remember the word tangerine',
      mentionBot: true,
    });
    await bench.waitInbound(first.id);
    const fresh = bench.fake.gateway.injectCommand({ channelId: channel, author: bench.alice, name: 'new' });
    expect((await answered(fresh.id)).callbacks[0]?.data?.content).toMatch(/^🆕 New conversation/);

    const next = await bench.say({ channelId: channel, content: 'which word?', mentionBot: true });
    const stored = await bench.waitInbound(next.id);
    expect(stored.session_id).toBe(`discord:${channel}:1`);
    expect(stored.channel_id).toBe(channel);
    await bench.fake.waitFor(() => bench.repliesTo(channel, next.id)[0]);
    const prompt = JSON.stringify(
      bench.stack.requestsOf(`discord:${channel}:1`).at(-1)?.body?.messages ?? [],
    );
    expect(prompt).toContain('which word?');
    expect(prompt).not.toContain('tangerine');
    // /status and /title now act on the new conversation (once its turn has ended, a moment after the reply).
    for (let i = 0; (await bench.stack.sessions.state(`discord:${channel}:1`)).turnCount < 1; i++) {
      if (i > 200) throw new Error('the turn of the new conversation did not end');
      await new Promise((r) => setTimeout(r, 50));
    }
    const status = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.alice,
      name: 'status',
    });
    expect(String((await answered(status.id)).callbacks[0]?.data?.content)).toMatch(/turns: 1/);
  });

  it('keeps the typed form: a typed /mode queue with a mention still works', async () => {
    const channel = bench.channels[4] as string;
    const first = await bench.say({ channelId: channel, content: 'hi', mentionBot: true });
    await bench.waitInbound(first.id);
    const mode = await bench.say({ channelId: channel, content: '/mode queue', mentionBot: true });
    expect(mode.outcome).toBe('command');
    expect((await bench.stack.sessions.state(`discord:${channel}`)).mode).toBe('queue');
  });

  it('keeps the typed forms of /new, /status and /help: the same code and the same answers as the slash forms', async () => {
    const channel = bench.channels[5] as string; // already in conversation 1 (the /new test above)
    const before = await bench.say({
      channelId: channel,
      content: 'remember the word plum',
      mentionBot: true,
    });
    const remembered = await bench.waitInbound(before.id);
    // The reply comes a moment before the workflow ends the turn: wait for idle so both /status read the same.
    await expect
      .poll(async () => (await bench.stack.sessions.state(remembered.session_id)).status, { timeout: 15_000 })
      .toBe('idle');

    // Typed /status answers what the slash /status answers.
    const typedStatus = await bench.say({ channelId: channel, content: '/status', mentionBot: true });
    expect(typedStatus.outcome).toBe('command');
    const statusReply = await bench.fake.waitFor(() => bench.repliesTo(channel, typedStatus.id)[0]);
    const slash = bench.fake.gateway.injectCommand({
      channelId: channel,
      author: bench.alice,
      name: 'status',
    });
    expect(statusReply.content).toBe((await answered(slash.id)).callbacks[0]?.data?.content);
    expect(statusReply.content).toMatch(/Idle[\s\S]*turns: 2/);

    // Typed /new starts the next conversation, like the slash /new.
    const typedNew = await bench.say({ channelId: channel, content: '/new', mentionBot: true });
    expect(typedNew.outcome).toBe('command');
    const newReply = await bench.fake.waitFor(() => bench.repliesTo(channel, typedNew.id)[0]);
    expect(newReply.content).toMatch(/^🆕 New conversation/);
    const next = await bench.say({ channelId: channel, content: 'which fruit?', mentionBot: true });
    const stored = await bench.waitInbound(next.id);
    expect(stored.session_id).toBe(`discord:${channel}:2`);
    const prompt = JSON.stringify(
      bench.stack.requestsOf(`discord:${channel}:2`).at(-1)?.body?.messages ?? [],
    );
    expect(prompt).not.toContain('plum');
    // Commands are never stored as messages of either conversation.
    for (const sessionId of [`discord:${channel}:1`, `discord:${channel}:2`])
      expect((await bench.stack.messages(sessionId)).some((m) => /\/(new|status)/.test(m.content))).toBe(
        false,
      );

    // Typed /help lists the commands, /new and /status among them.
    const help = await bench.say({ channelId: channel, content: '/help', mentionBot: true });
    expect(help.outcome).toBe('command');
    const helpReply = await bench.fake.waitFor(() => bench.repliesTo(channel, help.id)[0]);
    for (const c of ['/stop', '/compact', '/title', '/mode', '/locale', '/new', '/status'])
      expect(helpReply.content).toContain(`\`${c}`);
  });

  it('starts one conversation for a /new delivered twice (gateway replay, catch-up after a restart)', async () => {
    const channel = bench.channels[4] as string;
    const conversations = createConversations(bench.stack.pool);
    const a = await conversations.startNew(channel, 'discord-command-111');
    const b = await conversations.startNew(channel, 'discord-command-111');
    expect(b).toEqual({ ...a, repeated: true });
    expect(a.repeated).toBe(false);
    expect((await conversations.current(channel)).sessionId).toBe(a.next.sessionId);
    const c = await conversations.startNew(channel, 'discord-command-222');
    expect(c.next.sessionId).toBe(`discord:${channel}:${Number(a.next.sessionId.split(':')[2]) + 1}`);
    expect(conversationChannelOf(c.next.sessionId)).toBe(channel);
    expect(conversationChannelOf(`discord:${channel}`)).toBe(channel);
    expect(conversationChannelOf(`googlechat:spaces/x`)).toBeNull();
  });
});

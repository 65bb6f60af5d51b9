/**
 * The Discord adapter end to end: the real discord.js client against the fake Discord, a real Kesoku stack
 * (Temporal dev server, Postgres, fake model, worker) with the adapter's sink as `sinks.discord`.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../infra/config.ts';
import { loadDiscordConfig } from '../config.ts';
import { createLogger } from '../../../infra/logger.ts';
import { startDiscordAdapter } from '../run.ts';
import { createDiscordIngress } from '../ingress.ts';
import { discordPolicy } from '../policy.ts';
import { QUIET_FLAGS, createDiscordRest } from '../rest.ts';
import { snowflake } from './fake-server.ts';
import { fenceCount, snowflakeTime, startDiscordBench, type DiscordBench } from './harness.ts';
import { recordHistory } from '../../../test/support/histories.ts';
import { sessionWorkflowId } from '../../../workflows/definitions.ts';

let bench: DiscordBench;
beforeAll(async () => {
  // Only Alice is allowed (deny by default once a list is set); Kesoku answers mentions and DMs.
  // The Message Content intent is asked for, so a typed `/stop` without a mention can be read. Long replies stay
  // split into messages here (the splitter end to end); reply.md is tested in shared-channels.
  bench = await startDiscordBench(({ aliceId }) => ({
    DISCORD_ALLOWED_USERS: aliceId,
    DISCORD_MESSAGE_CONTENT: 'true',
    DISCORD_MAX_CHUNKS: '100',
  }));
});
afterAll(async () => bench?.stop());

const STATUS_FLAGS = (1 << 2) | (1 << 12);

describe('Discord adapter', () => {
  it('answers a mention with a direct reply headed by the turn metrics, keeping sender, time and context', async () => {
    const channel = bench.channels[1] as string;
    const { id, outcome } = await bench.say({
      channelId: channel,
      content: 'hello there',
      mentionBot: true,
      nick: 'Ali',
    });
    expect(outcome).toBe('submitted');
    const question = await bench.waitInbound(id);
    expect(question.status).toBe('processed');

    // Inbound fidelity (docs/message-flow.md §10): sender, received_at, reply_to, opaque channel context.
    expect(question.session_id).toBe(`discord:${channel}`);
    expect(question.chatbot_id).toBe('discord');
    expect(question.channel_id).toBe(channel);
    expect(question.sender).toBe('Ali');
    expect(question.received_at).toBe(snowflakeTime(id).toISOString());
    expect(question.content).toMatch(
      new RegExp(
        `^\`Ali\` <@${bench.alice.id}> at \`\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\`:\\nhello there$`,
      ),
    );
    expect(question.metadata).toMatchObject({
      discord_message_id: id,
      reply_to: id,
      channel_context: { channel_id: channel, guild_id: bench.guildId, message_id: id },
    });

    const replies = await bench.fake.waitFor(() => {
      const r = bench.repliesTo(channel, id);
      return r.length > 0 ? r : null;
    });
    expect(replies).toHaveLength(1);
    const reply = replies[0];
    expect(reply?.content.split('\n')[0]).toMatch(/^-# ⏱ \d+\.\ds · 🔧 0 tools · \d+ tokens$/);
    expect(reply?.content).toContain('echo: ');
    expect(reply?.content).toContain('hello there');
    expect(reply?.message_reference).toMatchObject({ message_id: id, fail_if_not_exists: false });
    expect(reply?.allowed_mentions).toMatchObject({ parse: [] });
    const post = bench.fake
      .callsTo('POST /channels/:id/messages')
      .find(
        (c) =>
          c.body?.message_reference !== undefined &&
          (c.body.message_reference as { message_id: string }).message_id === id,
      );
    expect(post?.body).toMatchObject({ enforce_nonce: true });
    expect(String(post?.body?.nonce).length).toBeLessThanOrEqual(25);
    expect(
      bench.fake.callsTo('POST /channels/:id/typing').some((c) => c.path === `/channels/${channel}/typing`),
    ).toBe(true);

    const stored = (await bench.stack.messages(`discord:${channel}`)).find(
      (m) => m.role === 'assistant' && m.type === 'text',
    );
    expect(stored?.status).toBe('delivered');
  });

  it('live-renders a tool call as ⏳ and edits it in place to ✅, then replies', async () => {
    const channel = bench.channels[2] as string;
    const { id } = await bench.say({ channelId: channel, content: 'run: echo hi', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    expect(reply.content).toContain('Done: hi');
    expect(reply.content).toMatch(/🔧 1 tool ·/);

    // The status's last edit follows the reply (it waits for the edit throttle, the reply does not).
    await bench.fake.waitFor(() =>
      bench.fake.botMessages(channel).find((m) => m.flags === STATUS_FLAGS && m.content.includes('✅')),
    );
    const statuses = bench.fake.botMessages(channel).filter((m) => m.flags === STATUS_FLAGS);
    expect(statuses).toHaveLength(1);
    const status = statuses[0];
    // Markdown in a thought is shown as typed (escaped), so it cannot restyle the status lines after it.
    expect(status?.history[0]).toContain('💭 I will run \\`echo hi\\`.');
    expect(status?.history[0]).toMatch(/🛠️ `run_shell_command` `echo hi` ⏳/);
    expect(status?.content).toMatch(/🛠️ `run_shell_command` `echo hi` ✅ `hi`/);
    expect(status?.content).not.toContain('⏳');
    expect(status?.history.length).toBeGreaterThanOrEqual(2);
    // The status came first, the reply last; the status is never a reply and never pings.
    expect(BigInt(status?.id ?? 0) < BigInt(reply.id)).toBe(true);
    expect(status?.message_reference).toBeUndefined();
    const messages = await bench.stack.messages(`discord:${channel}`);
    expect(
      messages
        .filter((m) => m.type === 'thought' || m.type === 'tool_call' || m.type === 'tool_result')
        .map((m) => m.status),
    ).toEqual(['delivered', 'delivered', 'delivered']);
    await recordHistory('discord-tool-turn', bench.stack.client, sessionWorkflowId(`discord:${channel}`));
  });

  it("shows a running command's time and last output line under its ⏳ line, and drops them once it is done", async () => {
    const channel = bench.channels[11] as string;
    const { id } = await bench.say({
      channelId: channel,
      content: 'run: echo disc-first; sleep 7; echo disc-done',
      mentionBot: true,
    });
    const statusOf = () => bench.fake.botMessages(channel).find((m) => m.flags === STATUS_FLAGS);
    const live = await bench.fake.waitFor(
      () => (statusOf()?.content.includes('└ `disc-first`') ? statusOf() : undefined),
      20_000,
      'the output tail in the status',
    );
    expect(live.content).toMatch(
      /`echo disc-first; sleep 7; echo disc-done` ⏳ · \d+\.\ds\n-# └ `disc-first`$/,
    );
    // While the command is silent its time still moves (a tick every 5 s), over the same output line.
    await bench.fake.waitFor(
      () => /⏳ · [5-9]\.\ds\n-# └ `disc-first`$/.test(statusOf()?.content ?? '') || undefined,
      15_000,
      'the running time of the silent command',
    );
    expect((await bench.waitInbound(id)).status).toBe('processed');
    await bench.fake.waitFor(() => (statusOf()?.content.includes('✅') ? true : undefined), 10_000, 'the ✅');
    expect(statusOf()?.content).not.toContain('└');
  });

  it('splits a 300-line code block reply into chunks of at most 2000 characters with balanced fences', async () => {
    const channel = bench.channels[3] as string;
    const code = Array.from(
      { length: 300 },
      (_, i) => `print("line ${String(i).padStart(3, '0')} of the generated script")`,
    ).join('\n');
    const text = `Here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\nRun it with python3.`;
    bench.stack.script(`discord:${channel}`, { kind: 'text', text });
    const { id } = await bench.say({ channelId: channel, content: 'a long script please', mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const chunks = await bench.fake.waitFor(() => {
      const all = bench.fake.botMessages(channel);
      return all.length >= 5 ? all : null;
    });
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(2000);
      expect(c.content.trim()).not.toBe('');
      expect(fenceCount(c.content) % 2).toBe(0);
    }
    expect(chunks[0]?.content.startsWith('-# ⏱')).toBe(true);
    expect(chunks[0]?.message_reference).toBeDefined();
    expect(chunks.slice(1).every((c) => c.message_reference === undefined)).toBe(true);
    expect(chunks.slice(1, -1).every((c) => c.content.startsWith('```python\n'))).toBe(true);
    const lines = chunks.flatMap((c) => c.content.split('\n')).filter((l) => l.startsWith('print('));
    expect(lines).toEqual(code.split('\n'));
    expect(bench.fake.calls.filter((c) => c.status === 400)).toEqual([]);
  });

  it('ignores a user who is not on the allowlist: nothing is submitted, nothing is sent', async () => {
    const channel = bench.channels[4] as string;
    const before = bench.fake.calls.length;
    const { id, outcome } = await bench.say({
      channelId: channel,
      author: bench.mallory,
      content: 'let me in',
      mentionBot: true,
    });
    expect(outcome).toBe('denied');
    await new Promise((r) => setTimeout(r, 300));
    const rows = await bench.stack.pool.query('SELECT id FROM messages WHERE id = $1 OR session_id = $2', [
      `discord-${id}`,
      `discord:${channel}`,
    ]);
    expect(rows.rowCount).toBe(0);
    expect(bench.fake.calls.slice(before).filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('does not answer a guild message that does not mention it', async () => {
    const { outcome } = await bench.say({ channelId: bench.channels[4] as string, content: 'just chatting' });
    expect(outcome).toBe('not_addressed');
  });

  it('answers a DM without a mention, in the DM channel', async () => {
    const dm = snowflake();
    const { id } = await bench.say({ channelId: dm, dm: true, content: 'hi in private' });
    const question = await bench.waitInbound(id);
    expect(question.session_id).toBe(`discord:${dm}`);
    expect(question.metadata?.channel_context).toMatchObject({ channel_id: dm, guild_id: null });
    const reply = await bench.fake.waitFor(() => bench.repliesTo(dm, id)[0]);
    expect(reply.content).toContain('echo: ');
    expect(reply.content).toContain('hi in private');
  });

  it('answers in a thread, with the thread as the session and the parent in the context', async () => {
    const { id } = await bench.say({
      channelId: bench.threadId,
      content: 'from the thread',
      mentionBot: true,
    });
    const question = await bench.waitInbound(id);
    expect(question.session_id).toBe(`discord:${bench.threadId}`);
    expect(question.metadata?.channel_context).toEqual({
      channel_id: bench.threadParentId,
      guild_id: bench.guildId,
      message_id: id,
      message_channel_id: bench.threadId,
      thread_id: bench.threadId,
    });
    await bench.fake.waitFor(() => bench.repliesTo(bench.threadId, id)[0]);
  });

  it('brings an attachment-only message to the agent: staged file, metadata, and a mention in the prompt', async () => {
    const dm = snowflake();
    const file = bench.fake.addAttachment('notes.txt', 'remember the milk\n', 'text/plain');
    const { id } = await bench.say({ channelId: dm, dm: true, content: '', attachments: [file] });
    const question = await bench.waitInbound(id);
    expect(question.status).toBe('processed');
    const [attachment] = question.metadata?.attachments ?? [];
    expect(attachment).toMatchObject({ name: 'notes.txt', content_type: 'text/plain', size: 18 });
    // Stored in the session's attachment directory (outside the workspace), where read_file can open it.
    expect(attachment?.path).toContain(`${bench.stack.dataDir}/attachments/discord%3A${dm}/${id}/`);
    expect(fs.readFileSync(attachment?.path ?? '', 'utf8')).toBe('remember the milk\n');
    const prompt = bench.stack
      .requestsOf(`discord:${dm}`)
      .flatMap((r) => r.body?.messages ?? [])
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .find((c) => c.includes('notes.txt'));
    expect(prompt).toContain(`[Attachment: notes.txt (text/plain, 18 B) saved at ${attachment?.path}]`);
    // The model gets the file's content in the current turn.
    expect(prompt).toContain('remember the milk');
    await bench.fake.waitFor(() => bench.repliesTo(dm, id)[0]);
  });

  it('stops a slow turn on /stop: confirmation, the stop notice in the live status, the question interrupted', async () => {
    const channel = bench.channels[5] as string;
    const { id } = await bench.say({ channelId: channel, content: 'sleep: 20', mentionBot: true });
    await bench.waitInbound(id, ['processing']);
    await bench.fake.waitFor(() =>
      bench.stack.fake
        .chatRequests()
        .some((r) => JSON.stringify(r.body?.messages ?? []).includes('sleep: 20')),
    );
    const started = Date.now();
    const stop = await bench.say({ channelId: channel, content: '/stop', mentionBot: true });
    expect(stop.outcome).toBe('command');
    const question = await bench.waitInbound(id, ['interrupted', 'processed', 'error']);
    expect(question.status).toBe('interrupted');
    expect(Date.now() - started).toBeLessThan(10_000);
    const confirmation = await bench.fake.waitFor(() => bench.repliesTo(channel, stop.id)[0]);
    expect(confirmation.content).toBe('⏹️ Stopping the current turn.');
    // docs/message-model.md §5.3: the system log is `live` on Discord, so the notice is a line of the turn's status
    // message (posted for it: the turn had shown nothing yet), not a reply; it ends up `delivered`.
    const status = await bench.fake.waitFor(() =>
      bench.fake.botMessages(channel).find((m) => m.content.includes('⏹️ Stopped.')),
    );
    expect(status.content).toBe('⏹️ Stopped.');
    expect(status.flags).toBe(QUIET_FLAGS);
    expect(status.message_reference).toBeUndefined();
    expect(bench.repliesTo(channel, id)).toEqual([]);
    const stored = await bench.stack.waitForStatus(`discord-${id}:notice`, ['delivered']);
    expect(stored.sender).toBe('Notification');
    // The command itself was never queued as a message.
    const rows = await bench.stack.pool.query('SELECT id FROM messages WHERE id = $1', [
      `discord-${stop.id}`,
    ]);
    expect(rows.rowCount).toBe(0);
    await recordHistory('discord-stop', bench.stack.client, sessionWorkflowId(`discord:${channel}`));
  });

  it('sets the title and the mode with chat commands', async () => {
    const channel = bench.channels[6] as string;
    const { id } = await bench.say({ channelId: channel, content: 'first', mentionBot: true });
    await bench.waitInbound(id);
    const title = await bench.say({ channelId: channel, content: '/title Groceries', mentionBot: true });
    expect((await bench.fake.waitFor(() => bench.repliesTo(channel, title.id)[0])).content).toBe(
      '📝 Title set: Groceries',
    );
    const mode = await bench.say({ channelId: channel, content: '/mode queue', mentionBot: true });
    expect((await bench.fake.waitFor(() => bench.repliesTo(channel, mode.id)[0])).content).toContain(
      'Mode: queue',
    );
    const state = await bench.stack.sessions.state(`discord:${channel}`);
    expect(state).toMatchObject({ title: 'Groceries', mode: 'queue' });
  });

  it('submits an attachment message and the text sent right after it in arrival order (slow CDN)', async () => {
    const channel = bench.channels[7] as string;
    const file = bench.fake.addAttachment('log.csv', 'a,b\n1,\n', 'text/csv', { delayMs: 1500 });
    const first = bench.say({
      channelId: channel,
      content: 'here is the log',
      mentionBot: true,
      attachments: [file],
    });
    // Sent at once, while the first message's attachment is still downloading.
    const second = bench.say({
      channelId: channel,
      content: 'what is wrong with column b?',
      mentionBot: true,
    });
    const [a, b] = await Promise.all([first, second]);
    expect([a.outcome, b.outcome]).toEqual(['submitted', 'submitted']);
    await bench.waitInbound(b.id);
    const rows = await bench.stack.pool.query<{ id: string }>(
      `SELECT id FROM messages WHERE session_id = $1 AND role = 'user' ORDER BY seq`,
      [`discord:${channel}`],
    );
    expect(rows.rows.map((r) => r.id)).toEqual([`discord-${a.id}`, `discord-${b.id}`]);
  });

  it('runs a command message delivered twice only once (update id from the Discord message id)', async () => {
    const channel = bench.channels[8] as string;
    const { id } = await bench.say({ channelId: channel, content: 'first', mentionBot: true });
    await bench.waitInbound(id);
    // A second adapter process that receives the same MESSAGE_CREATE (a replay after a reconnect).
    const replayer = createDiscordIngress({
      sessions: bench.stack.sessions,
      rest: createDiscordRest({ token: bench.fake.token, apiUrl: bench.fake.apiUrl }),
      logger: createLogger('discord-test', 'silent'),
      policy: discordPolicy(loadDiscordConfig({ DISCORD_ALLOWED_USERS: bench.alice.id })),
      botUser: () => ({ id: bench.fake.bot.id, name: bench.fake.bot.username }),
      staging: { dataDir: bench.stack.dataDir },
    });
    const compact = await bench.say({ channelId: channel, content: '/compact', mentionBot: true });
    expect(compact.outcome).toBe('command');
    const replayed = {
      id: compact.id,
      channelId: channel,
      guildId: bench.guildId,
      parentId: null,
      isThread: false,
      isDM: false,
      author: { id: bench.alice.id, bot: false, displayName: 'Alice' },
      content: `<@${bench.fake.bot.id}> /compact`,
      createdAt: snowflakeTime(compact.id),
      type: 0,
      mentionsBot: true,
      attachments: [],
    };
    expect(await replayer.handle(replayed)).toBe('command');
    expect(await replayer.handle(replayed)).toBe('command');
    // The compaction prompts (user rows); the summary the compaction turn stores is `compact-…:s0:summary`.
    const compactions = await bench.stack.pool.query(
      `SELECT id, status, created_at FROM messages WHERE session_id = $1 AND role = 'user' AND id LIKE 'compact-%'`,
      [`discord:${channel}`],
    );
    expect(compactions.rows).toHaveLength(1);
    expect(bench.repliesTo(channel, compact.id)).toHaveLength(1);
  });

  it('counts a mention of its managed role and a reply to its message without the ping as addressing it', async () => {
    const channel = bench.channels[9] as string;
    const role = bench.fake.botRoleId(bench.guildId);
    const viaRole = await bench.say({ channelId: channel, content: 'hi via the role', mentionRoles: [role] });
    expect(viaRole.outcome).toBe('submitted');
    const question = await bench.waitInbound(viaRole.id);
    // The role mention is stripped like the bot's own.
    expect(question.content).toMatch(/:\nhi via the role$/);
    const answer = await bench.fake.waitFor(() => bench.repliesTo(channel, viaRole.id)[0]);
    const reply = await bench.say({
      channelId: channel,
      content: 'and then?',
      replyTo: { messageId: answer.id, ping: false },
    });
    expect(reply.outcome).toBe('submitted');
    // The answer it replies to is quoted in the prompt before the text.
    expect((await bench.waitInbound(reply.id)).content).toMatch(
      /:\n> Replying to `Kesoku` <@\d+>:\n> [^\n]*[\s\S]*\nand then\?$/,
    );
    // A reply to someone else's message, without a mention, is still not for the bot.
    const other = await bench.say({
      channelId: channel,
      content: 'agreed',
      replyTo: { messageId: viaRole.id },
    });
    expect(other.outcome).toBe('not_addressed');
  });

  it('stops a running turn on a bare /stop without a mention; a sentence starting with /stop is a message', async () => {
    const channel = bench.channels[10] as string;
    const idle = await bench.say({ channelId: channel, content: '/stop' });
    expect(idle.outcome).toBe('not_addressed'); // nothing runs: silence
    expect(bench.repliesTo(channel, idle.id)).toEqual([]);
    const { id } = await bench.say({ channelId: channel, content: 'sleep: 20', mentionBot: true });
    await bench.waitInbound(id, ['processing']);
    await bench.fake.waitFor(() =>
      bench.stack.fake
        .chatRequests()
        .some((r) => JSON.stringify(r.body?.messages ?? []).includes('sleep: 20')),
    );
    const stop = await bench.say({ channelId: channel, content: '/stop' });
    expect(stop.outcome).toBe('command');
    expect((await bench.waitInbound(id, ['interrupted', 'processed', 'error'])).status).toBe('interrupted');
    expect((await bench.fake.waitFor(() => bench.repliesTo(channel, stop.id)[0])).content).toBe(
      '⏹️ Stopping the current turn.',
    );
    const sentence = await bench.say({
      channelId: channel,
      content: '/stop the nginx service after the backup',
      mentionBot: true,
    });
    expect(sentence.outcome).toBe('submitted');
    // (The fake model may still be reading the earlier `sleep: 20` in the history: only the queued row matters.)
    expect(
      (await bench.waitInbound(sentence.id, ['pending_agent', 'processing', 'processed'])).content,
    ).toMatch(/:\n\/stop the nginx service after the backup$/);
  });

  it('refuses to start without a token, and fails clearly when Discord rejects the token', async () => {
    const base = {
      sessions: bench.stack.sessions,
      pool: bench.stack.pool,
      logger: createLogger('discord-test', 'silent'),
    };
    await expect(
      startDiscordAdapter({
        ...base,
        config: { ...loadDiscordConfig({}), KESOKU_DATA_DIR: bench.stack.dataDir },
      }),
    ).rejects.toBeInstanceOf(ConfigError);
    const config = {
      ...loadDiscordConfig({ DISCORD_TOKEN: 'not-the-token', DISCORD_API_URL: bench.fake.apiUrl }),
      KESOKU_DATA_DIR: bench.stack.dataDir,
    };
    await expect(startDiscordAdapter({ ...base, config, readyTimeoutMs: 5000 })).rejects.toThrow(
      /401|Unauthorized|token/i,
    );
  });
});

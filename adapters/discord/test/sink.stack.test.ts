/**
 * The Discord sink on its own (REST only, as a worker without the gateway builds it) against the fake Discord,
 * with stored-message shapes built by hand: live status throttling and overflow, typing, stop marks, and a
 * status picked up by a fresh process.
 */
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { Message } from '../../../domain/message.ts';
import { createDeliveryStore } from '../../../db/deliveries.ts';
import { createPool, type Pool } from '../../../db/pool.ts';
import type { SessionRow } from '../../../db/sessions.ts';
import { createLogger } from '../../../infra/logger.ts';
import { QUIET_FLAGS, createDiscordRest, nonceFor } from '../rest.ts';
import { createDiscordSink, type DiscordSinkOptions } from '../sink.ts';
import { snowflake, startFakeDiscord, type FakeDiscord } from './fake-server.ts';

let fake: FakeDiscord;
let pool: Pool;
const channels = Array.from({ length: 12 }, () => snowflake());
beforeAll(async () => {
  fake = await startFakeDiscord({ guilds: [{ id: snowflake(), channels: channels.map((id) => ({ id })) }] });
  pool = createPool(inject('databaseUrl'));
});
afterAll(async () => {
  await fake?.close();
  await pool?.end();
});

const logger = createLogger('discord-sink-test', process.env.KESOKU_TEST_LOG ?? 'silent');
/** A sink as one worker process builds it: its own REST client, the shared Postgres records. */
const sinkFor = (extra: Partial<DiscordSinkOptions> = {}, on: FakeDiscord = fake) =>
  createDiscordSink({
    rest: createDiscordRest({ token: on.token, apiUrl: on.apiUrl }),
    logger,
    store: createDeliveryStore(pool),
    ...extra,
  });

const now = new Date().toISOString();
function sessionOf(channel: string): SessionRow {
  return {
    id: `discord:${channel}`,
    timezone: null,
    chatbot_id: 'discord',
    channel_id: channel,
    title: null,
    title_source: 'default',
    mode: 'interrupt',
    locale: 'en',
    revision: 0,
    turn_count: 0,
    channel_context: null,
    created_at: now,
    updated_at: now,
  };
}
function msg(
  channel: string,
  turnId: string,
  p: Partial<Message> & Pick<Message, 'id' | 'type' | 'role'>,
): Message {
  return {
    session_id: `discord:${channel}`,
    parent_id: turnId,
    chatbot_id: 'discord',
    channel_id: channel,
    sender: 'Kesoku',
    status: 'responded',
    content: '',
    metadata: null,
    turn_id: turnId,
    step: 0,
    seq: 1,
    revision: 1,
    received_at: null,
    created_at: now,
    updated_at: now,
    ...p,
  };
}
const call = (channel: string, turn: string, n: number, command: string) =>
  msg(channel, turn, {
    id: `${turn}:call${n}`,
    type: 'tool_call',
    role: 'tool',
    metadata: { tool_name: 'run_shell_command', tool_arguments: { command }, tool_call_id: `c${n}` },
  });
const result = (channel: string, turn: string, n: number, summary: string) =>
  msg(channel, turn, {
    id: `${turn}:call${n}:result`,
    parent_id: `${turn}:call${n}`,
    type: 'tool_result',
    role: 'tool',
    sender: 'run_shell_command',
    content: summary,
    metadata: { tool_name: 'run_shell_command', tool_result: summary, tool_call_id: `c${n}` },
  });
const finalReply = (channel: string, turn: string, text: string) =>
  msg(channel, turn, {
    id: `${turn}:reply`,
    type: 'text',
    role: 'assistant',
    status: 'pending',
    content: text,
    metadata: {
      turn_metrics: {
        session_turns: 1,
        context_tokens: 10,
        turn_tool_calls: 2,
        turn_tokens: 1042,
        turn_time: 2.14,
      },
    },
  });
/** What the delivery activity does with a message: send it, then settle the turn's live status. */
async function deliver(sink: ReturnType<typeof sinkFor>, message: Message, session: SessionRow) {
  await sink.send(message, session);
  await sink.settleProgress?.(message, session);
}
const statusMessages = (channel: string) =>
  fake.botMessages(channel).filter((m) => m.message_reference === undefined);

describe('Discord sink', () => {
  it('edits the live status at most about once a second and always sends the final state', async () => {
    const channel = channels[0] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor();
    const session = sessionOf(channel);
    const thought = msg(channel, turn, {
      id: `${turn}:thought`,
      type: 'thought',
      role: 'assistant',
      content: 'Two quick commands.',
    });
    await sink.presentProgress?.([thought, call(channel, turn, 1, 'echo one')], session);
    await sink.presentProgress?.([result(channel, turn, 1, 'one')], session);
    await sink.presentProgress?.([call(channel, turn, 2, 'exit 3')], session);
    await sink.presentProgress?.([result(channel, turn, 2, 'exit 3 in 0.01s')], session);
    const reply = finalReply(channel, turn, 'All done.');
    await sink.send(reply, session);
    const replySentAt = Date.now();
    // The reply went out at once: the status's last edit is still held by the throttle.
    expect(statusMessages(channel)[0]?.content).toBe(
      '💭 Two quick commands.\n🛠️ `run_shell_command` `echo one` ⏳',
    );
    await sink.settleProgress?.(reply, session);

    const [status, ...others] = statusMessages(channel);
    expect(others).toEqual([]);
    expect(status?.content).toBe(
      '💭 Two quick commands.\n🛠️ `run_shell_command` `echo one` ✅ `one`\n🛠️ `run_shell_command` `exit 3` ❌ `exit 3 in 0.01s`',
    );
    const writes = fake.calls
      .filter(
        (c) =>
          c.path.startsWith(`/channels/${channel}/messages`) &&
          (c.method === 'PATCH' || c.body?.flags !== undefined),
      )
      .map((c) => c.at);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < writes.length; i++)
      expect((writes[i] as number) - (writes[i - 1] as number)).toBeGreaterThanOrEqual(950);
    // The final status is written after the reply, which answers the user's message with the metrics header.
    expect(writes.at(-1)).toBeGreaterThanOrEqual(replySentAt);
    const posted = fake.botMessages(channel).at(-1);
    expect(posted?.content).toBe('-# ⏱ 2.1s · 🔧 2 tools · 1042 tokens\nAll done.');
    expect(posted?.message_reference?.message_id).toBe(turn.slice('discord-'.length));
    await sink.close();
  });

  it('continues the live status in a new message before it would pass 2000 characters', async () => {
    const channel = channels[1] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    const session = sessionOf(channel);
    const calls = Array.from({ length: 14 }, (_, i) =>
      call(channel, turn, i, `printf '%s\\n' ${String(i).padStart(2, '0')}-${'x'.repeat(170)}`),
    );
    await sink.presentProgress?.(calls, session);
    await sink.presentProgress?.(
      calls.map((_, i) => result(channel, turn, i, `${'y'.repeat(140)} ${i}`)),
      session,
    );
    await deliver(sink, finalReply(channel, turn, 'ok'), session);
    const statuses = statusMessages(channel);
    expect(statuses.length).toBeGreaterThanOrEqual(3);
    for (const s of statuses) {
      expect(s.content.length).toBeLessThanOrEqual(2000);
      expect(s.content).not.toContain('⏳');
    }
    expect(statuses.flatMap((s) => s.content.split('\n')).filter((l) => l.includes('✅'))).toHaveLength(14);
    expect(fake.calls.filter((c) => c.status === 400)).toEqual([]);
    await sink.close();
  });

  it('keeps typing while a turn runs and stops when its reply goes out', async () => {
    const channel = channels[2] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ typingIntervalMs: 100 });
    const session = sessionOf(channel);
    const typing = () => fake.calls.filter((c) => c.path === `/channels/${channel}/typing`).length;
    await sink.setActivity?.(session, true);
    await new Promise((r) => setTimeout(r, 450));
    expect(typing()).toBeGreaterThanOrEqual(4);
    await deliver(sink, finalReply(channel, turn, 'done'), session);
    const after = typing();
    await new Promise((r) => setTimeout(r, 300));
    expect(typing()).toBe(after);
    expect(fake.callsTo('POST /channels/:id/typing').every((c) => c.status === 204)).toBe(true);
    await sink.close();
  });

  const stopNotice = (channel: string, turn: string) =>
    msg(channel, turn, {
      id: `${turn}:notice`,
      type: 'text',
      role: 'assistant',
      sender: 'Notification',
      status: 'pending',
      content: '⏹️ Stopped.',
    });

  it('renders the stop notice into the live status (tools still running ⏹️), not as a reply', async () => {
    const channel = channels[3] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    const session = sessionOf(channel);
    await sink.presentProgress?.([call(channel, turn, 1, 'sleep 60')], session);
    await sink.send(stopNotice(channel, turn), session);
    const sent = fake.botMessages(channel);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.message_reference).toBeUndefined();
    expect(sent[0]?.flags).toBe(QUIET_FLAGS);
    expect(sent[0]?.content).toBe('🛠️ `run_shell_command` `sleep 60` ⏹️\n⏹️ Stopped.');
    // A retried delivery changes nothing.
    await sink.send(stopNotice(channel, turn), session);
    expect(fake.botMessages(channel)).toHaveLength(1);
    expect(fake.botMessages(channel)[0]?.content).toBe(sent[0]?.content);
    await sink.close();
  });

  it('posts a status message holding the notice when the turn has none yet', async () => {
    const channel = channels[9] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    await sink.send(stopNotice(channel, turn), sessionOf(channel));
    const sent = fake.botMessages(channel);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.content).toBe('⏹️ Stopped.');
    expect(sent[0]?.flags).toBe(QUIET_FLAGS);
    expect(sent[0]?.message_reference).toBeUndefined();
    await sink.close();
  });

  it('posts the notice as a new status message when the status message cannot be edited', async () => {
    const channel = channels[10] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    const session = sessionOf(channel);
    await sink.presentProgress?.([call(channel, turn, 1, 'sleep 60')], session);
    fake.failNext(
      'PATCH /channels/:id/messages/:id',
      { kind: 'error', status: 403, code: 50001, message: 'Missing Access' },
      1,
    );
    try {
      await sink.send(stopNotice(channel, turn), session);
    } finally {
      fake.clearFailures();
    }
    const sent = fake.botMessages(channel);
    expect(sent.map((m) => m.content)).toEqual(['🛠️ `run_shell_command` `sleep 60` ⏳', '⏹️ Stopped.']);
    expect(sent[1]?.flags).toBe(QUIET_FLAGS);
    // A retried delivery finds the notice posted.
    await sink.send(stopNotice(channel, turn), session);
    expect(fake.botMessages(channel)).toHaveLength(2);
    await sink.close();
  });

  it('adds a compaction notice to the running turn’s status and keeps the turn going', async () => {
    const channel = channels[11] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    const session = sessionOf(channel);
    await sink.presentProgress?.([call(channel, turn, 1, 'make')], session);
    const compacted = msg(channel, turn, {
      id: `${turn}:1:compact`,
      type: 'text',
      role: 'assistant',
      sender: 'Notification',
      status: 'pending',
      content: '🔄 Chat history was compacted automatically.',
    });
    await sink.send(compacted, session);
    expect(statusMessages(channel).map((m) => m.content)).toEqual([
      '🛠️ `run_shell_command` `make` ⏳\n🔄 Chat history was compacted automatically.',
    ]);
    await sink.presentProgress?.([result(channel, turn, 1, 'made')], session);
    await deliver(sink, finalReply(channel, turn, 'Made.'), session);
    expect(statusMessages(channel)[0]?.content).toBe(
      '🛠️ `run_shell_command` `make` ✅ `made`\n🔄 Chat history was compacted automatically.',
    );
    await sink.close();
  });

  it('keeps a thought with a code fence from turning the following status lines into code', async () => {
    const channel = channels[8] as string;
    const turn = `discord-${snowflake()}`;
    const sink = sinkFor({ editIntervalMs: 0 });
    const session = sessionOf(channel);
    const thought = msg(channel, turn, {
      id: `${turn}:thought`,
      type: 'thought',
      role: 'assistant',
      content: 'I will run ```bash\nls``` now',
    });
    await sink.presentProgress?.([thought, call(channel, turn, 1, 'ls')], session);
    const status = statusMessages(channel)[0]?.content ?? '';
    expect(status).not.toContain('```');
    expect(status.split('\n')).toEqual(['💭 I will run ˋˋˋbash lsˋˋˋ now', '🛠️ `run_shell_command` `ls` ⏳']);
    await sink.close();
  });

  it('sends a notification outside any turn as a plain message', async () => {
    const channel = channels[4] as string;
    const sink = sinkFor();
    const notice = msg(channel, '', {
      id: `n-${snowflake()}`,
      type: 'text',
      role: 'assistant',
      sender: 'Notification',
      status: 'pending',
      content: '🔄 Chat history was compacted automatically.',
      turn_id: null,
      parent_id: null,
    });
    await sink.send(notice, sessionOf(channel));
    const sent = fake.botMessages(channel);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.message_reference).toBeUndefined();
    expect(sent[0]?.content).toBe('🔄 Chat history was compacted automatically.');
    await sink.close();
  });

  it('picks up a turn’s status in a fresh process: same status message, earlier lines kept', async () => {
    const channel = channels[5] as string;
    const turn = `discord-${snowflake()}`;
    const session = sessionOf(channel);
    const first = sinkFor({ editIntervalMs: 0 });
    await first.presentProgress?.([call(channel, turn, 1, 'make build')], session);
    await first.close();
    // A worker restarted: the new sink has no memory; the status lives in Postgres.
    const second = sinkFor({ editIntervalMs: 0 });
    await second.presentProgress?.([result(channel, turn, 1, 'built')], session);
    await deliver(second, finalReply(channel, turn, 'Built.'), session);
    const statuses = statusMessages(channel);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]?.content).toBe('🛠️ `run_shell_command` `make build` ✅ `built`');
    await second.close();
  });

  it('two workers on one turn: A renders ⏳, B sends the final reply; the status shows ✅ and typing stops', async () => {
    const channel = channels[6] as string;
    const turn = `discord-${snowflake()}`;
    const session = sessionOf(channel);
    const a = sinkFor({ typingIntervalMs: 100 });
    const b = sinkFor({ typingIntervalMs: 100 });
    const typing = () => fake.calls.filter((c) => c.path === `/channels/${channel}/typing`).length;
    await a.setActivity?.(session, true);
    await a.presentProgress?.([call(channel, turn, 1, 'make build')], session);
    expect(statusMessages(channel)[0]?.content).toBe('🛠️ `run_shell_command` `make build` ⏳');
    // A applies the result; the ✅ edit waits for the throttle in A, which then dies without flushing it.
    await a.presentProgress?.([result(channel, turn, 1, 'built')], session);
    await new Promise((r) => setTimeout(r, 250));
    expect(typing()).toBeGreaterThanOrEqual(2);
    await deliver(b, finalReply(channel, turn, 'Built.'), session);
    const statuses = statusMessages(channel);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]?.content).toBe('🛠️ `run_shell_command` `make build` ✅ `built`');
    // A's refresh loop sees the stop recorded by B: no typing after (one refresh may have been in flight).
    await new Promise((r) => setTimeout(r, 150));
    const after = typing();
    await new Promise((r) => setTimeout(r, 500));
    expect(typing()).toBe(after);
    // A's deferred edit runs later and finds nothing left to write.
    await new Promise((r) => setTimeout(r, 1000));
    expect(statusMessages(channel)[0]?.history.at(-1)).toBe('🛠️ `run_shell_command` `make build` ✅ `built`');
    expect(fake.botMessages(channel)).toHaveLength(2);
    await a.close();
    await b.close();
  });

  it('flushes a throttled status edit on close instead of dropping it', async () => {
    const channel = channels[7] as string;
    const turn = `discord-${snowflake()}`;
    const session = sessionOf(channel);
    const sink = sinkFor({ editIntervalMs: 60_000 });
    await sink.presentProgress?.([call(channel, turn, 1, 'make test')], session);
    await sink.presentProgress?.([result(channel, turn, 1, 'passed')], session);
    expect(statusMessages(channel)[0]?.content).toContain('⏳');
    const started = Date.now();
    await sink.close();
    expect(statusMessages(channel)[0]?.content).toBe('🛠️ `run_shell_command` `make test` ✅ `passed`');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('Discord sink beyond the nonce window', () => {
  let shortMemory: FakeDiscord;
  const channel = snowflake();
  beforeAll(async () => {
    shortMemory = await startFakeDiscord({
      guilds: [{ id: snowflake(), channels: [{ id: channel }] }],
      nonceWindowMs: 0,
    });
  });
  afterAll(async () => shortMemory?.close());

  it('a retried reply posts only the chunks that are not recorded yet', async () => {
    const turn = `discord-${snowflake()}`;
    const session = sessionOf(channel);
    const sink = sinkFor({}, shortMemory);
    const long = `${'first part '.repeat(150)}\n\n${'second part '.repeat(150)}`;
    const reply = finalReply(channel, turn, long);
    // Chunk 1 fails for longer than @discordjs/rest retries: the send fails after chunk 0 was posted.
    shortMemory.failNext('POST /channels/:id/messages', { kind: 'server_error', status: 502 }, 20, 1);
    await expect(sink.send(reply, session)).rejects.toMatchObject({ kind: 'transient' });
    expect(shortMemory.botMessages(channel)).toHaveLength(1);
    shortMemory.clearFailures();
    await sink.send(reply, session);
    const sent = shortMemory.botMessages(channel);
    expect(sent).toHaveLength(2);
    const firstNonce = nonceFor(reply.id, 0);
    expect(shortMemory.calls.filter((c) => c.body?.nonce === firstNonce)).toHaveLength(1);
    // A third call (the activity retried once more) posts nothing.
    await sink.send(reply, session);
    expect(shortMemory.botMessages(channel)).toHaveLength(2);
    await sink.close();
  });

  it('a restarted worker edits the status message instead of posting a second', async () => {
    const turn = `discord-${snowflake()}`;
    const session = sessionOf(channel);
    const before = shortMemory.botMessages(channel).length;
    const first = sinkFor({ editIntervalMs: 0 }, shortMemory);
    await first.presentProgress?.([call(channel, turn, 1, 'sleep 1200')], session);
    await first.close();
    const second = sinkFor({ editIntervalMs: 0 }, shortMemory);
    await second.presentProgress?.([result(channel, turn, 1, 'slept')], session);
    await second.presentProgress?.([call(channel, turn, 2, 'echo again')], session);
    const created = shortMemory.botMessages(channel).slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]?.content).toBe(
      '🛠️ `run_shell_command` `sleep 1200` ✅ `slept`\n🛠️ `run_shell_command` `echo again` ⏳',
    );
    await second.close();
  });
});

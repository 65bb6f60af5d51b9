/**
 * The visibility matrix as a table test (docs/message-model.md §5.3, §4.3): one scripted tool turn (question →
 * thought + tool call → tool output → final text) through each channel against its fake, then every row of
 * {@link VISIBILITY_MATRIX} for that channel is checked against what the fake actually received and against the
 * stored status of each message of the turn:
 * - `shown`: the text is in a message of its own (a Discord reply, a Google Chat message, a WeChat
 *   customer-service text, the terminal client's output, a REST message);
 * - `live`: the text is in the channel's in-place status (Discord status message edits, the Google Chat
 *   intermediate card, the REST turn snapshot) and in no message of its own;
 * - `silent`: the fake received nothing carrying the text.
 * Every assistant-side message ends `delivered` where the channel rendered it or dropped it silently, and the
 * question `processed` (docs/message-model.md §4.3); the REST API leaves its `live` rows `responded` (turn
 * snapshots are not deliveries; only the final text is a message for the client).
 *
 * The `system_log` row is not produced by a tool turn (it holds no "Notification" message), so each column gets
 * a second turn: a slow one stopped with the channel's own stop (`/stop`, or `POST …/stop` for the terminal
 * client and REST), whose "⏹️ Stopped." notice is the system log. Its cell is checked the same way — Discord: a
 * line of the turn's status message; Google Chat: a line of the intermediate card; WeChat: nothing sent; the
 * terminal client: printed; REST: in the turn snapshot's `notices` (and the POST's `notices`), not its `reply` —
 * and the notice ends `delivered` on every channel (a `pending` message, rendered or silently dropped).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../api/server.ts';
import { getMessage } from '../../db/messages.ts';
import { messageKind } from '../../domain/message-kind.ts';
import type { Message } from '../../domain/message.ts';
import type { SessionState } from '../../workflows/definitions.ts';
import {
  PRESENTATION_KIND_OF,
  PRESENTATION_KINDS,
  VISIBILITY_MATRIX,
  type Channel,
  type PresentationKind,
} from '../../domain/presentation.ts';
import { createLogger } from '../../infra/logger.ts';
import { openEvents, type Json } from '../api/support.ts';
import { runCli } from '../../adapters/cli/test/support.ts';
import { startDiscordBench, type DiscordBench } from '../../adapters/discord/test/harness.ts';
import { messageEvent } from '../../adapters/googlechat/test/fake-server.ts';
import type { FakeReply } from '../fakes/model-server.ts';
import { startGoogleChatBench, type GoogleChatBench } from '../../adapters/googlechat/test/harness.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { startWechatBench, type WechatBench } from '../../adapters/wechat/test/harness.ts';

/** The notice of a turn stopped by the user (domain/failures.ts `presentInterruption('stop')`, locale en). */
const STOP_NOTICE = '⏹️ Stopped.';
/** A question the fake model answers only after this long (test/fakes/model-server.ts), so it can be stopped. */
const SLOW_QUESTION = 'Please wait, sleep: 30';

/** Polls `fn` until it returns something truthy; fails with `what` after `timeoutMs`. */
async function until<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the fake model got the slow question of `session` (the turn is running and can be stopped). */
const slowTurnRunning = (stack: Stack, session: string) =>
  until(
    () => stack.requestsOf(session).some((r) => JSON.stringify(r.body ?? {}).includes(SLOW_QUESTION)),
    'the slow model request',
  );

/**
 * The `system_log` cell of `channel` against a stopped turn: its stored notice (`<turn>:notice`, read until it is
 * `delivered`) and what the channel's fake received.
 */
async function checkSystemLog(
  channel: Channel,
  load: () => Promise<Message | null>,
  received: () => Received,
): Promise<void> {
  const cell = VISIBILITY_MATRIX[channel].system_log;
  const where = `${channel} × system_log (${cell})`;
  const stored = await until(async () => {
    const m = await load();
    return m?.status === 'delivered' ? m : null;
  }, `${where}: the stop notice delivered`).catch(async (err: unknown) => {
    throw new Error(`${String(err)} (stored: ${JSON.stringify(await load())})`);
  });
  expect(PRESENTATION_KIND_OF[messageKind(stored)], where).toBe('system_log');
  expect(stored.chatbot_id, where).toBe(channel);
  expect(stored.content, where).toBe(STOP_NOTICE);
  const got = received();
  const inOwn = got.own.some((t) => t.includes(STOP_NOTICE));
  const inLive = got.live.some((t) => t.includes(STOP_NOTICE));
  switch (cell) {
    case 'shown':
      expect(inOwn, `${where}: a message of its own`).toBe(true);
      break;
    case 'live':
      expect(inLive, `${where}: in the in-place status`).toBe(true);
      expect(inOwn, `${where}: not a message of its own`).toBe(false);
      break;
    case 'silent':
      expect(inOwn || inLive, `${where}: nothing sent`).toBe(false);
      break;
  }
}

/** Distinct, case-sensitive markers: each row's text appears in no other row's text. */
const EVIDENCE: Record<Exclude<PresentationKind, 'system_log'>, string> = {
  user_question: 'QUESTIONMARK',
  thought: 'THOUGHTMARK',
  tool_call: 'TOOLCALLMARK',
  tool_result: 'toolcallmark', // the command lower-cases its argument, so the output differs from the call
  final_text: 'FINALMARK',
};
const QUESTION = `Please check ${EVIDENCE.user_question}`;

/** The scripted turn: one step with a thought and a tool call, then the final text. */
const TURN: FakeReply[] = [
  {
    kind: 'tool_calls',
    text: `Thinking: ${EVIDENCE.thought}`,
    calls: [
      {
        name: 'run_shell_command',
        arguments: { command: `echo ${EVIDENCE.tool_call} | tr A-Z a-z` },
      },
    ],
  },
  { kind: 'text', text: `The answer is ${EVIDENCE.final_text}.` },
];

/** What a channel's fake received: texts of messages of their own, and every version of the in-place status. */
interface Received {
  own: string[];
  live: string[];
}

/** The final stored status the matrix implies (docs/message-model.md §4.3). */
function expectedStatus(channel: Channel, kind: PresentationKind): Message['status'] {
  if (kind === 'user_question') return 'processed';
  if (channel === 'api' && VISIBILITY_MATRIX[channel][kind] === 'live') return 'responded';
  return 'delivered';
}

/** Polls until every message of the turn has reached its expected status (or the time is up) and returns them. */
async function settled(
  channel: Channel,
  load: () => Promise<Message[]>,
  timeoutMs = 20_000,
): Promise<Message[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ms = await load();
    const done =
      ms.some((m) => PRESENTATION_KIND_OF[messageKind(m)] === 'final_text') &&
      ms.every((m) => {
        const kind = PRESENTATION_KIND_OF[messageKind(m)];
        return kind === null || m.status === expectedStatus(channel, kind);
      });
    if (done || Date.now() > deadline) return ms;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The table: every row of the channel's column against the fake and the stored statuses. `liveEvidence` names
 * what marks a message in the in-place status when that status does not carry its text (default: the row's
 * marker).
 */
function checkColumn(
  channel: Channel,
  messages: Message[],
  received: Received,
  liveEvidence: (kind: PresentationKind, message: Message) => string = (kind) =>
    EVIDENCE[kind as keyof typeof EVIDENCE],
): void {
  const byKind = new Map<PresentationKind, Message[]>();
  for (const m of messages) {
    const kind = PRESENTATION_KIND_OF[messageKind(m)];
    if (kind !== null) byKind.set(kind, [...(byKind.get(kind) ?? []), m]);
  }
  expect(byKind.get('system_log') ?? [], 'a tool turn holds no system log').toEqual([]);
  for (const kind of PRESENTATION_KINDS) {
    if (kind === 'system_log') continue;
    const cell = VISIBILITY_MATRIX[channel][kind];
    const stored = byKind.get(kind) ?? [];
    const where = `${channel} × ${kind} (${cell})`;
    expect(stored, `${where}: one stored message`).toHaveLength(1);
    const message = stored[0] as Message;
    expect(message.chatbot_id, where).toBe(channel);
    expect(message.content, where).toContain(EVIDENCE[kind]);
    expect(message.status, `${where}: stored status`).toBe(expectedStatus(channel, kind));
    const evidence = EVIDENCE[kind];
    const inOwn = received.own.some((t) => t.includes(evidence));
    const inLive = received.live.some((t) => t.includes(liveEvidence(kind, message)));
    switch (cell) {
      case 'shown':
        expect(inOwn, `${where}: a message of its own`).toBe(true);
        break;
      case 'live':
        expect(inLive, `${where}: in the in-place status`).toBe(true);
        expect(inOwn, `${where}: not a message of its own`).toBe(false);
        break;
      case 'silent':
        expect(inOwn || inLive, `${where}: nothing sent`).toBe(false);
        break;
    }
  }
}

const STATUS_FLAGS = (1 << 2) | (1 << 12);

/**
 * Waits until session `sessionId` is idle with nothing queued: the turn's trailing work after its reply (the live
 * status's last edit, which waits for the edit throttle) is done.
 */
async function untilIdle(sessions: { state(id: string): Promise<SessionState> }, sessionId: string) {
  for (let i = 0; ; i++) {
    const s = await sessions.state(sessionId);
    if (s.status === 'idle' && s.queueLength === 0) return;
    if (i > 300) throw new Error(`${sessionId} did not become idle`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('visibility matrix, discord column', () => {
  let bench: DiscordBench;
  beforeAll(async () => {
    bench = await startDiscordBench({}, 2);
  });
  afterAll(async () => bench?.stop());

  it('one tool turn matches every cell', async () => {
    const channel = bench.channels[0] as string;
    bench.stack.script(`discord:${channel}`, ...TURN);
    const { id } = await bench.say({ channelId: channel, content: QUESTION, mentionBot: true });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    await untilIdle(bench.stack.sessions, `discord:${channel}`);
    const messages = await settled('discord', () => bench.stack.messages(`discord:${channel}`));
    const all = bench.fake.botMessages(channel);
    const status = all.filter((m) => m.flags === STATUS_FLAGS);
    expect(status).toHaveLength(1);
    // The user's question is a message in the channel (posted by the user); the bot's own messages are the rest.
    const userPosts = [QUESTION];
    checkColumn('discord', messages, {
      own: [...userPosts, ...all.filter((m) => m.flags !== STATUS_FLAGS).flatMap((m) => m.history)],
      live: status.flatMap((m) => m.history),
    });
  });
  it('a stopped turn matches the system_log cell', async () => {
    const channel = bench.channels[1] as string;
    const { id } = await bench.say({ channelId: channel, content: SLOW_QUESTION, mentionBot: true });
    await bench.waitInbound(id, ['processing']);
    await slowTurnRunning(bench.stack, `discord:${channel}`);
    const stop = await bench.say({ channelId: channel, content: '/stop', mentionBot: true });
    expect(stop.outcome).toBe('command');
    expect((await bench.waitInbound(id)).status).toBe('interrupted');
    await checkSystemLog(
      'discord',
      () => getMessage(bench.stack.pool, `discord-${id}:notice`),
      () => {
        const all = bench.fake.botMessages(channel);
        return {
          own: [SLOW_QUESTION, ...all.filter((m) => m.flags !== STATUS_FLAGS).flatMap((m) => m.history)],
          live: all.filter((m) => m.flags === STATUS_FLAGS).flatMap((m) => m.history),
        };
      },
    );
  });
});

describe('visibility matrix, google_chat column', () => {
  let bench: GoogleChatBench;
  beforeAll(async () => {
    bench = await startGoogleChatBench();
  });
  afterAll(async () => bench?.stop());

  it('one tool turn matches every cell', async () => {
    const space = `spaces/S${randomBytes(6).toString('hex')}`;
    const thread = `${space}/threads/T1`;
    const session = `googlechat:${space.slice(7)}:T1`;
    bench.stack.script(session, ...TURN);
    const res = await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M1', text: QUESTION }),
    );
    expect(res.status).toBe(200);
    await bench.stack.waitForStatus(`googlechat-${space.slice(7)}-M1`, ['processed']);
    const created = await bench.fake.waitFor(() => {
      const ms = bench.fake.messagesIn(space).filter((m) => m.thread.name === thread);
      return ms.some((m) => (m.text ?? '').includes(EVIDENCE.final_text)) ? ms : null;
    }, 30_000);
    await untilIdle(bench.stack.sessions, session);
    const messages = await settled('google_chat', () => bench.stack.messages(session));
    const cards = created.filter((m) => m.cardsV2 !== undefined);
    expect(cards).toHaveLength(1);
    checkColumn('google_chat', messages, {
      own: [
        QUESTION,
        ...created.filter((m) => m.cardsV2 === undefined).flatMap((m) => m.history.map((h) => h.text ?? '')),
      ],
      live: cards.flatMap((m) => m.history.map((h) => JSON.stringify(h.cardsV2 ?? []))),
    });
  });
  it('a stopped turn matches the system_log cell', async () => {
    const space = `spaces/S${randomBytes(6).toString('hex')}`;
    const thread = `${space}/threads/T1`;
    const session = `googlechat:${space.slice(7)}:T1`;
    const post = async (messageId: string, text: string) =>
      expect(
        (await bench.fake.postEvent(bench.endpoint, messageEvent({ space, thread, messageId, text }))).status,
      ).toBe(200);
    await post('M1', SLOW_QUESTION);
    const turnId = `googlechat-${space.slice(7)}-M1`;
    await bench.stack.waitForStatus(turnId, ['processing']);
    await slowTurnRunning(bench.stack, session);
    await post('M2', '/stop');
    expect((await bench.stack.waitForStatus(turnId, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    await checkSystemLog(
      'google_chat',
      () => getMessage(bench.stack.pool, `${turnId}:notice`),
      () => {
        const created = bench.fake.messagesIn(space);
        return {
          own: [
            SLOW_QUESTION,
            ...created
              .filter((m) => m.cardsV2 === undefined)
              .flatMap((m) => m.history.map((h) => h.text ?? '')),
          ],
          live: created
            .filter((m) => m.cardsV2 !== undefined)
            .flatMap((m) => m.history.map((h) => JSON.stringify(h.cardsV2 ?? []))),
        };
      },
    );
  });
});

describe('visibility matrix, wechat column', () => {
  let bench: WechatBench;
  beforeAll(async () => {
    bench = await startWechatBench({}, { retryIntervalMs: 0 });
  });
  afterAll(async () => bench?.stop());

  it('one tool turn matches every cell', async () => {
    const user = await bench.pairedUser();
    const session = `wechat:${user}`;
    bench.stack.script(session, ...TURN);
    const { msgId } = await bench.fake.push({ from: user, content: QUESTION });
    await bench.stack.waitForStatus(`wechat-${String(msgId)}`, ['processed'], 45_000);
    await bench.fake.waitFor(() => bench.fake.sentTo(user).length > 0, 10_000, 'the reply');
    const messages = await settled('wechat', () => bench.stack.messages(session));
    // WeChat has no in-place status: everything it got is a customer-service text.
    checkColumn('wechat', messages, { own: [QUESTION, ...bench.fake.sentTo(user)], live: [] });
  });
  it('a stopped turn matches the system_log cell', async () => {
    const user = await bench.pairedUser();
    const session = `wechat:${user}`;
    const { msgId } = await bench.fake.push({ from: user, content: SLOW_QUESTION });
    const turnId = `wechat-${String(msgId)}`;
    await bench.stack.waitForStatus(turnId, ['processing'], 45_000);
    await slowTurnRunning(bench.stack, session);
    await bench.fake.push({ from: user, content: '/stop' });
    expect((await bench.stack.waitForStatus(turnId, ['interrupted', 'processed', 'error'])).status).toBe(
      'interrupted',
    );
    await checkSystemLog(
      'wechat',
      () => getMessage(bench.stack.pool, `${turnId}:notice`),
      () => ({ own: [SLOW_QUESTION, ...bench.fake.sentTo(user)], live: [] }),
    );
  });
});

describe('visibility matrix, cli and api columns', () => {
  let stack: Stack;
  let api: ApiServer;
  beforeAll(async () => {
    stack = await startStack();
    api = await startApiServer({
      pool: stack.pool,
      sessions: stack.sessions,
      databaseUrl: stack.databaseUrl,
      logger: createLogger('test-matrix', process.env.KESOKU_TEST_LOG ?? 'silent'),
      host: '127.0.0.1',
      port: 0,
      tokens: [],
      // Every turn snapshot is sent, so each intermediate row is seen in one (throttling, which may fold a
      // tool's finished snapshot into the next step's, is tested in test/api/events.test.ts).
      events: { throttleMs: 0 },
    });
  });
  afterAll(async () => {
    await api?.close();
    await stack?.stop();
  });

  const restMessages = async (session: string): Promise<Message[]> => {
    const res = await fetch(`${api.url}/v1/sessions/${session}/messages`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { messages: Message[] }).messages;
  };

  it('cli: one tool turn matches every cell', async () => {
    const session = uniqueId('cli');
    stack.script(session, ...TURN);
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '50'], {
      stdin: `${QUESTION}\n/quit\n`,
    });
    expect(await cli.exit(60_000), cli.output()).toBe(0);
    const messages = await settled('cli', () => restMessages(session));
    // The terminal shows what the user typed; everything else it printed comes from the client.
    checkColumn('cli', messages, { own: [QUESTION, cli.output()], live: [] });
  });

  it('api: one tool turn matches every cell', async () => {
    const session = uniqueId('api');
    // The event stream needs a session: a first turn creates it, and only the second turn's messages are checked.
    stack.script(session, { kind: 'text', text: 'warmed up' });
    const post = (content: string) =>
      fetch(`${api.url}/v1/sessions/${session}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content, wait: 30 }),
      });
    expect((await post('warm up')).status).toBe(200);
    const stream = await openEvents(api.url, `/v1/sessions/${session}/events`);
    try {
      stack.script(session, ...TURN);
      const res = await post(QUESTION);
      expect(res.status).toBe(200);
      const result = (await res.json()) as { message: Message; reply: Message | null };
      await stream.until((evs) =>
        evs.some((e) => e.event === 'turn.updated' && (e.data as Json).status === 'finished'),
      );
      const messages = await settled('api', async () =>
        (await restMessages(session)).filter(
          (m) => m.id === result.message.id || m.turn_id === result.message.id,
        ),
      );
      // A REST client gets the question and the answer as messages (the POST's result; GET lists every stored
      // message, intermediate ones too, for history) and the thought and tool progress as turn snapshots.
      checkColumn(
        'api',
        messages,
        {
          own: [result.message.content, result.reply?.content ?? ''],
          live: stream.events.filter((e) => e.event === 'turn.updated').map((e) => JSON.stringify(e.data)),
        },
        // A snapshot lists a running tool by its call id and name, not its arguments.
        (kind, m) =>
          kind === 'tool_call' ? String(m.metadata?.tool_call_id) : EVIDENCE[kind as keyof typeof EVIDENCE],
      );
    } finally {
      stream.close();
    }
  });
  const stopSession = async (session: string) => {
    const res = await fetch(`${api.url}/v1/sessions/${session}/stop`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { stopped: boolean }).stopped).toBe(true);
  };

  it('cli: a stopped turn matches the system_log cell', async () => {
    const session = uniqueId('cli');
    const cli = runCli(['--session', session, '--url', api.url, '--timeout', '50'], { keepStdinOpen: true });
    try {
      cli.write(`${SLOW_QUESTION}\n`);
      await slowTurnRunning(stack, session);
      await stopSession(session);
      await cli.waitFor(STOP_NOTICE);
      const question = await until(
        async () => (await restMessages(session)).find((m) => m.content === SLOW_QUESTION),
        'the question',
      );
      await checkSystemLog(
        'cli',
        async () => (await restMessages(session)).find((m) => m.id === `${question.id}:notice`) ?? null,
        // The terminal shows what the user typed; everything else it printed comes from the client.
        () => ({ own: [SLOW_QUESTION, cli.output()], live: [] }),
      );
    } finally {
      cli.write('/quit\n');
      expect(await cli.exit(30_000), cli.output()).toBe(0);
    }
  });

  it('api: a stopped turn matches the system_log cell', async () => {
    const session = uniqueId('api');
    const post = (content: string, wait: number) =>
      fetch(`${api.url}/v1/sessions/${session}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content, wait }),
      });
    // The event stream needs a session: a first turn creates it.
    stack.script(session, { kind: 'text', text: 'warmed up' });
    expect((await post('warm up', 30)).status).toBe(200);
    const stream = await openEvents(api.url, `/v1/sessions/${session}/events`);
    try {
      const waiting = post(SLOW_QUESTION, 60);
      await slowTurnRunning(stack, session);
      await stopSession(session);
      const res = await waiting;
      expect(res.status).toBe(200);
      const result = (await res.json()) as { message: Message; reply: Message | null; notices: string[] };
      expect(result.message.status).toBe('interrupted');
      // The client learns why from the turn (its notices), not from a reply.
      expect(result.notices).toEqual([STOP_NOTICE]);
      await stream.until((evs) =>
        evs.some(
          (e) =>
            e.event === 'turn.updated' &&
            (e.data as Json).turn_id === result.message.id &&
            (e.data as Json).status === 'finished',
        ),
      );
      await checkSystemLog(
        'api',
        async () => (await restMessages(session)).find((m) => m.id === `${result.message.id}:notice`) ?? null,
        () => ({
          own: [result.message.content, result.reply?.content ?? ''],
          live: stream.events.filter((e) => e.event === 'turn.updated').map((e) => JSON.stringify(e.data)),
        }),
      );
      const finished = stream.events.find(
        (e) =>
          e.event === 'turn.updated' &&
          (e.data as Json).turn_id === result.message.id &&
          (e.data as Json).status === 'finished',
      );
      expect(finished?.data).toMatchObject({ outcome: 'interrupted', notices: [STOP_NOTICE] });
    } finally {
      stream.close();
    }
  });
});

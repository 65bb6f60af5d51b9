/**
 * The `/locale en|zh` chat command on Discord, on the real stack: it sets the session's locale, and the next
 * crash notice posted to the channel is the Chinese one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSession } from '../../../db/sessions.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench({}, 2);
});
afterAll(async () => bench?.stop());

describe('Discord /locale', () => {
  it('switches the session to Chinese notices', async () => {
    const channel = bench.channels[1] as string;
    const sessionId = `discord:${channel}`;
    const answer = async (content: string) => {
      const { id, outcome } = await bench.say({ channelId: channel, content, mentionBot: true });
      return { id, outcome, reply: await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]) };
    };

    expect((await answer('/locale zh')).reply.content).toContain('send a message first');
    const { id: first } = await bench.say({ channelId: channel, content: 'hello', mentionBot: true });
    expect((await bench.waitInbound(first)).status).toBe('processed');

    expect((await answer('/locale klingon')).reply.content).toBe('Usage: `/locale en` or `/locale zh`.');
    const set = await answer('/locale zh');
    expect(set.outcome).toBe('command');
    expect(set.reply.content).toContain('中文');
    expect((await getSession(bench.stack.pool, sessionId))?.locale).toBe('zh');

    bench.stack.script(sessionId, { kind: 'empty' }, { kind: 'empty' }, { kind: 'empty' });
    const { id: failing } = await bench.say({
      channelId: channel,
      content: 'this will fail',
      mentionBot: true,
    });
    expect((await bench.waitInbound(failing)).status).toBe('error');
    const notice = await bench.fake.waitFor(() => bench.repliesTo(channel, failing)[0]);
    expect(notice.content).toBe('⚠️ 处理您的请求时发生异常: 模型多次返回空回复。');

    expect((await answer('/LOCALE EN')).reply.content).toContain('English');
    expect((await getSession(bench.stack.pool, sessionId))?.locale).toBe('en');
  });
});

/**
 * A WeChat test bench: the fake WeChat (fake-server.ts beside this file), a real Kesoku stack (Temporal, Postgres,
 * fake model, in-process worker) and the real channel started through its descriptor, wired like a process that
 * runs the channel and a worker: the running channel's sink is the worker's `sinks.wechat`. The channel submits
 * through {@link WechatBench.submits}, which can make submissions fail or hang.
 */
import type { ChannelSink } from '../../../activities/delivery.ts';
import type { RunningChannel } from '../../kit/channel.ts';
import { startWechat, wechatChannel, type WechatStartOptions } from '../channel.ts';
import { createLogger } from '../../../infra/logger.ts';
import { newOpenId, startFakeWechat, type FakeWechat, type FakeWechatOptions } from './fake-server.ts';
import { startStack, type Stack, type StackOptions } from '../../../test/support/stack.ts';
import { withSubmitFaults, type SubmitFaults } from '../../../test/support/submit-faults.ts';

export interface WechatBench {
  fake: FakeWechat;
  stack: Stack;
  channel: RunningChannel;
  /** The channel's message submissions (faults can be injected). */
  submits: SubmitFaults;
  /** A new paired user (a fresh OpenID per test keeps sessions apart). */
  pairedUser(): Promise<string>;
  /** Outcome counts of the ingress (from the channel's health). */
  outcomes(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export const benchLogger = () => createLogger('wechat-test', process.env.KESOKU_TEST_LOG ?? 'silent');

/**
 * `env` is extra channel configuration; `stackOptions` go to the stack (e.g. `approvals`); `channelOptions` to
 * {@link startWechat}.
 */
export async function startWechatBench(
  env: Record<string, string> = {},
  fakeOptions: FakeWechatOptions = {},
  stackOptions: Omit<StackOptions, 'sinks'> = {},
  channelOptions: WechatStartOptions = {},
  /** The session client the channel uses, built from the stack (default: the stack's own). */
  sessionsOf?: (stack: Stack) => Promise<Stack['sessions']>,
): Promise<WechatBench> {
  // The channel gets the fake's EncodingAESKey unless `env` clears it: the fake then pushes in safe mode.
  const fake = await startFakeWechat({
    answerTimeoutMs: 5000,
    safeByDefault: env.WECHAT_ENCODING_AES_KEY !== '',
    ...fakeOptions,
  });
  const sinks: Record<string, ChannelSink> = {};
  const stack = await startStack({ ...stackOptions, sinks });
  const submits = withSubmitFaults(sessionsOf ? await sessionsOf(stack) : stack.sessions);
  let channel: RunningChannel;
  try {
    const config = wechatChannel.configSchema.parse({
      WECHAT_APP_ID: fake.appId,
      WECHAT_APP_SECRET: fake.appSecret,
      WECHAT_TOKEN: fake.token,
      WECHAT_ENCODING_AES_KEY: fake.encodingAesKey,
      WECHAT_API_URL: fake.apiUrl,
      WECHAT_PORT: '0',
      ...env,
    });
    channel = await startWechat(
      { config, dataDir: stack.dataDir, pool: stack.pool, sessions: submits.sessions, logger: benchLogger() },
      channelOptions,
    );
  } catch (err) {
    await stack.stop();
    await fake.close();
    throw err;
  }
  if (!channel.sink || !channel.url) throw new Error('the WeChat channel started without a sink or URL');
  sinks.wechat = channel.sink;
  fake.setEndpoint(channel.url);
  return {
    fake,
    stack,
    channel,
    submits,
    async pairedUser() {
      const openId = newOpenId();
      await stack.pool.query(
        `INSERT INTO chat_paired_users (chatbot_id, user_id, user_name, approved_by) VALUES ('wechat', $1, $1, 'cli')`,
        [openId],
      );
      return openId;
    },
    async outcomes() {
      const h = (await channel.health?.()) ?? { ok: false };
      return (h.outcomes ?? {}) as Record<string, number>;
    },
    async stop() {
      await channel.stop();
      await stack.stop();
      await fake.close();
    },
  };
}

/**
 * A Google Chat test bench: the fake Google (fake-server.ts beside this file), a real Kesoku stack (Temporal,
 * Postgres, fake model, in-process worker) and the channel started through its descriptor
 * (`googleChatChannel.start`, or `startGoogleChat` with start options), its sink registered as the worker's
 * `sinks.google_chat` as `npm start` does. The channel submits through {@link GoogleChatBench.submits}, which can
 * make submissions fail or hang.
 */
import type { ChannelSink } from '../../../activities/sink.ts';
import { googleChatChannel, startGoogleChat, type GoogleChatStartOptions } from '../channel.ts';
import type { GoogleChatConfig } from '../config.ts';
import type { RunningChannel } from '../../kit/channel.ts';
import { createLogger } from '../../../infra/logger.ts';
import { startFakeGoogleChat, type FakeGoogleChat } from './fake-server.ts';
import { startStack, type Stack, type StackOptions } from '../../../test/support/stack.ts';
import { withSubmitFaults, type SubmitFaults } from '../../../test/support/submit-faults.ts';

export interface GoogleChatBench {
  fake: FakeGoogleChat;
  stack: Stack;
  channel: RunningChannel;
  config: GoogleChatConfig;
  /** The channel's message submissions (faults can be injected). */
  submits: SubmitFaults;
  /** The app's endpoint URL. */
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * `env`: extra channel variables (access lists by default allow user `users/1001`, Alice); `startOptions`: given,
 * the channel is started with {@link startGoogleChat} and them.
 */
export async function startGoogleChatBench(
  env: Record<string, string> = {},
  stackOptions: Omit<StackOptions, 'sinks'> = {},
  startOptions?: GoogleChatStartOptions,
  /** The session client the channel uses, built from the stack (default: the stack's own). */
  sessionsOf?: (stack: Stack) => Promise<Stack['sessions']>,
): Promise<GoogleChatBench> {
  const fake = await startFakeGoogleChat();
  const sinks: Record<string, ChannelSink> = {};
  const stack = await startStack({ ...stackOptions, sinks });
  const config = googleChatChannel.configSchema.parse({
    GOOGLE_CHAT_CREDENTIALS_FILE: fake.credentialsFile,
    GOOGLE_CHAT_AUDIENCE: fake.projectNumber,
    GOOGLE_CHAT_JWKS_URL: fake.jwksUrl,
    GOOGLE_CHAT_API_URL: fake.apiUrl,
    GOOGLE_CHAT_TOKEN_URL: fake.tokenUrl,
    GOOGLE_CHAT_PORT: '0',
    GOOGLE_CHAT_ALLOWED_USERS: 'users/1001',
    ...env,
  });
  const submits = withSubmitFaults(sessionsOf ? await sessionsOf(stack) : stack.sessions);
  let channel: RunningChannel;
  try {
    const ctx = {
      config,
      dataDir: stack.dataDir,
      pool: stack.pool,
      sessions: submits.sessions,
      logger: createLogger('googlechat-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
    };
    channel = startOptions ? await startGoogleChat(ctx, startOptions) : await googleChatChannel.start(ctx);
  } catch (err) {
    await stack.stop();
    await fake.close();
    throw err;
  }
  if (!channel.sink || !channel.url) throw new Error('the channel started without a sink or URL');
  sinks.google_chat = channel.sink;
  return {
    fake,
    stack,
    channel,
    config,
    submits,
    endpoint: channel.url,
    async stop() {
      await channel.stop();
      await stack.stop();
      await fake.close();
    },
  };
}

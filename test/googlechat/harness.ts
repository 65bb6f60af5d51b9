/**
 * A Google Chat test bench: the fake Google (test/fakes/googlechat/server.ts), a real Kesoku stack (Temporal,
 * Postgres, fake model, in-process worker) and the channel started through its descriptor
 * (`googleChatChannel.start`), its sink registered as the worker's `sinks.google_chat` as `npm start` does.
 */
import type { ChannelSink } from '../../activities/sink.ts';
import { googleChatChannel } from '../../adapters/googlechat/channel.ts';
import type { GoogleChatConfig } from '../../adapters/googlechat/config.ts';
import type { RunningChannel } from '../../adapters/kit/channel.ts';
import { createLogger } from '../../infra/logger.ts';
import { startFakeGoogleChat, type FakeGoogleChat } from '../fakes/googlechat/server.ts';
import { startStack, type Stack, type StackOptions } from '../support/stack.ts';

export interface GoogleChatBench {
  fake: FakeGoogleChat;
  stack: Stack;
  channel: RunningChannel;
  config: GoogleChatConfig;
  /** The app's endpoint URL. */
  endpoint: string;
  stop(): Promise<void>;
}

/** `env`: extra channel variables (access lists by default allow user `users/1001`, Alice). */
export async function startGoogleChatBench(
  env: Record<string, string> = {},
  stackOptions: Omit<StackOptions, 'sinks'> = {},
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
  let channel: RunningChannel;
  try {
    channel = await googleChatChannel.start({
      config,
      dataDir: stack.dataDir,
      pool: stack.pool,
      sessions: stack.sessions,
      logger: createLogger('googlechat-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
    });
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
    endpoint: channel.url,
    async stop() {
      await channel.stop();
      await stack.stop();
      await fake.close();
    },
  };
}

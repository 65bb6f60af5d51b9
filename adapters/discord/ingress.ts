/**
 * Discord ingress (DESIGN.md "Channels": normalize + authorize → Kesoku message; seed 2 §10 inbound fidelity).
 *
 * A gateway MESSAGE_CREATE becomes an {@link IncomingDiscordMessage} (plain data), then:
 * 1. bots (Kesoku itself included) and system messages are ignored;
 * 2. the allowlists decide, then whether Kesoku is addressed (policy.ts); refused messages get no answer;
 * 3. `/stop`, `/compact`, `/title`, `/mode` run directly on the session and get a short confirmation;
 * 4. otherwise attachments are staged and the message is submitted with update-with-start to session
 *    `discord:<channel or thread id>` as InboundMessage `{id: "discord-<snowflake>", sender: display name,
 *    receivedAt: Discord's timestamp, replyTo: the Discord message id, channelContext: {channel_id, guild_id,
 *    message_id, thread_id?}, platformMessageId}`; content is formatted by format.ts `formatInboundContent`;
 * 5. a refused submission (queue full, Temporal down, …) is told to the user as a reply.
 */
import type { Message as DiscordJsMessage, REST } from 'discord.js';
import type { Logger } from '../../infra/logger.ts';
import type { SessionClient } from '../../infra/session-client.ts';
import type { InboundMessage } from '../../workflows/definitions.ts';
import { stageAttachments, type DiscordAttachment, type StagingOptions } from './attachments.ts';
import { parseCommand, presentSessionError, runCommand, type CommandSessions } from './commands.ts';
import { formatInboundContent } from './format.ts';
import { discordSessionAddress, inboundIdFor } from './ids.ts';
import { isAddressed, isAllowed, type DiscordPolicy, type MessagePlace } from './policy.ts';
import { sendText } from './rest.ts';

/** A Discord message as the ingress needs it (no discord.js objects past this point). */
export interface IncomingDiscordMessage {
  id: string;
  /** The channel, thread or DM channel it was posted in. */
  channelId: string;
  guildId: string | null;
  /** For a thread: its parent channel. */
  parentId: string | null;
  isThread: boolean;
  isDM: boolean;
  author: { id: string; bot: boolean; displayName: string };
  content: string;
  createdAt: Date;
  /** Discord message type (0 default, 19 reply, others are system messages). */
  type: number;
  mentionsBot: boolean;
  attachments: DiscordAttachment[];
}

/** What the channel context of a Discord message holds (opaque to the core, seed 2 §10.1). */
export interface DiscordChannelContext {
  channel_id: string;
  guild_id: string | null;
  message_id: string;
  thread_id?: string;
}

/** Reads a discord.js message into plain data. `botUserId` decides `mentionsBot`. */
export function fromDiscordJs(m: DiscordJsMessage, botUserId: string | null): IncomingDiscordMessage {
  const channel = m.channel;
  const isThread = channel.isThread();
  return {
    id: m.id,
    channelId: m.channelId,
    guildId: m.guildId,
    parentId: isThread ? channel.parentId : null,
    isThread,
    isDM: channel.isDMBased(),
    author: {
      id: m.author.id,
      bot: m.author.bot,
      displayName: m.member?.displayName ?? m.author.displayName,
    },
    content: m.content,
    createdAt: m.createdAt,
    type: m.type,
    mentionsBot: botUserId !== null && m.mentions.users.has(botUserId),
    attachments: [...m.attachments.values()].map((a) => ({
      id: a.id,
      name: a.name,
      url: a.url,
      contentType: a.contentType,
      size: a.size,
    })),
  };
}

/** What the ingress needs: the session client, a REST client for answers, the policy and staging settings. */
export interface DiscordIngressDeps {
  sessions: Pick<SessionClient, 'submit'> & CommandSessions;
  rest: REST;
  logger: Logger;
  policy: DiscordPolicy;
  /** The bot's own user (null before the gateway is ready). */
  botUser: () => { id: string; name: string } | null;
  staging: Omit<StagingOptions, 'logger'>;
}

/** What the ingress did with a message (logged; asserted by tests). */
export type IngressOutcome =
  'ignored' | 'denied' | 'not_addressed' | 'command' | 'submitted' | 'duplicate' | 'rejected';

/** Discord message types that carry user text: DEFAULT and REPLY. */
const USER_MESSAGE_TYPES: ReadonlySet<number> = new Set([0, 19]);

/** The ingress: one entry point per Discord message. */
export interface DiscordIngress {
  /** Handles one message. Never throws (failures are logged and, when useful, told to the user). */
  handle(message: IncomingDiscordMessage): Promise<IngressOutcome>;
}

/** Builds the ingress (see the module comment for the steps). */
export function createDiscordIngress(deps: DiscordIngressDeps): DiscordIngress {
  const { sessions, rest, logger, policy } = deps;

  async function reply(m: IncomingDiscordMessage, nonceKey: string, content: string): Promise<void> {
    await sendText(rest, logger, { channelId: m.channelId, content, nonceKey, replyTo: m.id }).catch(
      (err: unknown) =>
        logger.warn({ channelId: m.channelId, messageId: m.id, err: String(err) }, 'discord reply failed'),
    );
  }

  async function handle(m: IncomingDiscordMessage): Promise<IngressOutcome> {
    const bot = deps.botUser();
    if (m.author.bot || (bot !== null && m.author.id === bot.id) || !USER_MESSAGE_TYPES.has(m.type))
      return 'ignored';
    const place: MessagePlace = {
      guildId: m.guildId,
      channelId: m.channelId,
      parentId: m.parentId,
      userId: m.author.id,
      isDM: m.isDM,
    };
    if (!isAllowed(policy, place)) return 'denied';
    if (!isAddressed(policy, place, m.mentionsBot)) return 'not_addressed';

    const address = discordSessionAddress(m.channelId);
    const messageId = inboundIdFor(m.id);
    const text = bot ? withoutBotMention(m.content, bot) : m.content.trim();
    const command = parseCommand(text);
    if (command) {
      const answer = await runCommand(sessions, address.sessionId, command);
      await reply(m, `command:${messageId}`, answer);
      return 'command';
    }

    const attachments = await stageAttachments(m.channelId, m.id, m.attachments, { ...deps.staging, logger });
    const context: DiscordChannelContext = {
      channel_id: m.isThread && m.parentId !== null ? m.parentId : m.channelId,
      guild_id: m.guildId,
      message_id: m.id,
      ...(m.isThread ? { thread_id: m.channelId } : {}),
    };
    const inbound: InboundMessage = {
      id: messageId,
      content: formatInboundContent({
        displayName: m.author.displayName,
        userId: m.author.id,
        at: m.createdAt,
        text,
        attachments,
      }),
      sender: m.author.displayName.slice(0, 128) || m.author.id,
      receivedAt: m.createdAt.toISOString(),
      ...(attachments.length > 0 ? { attachments } : {}),
      replyTo: m.id,
      channelContext: context,
      platformMessageId: m.id,
    };
    try {
      const r = await sessions.submit(address, inbound);
      logger.info(
        { sessionId: address.sessionId, messageId, queuePosition: r.queue_position, duplicate: r.duplicate },
        'discord message submitted',
      );
      return r.duplicate ? 'duplicate' : 'submitted';
    } catch (err) {
      logger.warn(
        { sessionId: address.sessionId, messageId, err: String(err) },
        'discord message not accepted',
      );
      await reply(m, `error:${messageId}`, presentSessionError(err));
      return 'rejected';
    }
  }

  return {
    async handle(m) {
      try {
        return await handle(m);
      } catch (err) {
        logger.error(
          { channelId: m.channelId, messageId: m.id, err: String(err) },
          'discord message handling failed',
        );
        return 'rejected';
      }
    },
  };
}

/** Removes a leading mention of the bot; later mentions become `@<bot name>`. */
export function withoutBotMention(content: string, bot: { id: string; name: string }): string {
  const mention = new RegExp(`<@!?${bot.id}>`, 'g');
  const leading = new RegExp(`^\\s*(?:<@!?${bot.id}>\\s*)+`);
  return content.replace(leading, '').replace(mention, `@${bot.name}`).trim();
}

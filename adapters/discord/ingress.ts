/**
 * Discord ingress: normalize and authorize a Discord message, then make it a Kesoku message.
 *
 * A gateway MESSAGE_CREATE becomes an {@link IncomingDiscordMessage} (plain data), then:
 * 1. bots (Kesoku itself included) and system messages are ignored, and so are messages that do not address
 *    Kesoku (policy.ts `isAddressed`; see {@link IncomingDiscordMessage.mentionsBot}), except a bare `/stop`, which
 *    stops the channel's running turn without a mention (silent when nothing runs);
 * 2. access (policy.ts, adapters/kit/access.ts): an allowed message goes on; a stranger in pairing mode who
 *    writes a DM or mentions the bot is sent a pairing code by DM (in a guild channel only a short notice without
 *    the code is posted) and nothing else happens; anything else gets no answer;
 * 3. chat commands (`/stop`, `/compact`, `/title`, `/mode`, `/locale`, `/approval`, `/new`, `/status`, `/help`;
 *    commands.ts, the same code as the slash commands) run directly on the session and are answered, once: the
 *    message is claimed first ({@link DiscordIngressDeps.claimCommand}; a message claimed before, e.g. fetched
 *    again by a catch-up after a restart, is a `duplicate`), and the update id derived from the Discord message
 *    id makes the session run it once;
 * 4. otherwise attachments are staged and the message is submitted with update-with-start to session
 *    `discord:<channel or thread id>` as InboundMessage `{id: "discord-<snowflake>", sender: display name,
 *    senderId: the author's id, receivedAt: Discord's timestamp, replyTo: the Discord message id, channelContext:
 *    {channel_id, guild_id, message_id, message_channel_id, thread_id?, started_thread?}, platformMessageId}`; content is formatted by format.ts `formatInboundContent`;
 * 5. a refused submission (queue full, Temporal down, …) is told to the user as a reply.
 *
 * Also (adapters/discord/README.md "Shared channels, …"): the inbound message carries `senderId` (the author's
 * id: in a shared channel only their own next message interrupts their turn); a reply quotes the replied-to
 * message in the prompt; an accepted message gets 👀 and, while turns run before it, its place in line
 * (reactions.ts); with `threads` a guild-channel message starts a thread where its session lives; edits and
 * deletes of queued messages change or withdraw them ({@link DiscordIngress.acceptEdit}, `acceptDelete`).
 *
 * Order: {@link DiscordIngress.accept} handles one channel's messages one after the other in arrival order (a
 * message whose attachments are still downloading is never overtaken by the next one); chat commands bypass that
 * queue so `/stop` acts at once (except `/new`, which keeps its place: earlier messages stay in the old conversation).
 */
import { DiscordAPIError, Routes, type Message as DiscordJsMessage, type REST } from 'discord.js';
import { createChatAccess, type ChatAccess } from '../kit/access.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import type { InboundMessage, SessionAddress } from '../../workflows/definitions.ts';
import { stageAttachments, type DiscordAttachment, type StagingOptions } from './attachments.ts';
import {
  commandName,
  parseCommand,
  presentSessionError,
  runCommand,
  type ChatCommand,
  type CommandSessions,
} from './commands.ts';
import { formatInboundContent } from './format.ts';
import { commandUpdateIdFor, discordSessionAddress, inboundIdFor } from './ids.ts';
import { chatPlaceOf, isAddressed, type DiscordPolicy, type MessagePlace } from './policy.ts';
import { ACK_EMOJI, addReaction, placeEmoji } from './reactions.ts';
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
  /**
   * Whether the message addresses the bot: it mentions the bot user or the bot's managed role (the role Discord
   * gives an integration, offered in the @ autocomplete), or it replies to one of the bot's messages (with or
   * without the reply ping).
   */
  mentionsBot: boolean;
  /** The bot's managed role in this guild (its mention is stripped like the bot's own); null or absent elsewhere. */
  botRoleId?: string | null;
  attachments: DiscordAttachment[];
  /** The message this one replies to (Discord's `referenced_message`), when Discord sent it. */
  referenced?: { id: string; authorId: string; authorName: string; content: string } | null;
  /** Posted in a thread that Kesoku itself created (its owner is the bot). */
  inBotThread?: boolean;
}

/** A deleted Discord message (MESSAGE_DELETE carries only where it was). */
export interface DeletedDiscordMessage {
  id: string;
  channelId: string;
  guildId: string | null;
  isThread: boolean;
  isDM: boolean;
}

/** What the channel context of a Discord message holds (opaque to the core, docs/message-flow.md §10.1). */
export interface DiscordChannelContext {
  channel_id: string;
  guild_id: string | null;
  message_id: string;
  thread_id?: string;
  /** The channel (or thread) the user's message itself is in. */
  message_channel_id?: string;
  /** True when the message started the thread `thread_id` (DISCORD_THREADS): it lives in `channel_id`. */
  started_thread?: boolean;
}

/**
 * Reads a discord.js message into plain data. `botUserId` decides `mentionsBot` (with the bot's managed role and
 * `mentions.repliedUser`, which discord.js fills from `referenced_message.author` whether or not the reply pings).
 */
export function fromDiscordJs(m: DiscordJsMessage, botUserId: string | null): IncomingDiscordMessage {
  const channel = m.channel;
  const isThread = channel.isThread();
  // discord.js finds the managed role by its `tags.bot_id` among the bot member's roles (GUILD_CREATE).
  const botRoleId = m.guild?.members.me?.roles.botRole?.id ?? null;
  // discord.js caches `referenced_message` in the channel when the payload carries it.
  const refId = m.type === 19 ? m.reference?.messageId : undefined;
  const ref = refId ? m.channel.messages.cache.get(refId) : undefined;
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
    mentionsBot:
      botUserId !== null &&
      (m.mentions.users.has(botUserId) ||
        (botRoleId !== null && m.mentions.roles.has(botRoleId)) ||
        m.mentions.repliedUser?.id === botUserId),
    botRoleId,
    referenced: ref
      ? {
          id: ref.id,
          authorId: ref.author.id,
          authorName: ref.member?.displayName ?? ref.author.displayName,
          content: ref.content,
        }
      : null,
    inBotThread: isThread && botUserId !== null && channel.ownerId === botUserId,
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
  /** `editQueued` / `withdrawQueued` serve edits and deletes of queued messages; without them those are ignored. */
  sessions: Pick<SessionClient, 'submit'> &
    CommandSessions &
    Partial<Pick<SessionClient, 'editQueued' | 'withdrawQueued'>>;
  rest: REST;
  logger: Logger;
  policy: DiscordPolicy;
  /**
   * Access decisions and pairing codes. Default: the policy's rule with no database, which serves only the
   * `open` and `lists` modes (pairing needs Postgres: pass `createChatAccess({ pool, … })`).
   */
  access?: ChatAccess;
  /** The bot's own user (null before the gateway is ready). */
  botUser: () => { id: string; name: string } | null;
  staging: Omit<StagingOptions, 'logger' | 'sessionId'>;
  /** The session a channel uses now (conversations.ts, after `/new`). Default: ids.ts `discordSessionAddress`. */
  addressOf?(channelId: string): Promise<SessionAddress>;
  /** DISCORD_THREADS: a mention in a guild channel starts a thread, where its session lives. Default false. */
  threads?: boolean;
  /** DISCORD_APPROVERS: in a guild channel only they may loosen `/approval` (kit/command-dispatch.ts). */
  approvers?: readonly string[];
  /**
   * Claims the chat command in Discord message `discordMessageId` before it runs: true for the first claim, false
   * when any process claimed it before (the message then gets neither a run nor an answer). Postgres in
   * production (db/command-claims.ts), so a command fetched again by a catch-up after a restart, or delivered to
   * a second adapter process, is run and answered once. Rejects when the claim cannot be made (the message is
   * then `rejected`). Default: every claim succeeds (commands rely on their update ids only).
   */
  claimCommand?(discordMessageId: string): Promise<boolean>;
}

/** What the ingress did with a message (logged; asserted by tests). */
export type IngressOutcome =
  | 'ignored'
  | 'denied'
  | 'not_addressed'
  | 'pairing'
  | 'command'
  | 'submitted'
  | 'duplicate'
  | 'rejected'
  /** An edit replaced a queued message's content. */
  | 'edited'
  /** An edit came after the message's turn started: ignored (adapters/discord/README.md). */
  | 'edit_ignored'
  /** A deleted message was taken out of its session's queue. */
  | 'withdrawn';

/** Discord message types that carry user text: DEFAULT and REPLY. */
const USER_MESSAGE_TYPES: ReadonlySet<number> = new Set([0, 19]);

/** The ingress: one entry point per Discord message. */
export interface DiscordIngress {
  /** Handles one message now. Never throws (failures are logged and, when useful, told to the user). */
  handle(message: IncomingDiscordMessage): Promise<IngressOutcome>;
  /**
   * Handles one message from the gateway in its channel's order: it waits for the channel's earlier messages
   * (a per-channel FIFO), except a chat command, which is handled at once. Never throws.
   */
  accept(message: IncomingDiscordMessage): Promise<IngressOutcome>;
  /**
   * Handles an edited message (MESSAGE_UPDATE) in its channel's order: a queued message gets the new content; an
   * edit after its turn started is ignored; a message never queued (e.g. the edit added the mention) is handled
   * as new. Never throws.
   */
  acceptEdit(message: IncomingDiscordMessage): Promise<IngressOutcome>;
  /** Handles a deleted message (MESSAGE_DELETE) in its channel's order: a queued one is withdrawn. Never throws. */
  acceptDelete(message: DeletedDiscordMessage): Promise<IngressOutcome>;
}

/** Builds the ingress (see the module comment for the steps). */
export function createDiscordIngress(deps: DiscordIngressDeps): DiscordIngress {
  const { sessions, rest, logger, policy } = deps;
  const access = deps.access ?? createChatAccess({ policy: policy.access, pool: null, logger });
  const addressOf =
    deps.addressOf ?? ((channelId: string) => Promise.resolve(discordSessionAddress(channelId)));
  const claim = deps.claimCommand ?? (() => Promise.resolve(true));
  /** The tail of each channel's FIFO; removed when the channel has nothing queued. */
  const channelTails = new Map<string, Promise<unknown>>();

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
    // In a thread Kesoku opened for a conversation (DISCORD_THREADS), every message is for Kesoku.
    const addressed = isAddressed(
      policy,
      place,
      m.mentionsBot || (deps.threads === true && m.inBotThread === true),
    );
    // A bare `/stop` needs no mention: it stops the turn running for this channel (and is silent when none runs).
    const bareStop = !addressed && parseCommand(m.content)?.name === 'stop';
    if (!addressed && !bareStop) return 'not_addressed';
    const decision = await access.check(chatPlaceOf(place));
    if (bareStop) return decision === 'allowed' ? stopUnaddressed(m) : 'not_addressed';
    if (decision === 'denied') return 'denied';
    if (decision === 'pairing') {
      // Only a DM or a mention earns a code; other guild traffic (DISCORD_RESPOND=always) is ignored.
      if (!m.isDM && !m.mentionsBot) return 'denied';
      await sendPairingCode(m, place);
      return 'pairing';
    }

    let address = await addressOf(m.channelId);
    const messageId = inboundIdFor(m.id);
    const text = bot ? withoutBotMention(m.content, bot, m.botRoleId) : m.content.trim();
    const command = parseCommand(text);
    if (command) {
      if (!(await claim(m.id))) return 'duplicate';
      const answer = await runCommand(
        sessions,
        address.sessionId,
        command,
        commandUpdateIdFor(m.id),
        undefined,
        { id: m.author.id, shared: !m.isDM, approver: (deps.approvers ?? []).includes(m.author.id) },
      );
      await reply(m, `command:${messageId}`, answer);
      return 'command';
    }

    const thread = startsThread(m) ? await startThread(m, text) : null;
    if (thread !== null) address = discordSessionAddress(thread);
    const { content, attachments } = await promptOf(m, text, address.sessionId);
    const context: DiscordChannelContext = {
      channel_id: m.isThread && m.parentId !== null ? m.parentId : m.channelId,
      guild_id: m.guildId,
      message_id: m.id,
      message_channel_id: m.channelId,
      ...(m.isThread ? { thread_id: m.channelId } : {}),
      ...(thread !== null ? { thread_id: thread, started_thread: true } : {}),
    };
    const inbound: InboundMessage = {
      id: messageId,
      content,
      sender: m.author.displayName.slice(0, 128) || m.author.id,
      // One person per message in a shared channel: only their own next message interrupts their turn.
      senderId: m.author.id,
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
      if (!r.duplicate) acknowledge(m, r.queue_position);
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

  /**
   * A bare `/stop` that does not address the bot: stops this channel's running turn and confirms; when nothing
   * runs (or the channel has no session) it stays silent, as for any message not meant for the bot.
   */
  async function stopUnaddressed(m: IncomingDiscordMessage): Promise<IngressOutcome> {
    const sessionId = (await addressOf(m.channelId)).sessionId;
    if (!(await claim(m.id))) return 'duplicate';
    try {
      const { stopped } = await sessions.stop(sessionId, { updateId: commandUpdateIdFor(m.id) });
      if (!stopped) return 'not_addressed';
    } catch (err) {
      if (err instanceof SessionClientError && err.kind === 'not_found') return 'not_addressed';
      await reply(m, `command:${inboundIdFor(m.id)}`, presentSessionError(err));
      return 'command';
    }
    await reply(m, `command:${inboundIdFor(m.id)}`, '⏹️ Stopping the current turn.');
    return 'command';
  }

  /**
   * Tells a stranger their pairing code: in a DM as a reply; from a guild channel by DM, with only a short notice
   * (no code) in the channel, so nobody else there can approve themselves with it. Replies are rate limited by
   * the pairing store (`notify`), so repeated messages within the interval get no answer.
   */
  async function sendPairingCode(m: IncomingDiscordMessage, place: MessagePlace): Promise<void> {
    const ticket = await access.pairingCode(chatPlaceOf(place), m.author.displayName);
    if (ticket === null || !ticket.notify) return;
    if (ticket.issued)
      logger.warn(
        { userId: m.author.id, user: m.author.displayName, code: ticket.code },
        `Discord user ${m.author.displayName} (${m.author.id}) asks to talk to the agent; ` +
          `approve with: npm run kesoku -- pairing approve ${ticket.code}`,
      );
    const text = pairingText(ticket.code, ticket.expiresAt);
    const nonceKey = `pairing:${inboundIdFor(m.id)}`;
    if (m.isDM) {
      await reply(m, nonceKey, text);
      return;
    }
    let dmSent = false;
    try {
      const dm = (await rest.post(Routes.userChannels(), { body: { recipient_id: m.author.id } })) as {
        id: string;
      };
      await sendText(rest, logger, { channelId: dm.id, content: text, nonceKey });
      dmSent = true;
    } catch (err) {
      logger.info({ userId: m.author.id, err: String(err) }, 'discord pairing code could not be sent by DM');
    }
    await reply(
      m,
      `pairing-notice:${inboundIdFor(m.id)}`,
      dmSent
        ? '🔒 You are not paired with this bot yet: I sent you a pairing code in a direct message.'
        : '🔒 You are not paired with this bot yet, and I could not send you a direct message. ' +
            'Send me a direct message (or allow DMs from this server) to get a pairing code.',
    );
  }

  // ---- prompt text, threads, receipts ------------------------------------------------------------------------

  /** The prompt text of a message (format.ts) with the replied-to message quoted, and its staged attachments. */
  async function promptOf(m: IncomingDiscordMessage, text: string, sessionId: string) {
    const attachments = await stageAttachments(m.channelId, m.id, m.attachments, {
      ...deps.staging,
      sessionId,
      logger,
    });
    const ref = m.referenced;
    const content = formatInboundContent({
      displayName: m.author.displayName,
      userId: m.author.id,
      at: m.createdAt,
      text,
      attachments,
      quoted: ref ? { displayName: ref.authorName, userId: ref.authorId, text: ref.content } : null,
    });
    return { content, attachments };
  }

  /** Whether an addressed message starts its own thread (DISCORD_THREADS, a guild channel that is no thread). */
  function startsThread(m: IncomingDiscordMessage): boolean {
    return deps.threads === true && m.guildId !== null && !m.isThread && !m.isDM;
  }

  /**
   * Starts a thread from message `m` (`POST /channels/{id}/messages/{id}/threads`). A thread started from a message
   * has the message's id, so a replayed message finds its thread again (Discord answers 160004).
   * @returns the thread id, or null when Discord refused (the conversation then stays in the channel)
   */
  async function startThread(m: IncomingDiscordMessage, text: string): Promise<string | null> {
    try {
      const t = (await rest.post(Routes.threads(m.channelId, m.id), {
        body: { name: threadName(text, m.author.displayName), auto_archive_duration: 1440 },
      })) as { id: string };
      return t.id;
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === 160004) return m.id;
      logger.warn(
        { channelId: m.channelId, messageId: m.id, err: String(err) },
        'discord thread not started',
      );
      return null;
    }
  }

  /** 👀 on an accepted message, and its place in line while turns run before it (reactions.ts). Not awaited. */
  function acknowledge(m: IncomingDiscordMessage, queuePosition: number): void {
    void (async () => {
      await addReaction(rest, logger, m.channelId, m.id, ACK_EMOJI);
      const place = placeEmoji(queuePosition + 1);
      if (place !== null) await addReaction(rest, logger, m.channelId, m.id, place);
    })();
  }

  // ---- edits and deletes -------------------------------------------------------------------------------------

  /** The sessions a message may be queued in: its thread's (DISCORD_THREADS) first, then its channel's. */
  async function sessionsOf(m: {
    id: string;
    channelId: string;
    guildId: string | null;
    isThread: boolean;
    isDM: boolean;
  }) {
    const own = (await addressOf(m.channelId)).sessionId;
    const thread = deps.threads === true && m.guildId !== null && !m.isThread && !m.isDM;
    return thread ? [discordSessionAddress(m.id).sessionId, own] : [own];
  }

  async function handleEdit(m: IncomingDiscordMessage): Promise<IngressOutcome> {
    const bot = deps.botUser();
    if (m.author.bot || (bot !== null && m.author.id === bot.id) || !USER_MESSAGE_TYPES.has(m.type))
      return 'ignored';
    const editQueued = sessions.editQueued?.bind(sessions);
    if (!editQueued) return 'ignored';
    const text = bot ? withoutBotMention(m.content, bot, m.botRoleId) : m.content.trim();
    if (parseCommand(text)) return 'ignored';
    const messageId = inboundIdFor(m.id);
    const candidates = await sessionsOf(m);
    const { content } = await promptOf(m, text, candidates[0]!);
    for (const sessionId of candidates) {
      try {
        const { outcome } = await editQueued(sessionId, messageId, content);
        if (outcome === 'edited') return 'edited';
        if (outcome === 'started') {
          logger.info({ sessionId, messageId }, 'discord edit ignored: the turn had started');
          return 'edit_ignored';
        }
      } catch (err) {
        if (err instanceof SessionClientError && err.kind === 'not_found') continue;
        logger.warn({ sessionId, messageId, err: String(err) }, 'discord edit not applied');
        return 'rejected';
      }
    }
    // Never queued: the edit may have made it a message for Kesoku (the forgotten mention).
    return handle(m);
  }

  async function handleDelete(d: DeletedDiscordMessage): Promise<IngressOutcome> {
    const withdrawQueued = sessions.withdrawQueued?.bind(sessions);
    if (!withdrawQueued) return 'ignored';
    const messageId = inboundIdFor(d.id);
    for (const sessionId of await sessionsOf(d)) {
      try {
        const { outcome } = await withdrawQueued(sessionId, messageId);
        if (outcome === 'withdrawn') return 'withdrawn';
        if (outcome === 'started') return 'ignored';
      } catch (err) {
        if (err instanceof SessionClientError && err.kind === 'not_found') continue;
        logger.warn({ sessionId, messageId, err: String(err) }, 'discord delete not applied');
        return 'rejected';
      }
    }
    return 'ignored';
  }

  /** Runs `fn` after the channel's earlier messages (the per-channel FIFO). */
  function inOrder(channelId: string, fn: () => Promise<IngressOutcome>): Promise<IngressOutcome> {
    const previous = channelTails.get(channelId) ?? Promise.resolve();
    const outcome = previous.then(fn);
    channelTails.set(channelId, outcome);
    void outcome.then(() => {
      if (channelTails.get(channelId) === outcome) channelTails.delete(channelId);
    });
    return outcome;
  }

  async function safely(m: IncomingDiscordMessage): Promise<IngressOutcome> {
    try {
      return await handle(m);
    } catch (err) {
      logger.error(
        { channelId: m.channelId, messageId: m.id, err: String(err) },
        'discord message handling failed',
      );
      return 'rejected';
    }
  }

  /** The chat command `m` is, or null for an ordinary message. */
  function commandOf(m: IncomingDiscordMessage): ChatCommand | null {
    const bot = deps.botUser();
    return parseCommand(bot ? withoutBotMention(m.content, bot, m.botRoleId) : m.content);
  }

  function guarded(what: string, id: string, fn: () => Promise<IngressOutcome>): Promise<IngressOutcome> {
    return fn().catch((err: unknown) => {
      logger.error({ messageId: id, err: String(err) }, `discord ${what} handling failed`);
      return 'rejected' as const;
    });
  }

  return {
    handle: safely,
    accept(m) {
      // `/new` keeps its place in the channel's order: the messages before it belong to the old conversation.
      const command = commandOf(m);
      if (command !== null && commandName(command) !== 'new') return safely(m);
      return inOrder(m.channelId, () => safely(m));
    },
    acceptEdit: (m) => inOrder(m.channelId, () => guarded('edit', m.id, () => handleEdit(m))),
    acceptDelete: (d) => inOrder(d.channelId, () => guarded('delete', d.id, () => handleDelete(d))),
  };
}

/** A thread's name (Discord allows 1-100 characters): the first line of the text, else "Conversation with <name>". */
export function threadName(text: string, displayName: string): string {
  const first = Array.from(text.split('\n')[0]?.replace(/\s+/g, ' ').trim() ?? '');
  if (first.length === 0) return Array.from(`Conversation with ${displayName}`).slice(0, 100).join('');
  return first.length <= 80 ? first.join('') : `${first.slice(0, 79).join('')}…`;
}

/** What a stranger is told: the code, when it expires, and what the operator runs. */
export function pairingText(code: string, expiresAt: Date): string {
  const unix = Math.floor(expiresAt.getTime() / 1000);
  return (
    `🔒 I only talk with people my operator has approved. Your pairing code is **${code}** ` +
    `(valid until <t:${unix}:t>, one hour). Give it to the operator of this Kesoku; they approve it with ` +
    `\`npm run kesoku -- pairing approve ${code}\`. After that, just write to me again.`
  );
}

/**
 * Removes leading mentions of the bot (`<@id>`, `<@!id>`, and `<@&role>` for its managed role `botRoleId`); later
 * ones become `@<bot name>`.
 */
export function withoutBotMention(
  content: string,
  bot: { id: string; name: string },
  botRoleId?: string | null,
): string {
  const one = `<@!?${bot.id}>` + (botRoleId ? `|<@&${botRoleId}>` : '');
  const mention = new RegExp(one, 'g');
  const leading = new RegExp(`^\\s*(?:(?:${one})\\s*)+`);
  return content.replace(leading, '').replace(mention, `@${bot.name}`).trim();
}

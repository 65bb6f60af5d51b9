/**
 * Google Chat ingress: interaction events (MESSAGE, ADDED_TO_SPACE, REMOVED_FROM_SPACE, CARD_CLICKED) made
 * Kesoku messages. The HTTP endpoint (channel.ts) has verified the bearer token and answers Chat once the event
 * was handled here (a message: once the session stored it); this module decides what the event means:
 *
 * 1. events without a human message (the app removed, an ADDED_TO_SPACE without text) are logged and dropped;
 *    the clicks of the approval cards' buttons never get here (channel.ts answers them with approvals.ts);
 * 2. access (adapters/kit/access.ts): allowed goes on; in pairing mode a stranger who writes a DM is answered with
 *    a pairing code, one in a space with a notice to write a DM; anything else gets no answer;
 * 3. a message that is wholly a chat command (`/stop`, `/compact`, `/title`, `/mode`, `/locale`, `/approval`)
 *    runs on the session through the channel kit's dispatch (adapters/kit/command-dispatch.ts) with an update id
 *    from the Chat message name, and is answered in the thread; in a space (not a DM) only a
 *    GOOGLE_CHAT_APPROVERS user may loosen `/approval`;
 * 4. otherwise its attached files are stored in the session's workspace (attachments.ts; files over the size
 *    limit or without fetchable content are refused and the user is told so; a message left with nothing is not
 *    submitted) and it is submitted with update-with-start to the session of its space and thread (ids.ts) as
 *    InboundMessage `{id: googlechat-<space>-<message>, sender: display name, receivedAt: Chat's createTime,
 *    attachments, replyTo: the message name, channelContext: {space, thread, message_name},
 *    platformMessageId}`;
 * 5. a refused submission (queue full, Temporal down, …) is told in the thread; when the refusal may pass
 *    (Temporal or the database unreachable) or handling the event failed unexpectedly, the outcome is `failed` and
 *    the endpoint answers Chat with an error instead of acknowledging the event.
 *
 * Order: one session's events are handled one after the other in arrival order; commands skip that queue.
 */
import { chatUserName } from './approvals.ts';
import { z } from 'zod';
import type { ChatAccess } from '../kit/access.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import type { InboundMessage } from '../../workflows/definitions.ts';
import {
  createCommandDispatcher,
  presentSessionError,
  type CommandSessions,
} from '../kit/command-dispatch.ts';
import { sessionWorkspaceDir } from '../../infra/workspace.ts';
import { createMessage, type ChatApi } from './api.ts';
import {
  attachmentNameOf,
  chatAttachmentSchema,
  stageChatAttachments,
  type ChatAttachment,
  type RefusedAttachment,
  type StagedAttachments,
} from './attachments.ts';
import { formatInboundContent } from './format.ts';
import {
  GOOGLE_CHAT_CHATBOT_ID,
  clientMessageId,
  commandUpdateIdFor,
  googleChatSessionAddress,
  inboundIdFor,
  lastSegment,
} from './ids.ts';

const user = z.looseObject({
  name: z.string(),
  displayName: z.string().optional(),
  type: z.string().optional(),
});
const space = z.looseObject({
  name: z.string().regex(/^spaces\/[^/]+$/),
  type: z.string().optional(),
  spaceType: z.string().optional(),
  singleUserBotDm: z.boolean().optional(),
});

/** The part of a Chat interaction event Kesoku reads (other fields are kept but ignored). */
export const chatEventSchema = z.looseObject({
  type: z.string(),
  eventTime: z.string().optional(),
  space: space.optional(),
  user: user.optional(),
  message: z
    .looseObject({
      name: z.string().regex(/^spaces\/[^/]+\/messages\/[^/]+$/),
      text: z.string().optional(),
      argumentText: z.string().optional(),
      createTime: z.string().optional(),
      sender: user.optional(),
      thread: z.looseObject({ name: z.string().regex(/^spaces\/[^/]+\/threads\/[^/]+$/) }).optional(),
      space: space.optional(),
      attachment: z.array(chatAttachmentSchema).optional(),
    })
    .optional(),
});

/** A parsed interaction event. */
export type ChatEvent = z.infer<typeof chatEventSchema>;

/** What the ingress did with an event (logged; asserted by tests). */
export type IngressOutcome =
  | 'ignored'
  | 'denied'
  | 'pairing'
  | 'command'
  | 'submitted'
  | 'duplicate'
  | 'rejected'
  | 'refused'
  | 'failed';

/** What the ingress needs. */
export interface GoogleChatIngressDeps {
  sessions: Pick<SessionClient, 'submit'> & CommandSessions;
  api: ChatApi;
  access: ChatAccess;
  logger: Logger;
  /** Bound on each reply call, ms. Default 15 000. */
  requestTimeoutMs?: number;
  /**
   * Where attached files are stored (`dataDir`: KESOKU_DATA_DIR, the session workspaces under it) and the largest
   * taken, bytes (default 25 MiB). Without it attached files are refused with a message.
   */
  attachments?: { dataDir: string; maxBytes?: number };
  /** GOOGLE_CHAT_APPROVERS (`123` or `users/123`): in a space only they may loosen `/approval`. */
  approvers?: readonly string[];
}

/** The ingress: one entry point per verified event. */
export interface GoogleChatIngress {
  /**
   * Handles one event in its session's order (commands at once); resolves once it was handled (a message: once
   * the session stored or refused it; `failed`: not taken, for a reason that may pass). Never rejects.
   */
  accept(event: ChatEvent): Promise<IngressOutcome>;
}

/** The conversation the event's message belongs to. */
function where(event: ChatEvent) {
  const message = event.message;
  const sp = event.space ?? message?.space;
  if (!message || !sp) return null;
  const isDM = sp.type === 'DM' || sp.spaceType === 'DIRECT_MESSAGE' || sp.singleUserBotDm === true;
  const thread = isDM ? null : (message.thread?.name ?? null);
  return { message, space: sp.name, thread, isDM, address: googleChatSessionAddress(sp.name, thread) };
}

/**
 * What the user is told about files that were not taken: each file and why, then whether the rest of the
 * message went to the agent (`forwarded`) or nothing did.
 */
export function refusalText(refused: readonly RefusedAttachment[], forwarded: boolean): string {
  const lines =
    refused.length === 1
      ? [`⚠️ I did not take the file ${refused[0]?.name}: ${refused[0]?.reason}.`]
      : ['⚠️ I did not take these files:', ...refused.map((r) => `• ${r.name}: ${r.reason}`)];
  lines.push(
    forwarded
      ? 'The rest of your message was passed on without them.'
      : 'Nothing was passed on to the agent; send a smaller file, a text file or an image, or a Google Drive link.',
  );
  return lines.join('\n');
}

/** Builds the ingress (see the module comment). */
export function createGoogleChatIngress(deps: GoogleChatIngressDeps): GoogleChatIngress {
  const { sessions, api, access, logger } = deps;
  const timeoutMs = deps.requestTimeoutMs ?? 15_000;
  const tails = new Map<string, Promise<unknown>>();
  const commands = createCommandDispatcher({ sessions });

  async function reply(space: string, thread: string | null, key: string, text: string): Promise<void> {
    await createMessage(api, {
      parent: space,
      thread,
      messageId: clientMessageId(key, 0),
      text,
      timeoutMs,
    }).catch((err: unknown) => logger.warn({ space, key, err: String(err) }, 'google chat reply failed'));
  }

  /** Stages a message's files in the session's workspace (attachments.ts); refuses them all without storage. */
  async function stageAttachments(
    list: readonly ChatAttachment[],
    sessionId: string,
    messageId: string,
  ): Promise<StagedAttachments> {
    if (list.length === 0) return { attachments: [], refused: [] };
    if (!deps.attachments)
      return {
        attachments: [],
        refused: list.map((a, i) => ({ name: attachmentNameOf(a, i), reason: 'files are not taken here' })),
      };
    return stageChatAttachments(api, list, {
      dataDir: deps.attachments.dataDir,
      ...(deps.attachments.maxBytes !== undefined ? { maxBytes: deps.attachments.maxBytes } : {}),
      sessionId,
      messageId,
      logger,
    });
  }

  async function handle(event: ChatEvent): Promise<IngressOutcome> {
    const w = where(event);
    if (event.type !== 'MESSAGE' && event.type !== 'ADDED_TO_SPACE') {
      logger.info({ type: event.type, space: event.space?.name }, 'google chat event');
      return 'ignored';
    }
    if (!w) return 'ignored';
    const { message, space, thread, isDM, address } = w;
    const sender = message.sender ?? event.user;
    if (!sender || sender.type === 'BOT') return 'ignored';
    const userId = lastSegment(sender.name);
    const place = {
      chatbotId: GOOGLE_CHAT_CHATBOT_ID,
      userId,
      channelId: lastSegment(space),
      parentId: null,
      groupId: null,
      isDirect: isDM,
    };
    const messageId = inboundIdFor(message.name);
    const decision = await access.check(place);
    if (decision === 'denied') return 'denied';
    if (decision === 'pairing') {
      const ticket = await access.pairingCode(place, sender.displayName ?? userId);
      if (ticket?.notify) {
        if (ticket.issued)
          logger.warn(
            { userId, user: sender.displayName, code: ticket.code },
            `Google Chat user ${sender.displayName ?? userId} asks to talk to the agent; ` +
              `approve with: npm run kesoku -- pairing approve ${ticket.code}`,
          );
        await reply(
          space,
          thread,
          `pairing:${messageId}`,
          isDM
            ? `🔒 I only talk with people my operator has approved. Your pairing code is *${ticket.code}* (valid ` +
                `for one hour). Give it to the operator of this Kesoku; they approve it with ` +
                `\`npm run kesoku -- pairing approve ${ticket.code}\`. After that, just write to me again.`
            : '🔒 You are not paired with this app yet: send me a direct message to get a pairing code.',
        );
      }
      return 'pairing';
    }

    const text = (message.argumentText ?? message.text ?? '').trim();
    const answer = await commands.dispatch(text, address.sessionId, commandUpdateIdFor(message.name), {
      id: sender.name,
      shared: !isDM,
      approver: (deps.approvers ?? []).some((a) => chatUserName(a) === chatUserName(sender.name)),
    });
    if (answer !== null) {
      await reply(space, thread, `command:${messageId}`, answer);
      return 'command';
    }
    const at =
      message.createTime && !Number.isNaN(Date.parse(message.createTime))
        ? new Date(message.createTime)
        : new Date();
    const displayName = sender.displayName ?? userId;
    const { attachments, refused } = await stageAttachments(
      message.attachment ?? [],
      address.sessionId,
      messageId,
    );
    if (refused.length > 0) {
      const forwarded = text !== '' || attachments.length > 0;
      await reply(space, thread, `attachments:${messageId}`, refusalText(refused, forwarded));
      if (!forwarded) return 'refused';
    }
    const inbound: InboundMessage = {
      id: messageId,
      content: formatInboundContent({
        displayName,
        userName: sender.name,
        at,
        text,
        attachments,
        refused,
        ...(deps.attachments
          ? { workspaceDir: sessionWorkspaceDir(deps.attachments.dataDir, address.sessionId) }
          : {}),
      }),
      sender: displayName.slice(0, 128) || userId,
      // In a shared space one person's message never interrupts another person's turn (docs/message-flow.md).
      senderId: sender.name,
      receivedAt: at.toISOString(),
      ...(attachments.length > 0 ? { attachments } : {}),
      replyTo: message.name,
      channelContext: { space, thread, message_name: message.name },
      platformMessageId: message.name,
    };
    try {
      const r = await sessions.submit(address, inbound);
      logger.info(
        { sessionId: address.sessionId, messageId, queuePosition: r.queue_position, duplicate: r.duplicate },
        'google chat message submitted',
      );
      return r.duplicate ? 'duplicate' : 'submitted';
    } catch (err) {
      logger.warn(
        { sessionId: address.sessionId, messageId, err: String(err) },
        'google chat message not accepted',
      );
      await reply(space, thread, `error:${messageId}`, presentSessionError(err));
      return mayPass(err) ? 'failed' : 'rejected';
    }
  }

  async function safely(event: ChatEvent): Promise<IngressOutcome> {
    try {
      return await handle(event);
    } catch (err) {
      logger.error({ type: event.type, err: String(err) }, 'google chat event handling failed');
      return 'failed';
    }
  }

  return {
    accept(event) {
      const w = where(event);
      const text = w ? (w.message.argumentText ?? w.message.text ?? '') : '';
      if (!w || commands.parse(text.trim()) !== null) return safely(event);
      const key = w.address.sessionId;
      const outcome = (tails.get(key) ?? Promise.resolve()).then(() => safely(event));
      tails.set(key, outcome);
      void outcome.then(() => {
        if (tails.get(key) === outcome) tails.delete(key);
      });
      return outcome;
    },
  };
}

/**
 * A submission failure that may pass (Temporal or the database unreachable, or an error that is no
 * SessionClientError); a refusal (queue full, invalid, id taken) is final.
 */
function mayPass(err: unknown): boolean {
  return !(err instanceof SessionClientError) || err.kind === 'unavailable' || err.kind === 'persistence';
}

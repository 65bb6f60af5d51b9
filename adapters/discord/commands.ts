/**
 * Chat commands typed on Discord (and, through the same functions, on Google Chat and WeChat): `/stop`,
 * `/compact`, `/title <text>`, `/mode interrupt|queue`, `/locale en|zh`, `/approval off|writes|all`, `/new`,
 * `/status` and `/help`. They act on the session directly (`/stop` never waits in the queue) and answer with a
 * short text; they are never queued as messages. Only a message that is wholly a command counts
 * (adapters/kit/commands.ts): `/stop the nginx service` or `/etc/hosts lacks a line` is an ordinary message.
 *
 * Discord's slash commands (app-commands.ts) run through the same {@link parseCommand} and {@link runCommand}, so a
 * typed command and its slash form do the same thing and answer the same text.
 */
import { commandUsage, parseChatCommand } from '../kit/commands.ts';
import { presentFailure, presentQueueFull, type SessionLocale } from '../../domain/failures.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import { LIMITS } from '../../domain/inbound.ts';
import type { SessionMode } from '../../domain/session-settings.ts';
import type { ApprovalPolicy } from '../../domain/tool-approval.ts';
import type { SessionState } from '../../workflows/definitions.ts';

/** The argument-less commands of the chat adapters on top of the session commands (adapters/kit/commands.ts). */
export const CHAT_BARE_COMMANDS = ['new', 'status', 'help'] as const;

/** A parsed chat command; `usage` carries the help text for a malformed one. */
export type ChatCommand =
  | { name: 'stop' }
  | { name: 'compact' }
  | { name: 'title'; title: string }
  | { name: 'mode'; mode: SessionMode }
  | { name: 'locale'; locale: SessionLocale }
  | { name: 'approval'; policy: ApprovalPolicy }
  /** Start a new conversation (the agent forgets this one). */
  | { name: 'new' }
  /** Show what the agent is doing. */
  | { name: 'status' }
  /** List the commands. */
  | { name: 'help' }
  | { name: 'usage'; text: string };

/**
 * The command in `text` (the bot mention already removed), or null for an ordinary message. The rule (whole
 * message only, which commands take an argument) is the channel-neutral one of adapters/kit/commands.ts.
 */
export function parseCommand(text: string): ChatCommand | null {
  const c = parseChatCommand(text, CHAT_BARE_COMMANDS);
  if (c === null) return null;
  switch (c.name) {
    case 'usage':
      return { name: 'usage', text: commandUsage(c.command) };
    case 'local':
      return { name: c.command as (typeof CHAT_BARE_COMMANDS)[number] };
    case 'unknown':
      return null;
    default:
      return c;
  }
}

/**
 * The commands' access to the session: a subset of {@link SessionClient}, plus `setLocale`, a row update (the
 * locale is read from the session row whenever a notice is written; optional: without it `/locale` answers that
 * it is not available). `setLocale` throws a SessionClientError `not_found` when the session does not exist yet.
 * The other optional members work the same way: without one, its command answers that it is not available here.
 */
export type CommandSessions = Pick<SessionClient, 'stop' | 'compact' | 'setTitle' | 'setMode'> &
  Partial<Pick<SessionClient, 'state'>> & {
    setLocale?(sessionId: string, locale: SessionLocale): Promise<{ locale: SessionLocale }>;
    /** The session's tool-approval policy (a row update, read at each tool step); optional like `setLocale`. */
    setApproval?(sessionId: string, policy: ApprovalPolicy): Promise<void>;
    /**
     * `/new`: moves the place whose current session is `sessionId` (a channel, thread, DM or user) to a new
     * conversation, and stops the old one's running turn. `key` (the command's update id) makes a repeated
     * delivery of the same command start one conversation, not two.
     */
    newConversation?(sessionId: string, key?: string): Promise<void>;
  };

/** What `/new` answers once the new conversation is started. */
export const NEW_CONVERSATION_TEXT = '🆕 New conversation: the agent starts afresh from the next message.';

/** The `/status` text: idle or busy (step and activity), queue, mode, title and turns. */
export function presentStatus(s: SessionState): string {
  const lines = [
    s.status === 'idle'
      ? '💤 Idle.'
      : `⚙️ Working${s.currentTurn ? ` (step ${s.currentTurn.step}${s.currentTurn.activity ? `: ${s.currentTurn.activity}` : ''})` : ''}.`,
    `Queue: ${s.queueLength} waiting · mode: ${s.mode} · turns: ${s.turnCount}`,
  ];
  if (s.title) lines.push(`Title: ${s.title}`);
  return lines.join('\n');
}

/**
 * The `/help` text: one line per command `sessions` serves (a command whose optional member is missing is left
 * out), in Markdown code spans, which Discord, Google Chat and the WeChat text view all show readably.
 */
export function presentHelp(sessions: CommandSessions): string {
  const lines = [
    'Commands (send the command alone as the whole message):',
    '`/stop` stop the running turn',
    '`/compact` summarise the conversation so far to free context',
    '`/title <text>` set the title of this conversation',
    '`/mode interrupt|queue` what a new message does while a turn runs',
  ];
  if (sessions.setLocale) lines.push('`/locale en|zh` language of notices and error messages');
  if (sessions.setApproval) lines.push('`/approval off|writes|all` which tool calls ask you first');
  if (sessions.newConversation) lines.push('`/new` start a new conversation (the agent forgets this one)');
  if (sessions.state) lines.push('`/status` show what the agent is doing');
  lines.push('`/help` this list');
  return lines.join('\n');
}

/**
 * Runs `cmd` on session `sessionId`. `updateId` (from the Discord message id, ids.ts `commandUpdateIdFor`) makes a
 * repeated delivery of the same command message run it once. @returns the confirmation to show (never throws:
 * failures become text)
 */
export async function runCommand(
  sessions: CommandSessions,
  sessionId: string,
  cmd: ChatCommand,
  updateId?: string,
): Promise<string> {
  const opts = updateId === undefined ? {} : { updateId };
  try {
    switch (cmd.name) {
      case 'usage':
        return cmd.text;
      case 'help':
        return presentHelp(sessions);
      case 'status':
        if (!sessions.state) return '⚠️ `/status` is not available here.';
        return presentStatus(await sessions.state(sessionId));
      case 'new':
        if (!sessions.newConversation) return '⚠️ `/new` is not available here.';
        await sessions.newConversation(sessionId, updateId);
        return NEW_CONVERSATION_TEXT;
      case 'stop': {
        const { stopped } = await sessions.stop(sessionId, opts);
        return stopped ? '⏹️ Stopping the current turn.' : 'Nothing is running.';
      }
      case 'compact':
        await sessions.compact(sessionId, opts);
        return '🗜️ Compaction queued.';
      case 'title': {
        const { title } = await sessions.setTitle(sessionId, cmd.title, opts);
        return `📝 Title set: ${title}`;
      }
      case 'mode': {
        const { mode } = await sessions.setMode(sessionId, cmd.mode, opts);
        return mode === 'queue'
          ? '🔀 Mode: queue (new messages wait for the running turn).'
          : '🔀 Mode: interrupt (a new message interrupts the running turn).';
      }
      case 'locale': {
        if (!sessions.setLocale) return '⚠️ `/locale` is not available here.';
        const { locale } = await sessions.setLocale(sessionId, cmd.locale);
        return locale === 'zh'
          ? '🌐 语言：中文（通知与错误提示将使用中文）。'
          : '🌐 Locale: English (notices and error messages in English).';
      }
      case 'approval': {
        if (!sessions.setApproval) return '⚠️ `/approval` is not available here.';
        await sessions.setApproval(sessionId, cmd.policy);
        return cmd.policy === 'off'
          ? '🔓 Approval: off (tool calls run without asking).'
          : cmd.policy === 'all'
            ? '🔒 Approval: all (every tool call asks first).'
            : '🔒 Approval: writes (shell commands and file writes ask first).';
      }
    }
  } catch (err) {
    if (err instanceof SessionClientError && err.kind === 'not_found') {
      return cmd.name === 'stop'
        ? 'Nothing is running.'
        : 'There is no conversation here yet: send a message first.';
    }
    return presentSessionError(err);
  }
}

/** The user-facing text for a failed session operation (queue full, Temporal down, …); never raw error text. */
export function presentSessionError(err: unknown): string {
  if (err instanceof SessionClientError) {
    switch (err.kind) {
      case 'queue_full':
        return presentQueueFull(LIMITS.queueCapacity, null);
      case 'invalid':
        return '⚠️ This message was not accepted (it is empty or too long).';
      case 'id_taken':
      case 'persistence':
        return presentFailure('input_persistence', undefined, null);
      case 'not_found':
      case 'unavailable':
        break;
    }
  }
  return '⚠️ Kesoku is not reachable right now; your message was not processed. Please try again in a moment.';
}

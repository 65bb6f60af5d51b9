/**
 * Chat-command dispatch shared by the chat channels (Discord, Google Chat, WeChat): a message that is wholly a
 * command (the rule of adapters/kit/commands.ts) runs on its session directly — `/stop` never waits in the queue —
 * and is answered with a short confirmation; it is never queued as a message for the agent.
 *
 * The commands are a table of handlers keyed by command name ({@link SESSION_COMMAND_HANDLERS}); a channel's own
 * argument-less commands (`/new`, `/status`, …) are a second table it passes to {@link createCommandDispatcher}
 * (parsed as the kit parser's `local` commands; {@link CHAT_LOCAL_COMMANDS} — `/new`, `/status`, `/help` — are in
 * every channel's). Adding a command is one entry in one of the tables.
 *
 * An ingress calls {@link CommandDispatcher.parse} to route a message (commands skip the session's queue) and
 * {@link CommandDispatcher.dispatch} to run it and get the text to answer with. Nothing here throws for a
 * failed session operation: failures become the answer text ({@link presentSessionError}).
 */
import type { JobCommands } from './jobs.ts';
import { commandUsage, parseChatCommand, type ParsedCommand } from './commands.ts';
import { presentFailure, presentQueueFull, type SessionLocale } from '../../domain/failures.ts';
import { LIMITS } from '../../domain/inbound.ts';
import type { ApprovalDecision, ApprovalPolicy } from '../../domain/tool-approval.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import { ConversationLimitError } from './conversations.ts';
import { describeSchedule, type ScheduleView } from '../../domain/schedules.ts';
import type { SessionState } from '../../workflows/definitions.ts';
import type { KnowledgeCommands } from './knowledge-commands.ts';
import type { PendingApprovalRow } from '../../db/approvals.ts';

/** Commands that act on the session, each with an entry in {@link SESSION_COMMAND_HANDLERS}. */
export type SessionCommand = Exclude<ParsedCommand, { name: 'usage' | 'local' | 'unknown' }>;

/**
 * A command ready to run: a session command, a usage error with its help text, or one of the channel's own
 * argument-less commands (`local`, run by the channel's table).
 */
export type ChatCommand =
  SessionCommand | { name: 'usage'; text: string } | { name: 'local'; command: string };

/** What a typed answer to an approval did (`/approve`, `/deny`, `/always`: kit/typed-approvals.ts). */
export type TypedDecision =
  /** Decided `call` (its tool name and subject as listed) with `decision`. */
  | {
      kind: 'decided';
      decision: ApprovalDecision;
      call: Pick<PendingApprovalRow, 'call_id' | 'tool_name' | 'subject'>;
    }
  /** Nothing of the session waits for a decision (or everything waiting was decided a moment ago). */
  | { kind: 'nothing_pending' }
  /** Something waits, but the one who typed may not decide it. */
  | { kind: 'refused' };

/**
 * The commands' access to the session: a subset of {@link SessionClient}, plus `setLocale`, a row update (the
 * locale is read from the session row whenever a notice is written; optional: without it `/locale` answers that
 * it is not available). `setLocale` throws a SessionClientError `not_found` when the session does not exist yet.
 * The other optional members work the same way: without one, its command answers that it is not available here.
 */
export type CommandSessions = Pick<SessionClient, 'stop' | 'compact' | 'setTitle' | 'setMode'> &
  Partial<Pick<SessionClient, 'state'>> & {
    setLocale?(sessionId: string, locale: SessionLocale): Promise<{ locale: SessionLocale }>;
    /** `/schedules`: the session's scheduled prompts (adapters/kit/schedules.ts); optional like `setLocale`. */
    listSchedules?(sessionId: string): Promise<ScheduleView[]>;
    /** The session's tool-approval policy (a row update, read at each tool step); optional like `setLocale`. */
    setApproval?(sessionId: string, policy: ApprovalPolicy): Promise<void>;
    /**
     * The policy in force for the session now (its own, else the configured default), which `/approval` compares
     * with the asked one in a shared place ({@link CommandCaller}). Without it a non-approver there may only set
     * `all`. Throws a SessionClientError `not_found` for an unknown session.
     */
    approvalPolicy?(sessionId: string): Promise<ApprovalPolicy>;
    /**
     * `/new`: moves the place whose current session is `sessionId` (a channel, thread, DM or user) to a new
     * conversation, and stops the old one's running turn. `key` (the command's update id) makes a repeated
     * delivery of the same command start one conversation, not two; `sender` (the platform user) is counted
     * against their limit of new conversations (kit/conversations.ts ConversationLimitError).
     */
    newConversation?(sessionId: string, key?: string, sender?: string): Promise<void>;
    /** `/jobs` and `/kill <id>`: the session's background jobs (adapters/kit/jobs.ts `jobCommands`). */
    jobs?: JobCommands;
    /**
     * `/approve`, `/deny`, `/always` (adapters/kit/typed-approvals.ts `APPROVAL_COMMANDS`, a channel's `local`
     * commands): decides the session's oldest call waiting for approval on behalf of `sender` (the platform user
     * who typed the command); `updateId` makes a repeated delivery decide once.
     */
    decidePending?(
      sessionId: string,
      decision: ApprovalDecision,
      o: { updateId?: string; sender?: string },
    ): Promise<TypedDecision>;
    /** `/memory` and `/link` for the sender (adapters/kit/knowledge-commands.ts); optional like `setLocale`. */
    knowledge?: KnowledgeCommands;
  };

/**
 * Who sent a command and where, for commands whose permission depends on it: in a shared place (a Discord guild
 * channel or thread, a Google Chat space that is not a DM) only an approver (DISCORD_APPROVERS,
 * GOOGLE_CHAT_APPROVERS) may loosen the session's tool approval with `/approval`, since the approval buttons
 * there are the requester's or an approver's; in a DM the user may.
 */
export interface CommandCaller {
  /** The platform id of the sender. */
  id: string;
  /** Whether several people talk in the place (not a DM or a 1:1 chat). */
  shared: boolean;
  /** Whether the sender is one of the channel's configured approvers. */
  approver: boolean;
}

/** What a handler runs against: the session, and the update id that makes a repeated command run once. */
export interface CommandRun {
  sessions: CommandSessions;
  sessionId: string;
  /** `{updateId}` when the channel derived one from the platform's message id, else `{}`. */
  opts: { updateId?: string };
  /** The platform id of the user who sent the command, when the channel passed it. */
  sender?: string;
  /** The sender and their place, when the channel passed them (a bare sender id counts as a 1:1 chat). */
  caller?: CommandCaller;
}

/** Runs one command; resolves to the answer text. May throw: the dispatcher turns errors into text. */
export type CommandHandler<C> = (cmd: C, run: CommandRun) => Promise<string>;

/** One handler per session command, keyed by command name (the key set is checked against the parser's). */
export type SessionCommandHandlers = {
  [K in SessionCommand['name']]: CommandHandler<Extract<SessionCommand, { name: K }>>;
};

/** A channel's own argument-less command, keyed by its name in lower case without the slash (`new`). */
export type LocalCommandHandler = (run: CommandRun) => Promise<string>;

/** The session commands every chat channel offers. */
export const SESSION_COMMAND_HANDLERS: SessionCommandHandlers = {
  async kill(cmd, { sessions, sessionId }) {
    if (!sessions.jobs) return '⚠️ `/kill` is not available here.';
    return sessions.jobs.kill(sessionId, cmd.jobId);
  },
  async stop(_cmd, { sessions, sessionId, opts }) {
    const { stopped } = await sessions.stop(sessionId, opts);
    return stopped ? '⏹️ Stopping the current turn.' : 'Nothing is running.';
  },
  async compact(_cmd, { sessions, sessionId, opts }) {
    await sessions.compact(sessionId, opts);
    return '🗜️ Compaction queued.';
  },
  async title(cmd, { sessions, sessionId, opts }) {
    const { title } = await sessions.setTitle(sessionId, cmd.title, opts);
    return `📝 Title set: ${title}`;
  },
  async mode(cmd, { sessions, sessionId, opts }) {
    const { mode } = await sessions.setMode(sessionId, cmd.mode, opts);
    return mode === 'queue'
      ? '🔀 Mode: queue (new messages wait for the running turn).'
      : '🔀 Mode: interrupt (a new message interrupts the running turn).';
  },
  async locale(cmd, { sessions, sessionId }) {
    if (!sessions.setLocale) return '⚠️ `/locale` is not available here.';
    const { locale } = await sessions.setLocale(sessionId, cmd.locale);
    return locale === 'zh'
      ? '🌐 语言：中文（通知与错误提示将使用中文）。'
      : '🌐 Locale: English (notices and error messages in English).';
  },
  async schedules(_cmd, { sessions, sessionId }) {
    if (!sessions.listSchedules) return '⚠️ `/schedules` is not available here.';
    const all = await sessions.listSchedules(sessionId);
    if (all.length === 0) return '⏰ No scheduled prompts in this conversation.';
    return [`⏰ Scheduled prompts (${all.length}):`, ...all.map((v) => `• ${describeSchedule(v)}`)].join(
      '\n',
    );
  },
  async approval(cmd, { sessions, sessionId, caller }) {
    if (!sessions.setApproval) return '⚠️ `/approval` is not available here.';
    if (caller?.shared === true && !caller.approver) {
      // Loosening in a shared place would let anyone allowed to talk run what the buttons keep for approvers.
      const now = sessions.approvalPolicy ? await sessions.approvalPolicy(sessionId) : 'all';
      if (policyRank(cmd.policy) < policyRank(now))
        return (
          `⛔ Only an approver can loosen tool approval in a shared channel (it stays \`${now}\`). ` +
          'Anyone may make it stricter; ask an approver, or talk to me in a direct message.'
        );
    }
    await sessions.setApproval(sessionId, cmd.policy);
    return cmd.policy === 'off'
      ? '🔓 Approval: off (tool calls run without asking).'
      : cmd.policy === 'all'
        ? '🔒 Approval: all (every tool call asks first).'
        : '🔒 Approval: writes (shell commands and file writes ask first).';
  },
  async memory(cmd, { sessions, sessionId, sender }) {
    if (!sessions.knowledge || sender === undefined) return '⚠️ `/memory` is not available here.';
    return cmd.forget === undefined
      ? sessions.knowledge.list(sender, sessionId)
      : sessions.knowledge.forget(sender, cmd.forget, sessionId);
  },
  async link(_cmd, { sessions, sender }) {
    if (!sessions.knowledge || sender === undefined) return '⚠️ `/link` is not available here.';
    return sessions.knowledge.link(sender);
  },
};

/** How strict a policy is: `off` < `writes` < `all`. */
function policyRank(p: ApprovalPolicy): number {
  return p === 'off' ? 0 : p === 'writes' ? 1 : 2;
}

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
  if (sessions.listSchedules) lines.push('`/schedules` the scheduled prompts of this conversation');
  if (sessions.decidePending)
    lines.push('`/approve`, `/deny`, `/always` answer the oldest tool call waiting for your approval');
  if (sessions.newConversation) lines.push('`/new` start a new conversation (the agent forgets this one)');
  if (sessions.knowledge)
    lines.push(
      '`/memory` what I remember about you, `/memory forget <id>` forget one entry',
      '`/link` get a code to link this chat account to your Kesoku API account',
    );
  if (sessions.state) lines.push('`/status` show what the agent is doing');
  if (sessions.jobs)
    lines.push(
      '`/jobs` list background jobs',
      '`/kill <job id>` kill a running background job (`/stop` does not)',
    );
  lines.push('`/help` this list');
  return lines.join('\n');
}

/**
 * The argument-less commands every chat channel offers (parsed as the kit parser's `local` commands): `/new`,
 * `/status` and `/help`. Each answers "not available here" when the channel's {@link CommandSessions} lacks the
 * member it needs.
 */
export const CHAT_LOCAL_COMMANDS: Readonly<Record<string, LocalCommandHandler>> = {
  async new({ sessions, sessionId, opts, sender }) {
    if (!sessions.newConversation) return '⚠️ `/new` is not available here.';
    await sessions.newConversation(sessionId, opts.updateId, sender);
    return NEW_CONVERSATION_TEXT;
  },
  async jobs({ sessions, sessionId }) {
    if (!sessions.jobs) return '⚠️ `/jobs` is not available here.';
    return sessions.jobs.list(sessionId);
  },
  async status({ sessions, sessionId }) {
    if (!sessions.state) return '⚠️ `/status` is not available here.';
    return presentStatus(await sessions.state(sessionId));
  },
  help: ({ sessions }) => Promise.resolve(presentHelp(sessions)),
};

/** The name a command goes by: `new` for the local command `/new`, `usage` for a usage error, else its name. */
export function commandName(cmd: ChatCommand): string {
  return cmd.name === 'local' ? cmd.command : cmd.name;
}

/**
 * The command in `text` (a bot mention already removed), or null for ordinary text. `local` names the channel's
 * own argument-less commands; a bare unknown word (`/hlep`) is ordinary text here.
 */
export function parseCommand(
  text: string,
  local: readonly string[] = Object.keys(CHAT_LOCAL_COMMANDS),
): ChatCommand | null {
  const c = parseChatCommand(text, local);
  if (c === null) return null;
  switch (c.name) {
    case 'usage':
      return { name: 'usage', text: commandUsage(c.command) };
    case 'unknown':
      return null;
    default:
      return c;
  }
}

/**
 * Runs `cmd` on session `sessionId` with the handlers of `local` for the channel's own commands. `updateId`
 * (from the platform's message id) makes a repeated delivery of the same command message run it once; `sender`
 * is the platform id of who sent it (for commands that act for a person, `/approve`), or the {@link CommandCaller}
 * with their place (a bare id counts as a 1:1 chat).
 * @returns the answer to show (never throws: a missing session and failed operations become text)
 */
export async function runCommand(
  sessions: CommandSessions,
  sessionId: string,
  cmd: ChatCommand,
  updateId?: string,
  local: Readonly<Record<string, LocalCommandHandler>> = CHAT_LOCAL_COMMANDS,
  sender?: string | CommandCaller,
): Promise<string> {
  const caller = typeof sender === 'object' ? sender : undefined;
  const senderId = typeof sender === 'object' ? sender.id : sender;
  const run: CommandRun = {
    sessions,
    sessionId,
    opts: updateId === undefined ? {} : { updateId },
    ...(senderId === undefined ? {} : { sender: senderId }),
    ...(caller === undefined ? {} : { caller }),
  };
  try {
    if (cmd.name === 'usage') return cmd.text;
    if (cmd.name === 'local') {
      const handler = local[cmd.command];
      return handler ? await handler(run) : `⚠️ \`/${cmd.command}\` is not available here.`;
    }
    const handler = SESSION_COMMAND_HANDLERS[cmd.name] as CommandHandler<SessionCommand>;
    return await handler(cmd, run);
  } catch (err) {
    if (err instanceof ConversationLimitError) return err.message;
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

/** A channel's command dispatch: parse → handler → answer text. */
export interface CommandDispatcher {
  /** The command `text` is, or null for ordinary text (used to route commands past the session's queue). */
  parse(text: string): ChatCommand | null;
  /**
   * Runs the command `text` is on session `sessionId`.
   * @param updateId derived from the platform's message id, so a re-delivered command runs once
   * @param sender the platform id of the user who sent it, or that with their place ({@link CommandCaller})
   * @returns the answer text, or null when `text` is no command (the caller submits it as a message); never throws
   */
  dispatch(
    text: string,
    sessionId: string,
    updateId?: string,
    sender?: string | CommandCaller,
  ): Promise<string | null>;
}

/**
 * Builds a channel's dispatcher over `sessions`: the session commands of {@link SESSION_COMMAND_HANDLERS} and the
 * channel's own argument-less commands `local` (keyed by name in lower case, without the slash) on top of
 * {@link CHAT_LOCAL_COMMANDS}.
 */
export function createCommandDispatcher(o: {
  sessions: CommandSessions;
  local?: Readonly<Record<string, LocalCommandHandler>>;
}): CommandDispatcher {
  const local = { ...CHAT_LOCAL_COMMANDS, ...o.local };
  const names = Object.keys(local);
  const parse = (text: string) => parseCommand(text, names);
  return {
    parse,
    async dispatch(text, sessionId, updateId, sender) {
      const cmd = parse(text);
      return cmd === null ? null : runCommand(o.sessions, sessionId, cmd, updateId, local, sender);
    },
  };
}

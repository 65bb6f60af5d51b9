/**
 * The terminal chat: one session at a time, talked to through REST API v1.
 *
 * - Start: read the session (404 = new), show the last messages of an existing one, follow its event stream from
 *   the revision just read (adapters/cli/events.ts).
 * - Output: every committed message a person may see is printed once, by id, in commit order (docs/message-model.md §4.3: the
 *   CLI prints intermediate messages too), whoever sent it — this terminal, another one, curl. The running turn
 *   is shown live (adapters/cli/screen.ts).
 * - Channel `cli` (docs/message-model.md §5.3): a session this client creates is a `cli` session (`channel` of its
 *   first message). Its messages become `delivered` only when a client printed them: what this client prints
 *   is acknowledged (adapters/cli/acks.ts). Joining a session prints, besides the last messages, every reply
 *   still `pending` — one that arrived while no client was attached.
 * - Input from a terminal: each line is sent at once (in interrupt mode a new message cancels the running turn).
 *   Piped input: each line is sent after the previous line's turn ended (its trigger reached a final status) or
 *   timed out, and the client exits after the last line, so a scripted run is deterministic.
 */
import { randomUUID } from 'node:crypto';
import readline from 'node:readline/promises';
import type { Message } from '../../domain/message.ts';
import { isInputStatus, isTerminalStatus } from '../../domain/status-machine.ts';
import { DeliveryAcks } from './acks.ts';
import {
  ApiError,
  describeError,
  notFoundForToken,
  type JobSummary,
  type KesokuApi,
  type RestChannel,
  type SessionInfo,
  type TurnUpdated,
} from './api-client.ts';
import { follow, type Follower, type StreamState } from './events.ts';
import { LiveTurn } from './live.ts';
import {
  clean,
  describeApproval,
  renderHelp,
  renderMessage,
  renderNotice,
  renderRule,
  renderUserLine,
  type RenderOptions,
} from './render.ts';
import { chatCommand } from './options.ts';
import { Screen, type LiveMode, type Output } from './screen.ts';
import { TITLE_MAX_CHARS } from '../../domain/session-settings.ts';
import { parseChatCommand, type ParsedCommand } from '../kit/commands.ts';
import { describeSchedule } from '../../domain/schedules.ts';
import {
  ApprovalPrompts,
  approvalPromptText,
  parseApprovalAnswer,
  type ApprovalRequested,
} from './approval-prompt.ts';

/** The chatbot of the sessions this client creates. */
const CLI_CHANNEL = 'cli';

/** How long the client waits, when it quits, to acknowledge what it printed, in ms. */
const ACK_ON_QUIT_MS = 1_500;

/** The terminal's own argument-less commands (besides the session commands). */
const CLI_LOCAL_COMMANDS = ['quit', 'exit', 'help', 'new', 'prompt', 'plan', 'jobs'] as const;

/** What the terminal says for a command whose argument is missing or unknown. */
const CLI_USAGE: Record<'title' | 'mode' | 'locale' | 'approval' | 'memory' | 'kill', string> = {
  title: `usage: /title <text> (1-${TITLE_MAX_CHARS} characters)`,
  mode: 'usage: /mode interrupt|queue',
  locale: 'usage: /locale en|zh',
  approval: 'usage: /approval off|writes|all',
  memory: 'usage: /memory, or /memory forget <id>',
  kill: 'usage: /kill <job id>',
};

/** One job as one terminal line: `job_…  succeeded (exit 0)  make test`. */
function jobLine(j: JobSummary): string {
  const exit = j.exit_code === null ? '' : ` (exit ${j.exit_code})`;
  const command = j.command.length > 80 ? `${j.command.slice(0, 79)}…` : j.command;
  return `${j.id}  ${j.state}${exit}  ${command}`;
}

export interface ReplOptions {
  api: KesokuApi;
  sessionId: string;
  /** Sender of the messages typed here. */
  sender: string;
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: Output & { isTTY?: boolean };
  /** Where start-up failures go (stderr). */
  errors: Output;
  live: LiveMode;
  render: RenderOptions;
  /** Messages of an existing session shown on start. */
  history: number;
  /** Piped input: the wait for each turn, in ms. */
  turnTimeoutMs: number;
  /** Makes the id of a fresh session (`/new`). */
  newSessionId: () => string;
  /**
   * `sessionId` was made here (no `--session`): nobody else can hold it, so a 404 at start means a new session
   * and is not reported as possibly someone else's.
   */
  freshSession?: boolean;
}

/** Exit codes of {@link runRepl}. */
export const EXIT = { ok: 0, failed: 1, unavailable: 2 } as const;

/** Runs the chat until /quit, Ctrl-D, Ctrl-C or the end of piped input. @returns the exit code */
export async function runRepl(opts: ReplOptions): Promise<number> {
  return new ChatRepl(opts).run();
}

type LineResult = { quit?: boolean; waitFor?: string; failed?: boolean };

class ChatRepl {
  private readonly o: ReplOptions;
  private readonly api: KesokuApi;
  private readonly screen: Screen;
  private readonly interactive: boolean;
  private sessionId: string;
  private follower: Follower | null = null;
  private live = new LiveTurn();
  /** Ids of messages printed (or deliberately not printed) — each is shown once. */
  private printed = new Set<string>();
  /** Typed messages sent but not echoed yet (id → content): echoed once the API accepted them. */
  private unechoed = new Map<string, string>();
  /** Latest status of every message seen. */
  private statuses = new Map<string, Message['status']>();
  private waiters = new Map<string, () => void>();
  /** Tool calls of this session waiting for this terminal's y/n/a. */
  private approvals = new ApprovalPrompts();
  /** Who waits for the next approval request ({@link approvalAsked}). */
  private approvalListeners: (() => void)[] = [];
  private streamLost = false;
  private rl: readline.Interface | null = null;
  private quitting = false;
  /** Redraws the live region while a tool runs (see tickWhileToolsRun). */
  private ticker: NodeJS.Timeout | null = null;
  private quitSignal = new AbortController();
  /** The session's chatbot, once known (from the session or its messages); null for a session not created yet. */
  private channel: string | null = null;
  private readonly acks: DeliveryAcks;
  /** The API answered the start's read with "not found for this token": the session may be someone else's. */
  private maybeForeign = false;

  constructor(opts: ReplOptions) {
    this.o = opts;
    this.api = opts.api;
    this.sessionId = opts.sessionId;
    this.interactive = opts.input.isTTY === true;
    this.screen = new Screen(opts.output, opts.live, opts.render);
    this.acks = new DeliveryAcks({
      send: (sessionId, ids) => this.api.acknowledge(sessionId, ids),
      flushed: () => flushed(opts.output),
      onRefused: (err) =>
        this.note(`could not mark printed messages delivered: ${describeError(err)}`, 'warn'),
    });
  }

  async run(): Promise<number> {
    const rl = readline.createInterface({
      input: this.o.input,
      output: this.interactive ? (this.o.output as NodeJS.WritableStream) : undefined,
      terminal: this.interactive && this.o.output.isTTY === true,
      prompt: this.o.render.style.bold('› '),
    });
    this.rl = rl;
    if (rl.terminal) this.screen.attach(rl);
    // Lines arrive while the client is still starting: piped ones are buffered by the iterator from its
    // creation, typed ones by a listener attached at once and handed to the input loop in order.
    const lines = this.interactive ? null : rl[Symbol.asyncIterator]();
    const early: string[] = [];
    const keepEarly = (line: string) => void early.push(line);
    if (this.interactive) rl.on('line', keepEarly);
    const stopOnSignal = () => this.quit();
    process.once('SIGINT', stopOnSignal);
    process.once('SIGTERM', stopOnSignal);
    rl.on('SIGINT', stopOnSignal);
    try {
      const session = await this.connect();
      if (session === 'failed' || this.quitting) {
        this.reportUnsent(early);
        return session === 'failed' ? EXIT.unavailable : EXIT.ok;
      }
      await this.open(session);
      if (lines) return await this.scriptLoop(lines);
      rl.off('line', keepEarly);
      return await this.interactiveLoop(rl, early);
    } finally {
      process.off('SIGINT', stopOnSignal);
      process.off('SIGTERM', stopOnSignal);
      this.follower?.close();
      rl.close();
      await this.acks.close(ACK_ON_QUIT_MS);
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Start

  /**
   * Reads the session. When the API cannot be reached: piped input gives up at once (exit code 2); a person at a
   * terminal is told so and the client keeps trying until it answers or they quit.
   */
  private async connect(): Promise<SessionInfo | null | 'failed'> {
    let attempt = 0;
    for (;;) {
      try {
        const found = await this.api.findSession(this.sessionId);
        if ('session' in found) return found.session;
        this.maybeForeign = found.notFound.forToken && this.o.freshSession !== true;
        return null;
      } catch (err) {
        const retryable = err instanceof ApiError && (err.kind === 'unreachable' || err.status === 503);
        if (!retryable || !this.interactive) {
          this.o.errors.write(`${renderNotice(describeError(err), 'error', this.o.render)}\n`);
          return 'failed';
        }
        if (attempt === 0) {
          this.note(`${describeError(err)} Waiting for it… (Ctrl-C to quit)`, 'warn');
        }
        attempt += 1;
        await this.pause(Math.min(10_000, 500 * 2 ** attempt));
        if (this.quitting) return 'failed';
      }
    }
  }

  /** Prints the banner and the recent history, then follows the session's events. */
  private async open(session: SessionInfo | null): Promise<void> {
    const id = this.sessionId;
    const turns = session?.turn_count ?? 0;
    const about = session
      ? [
          session.title ? `“${clean(session.title)}”` : null,
          `mode ${session.mode}`,
          `${turns} turn${turns === 1 ? '' : 's'}`,
        ]
          .filter(Boolean)
          .join(' · ')
      : this.maybeForeign
        ? 'not found for this token'
        : 'new session';
    this.banner(about);
    if (!session && this.maybeForeign) {
      this.note(
        `session ${id} was not found for this token: it belongs to someone else or cannot be used with this token (messages to it are refused), or it does not exist yet (your first message creates it). If it is not yours: ${this.elsewhere()}`,
        'warn',
      );
    }
    let revision = 0;
    this.channel = session?.chatbot_id ?? null;
    if (session) {
      revision = session.revision;
      try {
        const history = await this.api.getMessages(id, { limit: Math.max(50, this.o.history * 5) });
        revision = history.revision;
        this.showHistory(history.messages);
      } catch (err) {
        this.note(`could not read the history: ${describeError(err)}`, 'warn');
      }
    }
    this.follow(revision);
  }

  /**
   * Prints the last `history` visible messages and, on a `cli` session, every older reply nobody printed yet
   * (still `pending`), then acknowledges what it printed.
   */
  private showHistory(messages: Message[]): void {
    const visible: { m: Message; text: string }[] = [];
    for (const m of messages) {
      this.learnChannel(m);
      this.remember(m);
      this.printed.add(m.id);
      const text = renderMessage(m, this.o.render);
      if (text !== null) visible.push({ m, text });
    }
    const tail = Math.max(0, visible.length - this.o.history);
    const owed = (m: Message) => this.channel === CLI_CHANNEL && m.status === 'pending';
    const shown = visible.filter((v, i) => i >= tail || owed(v.m));
    if (shown.length === 0) return;
    const label = shown.length < visible.length ? `last ${shown.length} messages` : 'history';
    this.screen.print(
      [renderRule(label, this.o.render), ...shown.map((v) => v.text), renderRule('now', this.o.render)].join(
        '\n',
      ),
    );
    this.acknowledge(shown.map((v) => v.m));
  }

  /** Notes the session's chatbot from one of its messages. */
  private learnChannel(m: Message): void {
    if (this.channel === null && m.session_id === this.sessionId) this.channel = m.chatbot_id;
  }

  /**
   * Queues the printed messages of a `cli` session that wait for a client (`pending` replies, `responded`
   * thoughts and tool messages) for acknowledgement.
   */
  private acknowledge(printed: Message[]): void {
    if (this.channel !== CLI_CHANNEL) return;
    const ids = printed
      .filter((m) => m.session_id === this.sessionId && (m.status === 'pending' || m.status === 'responded'))
      .map((m) => m.id);
    this.acks.add(this.sessionId, ids);
  }

  private follow(afterRevision: number): void {
    this.follower = follow({
      api: this.api,
      sessionId: this.sessionId,
      afterRevision,
      handlers: {
        onCommitted: (messages) => this.onCommitted(messages),
        onUpdated: (u) => this.onUpdated(u),
        onState: (state) => this.onStreamState(state),
        onProtocolError: (detail) =>
          this.note(`skipped an event the client does not understand: ${detail}`, 'warn'),
        onApprovalRequested: (a) => this.onApprovalRequested(a),
      },
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Events

  private onApprovalRequested(a: ApprovalRequested): void {
    if (a.session_id !== this.sessionId) return;
    if (this.approvals.add(a)) this.note(approvalPromptText(a), 'warn');
    for (const resolve of this.approvalListeners.splice(0)) resolve();
  }

  private onCommitted(messages: Message[]): void {
    for (const m of messages) {
      this.learnChannel(m);
      this.remember(m);
    }
    // What these messages commit (a step's text, a tool's result, the turn's reply) is live no more: the live
    // region is redrawn before they are printed, so an ended turn's live line is not drawn again under its reply.
    this.screen.refresh(this.live.view());
    const shown: Message[] = [];
    for (const m of messages) {
      const approval = (m.metadata as { approval?: { state?: string } } | null)?.approval;
      if (m.type === 'tool_call' && approval && approval.state !== 'pending') {
        const next = this.approvals.drop(m.id);
        if (next) this.note(approvalPromptText(next), 'warn');
      }
      if (this.unechoed.has(m.id)) this.echo(m.id);
      if (this.printed.has(m.id)) continue;
      this.printed.add(m.id);
      const text = renderMessage(m, this.o.render);
      if (text === null) continue;
      this.screen.print(text);
      shown.push(m);
    }
    this.acknowledge(shown);
    for (const m of messages) this.waiters.get(m.id)?.();
  }

  private remember(m: Message): void {
    this.statuses.set(m.id, m.status);
    this.live.commit(m);
  }

  private onUpdated(u: TurnUpdated): void {
    if (u.session_id !== this.sessionId) return;
    this.screen.live(this.live.update(u), this.live.view());
    this.tickWhileToolsRun();
  }

  /** While a tool runs, redraws the live region every second, so its elapsed time moves. */
  private tickWhileToolsRun(): void {
    const running = () => this.live.view()?.tools.some((t) => t.status === 'running') === true;
    if (this.ticker || !running()) return;
    this.ticker = setInterval(() => {
      if (!running() || this.quitting) {
        clearInterval(this.ticker ?? undefined);
        this.ticker = null;
      }
      this.screen.refresh(this.live.view());
    }, 1000);
    this.ticker.unref();
  }

  private onStreamState(state: StreamState): void {
    if (state.state === 'connected') {
      if (this.streamLost) this.note(`✓ reconnected to ${this.api.baseUrl}; caught up`);
      this.streamLost = false;
    } else if (state.state === 'lost') {
      if (state.attempt === 1) {
        this.note(`${describeError(state.error)} Retrying…`, 'warn');
      }
      this.streamLost = true;
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Input

  /**
   * Handles typed lines one after another until the client quits, starting with `early`: the lines typed
   * while the client was starting (already on screen where they were typed, so not erased as a fresh one is).
   */
  private interactiveLoop(rl: readline.Interface, early: string[]): Promise<number> {
    return new Promise<number>((resolve) => {
      let chain = Promise.resolve();
      const finish = () => resolve(EXIT.ok);
      this.quitSignal.signal.addEventListener('abort', finish, { once: true });
      rl.on('close', () => this.quit());
      const handle = (line: string, onScreen: boolean) => {
        chain = chain.then(async () => {
          if (this.quitting) return;
          const r = await this.handleLine(line, true, onScreen);
          if (r.quit) this.quit();
        });
      };
      for (const line of early.splice(0)) handle(line, false);
      rl.on('line', (line) => handle(line, true));
      this.screen.showPrompt();
      if (!rl.terminal) rl.prompt();
    });
  }

  /** Says which lines typed while the client was starting were not sent (it could not start, or quit). */
  private reportUnsent(early: string[]): void {
    const unsent = early.filter((l) => l.trim() !== '');
    if (unsent.length === 0) return;
    const s = unsent.length === 1 ? '' : 's';
    const text = `not sent — typed before the client was connected (${unsent.length} line${s}):\n${unsent.map((l) => `  ${l}`).join('\n')}`;
    this.o.errors.write(`${renderNotice(clean(text), 'error', this.o.render)}\n`);
  }

  /**
   * Piped input: one line at a time, each message waited for until its turn ends. While a tool call of the turn
   * waits for this terminal's approval, the next input line answers it (y / n / a); a line that is no answer, or
   * the end of the input, leaves the call waiting (another client or the web page may decide it) and the script
   * goes on without waiting for that turn.
   */
  private async scriptLoop(lines: AsyncIterator<string>): Promise<number> {
    let failed = false;
    let carried: IteratorResult<string> | undefined;
    const next = (): Promise<IteratorResult<string>> => {
      const c = carried;
      carried = undefined;
      return c ? Promise.resolve(c) : lines.next();
    };
    for (;;) {
      const item = await next();
      if (item.done || this.quitting) break;
      const r = await this.handleLine(item.value, false);
      failed ||= r.failed === true;
      if (r.quit) break;
      if (!r.waitFor) continue;
      const turn = this.waitForTurn(r.waitFor, this.o.turnTimeoutMs);
      for (;;) {
        const ended = await Promise.race([turn, this.approvalAsked().then(() => 'asked' as const)]);
        if (ended === false && !this.quitting) {
          this.note(`no answer within ${Math.round(this.o.turnTimeoutMs / 1000)} s; going on`, 'error');
          failed = true;
        }
        if (ended !== 'asked') break;
        const answer = await next();
        if (!answer.done && parseApprovalAnswer(answer.value)) {
          await this.handleLine(answer.value, false);
          continue;
        }
        carried = answer;
        this.note(
          answer.done
            ? 'a tool call waits for approval and the input has ended: it stays waiting (answer it with y/n/a in an interactive client or on the web page)'
            : `a tool call waits for approval and the next input line is not y/n/a: it stays waiting, going on with “${clean(answer.value)}”`,
          'error',
        );
        failed = true;
        break;
      }
    }
    this.quit();
    return failed ? EXIT.failed : EXIT.ok;
  }

  /** Resolves once a tool call waits for this terminal's answer (at once when one already does). */
  private approvalAsked(): Promise<void> {
    if (this.approvals.current()) return Promise.resolve();
    return new Promise<void>((resolve) => this.approvalListeners.push(resolve));
  }

  /**
   * One line of input: a command or a message. `typed`: from a person at a terminal; `onScreen` (default
   * true): readline just left it under the prompt, where it is replaced by its transcript form.
   */
  private async handleLine(raw: string, typed: boolean, onScreen = true): Promise<LineResult> {
    const line = raw.replace(/\s+$/, '');
    const s = this.o.render.style;
    const entered = (echo: string | null) => {
      if (typed && onScreen) this.screen.entered(raw, echo);
    };
    if (line.trim() === '') {
      entered(null);
      this.screen.showPrompt();
      return {};
    }
    // While a tool call waits for this terminal, y / n / a answer it.
    const waiting = this.approvals.current();
    const answer = waiting ? parseApprovalAnswer(line) : null;
    if (waiting && answer) {
      entered(s.dim(`› ${line}`));
      this.screen.showPrompt();
      return this.answerApproval(waiting, answer);
    }
    // Only a line that is wholly a command counts (the rule shared with the chat adapters); `//` sends a literal `/`.
    const parsed = line.startsWith('//') ? null : parseChatCommand(line, CLI_LOCAL_COMMANDS);
    entered(parsed ? s.dim(`› ${line}`) : null);
    this.screen.showPrompt();
    if (parsed) return this.command(parsed, line);
    const content = line.startsWith('//') ? line.slice(1) : line;
    const id = await this.send(content, typed);
    return id === null ? { failed: true } : { waitFor: id };
  }

  /**
   * Sends a message with a client-made id, so a call repeated after a lost answer queues nothing twice.
   * @returns the message id, or null when it was not accepted (the reason was printed)
   */
  private async send(content: string, typed: boolean): Promise<string | null> {
    const id = randomUUID();
    const sessionId = this.sessionId;
    if (typed) {
      // Echoed in transcript form once accepted (or when its commit arrives first), not again when committed;
      // a line the API refuses is not shown as sent.
      this.printed.add(id);
      this.unechoed.set(id, content);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const channel = this.channelToSend();
        const accepted = await this.api.postMessage(sessionId, {
          id,
          content,
          sender: this.o.sender,
          ...(channel ? { channel } : {}),
        });
        if (accepted.queue_position > 0) {
          const n = accepted.queue_position;
          this.note(`queued: ${n} turn${n === 1 ? '' : 's'} ahead of it`);
        }
        this.echo(id);
        this.follower?.wake();
        return id;
      } catch (err) {
        // A connection that broke mid-call may or may not have delivered it: the same id makes a retry safe.
        if (err instanceof ApiError && err.kind === 'unreachable' && attempt < 3 && !this.quitting) {
          await this.pause(500 * attempt);
          continue;
        }
        this.unechoed.delete(id);
        this.printed.delete(id);
        const giveBack = typed && this.rl?.terminal === true && this.rl.line === '';
        const why = notFoundForToken(err)
          ? `session ${sessionId} belongs to someone else or cannot be used with this token; ${this.elsewhere()}`
          : describeError(err);
        this.note(`not sent — ${why}${giveBack ? ' (your text is back in the prompt)' : ''}`, 'error');
        if (giveBack) this.rl?.write(content);
        return null;
      }
    }
  }

  /** Prints a typed message, accepted or committed, in transcript form (once). */
  private echo(id: string): void {
    const content = this.unechoed.get(id);
    if (content === undefined) return;
    this.unechoed.delete(id);
    this.screen.print(renderUserLine(this.o.sender, content, this.o.render));
  }

  /**
   * The `channel` to send with a message: `cli` for a session not created yet, the session's own when it is a
   * REST session, none for a chat channel's session (an admin joining it).
   */
  private channelToSend(): RestChannel | undefined {
    if (this.channel === null) return CLI_CHANNEL;
    return this.channel === 'api' || this.channel === CLI_CHANNEL ? this.channel : undefined;
  }

  /**
   * Changes the session's settings; before its first message this creates the session (on `cli`, as the first
   * message would), so the settings apply to the first turn.
   */
  private async patch(body: Omit<Parameters<KesokuApi['patchSession']>[1], 'channel'>): Promise<SessionInfo> {
    const channel = this.channel === null ? this.channelToSend() : undefined;
    const info = await this.api.patchSession(this.sessionId, { ...body, ...(channel ? { channel } : {}) });
    if (this.channel === null && info.chatbot_id) this.channel = info.chatbot_id;
    return info;
  }

  /** `/plan`: the session's active plan, one line per step. */
  private async showPlan(): Promise<void> {
    const info = await this.api.getSession(this.sessionId);
    const steps = info?.plan?.steps ?? [];
    if (steps.length === 0) this.note('plan: none');
    else this.screen.print(steps.map((p, i) => `  ${i + 1}. [${p.status}] ${p.title}`).join('\n'));
  }

  /** `/jobs`: the session's background jobs, newest first, one line each. */
  private async showJobs(): Promise<void> {
    const { jobs } = await this.api.jobs(this.sessionId);
    if (jobs.length === 0) this.note('no background jobs in this session');
    else
      this.screen.print(
        jobs
          .slice(0, 20)
          .map((j) => `  ${jobLine(j)}`)
          .join('\n'),
      );
  }

  /** `/prompt`: the exact model input of the session's latest step (admins). */
  private async showPrompt(): Promise<void> {
    const p = await this.api.getPrompt(this.sessionId);
    const lines = [`── system (turn ${p.turn_id}, step ${p.step}) ──`, p.input.system];
    for (const msg of p.input.messages)
      lines.push(
        `── ${msg.role} ──`,
        typeof msg.content === 'string' ? msg.content : JSON.stringify(msg.content),
      );
    this.screen.print(lines.join('\n'));
  }

  /** Runs a command line, parsed by the grammar every channel shares (kit/commands.ts). */
  private async command(parsed: ParsedCommand, line: string): Promise<LineResult> {
    const cmd = line.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    try {
      switch (parsed.name) {
        case 'local':
          if (parsed.command === 'quit' || parsed.command === 'exit') return { quit: true };
          if (parsed.command === 'new') this.switchSession(this.o.newSessionId());
          else if (parsed.command === 'plan') await this.showPlan();
          else if (parsed.command === 'prompt') await this.showPrompt();
          else if (parsed.command === 'jobs') await this.showJobs();
          else this.screen.print(renderHelp(this.o.render));
          return {};
        case 'stop': {
          const { stopped } = await this.api.stop(this.sessionId);
          // A stopped turn announces itself (the server's "⏹ Stopped." notification).
          if (!stopped) this.note('nothing was running');
          return {};
        }
        case 'compact': {
          const r = await this.api.compact(this.sessionId);
          if (!this.printed.has(r.message_id)) this.note('⟳ compaction queued');
          return { waitFor: r.message_id };
        }
        case 'title': {
          const info = await this.patch({ title: parsed.title });
          this.note(`title: “${info.title ?? parsed.title}”`);
          return {};
        }
        case 'mode': {
          const info = await this.patch({ mode: parsed.mode });
          this.note(`mode: ${info.mode}`);
          return {};
        }
        case 'approval':
          await this.patch({ approval: parsed.policy });
          this.note(`approval: ${parsed.policy}`);
          return {};
        case 'locale': {
          const info = await this.patch({ locale: parsed.locale });
          this.note(`locale: ${info.locale ?? parsed.locale}`);
          return {};
        }
        case 'usage':
          if (parsed.command === 'approval' && line.trim().toLowerCase() === '/approval') {
            // The terminal's bare `/approval` shows the policy in force instead of the usage.
            const info = await this.api.getSession(this.sessionId);
            this.note(info ? describeApproval(info) : 'approval: the session has no messages yet');
            return {};
          }
          this.note(CLI_USAGE[parsed.command], 'warn');
          return {};
        case 'schedules': {
          const { schedules } = await this.api.schedules(this.sessionId);
          if (schedules.length === 0) this.note('no scheduled prompts in this session');
          for (const v of schedules) this.note(describeSchedule(v));
          return {};
        }
        case 'memory': {
          // With the session: its shared scope too; a session without messages yet is a 404, then only the caller's.
          const session = this.sessionId;
          const orOwn = <T>(call: (s?: string) => Promise<T>) =>
            call(session).catch((err: unknown) => {
              if (
                err instanceof ApiError &&
                err.status === 404 &&
                err.problem?.type === 'urn:kesoku:problem:session-not-found'
              )
                return call(undefined);
              throw err;
            });
          if (parsed.forget) {
            const id = parsed.forget;
            await orOwn((s) => this.api.forgetMemory(id, s));
            this.note(`forgotten: ${id}`);
            return {};
          }
          const { entries } = await orOwn((s) => this.api.listMemory(s ? { session: s } : {}));
          if (entries.length === 0) this.note('memory: nothing remembered yet');
          else
            this.screen.print(
              entries.map((e) => `  ${e.id}  ${e.shared ? '(shared here) ' : ''}${clean(e.text)}`).join('\n'),
            );
          return {};
        }
        case 'link':
          this.note('the terminal already talks as your API principal; /link is for chat accounts', 'warn');
          return {};
        case 'kill': {
          const { job } = await this.api.killJob(this.sessionId, parsed.jobId);
          this.note(`⏹ killed ${jobLine(job)}`);
          return {};
        }
        case 'unknown':
          this.note(`unknown command ${parsed.word}; the commands are:`, 'warn');
          this.screen.print(renderHelp(this.o.render));
          return {};
      }
    } catch (err) {
      const text =
        err instanceof ApiError && err.status === 404 && parsed.name === 'memory'
          ? `/memory: you have no entry ${parsed.forget ?? ''}`
          : err instanceof ApiError && parsed.name === 'kill' && (err.status === 404 || err.status === 409)
            ? `/kill: ${err.problem?.detail ?? (err.status === 404 ? `no job ${parsed.jobId} in this session` : 'that job has ended')}`
            : err instanceof ApiError && err.status === 404
              ? `${cmd}: this session has no messages yet — send one first`
              : `${cmd} failed — ${describeError(err)}`;
      this.note(text, 'error');
      return { failed: true };
    }
  }

  /** Leaves the current session for `sessionId` (new: nothing to show, follow from revision 0). */
  private async answerApproval(
    a: ApprovalRequested,
    decision: 'approve' | 'deny' | 'always',
  ): Promise<LineResult> {
    try {
      await this.api.decideApproval(a.session_id, a.call_id, decision);
      this.note(
        decision === 'deny' ? '✗ denied' : decision === 'always' ? '✓ approved (always)' : '✓ approved',
      );
    } catch (err) {
      this.note(`not decided — ${describeError(err)}`, 'error');
    }
    const next = this.approvals.drop(a.call_id);
    if (next) this.note(approvalPromptText(next), 'warn');
    return {};
  }

  private switchSession(sessionId: string): void {
    this.approvals.clear();
    this.follower?.close();
    this.follower = null;
    this.printed = new Set();
    this.statuses = new Map();
    this.channel = null;
    this.live = new LiveTurn();
    this.screen.refresh(null);
    this.sessionId = sessionId;
    this.banner('new session');
    this.follow(0);
  }

  /** Resolves true once message `id` reached a final status, false after `timeoutMs` or on quit. */
  private waitForTurn(id: string, timeoutMs: number): Promise<boolean> {
    if (ended(this.statuses.get(id))) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const finish = (ended: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(id);
        this.quitSignal.signal.removeEventListener('abort', onQuit);
        resolve(ended);
      };
      const onQuit = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.quitSignal.signal.addEventListener('abort', onQuit, { once: true });
      this.waiters.set(id, () => {
        if (ended(this.statuses.get(id))) finish(true);
      });
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Helpers

  /** "Kesoku · session <id> · <about>", then how to come back to it. */
  private banner(about: string): void {
    const s = this.o.render.style;
    this.screen.print(
      `${s.bold('Kesoku')} ${s.dim('·')} session ${s.bold(this.sessionId)} ${s.dim(`· ${clean(about)}`)}`,
    );
    const help = this.interactive ? ' · /help for commands' : '';
    this.note(
      `API ${this.api.baseUrl} · resume with: ${chatCommand(this.api.baseUrl, this.sessionId)}${help}`,
    );
  }

  /** Where to go instead of a session this token cannot use: another --session (or /new at a terminal). */
  private elsewhere(): string {
    const other = chatCommand(this.api.baseUrl, this.o.newSessionId());
    return `use another session: ${other}${this.interactive ? ' (or /new)' : ''}`;
  }

  private note(text: string, level: 'info' | 'warn' | 'error' = 'info'): void {
    // Notes carry server text (titles, error details): cleaned of control sequences before colouring.
    this.screen.print(renderNotice(clean(text), level, this.o.render));
  }

  /** Waits `ms`, or less when the client quits. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.quitSignal.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private quit(): void {
    if (this.quitting) return;
    this.quitting = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.follower?.close();
    this.screen.detach();
    if (this.interactive) this.note(`bye — resume with: ${chatCommand(this.api.baseUrl, this.sessionId)}`);
    this.quitSignal.abort();
    this.rl?.close();
  }
}

/**
 * Resolves once everything written to `output` so far has been handed to the operating system (a stream's
 * write callback fires in order); at once for an output that is not a stream.
 */
function flushed(output: Output): Promise<void> {
  const stream = output as Partial<NodeJS.WritableStream> & { writableLength?: number; destroyed?: boolean };
  if (typeof stream.writableLength !== 'number' || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write?.('', () => resolve());
  });
}

/** Whether an input message (a turn's trigger) reached its final status: its turn is over. */
function ended(status: Message['status'] | undefined): boolean {
  return status !== undefined && isInputStatus(status) && isTerminalStatus(status);
}

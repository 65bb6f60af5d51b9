/**
 * The live status of one turn on Discord (seed 1 §4.3, §5.3): one message listing the turn's thoughts (💭) and
 * tool calls (🛠️ … ⏳), edited in place to ✅/❌ as results arrive. Edits are throttled to about one per
 * `editIntervalMs`; {@link LiveStatus.finish} always sends the final state. When the next line would push the
 * message past 2000 characters, the status continues in a new message.
 *
 * Live rendering is best effort: a REST failure that survives @discordjs/rest's own retries marks the status
 * broken for good — nothing more is edited or posted for this turn — and never fails the turn; the final
 * reply is its own message and goes out regardless (seed 2 §5).
 */
import type { REST } from 'discord.js';
import type { Message } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import { toolResultState, type ToolState } from '../../domain/presentation.ts';
import { MAX_ENTRY_LENGTH, renderEntry, statusEntryFor, type StatusEntry } from './format.ts';
import { QUIET_FLAGS, createMessage, editMessage, nonceFor } from './rest.ts';
import { DISCORD_MAX_CONTENT } from './split.ts';

/** REST client, logger and edit throttle of a {@link LiveStatus}. */
export interface LiveStatusDeps {
  rest: REST;
  logger: Logger;
  /** Minimum time between two edits, ms (Discord allows about 5 edits per 5 s per channel). */
  editIntervalMs: number;
}

interface Part {
  entries: StatusEntry[];
  messageId: string | null;
  /** The content Discord has, as far as we know. */
  sent: string | null;
}

/** How much a running tool line can still grow (its mark and result summary). */
const GROWTH = 160;

/** The live status messages of one turn in one channel (see the module comment). */
export class LiveStatus {
  readonly turnId: string;
  readonly channelId: string;
  private readonly deps: LiveStatusDeps;
  private readonly parts: Part[] = [];
  private readonly byKey = new Map<string, StatusEntry>();
  /** When Discord last got a write for this turn (creation or edit), epoch ms. */
  private lastEditAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private brokenFlag = false;

  constructor(deps: LiveStatusDeps, turnId: string, channelId: string) {
    this.deps = deps;
    this.turnId = turnId;
    this.channelId = channelId;
  }

  /** True once rendering failed for good; the status is then left as it is. */
  get broken(): boolean {
    return this.brokenFlag;
  }

  /** Adds thoughts and tool calls, and applies tool results to their calls. Unknown kinds are ignored. */
  apply(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.type === 'tool_result') this.applyResult(m);
      else {
        const entry = statusEntryFor(m);
        if (entry && !this.byKey.has(entry.key)) this.add(entry);
      }
    }
  }

  private applyResult(result: Message): void {
    const callId = result.metadata?.tool_call_id;
    let entry =
      (result.parent_id ? this.byKey.get(result.parent_id) : undefined) ??
      [...this.byKey.values()].find(
        (e) => e.kind === 'tool' && callId !== undefined && e.toolCallId === callId,
      );
    if (!entry) {
      // The call was shown by another process (or before a restart): show the result on a line of its own.
      entry = {
        kind: 'tool',
        key: result.parent_id ?? result.id,
        toolCallId: null,
        name: result.sender,
        args: '{}',
        state: 'running',
        summary: '',
      };
      this.add(entry);
    }
    if (entry.kind !== 'tool') return;
    entry.state = toolResultState(result);
    entry.summary = typeof result.metadata?.tool_result === 'string' ? result.metadata.tool_result : '';
  }

  private add(entry: StatusEntry): void {
    this.byKey.set(entry.key, entry);
    const last = this.parts.at(-1);
    const bound = (e: StatusEntry) =>
      renderEntry(e).length + 1 + (e.kind === 'tool' && e.state === 'running' ? GROWTH : 0);
    if (last && last.entries.reduce((n, e) => n + bound(e), 0) + bound(entry) <= DISCORD_MAX_CONTENT)
      last.entries.push(entry);
    else this.parts.push({ entries: [entry], messageId: null, sent: null });
  }

  /** Brings Discord up to date: new status messages are posted now, edits wait for the throttle. Never throws. */
  sync(): Promise<void> {
    return this.enqueue(() => this.write(false));
  }

  /**
   * Marks tools still running as `endState` (the turn was stopped or failed), cancels any pending throttled edit
   * and sends the final state (waiting out the throttle). Never throws.
   */
  finish(endState: Exclude<ToolState, 'running' | 'ok'> | null): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (endState)
      for (const e of this.byKey.values()) if (e.kind === 'tool' && e.state === 'running') e.state = endState;
    return this.enqueue(() => this.write(true));
  }

  /** Drops a pending throttled edit (process shutdown). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private enqueue(fn: () => Promise<void>): Promise<void> {
    const next = this.chain.then(fn).catch((err: unknown) => {
      this.brokenFlag = true;
      this.dispose();
      this.deps.logger.warn(
        { turnId: this.turnId, channelId: this.channelId, err: String(err) },
        'live status failed; leaving it as it is',
      );
    });
    this.chain = next;
    return next;
  }

  private async write(final: boolean): Promise<void> {
    if (this.brokenFlag) return;
    const { rest, editIntervalMs } = this.deps;
    for (const [i, part] of this.parts.entries()) {
      if (part.messageId !== null) continue;
      const created = await createMessage(rest, this.channelId, {
        content: render(part),
        nonce: nonceFor(`status:${this.turnId}`, i),
        enforce_nonce: true,
        allowed_mentions: { parse: [] },
        flags: QUIET_FLAGS,
      });
      // With a repeated nonce Discord returns the earlier message: its content decides whether an edit follows.
      part.messageId = created.id;
      part.sent = created.content;
      this.lastEditAt = Date.now();
    }
    const dirty = () => this.parts.filter((p) => p.messageId !== null && render(p) !== p.sent);
    if (dirty().length === 0) return;
    const wait = this.lastEditAt + editIntervalMs - Date.now();
    if (wait > 0 && !final) {
      this.timer ??= setTimeout(() => {
        this.timer = null;
        void this.enqueue(() => this.write(false));
      }, wait);
      this.timer.unref?.();
      return;
    }
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (const part of dirty()) {
      const content = render(part);
      await editMessage(rest, this.channelId, part.messageId as string, content);
      part.sent = content;
    }
    this.lastEditAt = Date.now();
  }
}

function render(part: Part): string {
  const text = part.entries.map(renderEntry).join('\n');
  if (text.length <= DISCORD_MAX_CONTENT) return text;
  // Not reached while entries keep their bounds; cut on a code point boundary all the same.
  let cut = DISCORD_MAX_CONTENT - 1;
  if (/[\ud800-\udbff]/.test(text.charAt(cut - 1))) cut--;
  return `${text.slice(0, cut)}…`;
}

// A part must always be able to hold one entry.
if (MAX_ENTRY_LENGTH + GROWTH >= DISCORD_MAX_CONTENT)
  throw new Error('live status: entries are too long for a message');

/**
 * The live status of one turn on Discord: one message listing the turn's thoughts (💭), tool calls
 * (🛠️ … ⏳), edited in place to ✅/❌ as results arrive, and system notices ("⏹️ Stopped.", the compaction notice;
 * docs/message-model.md §5.3 "system interaction log", `live`). When the next line would push the message past 2000
 * characters, the status continues in a new message (a "part").
 *
 * A LiveStatus is a short-lived view: the sink restores it from the stored state (Postgres, adapters/kit/
 * stored-status.ts) for each write, applies new messages, writes Discord, and stores it again, so whichever worker runs a turn's next step
 * continues the same messages. The Discord id of each part is recorded through the {@link PostLedger} right after
 * Discord created it. Writes are throttled to about one per `editIntervalMs` per turn (the time of the last write
 * is stored with the state); {@link LiveStatus.write} reports when a deferred edit is due.
 *
 * Discord caps the edits of a message older than an hour (error 30046): such a part continues in a new message
 * (posted under a nonce derived from the old message id, its id kept in the stored state), so a long turn's status
 * keeps moving instead of freezing.
 *
 * Live rendering is best effort: a REST failure that survives @discordjs/rest's own retries (or the per-call
 * timeout) marks the status broken for good: nothing more is edited or posted for this turn, its messages are no
 * longer reported as shown, and the turn goes on; the final reply is its own message and goes out regardless.
 */
import type { REST } from 'discord.js';
import type { Message } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import {
  TAIL_CHARS,
  TAIL_LINES,
  applyToolResult,
  entryOfResult,
  orphanResultEntry,
  setToolTail,
  type ToolState,
} from '../kit/live-status.ts';
import type { LiveStatusView, WriteMode } from '../kit/stored-status.ts';
import { MAX_ENTRY_LENGTH, renderEntry, statusEntryFor, type StatusEntry } from './format.ts';
import {
  DiscordSendError,
  QUIET_FLAGS,
  createMessage,
  editMessage,
  nonceFor,
  type PostLedger,
} from './rest.ts';
import { DISCORD_MAX_CONTENT } from './split.ts';

/** REST client, logger, edit throttle and ledger of a {@link LiveStatus}. */
export interface LiveStatusDeps {
  rest: REST;
  logger: Logger;
  /** Minimum time between two writes of one turn's status, ms (Discord allows about 5 edits per 5 s per channel). */
  editIntervalMs: number;
  /** Bound on each REST call of the status (rate-limit waits included), ms. */
  requestTimeoutMs: number;
  ledger: PostLedger;
}

/** The stored form of a live status (JSON). */
export interface LiveStatusState {
  /** Every line, in the order it was added. */
  entries: StatusEntry[];
  /**
   * Which lines each message holds, and the content Discord has as far as we know (null: unknown). `messageId` is
   * set when the part moved to a new message (30046); otherwise the part's id is in the ledger.
   */
  parts: { keys: string[]; sent: string | null; messageId?: string }[];
  broken: boolean;
}

interface Part {
  keys: string[];
  messageId: string | null;
  sent: string | null;
  /** The part moved to a new message (see the module comment). */
  moved?: boolean;
}

/** Discord's error for an edit of a message older than an hour once its edits there are used up. */
export const OLD_MESSAGE_EDIT_LIMIT = 30046;

export type { WriteMode };

/** How much a running tool line can still grow: its mark and result summary, or its output tail. */
const GROWTH = 160 + TAIL_LINES * (TAIL_CHARS + 12);

/** The ledger key of a turn's status parts (the part index is the chunk). */
export function statusKey(turnId: string): string {
  return `status:${turnId}`;
}

/** The live status messages of one turn in one channel (see the module comment). */
export class LiveStatus implements LiveStatusView {
  readonly turnId: string;
  readonly channelId: string;
  private readonly deps: LiveStatusDeps;
  private readonly parts: Part[] = [];
  private readonly byKey = new Map<string, StatusEntry>();
  private readonly order: string[] = [];
  private readonly postIds: Map<number, string>;
  /** When Discord last got a write for this turn (creation or edit), epoch ms. */
  lastWriteAt: number;
  private brokenFlag = false;

  /**
   * @param stored the stored state and last write time, or null for a new status
   * @param postIds Discord ids of the parts already posted, by part index (from the ledger)
   */
  constructor(
    deps: LiveStatusDeps,
    turnId: string,
    channelId: string,
    stored: { state: LiveStatusState; lastWriteAt: number } | null,
    postIds: Map<number, string>,
  ) {
    this.deps = deps;
    this.turnId = turnId;
    this.channelId = channelId;
    this.postIds = postIds;
    this.lastWriteAt = stored?.lastWriteAt ?? 0;
    if (stored) {
      for (const e of stored.state.entries) {
        this.byKey.set(e.key, e);
        this.order.push(e.key);
      }
      for (const [i, p] of stored.state.parts.entries()) {
        this.parts.push({
          keys: [...p.keys],
          messageId: p.messageId ?? postIds.get(i) ?? null,
          sent: p.sent,
          ...(p.messageId !== undefined ? { moved: true } : {}),
        });
      }
      this.brokenFlag = stored.state.broken;
    }
  }

  /** True once rendering failed for good; the status is then left as it is. */
  get broken(): boolean {
    return this.brokenFlag;
  }

  /** True when there is nothing to show (no line was ever added). */
  get empty(): boolean {
    return this.order.length === 0;
  }

  /** The state to store. */
  toState(): LiveStatusState {
    return {
      entries: this.order.map((k) => this.byKey.get(k) as StatusEntry),
      parts: this.parts.map((p) => ({
        keys: [...p.keys],
        sent: p.sent,
        ...(p.moved && p.messageId !== null ? { messageId: p.messageId } : {}),
      })),
      broken: this.brokenFlag,
    };
  }

  /** Adds thoughts, tool calls and notices, and applies tool results to their calls. Other kinds are ignored. */
  apply(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.type === 'tool_result') this.applyResult(m);
      else {
        const entry = statusEntryFor(m);
        if (entry && !this.byKey.has(entry.key)) this.add(entry);
      }
    }
  }

  /** Shows the last output lines of running tool call `toolCallMessageId`. @returns whether a line changed */
  setToolTail(toolCallMessageId: string, tail: string, elapsedMs: number): boolean {
    return setToolTail([...this.byKey.values()], toolCallMessageId, tail, elapsedMs);
  }

  /** Marks tools still running as `endState` (the turn was stopped or failed). */
  markRunning(endState: Exclude<ToolState, 'running' | 'ok'>): void {
    for (const e of this.byKey.values()) if (e.kind === 'tool' && e.state === 'running') e.state = endState;
  }

  private applyResult(result: Message): void {
    let entry = entryOfResult(this.byKey, result);
    if (!entry) {
      // The call was never shown (rendering started late): show the result on a line of its own.
      entry = orphanResultEntry(result);
      this.add(entry);
    }
    applyToolResult(entry, result);
  }

  private add(entry: StatusEntry): void {
    this.byKey.set(entry.key, entry);
    this.order.push(entry.key);
    const last = this.parts.at(-1);
    const bound = (e: StatusEntry) =>
      renderEntry(e).length + 1 + (e.kind === 'tool' && e.state === 'running' ? GROWTH : 0);
    const used = (p: Part) => p.keys.reduce((n, k) => n + bound(this.byKey.get(k) as StatusEntry), 0);
    if (last && used(last) + bound(entry) <= DISCORD_MAX_CONTENT) last.keys.push(entry.key);
    else {
      const index = this.parts.length;
      this.parts.push({ keys: [entry.key], messageId: this.postIds.get(index) ?? null, sent: null });
    }
  }

  private render(part: Part): string {
    const text = part.keys.map((k) => renderEntry(this.byKey.get(k) as StatusEntry)).join('\n');
    if (text.length <= DISCORD_MAX_CONTENT) return text;
    // Not reached while entries keep their bounds; cut on a code point boundary all the same.
    let cut = DISCORD_MAX_CONTENT - 1;
    if (/[\ud800-\udbff]/.test(text.charAt(cut - 1))) cut--;
    return `${text.slice(0, cut)}…`;
  }

  /**
   * Brings Discord up to date: parts not yet posted are created now (each recorded in the ledger at once);
   * changed parts are edited when the throttle allows (`throttled`), after waiting it out (`final`), or at once
   * (`now`: a flush at shutdown). Never throws: a failure marks the status broken.
   * @returns ms until a deferred edit is due, or null when nothing is left to write
   */
  async write(mode: WriteMode): Promise<number | null> {
    if (this.brokenFlag) return null;
    try {
      return await this.writeOrThrow(mode);
    } catch (err) {
      this.brokenFlag = true;
      this.deps.logger.warn(
        { turnId: this.turnId, channelId: this.channelId, err: String(err) },
        'live status failed; leaving it as it is',
      );
      return null;
    }
  }

  private async writeOrThrow(mode: WriteMode): Promise<number | null> {
    const { rest, editIntervalMs, requestTimeoutMs, ledger } = this.deps;
    for (const [i, part] of this.parts.entries()) {
      if (part.messageId !== null) continue;
      const created = await createMessage(
        rest,
        this.channelId,
        {
          content: this.render(part),
          nonce: nonceFor(statusKey(this.turnId), i),
          enforce_nonce: true,
          allowed_mentions: { parse: [] },
          flags: QUIET_FLAGS,
        },
        AbortSignal.timeout(requestTimeoutMs),
      );
      part.messageId = created.id;
      await ledger.recordPost({
        key: statusKey(this.turnId),
        chunk: i,
        channelId: this.channelId,
        platformMessageId: created.id,
      });
      // With a repeated nonce Discord returns the earlier message: its content decides whether an edit follows.
      part.sent = created.content;
      this.lastWriteAt = Date.now();
    }
    const dirty = () => this.parts.filter((p) => p.messageId !== null && this.render(p) !== p.sent);
    if (dirty().length === 0) return null;
    const wait = mode === 'now' ? 0 : this.lastWriteAt + editIntervalMs - Date.now();
    if (wait > 0 && mode === 'throttled') return wait;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (const part of dirty()) {
      const content = this.render(part);
      try {
        await editMessage(
          rest,
          this.channelId,
          part.messageId as string,
          content,
          AbortSignal.timeout(requestTimeoutMs),
        );
        part.sent = content;
      } catch (err) {
        if (!(err instanceof DiscordSendError && err.code === OLD_MESSAGE_EDIT_LIMIT)) throw err;
        await this.moveToNewMessage(part, content);
      }
      this.lastWriteAt = Date.now();
    }
    return null;
  }

  /** Posts `part` anew as `content` after its message refused further edits (30046). */
  private async moveToNewMessage(part: Part, content: string): Promise<void> {
    const old = part.messageId as string;
    this.deps.logger.info(
      { turnId: this.turnId, channelId: this.channelId, messageId: old },
      'live status message is too old to edit; continuing in a new message',
    );
    const created = await createMessage(
      this.deps.rest,
      this.channelId,
      {
        content,
        nonce: nonceFor(`${statusKey(this.turnId)}:moved:${old}`, this.parts.indexOf(part)),
        enforce_nonce: true,
        allowed_mentions: { parse: [] },
        flags: QUIET_FLAGS,
      },
      AbortSignal.timeout(this.deps.requestTimeoutMs),
    );
    part.messageId = created.id;
    part.moved = true;
    part.sent = created.content;
  }
}

// A part must always be able to hold one entry.
if (MAX_ENTRY_LENGTH + GROWTH >= DISCORD_MAX_CONTENT)
  throw new Error('live status: entries are too long for a message');

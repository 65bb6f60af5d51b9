/**
 * The intermediate card of one turn in Google Chat (docs/message-model.md §4.3, §5.3 "folded intermediate
 * card"): ONE card message per turn listing the turn's thoughts (💭) and tool calls (🛠️ … ⏳) in a collapsible
 * section, patched in place (spaces.messages.patch, updateMask `cardsV2`) as results arrive: ⏳ → ✅/❌ (⏹️ when
 * the turn was stopped). When the lines outgrow the card, the oldest are folded into "… N earlier steps".
 * System notices (the stop notice, the compaction notice: §5.3 "system interaction log") are lines of the card
 * too, shown under its summary line where a folded card still shows them.
 *
 * Like Discord's live status, a LiveCard is a short-lived view restored from Postgres (live_statuses, the card's
 * message name in platform_posts under `status:<turn id>`) for each write (adapters/kit/stored-status.ts), so
 * any worker continues the card.
 * The create carries a client-assigned id, so a retried create never makes a second card. Rendering is best
 * effort: a failed call marks the card broken for good; the turn and its final reply go on.
 */
import type { chat_v1 } from '@googleapis/chat';
import type { Message } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import type { LockedStatusStore } from '../../db/deliveries.ts';
import {
  applyToolResult,
  entryOfResult,
  orphanResultEntry,
  setToolTail,
  statusEntryFor,
  type StatusEntry,
  type ToolState,
} from '../kit/live-status.ts';
import type { LiveStatusView, WriteMode } from '../kit/stored-status.ts';
import { createMessage, updateCards, type ChatApi } from './api.ts';
import { renderCardEntry } from './format.ts';
import { clientMessageId } from './ids.ts';

/** The stored form of a card (JSON in live_statuses.state). */
export interface LiveCardState {
  entries: StatusEntry[];
  /** The cards JSON Chat has as far as we know (null: unknown, patch on the next write). */
  sent: string | null;
  broken: boolean;
}

export type { WriteMode };

/** What a card needs to write itself. */
export interface LiveCardDeps {
  api: ChatApi;
  logger: Logger;
  /** Minimum time between two writes of one turn's card, ms. */
  editIntervalMs: number;
  /** Bound on each API call, ms. */
  requestTimeoutMs: number;
  ledger: Pick<LockedStatusStore, 'recordPost'>;
}

/** The platform_posts key of a turn's card (chunk 0). */
export function cardKey(turnId: string): string {
  return `status:${turnId}`;
}

/** The card's id inside the message. */
export const CARD_ID = 'kesoku-steps';
/** Budget for the lines of one card, UTF-8 bytes (a Chat message takes 32 000 bytes in all). */
export const CARD_TEXT_BUDGET = 24_000;

/** The intermediate card of one turn (see the module comment). */
export class LiveCard implements LiveStatusView {
  readonly turnId: string;
  private readonly deps: LiveCardDeps;
  private readonly entries: StatusEntry[];
  private readonly space: string;
  private readonly thread: string | null;
  private messageName: string | null;
  private sent: string | null;
  private brokenFlag: boolean;
  /** When Chat last got a write of this card, epoch ms. */
  lastWriteAt: number;

  /**
   * @param where the space and thread (null: the space itself) the card goes to
   * @param stored the stored state and last write time, or null for a new card
   * @param messageName the card's message name when it was already created (from platform_posts)
   */
  constructor(
    deps: LiveCardDeps,
    turnId: string,
    where: { space: string; thread: string | null },
    stored: { state: LiveCardState; lastWriteAt: number } | null,
    messageName: string | null,
  ) {
    this.deps = deps;
    this.turnId = turnId;
    this.space = where.space;
    this.thread = where.thread;
    this.entries = stored ? stored.state.entries.map((e) => ({ ...e })) : [];
    this.sent = stored?.state.sent ?? null;
    this.brokenFlag = stored?.state.broken ?? false;
    this.lastWriteAt = stored?.lastWriteAt ?? 0;
    this.messageName = messageName;
  }

  get broken(): boolean {
    return this.brokenFlag;
  }

  get empty(): boolean {
    return this.entries.length === 0;
  }

  toState(): LiveCardState {
    return { entries: this.entries, sent: this.sent, broken: this.brokenFlag };
  }

  /** Adds thoughts, tool calls and notices, and applies tool results to their calls. Other kinds are ignored. */
  apply(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.type === 'tool_result') this.applyResult(m);
      else {
        const entry = statusEntryFor(m);
        if (entry && !this.entries.some((e) => e.key === entry.key)) this.entries.push(entry);
      }
    }
  }

  /** Marks tools still running as `endState` (the turn was stopped or failed). */
  /** Shows the last output lines of running tool call `toolCallMessageId`. @returns whether a line changed */
  setToolTail(toolCallMessageId: string, tail: string, elapsedMs: number): boolean {
    return setToolTail(this.entries, toolCallMessageId, tail, elapsedMs);
  }

  markRunning(endState: Exclude<ToolState, 'running' | 'ok'>): void {
    for (const e of this.entries) if (e.kind === 'tool' && e.state === 'running') e.state = endState;
  }

  private applyResult(result: Message): void {
    let entry = entryOfResult(new Map(this.entries.map((e) => [e.key, e])), result);
    if (!entry) {
      // The call was never shown (rendering started late): the result gets a line of its own.
      entry = orphanResultEntry(result);
      this.entries.push(entry);
    }
    applyToolResult(entry, result);
  }

  /** The card as Chat's cardsV2 field. */
  render(): chat_v1.Schema$CardWithId[] {
    const notices = this.entries.filter((e) => e.kind === 'notice').map(renderCardEntry);
    const steps = this.entries.filter((e) => e.kind !== 'notice');
    const lines = steps.map(renderCardEntry);
    let bytes = 0;
    let first = lines.length;
    while (first > 0) {
      const size = Buffer.byteLength(lines[first - 1] as string) + 64;
      if (bytes + size > CARD_TEXT_BUDGET) break;
      bytes += size;
      first--;
    }
    const shown = lines.slice(first);
    const running = steps.filter((e) => e.kind === 'tool' && e.state === 'running').length;
    const tools = steps.filter((e) => e.kind === 'tool').length;
    const summary =
      `${running > 0 ? '⏳' : '✔️'} ${steps.length} ${steps.length === 1 ? 'step' : 'steps'}` +
      ` · ${tools} ${tools === 1 ? 'tool call' : 'tool calls'}${running > 0 ? ` · ${running} running` : ''}`;
    // The summary and the notices stay visible when the section is folded; a card of notices alone (a turn
    // stopped before its first step) has no summary and nothing to fold.
    const head = steps.length === 0 ? notices : [summary, ...notices];
    const widgets: chat_v1.Schema$GoogleAppsCardV1Widget[] = head.map((text) => ({
      textParagraph: { text },
    }));
    if (first > 0) widgets.push({ textParagraph: { text: `<i>… ${first} earlier steps</i>` } });
    for (const text of shown) widgets.push({ textParagraph: { text } });
    return [
      {
        cardId: CARD_ID,
        card: {
          sections: [
            {
              header: 'Thoughts and tool calls',
              ...(steps.length === 0 ? {} : { collapsible: true, uncollapsibleWidgetsCount: head.length }),
              widgets,
            },
          ],
        },
      },
    ];
  }

  /**
   * Brings Chat up to date: creates the card when it has no message yet (recorded at once), else patches it when
   * it changed and the throttle allows (`throttled`), after waiting the throttle out (`final`), or at once
   * (`now`). Never throws: a failure marks the card broken.
   * @returns ms until a deferred patch is due, or null when nothing is left to write
   */
  async write(mode: WriteMode): Promise<number | null> {
    if (this.brokenFlag || this.empty) return null;
    try {
      return await this.writeOrThrow(mode);
    } catch (err) {
      this.brokenFlag = true;
      this.deps.logger.warn(
        { turnId: this.turnId, space: this.space, err: String(err) },
        'google chat card failed; leaving it as it is',
      );
      return null;
    }
  }

  private async writeOrThrow(mode: WriteMode): Promise<number | null> {
    const { api, editIntervalMs, requestTimeoutMs, ledger } = this.deps;
    const cards = this.render();
    const json = JSON.stringify(cards);
    if (this.messageName === null) {
      const r = await createMessage(api, {
        parent: this.space,
        thread: this.thread,
        messageId: clientMessageId(cardKey(this.turnId), 0),
        cardsV2: cards,
        timeoutMs: requestTimeoutMs,
      });
      this.messageName = r.name;
      await ledger.recordPost({
        key: cardKey(this.turnId),
        chunk: 0,
        channelId: this.thread ?? this.space,
        platformMessageId: r.name,
      });
      // An earlier attempt created it: what it holds is unknown, so it is patched below.
      this.sent = r.created ? json : null;
      this.lastWriteAt = Date.now();
    }
    if (this.sent === json) return null;
    const wait = mode === 'now' ? 0 : this.lastWriteAt + editIntervalMs - Date.now();
    if (wait > 0 && mode === 'throttled') return wait;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await updateCards(api, this.messageName, cards, requestTimeoutMs);
    this.sent = json;
    this.lastWriteAt = Date.now();
    return null;
  }
}

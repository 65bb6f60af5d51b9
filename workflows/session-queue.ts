/**
 * The session's admission queue as plain state (no Temporal calls), so its rules can be tested on their own:
 * bounded capacity counting reserved slots, message-id de-duplication that survives
 * continue-as-new (a bounded set of recent ids is carried), and interrupt-mode superseding.
 */
import type { QueueItem } from './definitions.ts';

/**
 * Interrupt mode in a shared channel: whether a new message of `newSender` may interrupt a running turn of
 * `runningSender`. Only the same sender interrupts; a message or turn without a sender id (REST, CLI: one person
 * per session) interrupts and is interrupted as before.
 */
export function interruptsTurnOf(runningSender: string | undefined, newSender: string | undefined): boolean {
  return runningSender === undefined || newSender === undefined || runningSender === newSender;
}

/** How many recent ids continue-as-new carries; older duplicates are still caught by the database. */
export const SEEN_CARRY_LIMIT = 1000;

export class SessionQueue {
  private readonly queued: QueueItem[];
  private readonly reserved = new Set<string>();
  private readonly seenOrder: string[];
  private readonly seen: Set<string>;
  private readonly capacity: number;

  constructor(items: QueueItem[], seenIds: string[], capacity: number) {
    this.queued = [...items];
    this.seenOrder = [...seenIds];
    this.seen = new Set(seenIds);
    for (const item of items) this.markSeen(item.messageId);
    this.capacity = capacity;
  }

  /** Queued items (reserved slots excluded). */
  get length(): number {
    return this.queued.length;
  }

  /** True while queued plus reserved slots are under capacity. */
  hasRoom(): boolean {
    return this.queued.length + this.reserved.size < this.capacity;
  }

  isSeen(id: string): boolean {
    return this.seen.has(id);
  }

  markSeen(id: string): void {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.seenOrder.push(id);
  }

  /** Reserves a slot for `id` before its message is stored; the id counts as seen from now on. */
  reserve(id: string): void {
    this.reserved.add(id);
    this.markSeen(id);
  }

  /** Gives a reserved slot back after a failed store; the id may be submitted again. */
  release(id: string): void {
    this.reserved.delete(id);
    if (this.seen.delete(id)) this.seenOrder.splice(this.seenOrder.lastIndexOf(id), 1);
  }

  /**
   * Turns a reservation into a queued item. With `enqueue` false (the stored message had already ended) the
   * slot is freed and nothing is queued. @returns the item's index in the queue, or null when not queued
   */
  commit(
    id: string,
    enqueue: boolean,
    kind: QueueItem['kind'] = 'user',
    gen?: number,
    senderId?: string,
  ): number | null {
    this.reserved.delete(id);
    if (!enqueue) return null;
    const existing = this.positionOf(id);
    if (existing !== null) return existing;
    this.queued.push({
      messageId: id,
      kind,
      ...(gen === undefined ? {} : { gen }),
      ...(senderId === undefined ? {} : { senderId }),
    });
    return this.queued.length - 1;
  }

  /** Removes a queued item (a withdrawn message). @returns the removed item, or null when it is not queued */
  remove(id: string): QueueItem | null {
    const i = this.positionOf(id);
    if (i === null) return null;
    return this.queued.splice(i, 1)[0] ?? null;
  }

  /** Queues an item read back from storage (a restored session), unless it is queued already. */
  restore(item: QueueItem): void {
    if (this.positionOf(item.messageId) !== null) return;
    this.markSeen(item.messageId);
    this.queued.push(item);
  }

  /**
   * Removes and returns the items admitted before stop generation `gen` (see {@link QueueItem.gen}). Background
   * alerts and scheduled prompts stay: `/stop` does not touch background jobs or schedules, so their reports and
   * prompts still reach the agent.
   */
  takeAdmittedBefore(gen: number): QueueItem[] {
    const dropped = (q: QueueItem) => (q.gen ?? 0) < gen && q.kind !== 'alert' && q.kind !== 'cron';
    const removed = this.queued.filter(dropped);
    if (removed.length === 0) return [];
    const kept = this.queued.filter((q) => !dropped(q));
    this.queued.splice(0, this.queued.length, ...kept);
    return removed;
  }

  /** Puts a removed item back at `index` (a withdrawal that could not be stored). */
  insertAt(index: number, item: QueueItem): void {
    if (this.positionOf(item.messageId) !== null) return;
    this.queued.splice(Math.min(index, this.queued.length), 0, item);
  }

  positionOf(id: string): number | null {
    const i = this.queued.findIndex((q) => q.messageId === id);
    return i < 0 ? null : i;
  }

  shift(): QueueItem | undefined {
    return this.queued.shift();
  }

  /**
   * Interrupt mode: of each sender's queued user messages only the newest runs (it sees the older ones in its
   * history). Items without a sender id form one group (one person per session: only the newest of all runs).
   * Removes and returns the older user items; compaction items and other senders' items keep their place.
   */
  takeSupersededUserItems(): QueueItem[] {
    const newest = new Map<string | undefined, string>();
    for (const q of this.queued) if (q.kind === 'user') newest.set(q.senderId, q.messageId);
    const older = new Set(
      this.queued
        .filter((q) => q.kind === 'user' && newest.get(q.senderId) !== q.messageId)
        .map((q) => q.messageId),
    );
    if (older.size === 0) return [];
    const removed = this.queued.filter((q) => older.has(q.messageId));
    const kept = this.queued.filter((q) => !older.has(q.messageId));
    this.queued.splice(0, this.queued.length, ...kept);
    return removed;
  }

  /** A copy of the queue, for continue-as-new. */
  items(): QueueItem[] {
    return [...this.queued];
  }

  /** The most recent seen ids (at most {@link SEEN_CARRY_LIMIT}), for continue-as-new. */
  seenForCarry(): string[] {
    return this.seenOrder.slice(-SEEN_CARRY_LIMIT);
  }
}

/**
 * The event stream's fan-out: one {@link NotificationListener} per API process on COMMIT_CHANNEL and
 * TURN_CHANNEL, dispatched to the subscribers of each session.
 *
 * - `turn.committed` (docs/message-flow.md §11): on each commit announcement the hub reads what changed after the
 *   subscriber's last sent revision (api/history.ts) and sends it with `id: <revision>` and
 *   `previous_revision`, so a client can check continuity; events per subscriber chain exactly.
 * - `turn.updated`: a snapshot of the running turn (step, status, the text streamed so far in this step, tool
 *   progress) built from transient TURN_CHANNEL events, at most one per `throttleMs` per session; the latest
 *   snapshot is always sent. Every running turn is followed whether or not anyone watches it (api/live-turns.ts
 *   says why), and a stream that opens while a turn runs gets its whole snapshot first, so a reload mid-turn
 *   shows the text from its first character. A final `finished` snapshot follows the commit that ends the turn. The turn's
 *   system notices (notifications: the compaction notice, a stopped turn's notice; docs/message-model.md §5.3
 *   "system interaction log", `live` on REST) are read from the commits and carried in its snapshots' `notices`.
 * - `approval_requested`: sent when a tool call starts waiting for a decision, and for every call still waiting
 *   when a stream opens, so a client that was away sees what waits for it.
 * - After the listener reconnects, every subscriber is caught up from its last sent revision.
 *
 * Commit watchers ({@link EventHub.onCommit}) let `POST …/messages` with `wait` sleep until the session commits.
 */
import type { Message } from '../domain/message.ts';
import { isTurnTrigger } from '../domain/history.ts';
import { messageKind } from '../domain/message-kind.ts';
import { isTerminalStatus } from '../domain/status-machine.ts';
import { listPendingApprovals } from '../db/approvals.ts';
import { getMessage } from '../db/messages.ts';
import { COMMIT_CHANNEL, NotificationListener, TURN_CHANNEL, type TurnEvent } from '../db/notify.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';
import { readHistory } from './history.ts';
import { LiveTurns, type LiveTurnSnapshot } from './live-turns.ts';

export type { ToolProgress, TurnUpdateStatus } from './live-turns.ts';

/**
 * Data of `event: turn.updated`: a {@link LiveTurnSnapshot}. `outcome` is set only on the `finished` snapshot;
 * `notices` (the texts of the turn's system notices committed so far, in order) once the turn has one.
 */
export interface TurnUpdatedData extends LiveTurnSnapshot {
  notices?: string[];
}

/** Data of `event: turn.committed`: the messages with revision in (previous_revision, revision], phased order. */
export interface TurnCommittedData {
  session_id: string;
  revision: number;
  previous_revision: number;
  messages: Message[];
}

/** Data of `event: approval_requested`: a tool call waits for a person's decision (api/routes/approvals.ts). */
export interface ApprovalRequestedData {
  session_id: string;
  turn_id: string;
  step: number;
  /** The tool_call message's id. */
  call_id: string;
  tool_name: string;
  subject: string;
  /** ISO 8601: when the wait ends as timed out. */
  expires_at: string;
}

/** One event for a subscriber; `id` (turn.committed only) is the revision, for `Last-Event-ID`. */
export type HubEvent =
  | { event: 'turn.committed'; id: string; data: TurnCommittedData }
  | { event: 'turn.updated'; data: TurnUpdatedData }
  | { event: 'approval_requested'; data: ApprovalRequestedData };

/** Where a subscriber's events go (the SSE route writes them to the response). */
export interface EventSink {
  send(event: HubEvent): void;
  /** A keep-alive; the SSE route writes `: ping`. */
  ping(): void;
  /** The hub is closing: end the stream. */
  end(): void;
}

export interface Subscription {
  /** Stops delivery; idempotent. */
  close(): void;
}

export interface EventHubOptions {
  databaseUrl: string;
  pool: Pool;
  logger: Logger;
  /** Minimum interval between `turn.updated` events of one session, in ms (default 100). */
  throttleMs?: number;
  /** Keep-alive interval, in ms (default 15 000). */
  pingIntervalMs?: number;
  /** Messages per `turn.committed` event before a delta is split over several events (default 500). */
  batchLimit?: number;
}

interface Subscriber {
  sink: EventSink;
  /** The revision this subscriber holds (the last `turn.committed` it was sent, or where it started). */
  lastSent: number;
}

interface SessionFeed {
  id: string;
  subscribers: Set<Subscriber>;
  watchers: Set<() => void>;
  /** The system notices committed for one turn (the latest turn that had one): ids seen and texts, in order. */
  notices: { turnId: string; ids: Set<string>; texts: string[] } | null;
  lastUpdateAt: number;
  timer: NodeJS.Timeout | null;
  syncing: Promise<void> | null;
  dirty: boolean;
  retry: NodeJS.Timeout | null;
}

/** One per API process; see the module comment. Create, `start()`, hand to createApp, `close()` on shutdown. */
export class EventHub {
  private readonly pool: Pool;
  private readonly log: Logger;
  private readonly throttleMs: number;
  private readonly pingIntervalMs: number;
  private readonly batchLimit: number;
  private readonly listener: NotificationListener;
  private readonly feeds = new Map<string, SessionFeed>();
  /** Every session's running turn, watched or not (see the module comment). */
  private readonly turns = new LiveTurns();
  private pingTimer: NodeJS.Timeout | null = null;
  private closedFlag = false;

  constructor(opts: EventHubOptions) {
    this.pool = opts.pool;
    this.log = opts.logger.child({ component: 'event-hub' });
    this.throttleMs = opts.throttleMs ?? 100;
    this.pingIntervalMs = opts.pingIntervalMs ?? 15_000;
    this.batchLimit = opts.batchLimit ?? 500;
    this.listener = new NotificationListener({
      url: opts.databaseUrl,
      channels: [COMMIT_CHANNEL, TURN_CHANNEL],
      onNotification: (channel, payload) => this.onNotification(channel, payload),
      onReconnect: () => this.onReconnect(),
      onError: (err) => this.log.warn({ err: String(err) }, 'notification listener error'),
    });
  }

  /** Connects the listener (LISTEN on both channels) and starts the keep-alive timer. @throws when Postgres is unreachable */
  async start(): Promise<void> {
    await this.listener.start();
    this.pingTimer = setInterval(() => {
      this.pingAll();
      this.turns.sweep(Date.now());
    }, this.pingIntervalMs);
    this.pingTimer.unref();
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Counts for health output and tests: sessions with subscribers or watchers, open streams, waiters. */
  stats(): { sessions: number; subscribers: number; watchers: number } {
    let subscribers = 0;
    let watchers = 0;
    for (const f of this.feeds.values()) {
      subscribers += f.subscribers.size;
      watchers += f.watchers.size;
    }
    return { sessions: this.feeds.size, subscribers, watchers };
  }

  /** True while the listener's connection is up. */
  get connected(): boolean {
    return this.listener.connected;
  }

  /** Ends every stream (sink.end), wakes every commit watcher, and closes the listener. */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.closedFlag = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    for (const feed of this.feeds.values()) {
      if (feed.timer) clearTimeout(feed.timer);
      if (feed.retry) clearTimeout(feed.retry);
      for (const sub of feed.subscribers) safely(() => sub.sink.end());
      for (const w of feed.watchers) safely(w);
      feed.subscribers.clear();
      feed.watchers.clear();
    }
    this.feeds.clear();
    await this.listener.close();
  }

  /**
   * Subscribes `sink` to a session's events. With `afterRevision` (from `Last-Event-ID`), everything committed
   * after it is sent first as `turn.committed`; otherwise the subscriber starts at `currentRevision` (the
   * session's revision the caller just read) and gets nothing historical. Then come an `approval_requested` for
   * every tool call waiting for a decision and, while a turn runs, its whole `turn.updated` snapshot.
   */
  async subscribe(
    sessionId: string,
    sink: EventSink,
    opts: { afterRevision?: number; currentRevision: number },
  ): Promise<Subscription> {
    if (this.closedFlag) throw new Error('the event hub is closed');
    const feed = this.feed(sessionId);
    const sub: Subscriber = { sink, lastSent: opts.afterRevision ?? opts.currentRevision };
    feed.subscribers.add(sub);
    const subscription = { close: () => this.drop(feed, () => feed.subscribers.delete(sub)) };
    // A commit may have landed between the caller's read and this registration: sync reads the database.
    await this.sync(feed);
    await this.sendCurrent(feed, sub);
    return subscription;
  }

  /**
   * What a new subscriber needs besides the commits: the calls waiting for approval, then the running turn's
   * snapshot as it stands after those reads (a later event can only extend it). A snapshot whose trigger has
   * reached a final status (its end was committed while nobody here watched) is dropped instead.
   */
  private async sendCurrent(feed: SessionFeed, sub: Subscriber): Promise<void> {
    const pending = await listPendingApprovals(this.pool, feed.id);
    for (const p of pending) {
      if (!feed.subscribers.has(sub)) return;
      const expires = p.expires_at ?? '';
      safely(() =>
        sub.sink.send({
          event: 'approval_requested',
          data: {
            session_id: feed.id,
            turn_id: p.turn_id ?? '',
            step: stepOfCall(p.call_id),
            call_id: p.call_id,
            tool_name: p.tool_name,
            subject: p.subject,
            expires_at: expires,
          },
        }),
      );
    }
    const running = this.turns.get(feed.id);
    if (!running) return;
    const trigger = await getMessage(this.pool, running.turn_id);
    if (!trigger || isTerminalStatus(trigger.status)) {
      this.turns.end(feed.id, running.turn_id, undefined);
      return;
    }
    const event = this.updateEvent(feed);
    if (event && feed.subscribers.has(sub)) safely(() => sub.sink.send(event));
  }

  /**
   * Calls `onCommit` whenever the session commits (and after a listener reconnect or hub close, when commits
   * may have been missed). The callback should re-read the database. @returns the unsubscribe function
   */
  onCommit(sessionId: string, onCommit: () => void): () => void {
    const feed = this.feed(sessionId);
    feed.watchers.add(onCommit);
    return () => this.drop(feed, () => feed.watchers.delete(onCommit));
  }

  private feed(sessionId: string): SessionFeed {
    let feed = this.feeds.get(sessionId);
    if (!feed) {
      feed = {
        id: sessionId,
        subscribers: new Set(),
        watchers: new Set(),
        notices: null,
        lastUpdateAt: 0,
        timer: null,
        syncing: null,
        dirty: false,
        retry: null,
      };
      this.feeds.set(sessionId, feed);
    }
    return feed;
  }

  private drop(feed: SessionFeed, remove: () => void): void {
    remove();
    if (feed.subscribers.size === 0 && feed.watchers.size === 0 && this.feeds.get(feed.id) === feed) {
      if (feed.timer) clearTimeout(feed.timer);
      if (feed.retry) clearTimeout(feed.retry);
      this.feeds.delete(feed.id);
    }
  }

  private onNotification(channel: string, payload: string): void {
    if (this.closedFlag) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      this.log.debug({ channel }, 'ignoring a notification that is not JSON');
      return;
    }
    if (channel === COMMIT_CHANNEL) {
      const { s, r } = (parsed ?? {}) as { s?: unknown; r?: unknown };
      if (typeof s !== 'string' || typeof r !== 'number') return;
      const feed = this.feeds.get(s);
      if (!feed) return;
      for (const w of feed.watchers) safely(w);
      if ([...feed.subscribers].some((sub) => sub.lastSent < r)) void this.sync(feed);
    } else if (channel === TURN_CHANNEL) {
      this.onTurnEvent(parsed as TurnEvent);
    }
  }

  private onReconnect(): void {
    this.log.info(
      { sessions: this.feeds.size },
      'notification listener reconnected; catching subscribers up',
    );
    for (const feed of this.feeds.values()) {
      for (const w of feed.watchers) safely(w);
      void this.sync(feed);
    }
  }

  /** Sends every subscriber what was committed after its last sent revision. Serialised per session. */
  private sync(feed: SessionFeed): Promise<void> {
    if (feed.syncing) {
      feed.dirty = true;
      return feed.syncing;
    }
    feed.syncing = (async () => {
      try {
        do {
          feed.dirty = false;
          await this.syncOnce(feed);
        } while (feed.dirty && !this.closedFlag);
      } catch (err) {
        this.log.warn(
          { sessionId: feed.id, err: String(err) },
          'could not read the session history for its subscribers; retrying',
        );
        if (!this.closedFlag && !feed.retry && feed.subscribers.size > 0) {
          feed.retry = setTimeout(() => {
            feed.retry = null;
            void this.sync(feed);
          }, 1000);
        }
      } finally {
        feed.syncing = null;
      }
    })();
    return feed.syncing;
  }

  private async syncOnce(feed: SessionFeed): Promise<void> {
    const groups = new Map<number, Subscriber[]>();
    for (const sub of feed.subscribers) {
      groups.set(sub.lastSent, [...(groups.get(sub.lastSent) ?? []), sub]);
    }
    for (const [after, subs] of groups) {
      let from = after;
      for (;;) {
        if (this.closedFlag) return;
        const delta = await readHistory(this.pool, feed.id, from, from, this.batchLimit);
        if (delta.revision <= from) break;
        const event: HubEvent = {
          event: 'turn.committed',
          id: String(delta.revision),
          data: {
            session_id: feed.id,
            revision: delta.revision,
            previous_revision: from,
            messages: delta.messages,
          },
        };
        for (const sub of subs) {
          if (!feed.subscribers.has(sub) || sub.lastSent !== from) continue;
          safely(() => sub.sink.send(event));
          sub.lastSent = delta.revision;
        }
        this.noticeSystemLogs(feed, delta.messages);
        this.noticeEndedTurns(feed, delta.messages);
        from = delta.revision;
        if (delta.complete) break;
      }
    }
  }

  /**
   * Notifications committed for a turn that has not ended become its snapshot's `notices`; the running turn's
   * snapshot is sent again with them (throttled).
   */
  private noticeSystemLogs(feed: SessionFeed, messages: readonly Message[]): void {
    for (const m of messages) {
      const turnId = m.turn_id;
      if (turnId === null || messageKind(m) !== 'notification' || this.turns.hasEnded(feed.id, turnId))
        continue;
      if (feed.notices?.turnId !== turnId) feed.notices = { turnId, ids: new Set(), texts: [] };
      if (feed.notices.ids.has(m.id)) continue;
      feed.notices.ids.add(m.id);
      feed.notices.texts.push(m.content);
      if (this.turns.get(feed.id)?.turn_id === turnId) this.scheduleUpdate(feed);
    }
  }

  /** After the commit that ends the running turn: the final `finished` snapshot, sent at once. */
  private noticeEndedTurns(feed: SessionFeed, messages: readonly Message[]): void {
    for (const m of messages) {
      if (!isTurnTrigger(m) || !isTerminalStatus(m.status) || this.turns.hasEnded(feed.id, m.id)) continue;
      const last = this.turns.end(feed.id, m.id, m.status as 'processed' | 'interrupted' | 'error');
      if (!last) continue;
      if (feed.timer) clearTimeout(feed.timer);
      feed.timer = null;
      this.emitUpdate(feed, last);
    }
  }

  private onTurnEvent(ev: TurnEvent): void {
    if (typeof ev?.s !== 'string' || typeof ev.t !== 'string') return;
    if (ev.type !== 'approval_requested') {
      // Every turn is followed, watched or not, so a stream opened later gets the whole snapshot.
      if (!this.turns.apply(ev, Date.now())) return;
      const watched = this.feeds.get(ev.s);
      if (watched && watched.subscribers.size > 0) this.scheduleUpdate(watched);
      return;
    }
    const feed = this.feeds.get(ev.s);
    if (!feed || feed.subscribers.size === 0 || this.turns.hasEnded(ev.s, ev.t)) return;
    // Sent at once, never throttled or folded into a snapshot: someone has to answer it.
    const event: HubEvent = {
      event: 'approval_requested',
      data: {
        session_id: ev.s,
        turn_id: ev.t,
        step: ev.step,
        call_id: ev.call_id,
        tool_name: ev.name,
        subject: ev.subject,
        expires_at: ev.expires_at,
      },
    };
    for (const sub of feed.subscribers) safely(() => sub.sink.send(event));
  }

  /** Throttles `turn.updated` to one per `throttleMs`; the trailing send carries the latest snapshot. */
  private scheduleUpdate(feed: SessionFeed): void {
    if (feed.timer) return;
    const wait = feed.lastUpdateAt + this.throttleMs - Date.now();
    if (wait <= 0) {
      this.emitUpdate(feed);
      return;
    }
    feed.timer = setTimeout(() => {
      feed.timer = null;
      this.emitUpdate(feed);
    }, wait);
  }

  /** Sends `snapshot` (default: the session's running turn) to every subscriber. */
  private emitUpdate(feed: SessionFeed, snapshot?: LiveTurnSnapshot): void {
    const event = this.updateEvent(feed, snapshot);
    if (!event || this.closedFlag) return;
    feed.lastUpdateAt = Date.now();
    for (const sub of feed.subscribers) safely(() => sub.sink.send(event));
  }

  /** The `turn.updated` event of `snapshot` (default: the running turn) with the turn's notices; null: none. */
  private updateEvent(feed: SessionFeed, snapshot = this.turns.get(feed.id)): HubEvent | null {
    if (!snapshot) return null;
    const notices = feed.notices?.turnId === snapshot.turn_id ? [...feed.notices.texts] : [];
    return {
      event: 'turn.updated',
      data: {
        ...snapshot,
        tools: snapshot.tools.map((t) => ({ ...t })),
        ...(notices.length > 0 ? { notices } : {}),
      },
    };
  }

  private pingAll(): void {
    for (const feed of this.feeds.values()) for (const sub of feed.subscribers) safely(() => sub.sink.ping());
  }
}

/** The step of a tool_call message id (`<turn id>:s<step>:call<i>`, activities/llm/model-deps.ts); 0 when it has none. */
function stepOfCall(callId: string): number {
  const m = /:s(\d+):call\d+$/.exec(callId);
  return m ? Number(m[1]) : 0;
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // A subscriber that cannot take an event (its connection is gone) is removed by its own close handler.
  }
}

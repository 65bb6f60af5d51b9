/**
 * The stored live status of a turn, shared by the channels that edit a turn's progress in place (Discord's status
 * message, Google Chat's intermediate card; docs/message-model.md §4.3, §5.3 `live`).
 *
 * A channel's view of the status (adapters/discord/live-status.ts `LiveStatus`, adapters/googlechat/live-card.ts
 * `LiveCard`) is short-lived: for each write it is restored from Postgres (db/deliveries.ts `live_statuses` and
 * the platform posts under its key, migration 0005) under the turn's lock, changed, written to the platform and
 * stored again, so whichever worker runs a turn's next step continues the same message. This module is that
 * loop, the per-process throttle (a deferred write re-reads the stored state when it runs), the
 * `presentProgress` grouping by turn, and the rendering of a system notice (a "Notification" message) into the
 * status. The view renders and writes; this module decides when.
 */
import type { DeliveryStore, LockedStatusStore, StoredLiveStatus } from '../../db/deliveries.ts';
import type { SessionRow } from '../../db/sessions.ts';
import type { Message } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import { turnEndOf, type ToolState } from './live-status.ts';

/**
 * How a view's write treats the edit throttle: `throttled` writes only when the last write is old enough (else
 * it reports when the deferred write is due), `final` waits the throttle out, `now` ignores it (a flush at
 * shutdown).
 */
export type WriteMode = 'throttled' | 'final' | 'now';

/** A channel's view of one turn's live status, restored from its stored state. */
export interface LiveStatusView {
  /** True once rendering failed for good; the status is then left as it is. */
  readonly broken: boolean;
  /** True when there is nothing to show (no line was ever added). */
  readonly empty: boolean;
  /** When the platform last got a write of this status, epoch ms (stored with the state). */
  readonly lastWriteAt: number;
  /** The state to store (JSON). */
  toState(): unknown;
  /** Adds thoughts, tool calls and notices, and applies tool results to their calls. */
  apply(messages: readonly Message[]): void;
  /** Marks tools still running as `endState` (the turn was stopped or failed). */
  markRunning(endState: Exclude<ToolState, 'running' | 'ok'>): void;
  /**
   * Shows a running tool call's running time (`elapsedMs`) and the last lines of its output under its line
   * (kit/live-status.ts `setToolTail`).
   * @returns whether a line changed
   */
  setToolTail(toolCallMessageId: string, tail: string, elapsedMs: number): boolean;
  /**
   * Brings the platform up to date. Never throws: a failure marks the view broken.
   * @returns ms until a deferred write is due, or null when nothing is left to write
   */
  write(mode: WriteMode): Promise<number | null>;
}

/** What {@link createStoredLiveStatus} needs. */
export interface StoredLiveStatusOptions<V extends LiveStatusView> {
  store: Pick<DeliveryStore, 'withLiveStatusLock'>;
  logger: Logger;
  /** Longest wait for another worker's write of the same status, ms. */
  lockWaitMs: number;
  /** What the logs call the status ("live status", "google chat card"). */
  label: string;
  /**
   * Builds the view of `turnId` from its stored state (null: a new status); `locked` reads the platform posts
   * under the view's key and records new ones while the lock is held.
   */
  restore(
    turnId: string,
    session: SessionRow,
    stored: StoredLiveStatus | null,
    locked: LockedStatusStore,
  ): Promise<V>;
}

/** The stored live statuses of one sink (see the module comment). */
export interface StoredStatuses<V extends LiveStatusView> {
  /**
   * Restores `turnId`'s status under its lock, lets `change` update it, writes the platform and stores the
   * result (before and after the write, so a worker that dies in between leaves the new lines to the next
   * writer). A `throttled` write that is not due yet is scheduled in this process; a `final` or `now` write
   * replaces this process's deferred one.
   * @returns the view as written (nothing is written or stored when it is empty)
   * @throws LockTimeoutError or a database error; the platform's failures only mark the view broken
   */
  update(turnId: string, session: SessionRow, change: (v: V) => void, mode: WriteMode): Promise<V>;
  /**
   * `presentProgress` of a sink: applies the messages to their turns' statuses (throttled) and returns the ids
   * of the messages whose status is not broken. Never throws.
   */
  present(messages: readonly Message[], session: SessionRow): Promise<string[]>;
  /**
   * Brings `message`'s turn's status to its final state once the turn's last message went out (a final reply,
   * a crash notice: tools still running end ❌, none after a final reply), waiting out the edit throttle; the
   * sink's `settleProgress`. Best effort: never throws.
   */
  finishTurn(message: Message, session: SessionRow): Promise<void>;
  /**
   * Renders a system notice (a notification with a turn) into its turn's status as a line of its own — the
   * status is posted now when the turn has none yet — and, when the notice ends the turn (a stopped turn's
   * notice), marks the tools still running ⏹️. Never throws.
   * @returns true when the status now shows the notice; false when it could not be written (broken status,
   *   lock not granted, database error): the caller then shows the notice another way
   */
  showNotice(message: Message, session: SessionRow): Promise<boolean>;
  /**
   * `presentToolOutput` of a sink: shows the running time and output tail of the running tool call of turn
   * `turnId` (a status
   * without that call, or one that ended, is left as it is), throttled. Never throws.
   */
  showToolOutput(
    turnId: string,
    session: SessionRow,
    toolCallMessageId: string,
    progress: { tail: string; elapsedMs: number },
  ): Promise<void>;
  /** Writes this process's deferred writes now (process shutdown). */
  close(): Promise<void>;
}

/** Builds the stored live statuses of a sink (see the module comment). */
export function createStoredLiveStatus<V extends LiveStatusView>(
  opts: StoredLiveStatusOptions<V>,
): StoredStatuses<V> {
  const { store, logger, lockWaitMs, label } = opts;
  /** Deferred (throttled) writes of this process, by turn. */
  const pending = new Map<string, { timer: NodeJS.Timeout; flush: () => Promise<void> }>();

  function cancelDeferred(turnId: string): void {
    const deferred = pending.get(turnId);
    if (!deferred) return;
    clearTimeout(deferred.timer);
    pending.delete(turnId);
  }

  async function update(
    turnId: string,
    session: SessionRow,
    change: (v: V) => void,
    mode: WriteMode,
  ): Promise<V> {
    if (mode !== 'throttled') cancelDeferred(turnId);
    return store.withLiveStatusLock(turnId, lockWaitMs, async (locked) => {
      const view = await opts.restore(turnId, session, await locked.loadLiveStatus(turnId), locked);
      change(view);
      if (view.empty) return view;
      const save = () =>
        locked.saveLiveStatus({
          turnId,
          sessionId: session.id,
          channelId: session.channel_id,
          state: view.toState(),
          lastEditAt: view.lastWriteAt,
        });
      await save();
      const dueInMs = await view.write(mode);
      await save();
      if (dueInMs !== null) schedule(turnId, session, dueInMs);
      return view;
    });
  }

  function schedule(turnId: string, session: SessionRow, dueInMs: number): void {
    if (pending.has(turnId)) return;
    const flush = async (mode: WriteMode) => {
      cancelDeferred(turnId);
      await update(turnId, session, () => undefined, mode).catch((err: unknown) =>
        logger.warn({ turnId, err: String(err) }, `${label} edit failed`),
      );
    };
    const timer = setTimeout(() => void flush('throttled'), dueInMs);
    timer.unref?.();
    pending.set(turnId, { timer, flush: () => flush('now') });
  }

  return {
    update,

    async present(messages, session) {
      const byTurn = new Map<string, Message[]>();
      for (const m of messages) {
        if (m.turn_id === null) continue;
        byTurn.set(m.turn_id, [...(byTurn.get(m.turn_id) ?? []), m]);
      }
      const shown: string[] = [];
      for (const [turnId, list] of byTurn) {
        try {
          const view = await update(turnId, session, (v) => v.apply(list), 'throttled');
          if (!view.broken) shown.push(...list.map((m) => m.id));
        } catch (err) {
          logger.warn({ turnId, err: String(err) }, `${label} not updated`);
        }
      }
      return shown;
    },

    async showToolOutput(turnId, session, toolCallMessageId, { tail, elapsedMs }) {
      // Nothing is written for a status that does not exist yet (the call's line comes with presentProgress).
      await update(
        turnId,
        session,
        (v) => void v.setToolTail(toolCallMessageId, tail, elapsedMs),
        'throttled',
      ).catch((err: unknown) =>
        logger.debug({ turnId, err: String(err) }, `${label}: output tail not shown`),
      );
    },

    async finishTurn(message, session) {
      const turnId = message.turn_id;
      const end = turnEndOf(message);
      if (turnId === null || end === false) return;
      // Best effort: a status that cannot be finished must not hold the reply back.
      await update(turnId, session, (v) => (end ? v.markRunning(end) : undefined), 'final').catch(
        (err: unknown) => logger.warn({ turnId, err: String(err) }, `could not finish the ${label}`),
      );
    },

    async showNotice(message, session) {
      const turnId = message.turn_id;
      if (turnId === null) return false;
      const end = turnEndOf(message);
      try {
        const view = await update(
          turnId,
          session,
          (v) => {
            v.apply([message]);
            if (end) v.markRunning(end);
          },
          'final',
        );
        return !view.broken && !view.empty;
      } catch (err) {
        logger.warn({ turnId, messageId: message.id, err: String(err) }, `notice not shown in the ${label}`);
        return false;
      }
    },

    async close() {
      await Promise.allSettled([...pending.values()].map((p) => p.flush()));
    },
  };
}

/**
 * Postgres LISTEN/NOTIFY channels that carry what must not pass through workflow history: commit
 * announcements (`{s: sessionId, r: revision}`) and transient turn events (token deltas, tool progress and
 * the live tail of a running command's output).
 */
import pg from 'pg';
import type { PlanView } from '../domain/plan-view.ts';
import type { Pool } from './pool.ts';

/** Sent in the same transaction as every committed history change. Payload `{s, r}`. */
export const COMMIT_CHANNEL = 'kesoku_commit';
/** Transient turn events (never stored). Payload: a {@link TurnEvent}. */
export const TURN_CHANNEL = 'kesoku_turn';

/**
 * A transient event about a running turn. Deltas are batched by the sender (≤ ~4 KB per event) and published
 * in order; api/live-turns.ts keeps each running turn's text from them.
 */
export type TurnEvent =
  | {
      s: string;
      t: string;
      type: 'status';
      status: 'started' | 'thinking' | 'running_tools' | 'finished';
      step?: number;
    }
  | {
      s: string;
      t: string;
      type: 'delta';
      step: number;
      text: string;
      /** Characters of the stream before `text` (so a listener knows whether it holds the whole prefix). */
      offset?: number;
      /**
       * Which stream of the step the text belongs to (an activity attempt, or its second try in a plainer form):
       * a delta of another stream starts the step's text again.
       */
      stream?: string;
    }
  | { s: string; t: string; type: 'tool_started'; step: number; call_id: string; name: string }
  | {
      s: string;
      t: string;
      type: 'tool_output';
      step: number;
      call_id: string;
      name: string;
      /** The last lines of the running command's output (activities/tools/output-feed.ts), at most ~1 KB. */
      tail: string;
      /** Characters of output so far. */
      output_chars: number;
    }
  | {
      s: string;
      t: string;
      type: 'tool_finished';
      step: number;
      call_id: string;
      name: string;
      ok: boolean;
      summary: string;
    }
  | {
      s: string;
      t: string;
      type: 'plan_updated';
      /** The session's active plan after the turn's `update_plan` (db/plans.ts), titles clipped to fit. */
      plan: LivePlan;
    }
  | {
      s: string;
      t: string;
      type: 'approval_requested';
      step: number;
      /** The tool_call message's id. */
      call_id: string;
      name: string;
      subject: string;
      expires_at: string;
    };

/** The active plan as a turn event carries it: its steps and `revision` (db/plans.ts `SessionPlan`). */
export type LivePlan = PlanView;

/** NOTIFY's payload limit is 8000 bytes; deltas are cut below this. */
export const MAX_EVENT_TEXT = 3000;

/** Publishes a transient turn event. Failures are the caller's to ignore: events are best effort. */
export async function publishTurnEvent(pool: Pool, event: TurnEvent): Promise<void> {
  await pool.query('SELECT pg_notify($1, $2)', [TURN_CHANNEL, JSON.stringify(event)]);
}

/**
 * One dedicated connection that LISTENs on the given channels and reconnects with backoff when the
 * connection drops. `onReconnect` fires after a reconnect, so listeners can catch up on what they missed.
 */
export class NotificationListener {
  private client: pg.Client | null = null;
  private closed = false;
  private readonly url: string;
  private readonly channels: string[];
  private readonly onNotification: (channel: string, payload: string) => void;
  private readonly onReconnect: () => void;
  private readonly onError: (err: unknown) => void;

  constructor(opts: {
    url: string;
    channels: string[];
    onNotification: (channel: string, payload: string) => void;
    onReconnect?: () => void;
    onError?: (err: unknown) => void;
  }) {
    this.url = opts.url;
    this.channels = opts.channels;
    this.onNotification = opts.onNotification;
    this.onReconnect = opts.onReconnect ?? (() => undefined);
    this.onError = opts.onError ?? (() => undefined);
  }

  /** Connects and LISTENs; resolves once listening (or rejects on the first failure). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
    client.on('notification', (n) => this.onNotification(n.channel, n.payload ?? ''));
    client.on('error', (err) => {
      this.onError(err);
      void this.reconnect(client);
    });
    client.on('end', () => void this.reconnect(client));
    await client.connect();
    for (const ch of this.channels) await client.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
    this.client = client;
  }

  private reconnecting = false;
  private async reconnect(dead: pg.Client): Promise<void> {
    if (this.closed || this.reconnecting || this.client !== dead) return;
    this.reconnecting = true;
    this.client = null;
    dead.removeAllListeners();
    await dead.end().catch(() => undefined);
    let delay = 200;
    while (!this.closed) {
      try {
        await this.connect();
        this.reconnecting = false;
        this.onReconnect();
        return;
      } catch (err) {
        this.onError(err);
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
    this.reconnecting = false;
  }

  /** True while a listening connection is up. */
  get connected(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = null;
    if (c) {
      c.removeAllListeners();
      c.on('error', () => undefined);
      await c.end().catch(() => undefined);
    }
  }
}

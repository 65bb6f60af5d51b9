/**
 * Messages the person sent that the API has not accepted yet. Each gets its id here, before the first try, and
 * keeps it through every retry: the API treats the id as an idempotency key (README "REST API v1"), so a post whose
 * answer was lost, a retry after the API came back, or the same outbox sent again after a reload is stored once.
 *
 * - No answer (offline, the API restarting) or a 5xx/429: the message stays `waiting` and is tried again with
 *   backoff (1 s doubling to 15 s, at once on {@link Outbox.wake}); later messages wait behind it, so the order holds.
 * - Another refusal (400, 404, 409, 413…): `failed` with the API's reason; the person can retry or discard it.
 * - 401: `waiting`, and `onUnauthorized` asks for a token; the message goes once a valid token is set.
 * - Accepted: kept as `accepted` until the session's transcript holds it ({@link Outbox.settle}), so it never
 *   disappears between the answer and the commit.
 *
 * The items are saved through `save` (session storage: this tab) on every change. No DOM here.
 */
import { ApiError, type KesokuClient, type OutgoingAttachment } from './api.ts';

/** The sender of messages written on the page (the API's default is `api`). */
export const WEB_SENDER = 'web';

export type OutboxState = 'sending' | 'waiting' | 'failed' | 'accepted';

export interface OutboxItem {
  /** The message id (idempotency key). */
  id: string;
  sessionId: string;
  content: string;
  attachments?: OutgoingAttachment[];
  state: OutboxState;
  /** Why it is waiting or failed, for the person. */
  detail?: string;
  /** Epoch ms. */
  createdAt: number;
  attempts: number;
}

export interface OutboxOptions {
  client: KesokuClient;
  /** The saved items (JSON), or null. */
  load: () => string | null;
  save: (json: string | null) => void;
  onChange: (items: readonly OutboxItem[]) => void;
  /** A post was refused with 401. */
  onUnauthorized: () => void;
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** See the module comment. */
export class Outbox {
  private list: OutboxItem[] = [];
  private readonly opts: OutboxOptions;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private closed = false;

  constructor(opts: OutboxOptions) {
    this.opts = opts;
    try {
      const saved = JSON.parse(opts.load() ?? '[]') as OutboxItem[];
      // A post in flight when the tab went away is tried again (same id: stored once).
      this.list = Array.isArray(saved)
        ? saved.map((i) => (i.state === 'sending' ? { ...i, state: 'waiting' as const } : i))
        : [];
    } catch {
      this.list = [];
    }
    if (this.list.length > 0) this.kick(0);
  }

  items(): readonly OutboxItem[] {
    return this.list;
  }

  /** Queues a message and tries to send it at once. */
  add(item: { id: string; sessionId: string; content: string; attachments?: OutgoingAttachment[] }): void {
    this.list = [...this.list, { ...item, state: 'waiting', createdAt: Date.now(), attempts: 0 }];
    this.changed();
    this.kick(0);
  }

  /** Tries a failed (or waiting) message again, same id. */
  retry(id: string): void {
    this.patch(id, { state: 'waiting', detail: undefined });
    this.failures = 0;
    this.kick(0);
  }

  /** Drops a message that is not accepted. */
  discard(id: string): void {
    this.list = this.list.filter((i) => i.id !== id || i.state === 'accepted');
    this.changed();
  }

  /** Drops accepted messages of `sessionId` that `committed(id)` says are in its transcript. */
  settle(sessionId: string, committed: (id: string) => boolean): void {
    const before = this.list.length;
    this.list = this.list.filter(
      (i) => !(i.sessionId === sessionId && i.state === 'accepted' && committed(i.id)),
    );
    if (this.list.length !== before) this.changed();
  }

  /** Sends what waits now (the browser is online again, a token was set). */
  wake(): void {
    this.failures = 0;
    this.kick(0);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private kick(delayMs: number): void {
    if (this.closed || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, delayMs);
  }

  private async drain(): Promise<void> {
    if (this.running || this.closed) return;
    this.running = true;
    let retryIn: number | null = null;
    try {
      for (;;) {
        const next = this.list.find((i) => i.state === 'waiting' || i.state === 'sending');
        if (!next) break;
        this.patch(next.id, { state: 'sending', attempts: next.attempts + 1 });
        try {
          const body = {
            id: next.id,
            content: next.content,
            sender: WEB_SENDER,
            ...(next.attachments?.length ? { attachments: next.attachments } : {}),
          };
          await this.opts.client.postMessage(next.sessionId, body);
          this.failures = 0;
          // Accepted: the attachments' data is no longer needed.
          this.patch(next.id, { state: 'accepted', detail: undefined, attachments: undefined });
        } catch (err) {
          const e = err instanceof ApiError ? err : new ApiError('unreachable', String(err));
          if (e.status === 401) {
            this.patch(next.id, { state: 'waiting', detail: 'not sent yet: sign in again to send it' });
            this.opts.onUnauthorized();
            break;
          }
          if (e.kind === 'unreachable' || e.status === 429 || (e.status !== null && e.status >= 500)) {
            this.failures += 1;
            const base = this.opts.backoffMs ?? 1000;
            retryIn = Math.min(this.opts.maxBackoffMs ?? 15_000, base * 2 ** (this.failures - 1));
            const why = e.kind === 'unreachable' ? 'the Kesoku API is not reachable' : e.detail;
            this.patch(next.id, {
              state: 'waiting',
              detail: `not sent yet (${why}); it is sent when the API answers`,
            });
            break;
          }
          this.patch(next.id, { state: 'failed', detail: `not sent: ${e.detail}` });
        }
      }
    } finally {
      this.running = false;
    }
    if (retryIn !== null) this.kick(retryIn);
  }

  private patch(id: string, changes: Partial<OutboxItem>): void {
    this.list = this.list.map((i) => (i.id === id ? { ...i, ...changes } : i));
    this.changed();
  }

  private changed(): void {
    const keep = this.list.filter((i) => i.state !== 'accepted' || Date.now() - i.createdAt < 10 * 60_000);
    this.list = keep;
    this.opts.save(keep.length > 0 ? JSON.stringify(keep) : null);
    this.opts.onChange(keep);
  }
}

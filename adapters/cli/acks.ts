/**
 * Acknowledging what the terminal printed (`POST /v1/sessions/{id}/deliveries`): on channel `cli` a message is
 * `delivered` only once this client wrote it to the terminal (docs/message-model.md §4.2–§4.3, §5.3 CLI column).
 *
 * Printed ids are queued per session and sent in batches in the background, after the output they were written
 * to has been flushed. A failure to reach the API keeps the ids and tries again with backoff (the call is
 * idempotent); an answer refusing them (4xx) drops them and is reported once. {@link DeliveryAcks.close} sends
 * what is still queued before the client exits, within a time limit.
 */
import { ApiError } from './api-client.ts';

/** Largest batch per call (the API takes up to 1000 ids). */
const BATCH = 500;

export interface DeliveryAcksOptions {
  /** Sends one batch. @throws ApiError */
  send(sessionId: string, ids: string[]): Promise<unknown>;
  /** Resolves once everything written to the terminal so far is flushed. */
  flushed(): Promise<void>;
  /** Told once per refused batch (a 4xx answer): the ids are dropped. */
  onRefused(err: ApiError): void;
  /** First retry delay after an unreachable API, in ms (default 500); doubles up to 10 s. */
  retryMs?: number;
}

/** See the module comment. */
export class DeliveryAcks {
  private readonly o: DeliveryAcksOptions;
  /** Queued ids per session, in print order. */
  private readonly queued = new Map<string, Set<string>>();
  private running: Promise<void> | null = null;
  private closing = false;
  private wake: (() => void) | null = null;

  constructor(opts: DeliveryAcksOptions) {
    this.o = opts;
  }

  /** Queues printed messages of `sessionId` for acknowledgement. */
  add(sessionId: string, ids: readonly string[]): void {
    if (ids.length === 0) return;
    let set = this.queued.get(sessionId);
    if (!set) this.queued.set(sessionId, (set = new Set()));
    for (const id of ids) set.add(id);
    this.running ??= this.run().finally(() => {
      this.running = null;
      if (this.queued.size > 0 && !this.closing) this.add(sessionId, []);
    });
  }

  /** How many ids wait to be acknowledged. */
  get pending(): number {
    let n = 0;
    for (const set of this.queued.values()) n += set.size;
    return n;
  }

  /**
   * Sends what is queued, then stops; gives up after `timeoutMs` (what is left stays undelivered: a later client
   * prints it again).
   */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true;
    this.wake?.();
    if (this.queued.size > 0 && !this.running) this.running = this.run();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.running ?? Promise.resolve(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  private async run(): Promise<void> {
    let failures = 0;
    for (;;) {
      const next = this.queued.entries().next();
      if (next.done) return;
      const [sessionId, set] = next.value;
      const ids = [...set].slice(0, BATCH);
      await this.o.flushed();
      try {
        await this.o.send(sessionId, ids);
        failures = 0;
      } catch (err) {
        const retry = err instanceof ApiError && (err.kind === 'unreachable' || (err.status ?? 500) >= 500);
        if (retry) {
          // While closing, one attempt per batch: the client is leaving.
          if (this.closing) return;
          failures += 1;
          await this.sleep(Math.min(10_000, (this.o.retryMs ?? 500) * 2 ** (failures - 1)));
          continue;
        }
        if (err instanceof ApiError) this.o.onRefused(err);
      }
      for (const id of ids) set.delete(id);
      if (set.size === 0) this.queued.delete(sessionId);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

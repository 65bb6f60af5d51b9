/**
 * Handle each Discord message once per process, whichever way it arrives: live (MESSAGE_CREATE), again after a
 * gateway RESUME (Discord may re-send events the client already had), or from a catch-up fetch that overlaps a
 * live event. A second arrival waits for the first and is reported as `duplicate`, unless the first was refused
 * (`rejected`: Kesoku could not take it), in which case it is handled again.
 *
 * Across processes and restarts, the session's message-id idempotency (ids.ts `inboundIdFor`) and, for chat
 * commands, their claim in Postgres (ingress.ts `claimCommand`, db/command-claims.ts) make it once; this gate
 * keeps a replay from even reaching the session or the database.
 */
import type { IngressOutcome } from './ingress.ts';

/** The gate; `remember` bounds how many ids are kept (oldest dropped first). */
export interface OnceGate {
  run(discordMessageId: string, handle: () => Promise<IngressOutcome>): Promise<IngressOutcome>;
}

/** Builds a gate keeping the last `remember` ids (default 10 000). */
export function createOnceGate(remember = 10_000): OnceGate {
  const handled = new Map<string, Promise<IngressOutcome>>();
  return {
    async run(id, handle) {
      const earlier = handled.get(id);
      if (earlier !== undefined && (await earlier) !== 'rejected') return 'duplicate';
      if (handled.get(id) !== earlier) return 'duplicate'; // a third arrival already took over
      const now = handle();
      handled.delete(id);
      handled.set(id, now);
      if (handled.size > remember) handled.delete(handled.keys().next().value as string);
      return now;
    },
  };
}

/**
 * The failure a turn ends with, as the session presents it: a {@link TurnFailure} carries the kind the activity
 * reported (its ApplicationFailure type, see domain/failures.ts).
 */
import * as wf from '@temporalio/workflow';
import { parseFailureType, type TurnFailureKind } from '../domain/failures.ts';

/** A failure the session maps to a crash notice. */
export class TurnFailure extends Error {
  readonly kind: TurnFailureKind;
  readonly detail?: string;
  /** `cause` is the failure it was derived from (an ActivityFailure and its chain), for the operator's log. */
  constructor(kind: TurnFailureKind, detail?: string, cause?: unknown) {
    super(detail ? `${kind}: ${detail}` : kind, cause === undefined ? undefined : { cause });
    this.name = 'TurnFailure';
    this.kind = kind;
    this.detail = detail;
  }
}

/**
 * Runs an activity call and turns its failure into a {@link TurnFailure} with the kind the activity reported,
 * or `fallback` when it reported none (e.g. a timeout). Cancellation passes through untouched.
 */
export async function call<T>(fn: () => Promise<T>, fallback: TurnFailureKind = 'provider'): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (wf.isCancellation(err)) throw err;
    throw toTurnFailure(err, fallback);
  }
}

/** Finds the failure kind in an ActivityFailure's cause chain. */
export function toTurnFailure(err: unknown, fallback: TurnFailureKind): TurnFailure {
  if (err instanceof TurnFailure) return err;
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof wf.ApplicationFailure) {
      const parsed = parseFailureType(cur.type);
      if (parsed) return new TurnFailure(parsed.kind, parsed.detail, err);
    }
    if (cur instanceof wf.TimeoutFailure)
      return new TurnFailure(fallback, fallback === 'provider' ? 'timeout' : undefined, err);
    cur = (cur as { cause?: unknown }).cause;
  }
  return new TurnFailure(fallback, undefined, err);
}

/**
 * The failure chain of `err` as one line for the operator's log, e.g.
 * `ActivityFailure: Activity task failed <- TimeoutFailure: activity Heartbeat timeout`. At most 6 links.
 */
export function describeFailureChain(err: unknown): string {
  const links: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 6; depth++) {
    links.push(cur instanceof Error ? `${cur.name}: ${cur.message}` : String(cur));
    cur = (cur as { cause?: unknown }).cause;
  }
  return links.join(' <- ');
}

/**
 * Faults in a channel's message submissions, for tests of what a channel tells its platform when a submission
 * fails or hangs: {@link withSubmitFaults} wraps a real SessionClient; every other operation goes through
 * unchanged.
 */
import type { SessionClient } from '../../infra/session-client.ts';

/** A submission held by {@link SubmitFaults.holdNext}. */
export interface HeldSubmit {
  /** Resolves when the held submission was called. */
  reached: Promise<void>;
  /** Lets the held submission go on to the real client. */
  release(): void;
  /** Makes the held submission fail with `err` (the real client is not called). */
  fail(err: Error): void;
}

export interface SubmitFaults {
  /** The wrapped client: pass it to the channel. */
  sessions: SessionClient;
  /** The next submissions fail with these errors, one each, in order (the real client is not called). */
  failNext(...errors: Error[]): void;
  /** The next submission waits until released, then goes to the real client. */
  holdNext(): HeldSubmit;
  /** Submissions called so far (failed and held ones included). */
  readonly calls: number;
}

export function withSubmitFaults(real: SessionClient): SubmitFaults {
  const failures: Error[] = [];
  const holds: { gate: Promise<Error | null>; reached: () => void }[] = [];
  let calls = 0;
  const submit: SessionClient['submit'] = async (address, message) => {
    calls += 1;
    const failure = failures.shift();
    if (failure) throw failure;
    const hold = holds.shift();
    if (hold) {
      hold.reached();
      const err = await hold.gate;
      if (err) throw err;
    }
    return real.submit(address, message);
  };
  const sessions = new Proxy(real, {
    get(target, key) {
      if (key === 'submit') return submit;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    sessions,
    failNext(...errors) {
      failures.push(...errors);
    },
    holdNext() {
      let open!: (err: Error | null) => void;
      let reached!: () => void;
      const gate = new Promise<Error | null>((r) => (open = r));
      const reachedP = new Promise<void>((r) => (reached = r));
      holds.push({ gate, reached });
      return { reached: reachedP, release: () => open(null), fail: (err) => open(err) };
    },
    get calls() {
      return calls;
    },
  };
}

// The terminal client's acknowledgements of printed messages (adapters/cli/acks.ts): sent after the output is
// flushed, kept and retried while the API is unreachable, dropped once refused, sent on close.
import { describe, expect, it } from 'vitest';
import { DeliveryAcks } from './acks.ts';
import { ApiError } from './api-client.ts';

const unreachable = () => new ApiError('unreachable', 'down', { baseUrl: 'http://x' });
const refused = () => new ApiError('problem', 'conflict', { baseUrl: 'http://x', status: 409 });

function harness(fail: (call: number) => ApiError | null = () => null) {
  const sent: [string, string[]][] = [];
  const refusals: ApiError[] = [];
  let flushes = 0;
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const acks = new DeliveryAcks({
    send: async (sessionId, ids) => {
      const err = fail(sent.length + refusals.length);
      if (err) {
        if (err.status === 409) refusals.push(err);
        throw err;
      }
      sent.push([sessionId, ids]);
    },
    flushed: async () => {
      flushes += 1;
      await gate;
    },
    onRefused: () => {},
    retryMs: 5,
  });
  return {
    acks,
    sent,
    refusals,
    flushes: () => flushes,
    hold() {
      gate = new Promise((r) => (release = r));
    },
    release: () => release(),
  };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('DeliveryAcks', () => {
  it('sends printed ids only after the output was flushed, once each, per session', async () => {
    const h = harness();
    h.hold();
    h.acks.add('s1', ['a', 'b']);
    h.acks.add('s1', ['b', 'c']);
    h.acks.add('s2', ['x']);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sent).toEqual([]);
    h.release();
    await until(() => h.acks.pending === 0);
    // A batch is taken before the flush it waits for: 'c' was printed after that flush began, so it waits for
    // the next one.
    expect(h.sent).toEqual([
      ['s1', ['a', 'b']],
      ['s1', ['c']],
      ['s2', ['x']],
    ]);
    expect(h.flushes()).toBe(3);
  });

  it('keeps the ids while the API is unreachable and sends them when it answers again', async () => {
    let calls = 0;
    const h2 = harness(() => (++calls <= 3 ? unreachable() : null));
    h2.acks.add('s', ['a']);
    await until(() => h2.sent.length === 1);
    expect(h2.sent).toEqual([['s', ['a']]]);
    expect(calls).toBe(4);
    expect(h2.acks.pending).toBe(0);
  });

  it('drops ids the API refuses (4xx) and goes on with the rest', async () => {
    let n = 0;
    const h = harness(() => (n++ === 0 ? refused() : null));
    h.acks.add('s', ['a']);
    await until(() => h.acks.pending === 0);
    h.acks.add('s', ['b']);
    await until(() => h.sent.length === 1);
    expect(h.sent).toEqual([['s', ['b']]]);
    expect(h.refusals).toHaveLength(1);
  });

  it('close() sends what is queued, and gives up after its time limit when the API is gone', async () => {
    const h = harness();
    h.acks.add('s', ['a']);
    await h.acks.close(1000);
    expect(h.sent).toEqual([['s', ['a']]]);

    const down = harness(() => unreachable());
    down.acks.add('s', ['b']);
    const started = Date.now();
    await down.acks.close(200);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(down.acks.pending).toBe(1);
  });
});

// The active plan in Google Chat's intermediate card (the fake Chat API, the real stack, the fake model): an
// update_plan line shows the steps it sets with their marks, not its JSON.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageEvent } from './fake-server.ts';
import { startGoogleChatBench, type GoogleChatBench } from './harness.ts';

let bench: GoogleChatBench;
beforeAll(async () => {
  bench = await startGoogleChatBench();
});
afterAll(async () => bench?.stop());

describe('the plan in the Google Chat card', () => {
  it('shows the steps an update_plan sets, ✅ with its summary once it ran', async () => {
    const key = `S${randomBytes(6).toString('hex')}`;
    const space = `spaces/${key}`;
    const thread = `${space}/threads/T1`;
    bench.stack.script(
      `googlechat:${key}:T1`,
      {
        kind: 'tool_calls',
        calls: [
          {
            name: 'update_plan',
            arguments: {
              steps: [
                { title: 'Read the logs', status: 'done' },
                { title: 'Fix the bug', status: 'in_progress' },
              ],
            },
          },
        ],
      },
      { kind: 'text', text: 'Working on it.' },
    );
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space, thread, messageId: 'M1', text: 'fix the bug, with a plan' }),
    );
    await bench.stack.waitForStatus(`googlechat-${key}-M1`, ['processed']);
    const card = await bench.fake.waitFor(
      () =>
        bench.fake.messagesIn(space).find((m) => JSON.stringify(m.cardsV2 ?? []).includes('plan 1/2 done')) ??
        null,
      15_000,
    );
    const json = JSON.stringify(card.cardsV2);
    expect(json).toContain('✅ Read the logs · ▶️ Fix the bug');
    expect(json).not.toContain('\\"steps\\"');
  });
});

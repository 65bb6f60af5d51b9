// The active plan in Discord's live status (real discord.js against the fake Discord, the real stack, the fake
// model): an update_plan line shows the steps it sets with their marks, not its JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordBench, type DiscordBench } from './harness.ts';

/** Flags of the status message (SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS). */
const STATUS_FLAGS = (1 << 2) | (1 << 12);

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench({ DISCORD_MESSAGE_CONTENT: 'true' }, 1);
});
afterAll(async () => bench?.stop());

describe('the plan in the Discord status', () => {
  it('shows the steps an update_plan sets, ✅ with its summary once it ran', async () => {
    const channel = bench.channels[0] as string;
    bench.stack.script(
      `discord:${channel}`,
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
    const { id } = await bench.say({
      channelId: channel,
      content: 'fix the bug, with a plan',
      mentionBot: true,
    });
    expect((await bench.waitInbound(id)).status).toBe('processed');
    await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    // The status's last edit may follow the reply by the edit throttle.
    const status = await bench.fake.waitFor(() =>
      bench.fake.botMessages(channel).find((m) => m.flags === STATUS_FLAGS && m.content.includes('plan 1/2')),
    );
    expect(status.content).toContain(
      '🛠️ `update_plan` `✅ Read the logs · ▶️ Fix the bug` ✅ `plan 1/2 done`',
    );
    expect(status.content).not.toContain('"steps"');
  });
});

/**
 * The turn's side work is off its critical path on a live channel (Discord, the real adapter, the dev server),
 * read from the session workflow's history: the first model step is scheduled without waiting for the typing
 * indicator, the next model step without waiting for the tool results' progress, a queued turn's model step
 * without waiting for the title start; a turn's typing ends inside its final reply's delivery.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { temporal } from '@temporalio/proto';
import { sessionWorkflowId } from '../../../workflows/definitions.ts';
import { recordHistory } from '../../../test/support/histories.ts';
import { uniqueId } from '../../../test/support/stack.ts';
import { startDiscordBench, type DiscordBench } from './harness.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let bench: DiscordBench;
beforeAll(async () => {
  bench = await startDiscordBench({}, 2);
});
afterAll(async () => bench?.stop());

/** The activities of a history: name, input summary and the ids of their scheduled and completed events. */
function activities(events: HistoryEvent[]): { name: string; scheduled: number; completed: number }[] {
  const completedBy = new Map<number, number>();
  for (const e of events) {
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (done?.scheduledEventId) completedBy.set(Number(done.scheduledEventId), Number(e.eventId));
  }
  return events.flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (!name) return [];
    const scheduled = Number(e.eventId);
    return [{ name, scheduled, completed: completedBy.get(scheduled) ?? Infinity }];
  });
}

describe('side work beside the turn', () => {
  it('schedules model steps without waiting for typing, progress or the title; typing ends inside the delivery', async () => {
    const channel = bench.channels[0] as string;
    const sessionId = `discord:${channel}`;
    const first = await bench.say({ channelId: channel, content: 'run: sleep 2', mentionBot: true });
    // A second message from another sender is queued behind the first turn (not an interrupt).
    const second = await bench.stack.sessions.submit(
      { sessionId, chatbotId: 'discord', channelId: channel },
      {
        id: uniqueId('m'),
        content: 'and then?',
        sender: 'Bob',
        senderId: 'bob',
        receivedAt: new Date().toISOString(),
      },
    );
    await bench.waitInbound(first.id);
    await bench.stack.waitForStatus(second.message.id, ['processed']);

    const history = await bench.stack.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
    const acts = activities(history.events ?? []);
    const steps = acts.filter((a) => a.name === 'runModelStep');
    const typing = acts.filter((a) => a.name === 'signalActivity');
    const shown = acts.filter((a) => a.name === 'presentProgress');
    const deliveries = acts.filter((a) => a.name === 'deliverMessage');
    expect(steps).toHaveLength(3); // tool call, answer after the tool, the queued turn
    // Typing on for each turn; off inside each final reply's delivery, never an activity of its own.
    expect(typing).toHaveLength(2);
    const [on1, on2] = typing as [(typeof typing)[0], (typeof typing)[0]];
    const [step0, step1, step2] = steps as [(typeof steps)[0], (typeof steps)[0], (typeof steps)[0]];
    // Typing on beside the first model step.
    expect(step0.scheduled).toBeLessThan(on1.completed);
    // The tool results' progress beside the next model step.
    const results = shown
      .filter((a) => a.scheduled > step0.completed && a.scheduled < step1.scheduled)
      .at(-1);
    expect(results).toBeDefined();
    expect(step1.scheduled).toBeLessThan(results?.completed ?? 0);
    // The queued turn starts once the first turn's reply is delivered (which ended its typing), beside its own
    // typing-on.
    const reply1 = deliveries.find((d) => d.scheduled > step1.completed && d.scheduled < step2.scheduled);
    expect(reply1).toBeDefined();
    expect(on2.scheduled).toBeGreaterThan(reply1?.completed ?? Infinity);
    expect(step2.scheduled).toBeLessThan(on2.completed);
    // The title child is started without holding up the next turn.
    const title = (history.events ?? []).find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
    const titleStarted = (history.events ?? []).find((e) => e.childWorkflowExecutionStartedEventAttributes);
    expect(title).toBeDefined();
    expect(step2.scheduled).toBeLessThan(Number(titleStarted?.eventId ?? Infinity));
    await recordHistory('discord-side-work', bench.stack.client, sessionWorkflowId(sessionId));
  });
});

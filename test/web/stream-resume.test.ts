// The event stream a client reconnects to mid-turn (the web page's reload): the whole streamed text of the
// running step first, then live deltas; every call waiting for approval; nothing for a turn that already ended.
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { uniqueId } from '../support/stack.ts';
import {
  eventually,
  openEvents,
  replyWhen,
  updates,
  useHarness,
  type EventStream,
  type Json,
} from '../api/support.ts';

const h = useHarness();
const open: EventStream[] = [];
afterAll(() => open.forEach((s) => s.close()));

async function events(session: string, revision: number): Promise<EventStream> {
  const s = await openEvents(h.api.url, `/v1/sessions/${session}/events`, {
    'last-event-id': String(revision),
  });
  open.push(s);
  return s;
}

const revisionOf = async (session: string) =>
  (await h.client.get<{ revision: number }>(`/v1/sessions/${session}`)).body.revision;

const WORDS = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');

describe('a stream opened mid-turn', () => {
  it('starts with the whole text streamed so far, though nobody watched the session before, and goes on live', async () => {
    const session = uniqueId('s');
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'warm up', wait: 30 });
    const restore = replyWhen(h.stack, 'stream slowly', { kind: 'text', text: WORDS, chunkDelayMs: 120 });
    try {
      const sent = await h.client.post<{ message: Message }>(`/v1/sessions/${session}/messages`, {
        content: 'stream slowly',
      });
      const turnId = sent.body.message.id;
      // Mid-stream, with no subscriber so far: the fake has sent several words.
      const request = await eventually(async () =>
        h.stack.fake.chatRequests().find((r) => JSON.stringify(r.body?.messages).includes('stream slowly')),
      );
      await eventually(async () => Date.now() - request.receivedAt > 1200 || null);

      const stream = await events(session, await revisionOf(session));
      const first = await stream.waitFor((e) => e.event === 'turn.updated' && e.data.turn_id === turnId);
      expect((first.data.text as string).startsWith('w0 w1 w2 w3')).toBe(true);
      expect(first.data.text_offset).toBeUndefined();
      await stream.until((evs) =>
        evs.some((e) => e.event === 'turn.updated' && e.data.status === 'finished'),
      );
      const texts = updates(stream)
        .filter((u) => u.turn_id === turnId)
        .map((u) => u.text as string);
      for (const t of texts) expect(WORDS.startsWith(t), t).toBe(true);
      expect(texts.at(-1)).toBe(WORDS);
      // A second stream opened now gets no snapshot: the turn is over.
      const after = await events(session, await revisionOf(session));
      await new Promise((r) => setTimeout(r, 500));
      expect(after.events.filter((e) => e.event === 'turn.updated')).toEqual([]);
    } finally {
      restore();
    }
  });

  it('gets an approval_requested for every tool call still waiting for a decision', async () => {
    const session = uniqueId('s');
    await h.client.patch(`/v1/sessions/${session}`, { approval: 'writes' });
    await h.client.post(`/v1/sessions/${session}/messages`, { content: 'run: echo waiting-one' });
    const pending = await eventually(async () => {
      const s = await h.client.get<{ pending_approvals: Json[] }>(`/v1/sessions/${session}`);
      return s.body.pending_approvals[0];
    });
    const stream = await events(session, await revisionOf(session));
    const asked = await stream.waitFor((e) => e.event === 'approval_requested');
    expect(asked.data).toMatchObject({
      session_id: session,
      call_id: pending.call_id,
      turn_id: pending.turn_id,
      step: 0,
      tool_name: 'run_shell_command',
      subject: 'echo waiting-one',
    });
    await h.client.post(`/v1/sessions/${session}/tool-calls/${pending.call_id as string}/approval`, {
      decision: 'deny',
      wait: 30,
    });
    const later = await events(session, await revisionOf(session));
    await new Promise((r) => setTimeout(r, 500));
    expect(later.events.filter((e) => e.event === 'approval_requested')).toEqual([]);
  });
});

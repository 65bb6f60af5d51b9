// The web page's view of one session (adapters/web/src/transcript.ts): committed deltas by id, the running turn's
// uncommitted part only, calls waiting for a decision, stopped calls shown as interrupted.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../domain/message.ts';
import { Transcript } from './transcript.ts';
import type { TurnUpdate } from './follow.ts';

const S = 'sess';
let seq = 0;
function msg(m: Partial<Message> & Pick<Message, 'id' | 'role' | 'type' | 'status'>): Message {
  seq += 1;
  return {
    session_id: S,
    parent_id: null,
    chatbot_id: 'api',
    channel_id: S,
    sender: m.role === 'user' ? 'web' : 'Kesoku',
    content: '',
    metadata: null,
    turn_id: null,
    step: null,
    seq,
    revision: 1,
    received_at: null,
    created_at: '2026-12-01T10:00:00.000Z',
    updated_at: '2026-12-01T10:00:00.000Z',
    ...m,
  };
}

const trigger = (status: Message['status'], revision = 1) =>
  msg({ id: 't1', role: 'user', type: 'text', status, content: 'run: sleep 9', turn_id: 't1', revision });
const call = msg({
  id: 't1:s0:call0',
  role: 'assistant',
  type: 'tool_call',
  status: 'responded',
  turn_id: 't1',
  step: 0,
  metadata: {
    tool_name: 'run_shell_command',
    tool_call_id: 'call_a',
    tool_arguments: { command: 'sleep 9' },
  },
});
const snapshot = (u: Partial<TurnUpdate>): TurnUpdate => ({
  session_id: S,
  turn_id: 't1',
  step: 0,
  status: 'thinking',
  text: '',
  tools: [],
  ...u,
});

describe('Transcript', () => {
  it('keeps one copy per message id and ignores an older version of a message it holds', () => {
    const t = new Transcript(S);
    t.load([trigger('processing', 1)], 1);
    t.commit([trigger('processed', 3)], 3);
    t.commit([trigger('processing', 1)], 3);
    expect(t.view().messages.map((m) => [m.id, m.status])).toEqual([['t1', 'processed']]);
    expect(t.revision).toBe(3);
  });

  it("shows the step's streamed text until its thought or reply is committed, and the tools until their results are", () => {
    const t = new Transcript(S);
    t.load([trigger('processing')], 1);
    t.update(snapshot({ text: 'I will run', tools: [] }));
    expect(t.view().live).toMatchObject({ text: 'I will run', textOffset: 0, tools: [] });
    t.commit(
      [
        msg({
          id: 't1:s0:thought',
          role: 'assistant',
          type: 'thought',
          status: 'responded',
          turn_id: 't1',
          step: 0,
        }),
        call,
      ],
      2,
    );
    t.update(
      snapshot({
        text: 'I will run',
        status: 'running_tools',
        tools: [
          {
            call_id: 'call_a',
            name: 'run_shell_command',
            status: 'running',
            started_at: '2026-12-01T10:00:01.000Z',
          },
        ],
      }),
    );
    const live = t.view().live;
    expect(live?.text).toBe('');
    expect(live?.tools).toEqual([
      {
        call_id: 't1:s0:call0',
        name: 'run_shell_command',
        status: 'running',
        startedAt: Date.parse('2026-12-01T10:00:01.000Z'),
      },
    ]);
    expect(t.view().busy).toBe(true);
  });

  it('shows a call of a stopped turn that never got a result with the synthetic interrupted result, and ends the live part', () => {
    const t = new Transcript(S);
    t.load([trigger('processing'), call], 1);
    t.update(
      snapshot({
        status: 'running_tools',
        tools: [{ call_id: 'call_a', name: 'run_shell_command', status: 'running' }],
      }),
    );
    t.commit([trigger('interrupted', 2)], 2);
    const v = t.view();
    expect(v.live).toBeNull();
    expect(v.busy).toBe(false);
    const result = v.messages.find((m) => m.type === 'tool_result');
    expect(result).toMatchObject({ id: 't1:s0:call0:interrupted', metadata: { synthetic: true } });
    expect(v.callOf(result as Message)?.id).toBe('t1:s0:call0');
    // A late snapshot of the ended turn changes nothing.
    t.update(snapshot({ text: 'late' }));
    expect(t.view().live).toBeNull();
  });

  it('lists a call waiting for approval from the stream or from history, until it is decided', () => {
    const t = new Transcript(S);
    const waiting = {
      ...call,
      metadata: {
        ...call.metadata,
        approval: { state: 'pending' as const, subject: 'sleep 9', requested_at: '' },
      },
    };
    t.load([trigger('processing'), waiting], 1);
    expect(t.view().pending.map((p) => p.call_id)).toEqual(['t1:s0:call0']);
    expect(t.view().live?.tools[0]?.status).toBe('waiting');
    t.requestApproval({
      session_id: S,
      turn_id: 't1',
      step: 0,
      call_id: 't1:s0:call0',
      tool_name: 'run_shell_command',
      subject: 'sleep 9',
      expires_at: '2999-01-01T00:00:00.000Z',
    });
    expect(t.view().pending).toHaveLength(1);
    const decided = {
      ...waiting,
      revision: 2,
      metadata: {
        ...waiting.metadata,
        approval: { ...waiting.metadata.approval, state: 'approved' as const },
      },
    };
    t.commit([decided], 2);
    expect(t.view().pending).toEqual([]);
    expect(t.view().live?.tools[0]?.status).toBe('running');
  });

  it('marks a step text this API did not see from its start with its offset', () => {
    const t = new Transcript(S);
    t.load([trigger('processing')], 1);
    t.update(snapshot({ text: 'tail of it', text_offset: 120 }));
    expect(t.view().live).toMatchObject({ text: 'tail of it', textOffset: 120 });
  });
});

import { describe, expect, it } from 'vitest';
import {
  FIELD_MATRIX,
  MANUAL_COMPACTION_PROMPT,
  backgroundAlert,
  crashNotice,
  cronPrompt,
  emptyReplyNudge,
  finalReply,
  manualCompactionPrompt,
  notification,
  systemPrompt,
  thought,
  toolCall,
  toolCallContent,
  toolResult,
  userQuestion,
} from './factories.ts';
import type { NewMessage } from './factories.ts';
import type { MessageMetadata, Role, MessageType, Status, TurnMetrics } from './message.ts';
import { MESSAGE_KINDS, messageKind } from './message-kind.ts';
import type { MessageKind } from './message-kind.ts';
import { ALLOWED_TRANSITIONS } from './status-machine.ts';
import { SEED_6_1_RECORDS } from './fixtures/trace-6-1.ts';

const AT = { session_id: 'sess_1', chatbot_id: 'discord', channel_id: 'chan_1' };
const IN_TURN = { turn_id: 'msg_user', step: 0 };
const METRICS: TurnMetrics = {
  session_turns: 3,
  context_tokens: 8421,
  turn_tool_calls: 1,
  turn_tokens: 1042,
  turn_time: 2.1,
};

interface Row {
  kind: MessageKind;
  message: NewMessage;
  // docs/message-model.md §3, copied literally.
  role: Role;
  type: MessageType;
  sender: string;
  status: Status;
  finals: Status[];
  metadata: MessageMetadata | null;
}

const ROWS: Row[] = [
  {
    kind: 'user_question',
    message: userQuestion({
      ...AT,
      id: 'u1',
      sender: 'Chii',
      content: '请帮我查询东京天气。',
      received_at: '2026-05-27T12:50:00.000Z',
      discord_message_id: 'd1',
      attachments: [{ name: 'a.png' }],
    }),
    role: 'user',
    type: 'text',
    sender: 'Chii',
    status: 'pending_agent',
    finals: ['processed', 'interrupted', 'error'],
    metadata: { discord_message_id: 'd1', attachments: [{ name: 'a.png' }] },
  },
  {
    kind: 'cron_prompt',
    message: cronPrompt({ ...AT, id: 'c1', content: 'Run status diagnostics' }),
    role: 'user',
    type: 'text',
    sender: 'Cronjob',
    status: 'pending_agent',
    finals: ['processed'],
    metadata: { is_cronjob: true },
  },
  {
    kind: 'manual_compaction_prompt',
    message: manualCompactionPrompt({ ...AT, id: 'k1' }),
    role: 'user',
    type: 'text',
    sender: 'System',
    status: 'pending_agent',
    finals: ['processed'],
    metadata: { is_compaction: true },
  },
  {
    kind: 'thought',
    message: thought({ ...AT, ...IN_TURN, id: 't1', content: '我需要调用 run_shell_command 执行测试用例。' }),
    role: 'assistant',
    type: 'thought',
    sender: 'Kesoku',
    status: 'responded',
    finals: ['responded', 'delivered'],
    metadata: null,
  },
  {
    kind: 'final_reply',
    message: finalReply({
      ...AT,
      ...IN_TURN,
      id: 'r1',
      content: '东京当前天气晴朗，温度24°C。',
      turn_metrics: METRICS,
    }),
    role: 'assistant',
    type: 'text',
    sender: 'Kesoku',
    status: 'pending',
    finals: ['delivered'],
    metadata: { turn_metrics: METRICS },
  },
  {
    kind: 'tool_call',
    message: toolCall({
      ...AT,
      ...IN_TURN,
      id: 'tc1',
      tool_name: 'run_shell_command',
      tool_arguments: { command: 'ls' },
      tool_call_id: 'call_1',
    }),
    role: 'tool',
    type: 'tool_call',
    sender: 'Kesoku',
    status: 'responded',
    finals: ['responded', 'delivered'],
    metadata: { tool_name: 'run_shell_command', tool_arguments: { command: 'ls' }, tool_call_id: 'call_1' },
  },
  {
    kind: 'tool_result',
    message: toolResult({
      ...AT,
      ...IN_TURN,
      id: 'tr1',
      parent_id: 'tc1',
      tool_name: 'run_shell_command',
      tool_call_id: 'call_1',
      content: '[STDOUT] tests passed in 0.42s',
      summary: 'tests passed in 0.42s',
    }),
    role: 'tool',
    type: 'tool_result',
    sender: 'run_shell_command',
    status: 'responded',
    finals: ['responded', 'delivered'],
    metadata: {
      tool_name: 'run_shell_command',
      tool_result: 'tests passed in 0.42s',
      tool_call_id: 'call_1',
    },
  },
  {
    kind: 'system_prompt',
    message: systemPrompt({
      id: 'sp1',
      session_id: 'sess_1',
      content: '# System Instructions\nYou are Kesoku...',
    }),
    role: 'system',
    type: 'text',
    sender: 'System',
    status: 'responded',
    finals: ['responded'],
    metadata: null,
  },
  {
    kind: 'background_alert',
    message: backgroundAlert({ ...AT, id: 'b1', job_id: 'job_123', report: 'exit code 0' }),
    role: 'system',
    type: 'text',
    sender: 'System',
    status: 'pending_agent',
    finals: ['processed'],
    metadata: null,
  },
  {
    kind: 'empty_reply_nudge',
    message: emptyReplyNudge({ ...AT, ...IN_TURN, id: 'n1' }),
    role: 'system',
    type: 'text',
    sender: 'System',
    status: 'responded',
    finals: ['responded'],
    metadata: null,
  },
  {
    kind: 'notification',
    message: notification({ ...AT, id: 'no1', content: '🔄 聊天历史已自动压缩。' }),
    role: 'assistant',
    type: 'text',
    sender: 'Notification',
    status: 'pending',
    finals: ['delivered'],
    metadata: null,
  },
  {
    kind: 'crash_notice',
    message: crashNotice({
      ...AT,
      turn_id: 'msg_user',
      id: 'x1',
      content: '⚠️ 处理您的请求时发生异常: 模型服务暂时不可用。',
      failure_kind: 'provider',
    }),
    role: 'assistant',
    type: 'text',
    sender: 'Kesoku',
    status: 'pending',
    finals: ['delivered'],
    // Seed: None; Kesoku records the typed failure kind (docs/message-flow.md §13).
    metadata: { failure_kind: 'provider' },
  },
];

function reachable(from: Status): Set<Status> {
  const seen = new Set<Status>([from]);
  const queue = [from];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const to of ALLOWED_TRANSITIONS[next]) {
      if (seen.has(to)) continue;
      seen.add(to);
      queue.push(to);
    }
  }
  return seen;
}

describe('docs/message-model.md §3 field matrix', () => {
  it('has one factory case per row, in the spec order', () => {
    expect(ROWS.map((row) => row.kind)).toEqual([...MESSAGE_KINDS]);
    expect(Object.keys(FIELD_MATRIX)).toEqual([...MESSAGE_KINDS]);
  });

  it.each(ROWS)(
    '$kind: the factory writes the row’s role, type, sender, initial status and metadata',
    (row) => {
      const { message } = row;
      expect({
        role: message.role,
        type: message.type,
        sender: message.sender,
        status: message.status,
      }).toEqual({
        role: row.role,
        type: row.type,
        sender: row.sender,
        status: row.status,
      });
      expect(message.metadata).toEqual(row.metadata);
      expect(messageKind(message)).toBe(row.kind);
    },
  );

  it.each(ROWS)('$kind: FIELD_MATRIX describes the row and its final statuses are reachable', (row) => {
    const entry = FIELD_MATRIX[row.kind];
    expect(entry).toMatchObject({
      role: row.role,
      type: row.type,
      initial_status: row.status,
      final_statuses: row.finals,
    });
    expect(entry.sender === null || entry.sender === row.sender).toBe(true);
    const reach = reachable(entry.initial_status);
    for (const status of entry.final_statuses) expect(reach.has(status)).toBe(true);
    for (const key of entry.metadata_keys) expect(row.metadata).toHaveProperty(key);
  });

  it('leaves sender variable only for the user question and the tool result', () => {
    const variable = MESSAGE_KINDS.filter((kind) => FIELD_MATRIX[kind].sender === null);
    expect(variable).toEqual(['user_question', 'tool_result']);
  });
});

describe('factory details', () => {
  it('opens a turn with every trigger: user question, cron prompt, compaction prompt, background alert', () => {
    for (const row of ROWS.filter((r) =>
      ['user_question', 'cron_prompt', 'manual_compaction_prompt', 'background_alert'].includes(r.kind),
    )) {
      expect(row.message.turn_id).toBe(row.message.id);
      expect(row.message.step).toBeNull();
    }
  });

  it('puts in-turn messages at their step with the trigger as parent, and a tool result under its call', () => {
    const byKind = new Map(ROWS.map((row) => [row.kind, row.message]));
    expect(byKind.get('thought')).toMatchObject({ turn_id: 'msg_user', step: 0, parent_id: 'msg_user' });
    expect(byKind.get('tool_result')).toMatchObject({ turn_id: 'msg_user', step: 0, parent_id: 'tc1' });
    expect(byKind.get('crash_notice')).toMatchObject({
      turn_id: 'msg_user',
      step: null,
      parent_id: 'msg_user',
    });
  });

  it('addresses the system prompt to chatbot "system", channel "system", outside any turn', () => {
    const prompt = systemPrompt({ id: 'sp', session_id: 's', content: 'x' });
    expect(prompt).toMatchObject({
      chatbot_id: 'system',
      channel_id: 'system',
      turn_id: null,
      step: null,
      parent_id: null,
    });
  });

  it('writes the spec’s contents', () => {
    const content = (kind: MessageKind): string =>
      ROWS.find((row) => row.kind === kind)?.message.content ?? '';
    expect(content('manual_compaction_prompt')).toBe(MANUAL_COMPACTION_PROMPT);
    expect(
      MANUAL_COMPACTION_PROMPT.startsWith('[System Notification] The user manually requested compaction'),
    ).toBe(true);
    expect(content('background_alert')).toBe('[System Alert] Background Job job_123 finished.\nexit code 0');
    expect(content('empty_reply_nudge').startsWith('Your previous response had empty content')).toBe(true);
    expect(content('crash_notice')).toBe('⚠️ 处理您的请求时发生异常: 模型服务暂时不可用。');
    expect(content('tool_call')).toBe(
      'Calling tool `run_shell_command` with arguments:\n```json\n{\n  "command": "ls"\n}\n```',
    );
  });

  it('formats a tool call like the spec §6.1 trace (up to JSON indentation)', () => {
    const seedCall = SEED_6_1_RECORDS.find((record) => record.id === 'msg_call_001');
    const content = toolCallContent('run_shell_command', { command: 'uv run pytest tests/test_history.py' });
    const normalise = (text: string): string => text.replace(/\n +/g, '\n ');
    expect(normalise(content)).toBe(seedCall?.content);
  });

  it('omits empty user metadata and keeps Kesoku’s inbound fields', () => {
    const plain = userQuestion({
      ...AT,
      id: 'u',
      sender: 'Chii',
      content: 'hi',
      received_at: null,
      attachments: [],
    });
    expect(plain.metadata).toBeNull();
    const reply = userQuestion({
      ...AT,
      id: 'u',
      sender: 'Chii',
      content: 'hi',
      received_at: null,
      reply_to: 'p1',
    });
    expect(reply.metadata).toEqual({ reply_to: 'p1' });
  });

  it('marks a compaction summary with the seq it covers', () => {
    const summary = finalReply({
      ...AT,
      ...IN_TURN,
      id: 's',
      content: 'summary',
      turn_metrics: METRICS,
      compacted_through_seq: 41,
    });
    expect(summary.metadata).toEqual({ turn_metrics: METRICS, compacted_through_seq: 41 });
    expect(messageKind(summary)).toBe('final_reply');
  });
});

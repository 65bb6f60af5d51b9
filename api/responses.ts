/**
 * The response bodies of REST API v1 as zod schemas: the OpenAPI document renders its component schemas from them
 * (api/openapi.ts `responseSchema`), the routes' answers are typed by them (`satisfies` their z.output), and the
 * terminal client (adapters/cli/api-client.ts) parses answers with them. Only zod and domain/ are imported, so a
 * client can load this without the server. Re-exported by api/schemas.ts.
 */
import { z } from 'zod';
import { MESSAGE_TYPES, ROLES, STATUSES } from '../domain/message.ts';
import { JOB_STATES } from '../domain/jobs.ts';
import { SCHEDULE_ID_PATTERN, SCHEDULE_KINDS } from '../domain/schedules.ts';
import { SESSION_MODES } from '../domain/session-settings.ts';
import { APPROVAL_DECISIONS, APPROVAL_POLICIES } from '../domain/tool-approval.ts';
import { PLAN_STATUSES } from '../domain/plan-view.ts';

/** A time as the API writes it: ISO 8601 (`Date#toISOString`). */
const isoTime = z.string().meta({ format: 'date-time' });

/** A `SessionSummary` (the items of `GET /v1/sessions`; api/routes/common.ts `presentSessionSummary`). */
export const sessionSummarySchema = z.strictObject({
  id: z.string(),
  chatbot_id: z.string(),
  channel_id: z.string(),
  title: z.string().nullable(),
  title_source: z.enum(['default', 'auto', 'user']),
  revision: z.int().min(0),
  mode: z.enum(SESSION_MODES),
  locale: z
    .string()
    .describe('Language of notices and crash notices: en or zh (KESOKU_LOCALE for new sessions).'),
  turn_count: z.int().min(0),
  created_at: isoTime,
  updated_at: isoTime,
});

/** A session without its live figures, as the API answers it. */
export type SessionSummary = z.output<typeof sessionSummarySchema>;

/** `GET /v1/sessions`: one page of the caller's sessions. */
export const sessionListSchema = z.strictObject({
  sessions: z.array(sessionSummarySchema).describe('Most recently updated first.'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end.'),
});

/** `POST /v1/sessions/{sessionId}/stop`. */
export const stopResultSchema = z.strictObject({
  stopped: z.boolean().describe('Whether a turn was running and was cancelled.'),
});

/** `POST /v1/sessions/{sessionId}/compact`. */
export const compactResultSchema = z.strictObject({
  message_id: z
    .string()
    .describe('The id of the queued compaction prompt (docs/message-model.md §3 "手动压缩提问").'),
  queued: z.boolean().optional(),
});

/** The states of an MCP server as the workers report them (GET /v1/mcp, /healthz). */
const MCP_STATES = ['idle', 'connecting', 'ready', 'failed'] as const;

/** A time at a schedule's zone: ISO 8601 with the zone's offset, e.g. `2026-12-01T09:00:00+09:00`. */
const zonedTime = z.string().meta({ format: 'date-time', description: "ISO 8601 with the zone's offset." });

/** A tool call waiting for a person's decision (GET session `pending_approvals`, a 504's, a 202's). */
export const pendingApprovalSchema = z.strictObject({
  call_id: z.string().describe('The tool_call message’s id (the `callId` of the approval route).'),
  turn_id: z.string().nullable(),
  tool_name: z.string(),
  subject: z.string().describe('What is asked about: the command, or `write_file <path>`.'),
  requested_at: z.string(),
  expires_at: z.string().nullable().describe('When the wait ends as timed out (counts as deny).'),
});

/** RFC 9457 problem details (api/problems.ts); extension members may be present. */
export const problemSchema = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.int().min(400).max(599),
    detail: z.string(),
    request_id: z
      .string()
      .optional()
      .describe('The request id (also in the `x-request-id` header and every log line).'),
    field: z.string().optional().describe('On validation problems: the offending field (dotted path).'),
    message_id: z.string().optional().describe('On 504: the accepted message that is still being processed.'),
    pending_approvals: z
      .array(pendingApprovalSchema)
      .optional()
      .describe(
        "On 504: the session's tool calls waiting for approval (as in GET session); the turn goes on once they are decided with POST …/tool-calls/{callId}/approval.",
      ),
    temporal: z.boolean().optional().describe('On 503: whether Temporal answered.'),
    postgres: z.boolean().optional().describe('On 503: whether Postgres answered.'),
  })
  .describe(
    'RFC 9457 problem details. `type` is `urn:kesoku:problem:<kind>`; extension members may be present.',
  );

/** An attachment recorded on a user message. */
export const storedAttachmentSchema = z
  .looseObject({
    name: z.string(),
    content_type: z.string().optional(),
    size: z.int().min(0).optional().describe('Bytes.'),
    path: z.string().optional(),
    url: z.string().optional(),
  })
  .describe('An attachment recorded on a user message (docs/message-model.md §3 `attachments`).');

export const turnMetricsSchema = z
  .looseObject({
    session_turns: z.int().min(0),
    context_tokens: z.int().min(0),
    turn_tool_calls: z.int().min(0),
    turn_tokens: z.int().min(0),
    turn_time: z.number().min(0),
  })
  .describe('docs/message-model.md §3 `turn_metrics` on a final reply. `turn_time` is in seconds.');

export const messageMetadataSchema = z
  .looseObject({
    discord_message_id: z.string().optional(),
    attachments: z.array(storedAttachmentSchema).optional(),
    is_cronjob: z.boolean().optional(),
    is_compaction: z.boolean().optional(),
    turn_metrics: turnMetricsSchema.optional(),
    tool_name: z.string().optional(),
    tool_arguments: z.looseObject({}).optional(),
    tool_result: z.string().optional().describe('Short summary of a tool run.'),
    tool_call_id: z.string().optional(),
    synthetic: z.boolean().optional(),
    reply_to: z.string().optional(),
    channel_context: z.unknown().optional(),
    sender_id: z.string().optional().describe("On a user question: the sender's platform id."),
    compacted_through_seq: z.int().optional(),
    failure_kind: z.string().optional(),
    full_output_path: z.string().optional(),
  })
  .describe(
    'docs/message-model.md §3 metadata keys, plus Kesoku additions. Keys absent when not applicable.',
  );

/** A stored message as the API answers it (db/messages.ts rows, snake_case). */
export const messageSchema = z
  .strictObject({
    id: z.string(),
    session_id: z.string(),
    parent_id: z.string().nullable(),
    chatbot_id: z
      .string()
      .describe(
        'The session\'s chatbot: "api" or "cli" for sessions created through this API (`channel` of the first message).',
      ),
    channel_id: z.string(),
    sender: z.string(),
    role: z.enum(ROLES),
    type: z.enum(MESSAGE_TYPES),
    status: z.enum(STATUSES),
    content: z.string(),
    metadata: messageMetadataSchema.nullable(),
    turn_id: z.string().nullable().describe("The trigger message's id; a trigger's own id."),
    step: z.int().min(0).nullable().describe('Model step within the turn, from 0.'),
    seq: z.int().describe('Global insertion sequence.'),
    revision: z
      .int()
      .min(0)
      .describe("The session's history revision at which this message was last committed."),
    received_at: isoTime.nullable(),
    created_at: isoTime,
    updated_at: isoTime,
  })
  .describe(
    'A stored Kesoku message (docs/message-model.md §2-§3, snake_case field names) plus ordering and sync fields. Timestamps are ISO 8601.',
  );

export const messageAcceptedSchema = z.strictObject({
  message: messageSchema,
  queue_position: z.int().min(0).describe('Turns ahead of this message (the running one included).'),
  duplicate: z
    .boolean()
    .optional()
    .describe('True when this id had been accepted before; nothing new was queued.'),
});

export const turnResultSchema = z
  .strictObject({
    message: messageSchema,
    reply: messageSchema.nullable(),
    notices: z.array(z.string()),
    duplicate: z
      .boolean()
      .optional()
      .describe('True when this id had been accepted before (a retry); nothing new was queued.'),
  })
  .describe(
    'The message in its final status (processed | interrupted | error; `interrupted`: the turn was stopped or superseded) and its answer: the final reply, the crash notice, or the partial reply an interrupted turn kept; null when the turn ended without one (a stopped turn usually). ' +
      '`notices`: the texts of the turn\'s system notices, in order — why a stopped turn ended ("⏹️ Stopped."), the automatic compaction notice. ' +
      'They are the "system interaction log" of docs/message-model.md §5.3, which REST clients get live with the turn (here and in the `turn.updated` snapshot), not as a reply; ' +
      'the Notification messages themselves are in the session history.',
  );

export const turnWaitingForApprovalSchema = z
  .strictObject({
    state: z.literal('waiting_for_approval').meta({ type: 'string' }),
    message: messageSchema,
    pending_approvals: z
      .array(pendingApprovalSchema)
      .min(1)
      .describe('The turn’s tool calls waiting for a decision, oldest first.'),
    detail: z.string(),
  })
  .describe(
    'With `wait`: the turn has not ended but waits for a person to decide a tool call (tool approval policy `writes` or `all`), so the wait ends at once instead of running out. ' +
      'Decide each call with POST …/tool-calls/{call_id}/approval (add `wait` there to get the rest of the turn); `detail` names the first call and that route.',
  );

export const historySchema = z.strictObject({
  revision: z.int().min(0).describe('The revision the client holds after applying `messages`.'),
  messages: z.array(messageSchema).describe('Phased order (docs/message-model.md §5.1).'),
  has_more: z
    .boolean()
    .optional()
    .describe(
      'With after_revision: true when `limit` cut the delta (read again with after_revision=revision). Without it: true when older messages exist (read them with before_seq).',
    ),
});

export const planStepSchema = z.strictObject({ title: z.string(), status: z.enum(PLAN_STATUSES) });

export const sessionPlanSchema = z.strictObject({
  steps: z.array(planStepSchema),
  revision: z.int().min(1).describe('Counts the plan’s updates.'),
  updated_at: isoTime,
});

/** `GET`/`PATCH /v1/sessions/{sessionId}`: the summary and the live figures. */
export const sessionSchema = sessionSummarySchema.extend({
  status: z.enum(['idle', 'processing']),
  queue_length: z.int().min(0).describe('Messages waiting (pending_agent).'),
  timezone: z
    .string()
    .nullable()
    .describe(
      'The session’s own IANA time zone (`PATCH {"timezone"}`), the zone of its new schedules that name none; null: none (KESOKU_TIMEZONE, else the server’s zone).',
    ),
  approval: z
    .enum(APPROVAL_POLICIES)
    .nullable()
    .describe('The session’s own tool-approval policy; null: KESOKU_TOOL_APPROVAL or the channel’s default.'),
  approval_in_force: z
    .enum(APPROVAL_POLICIES)
    .describe(
      'The tool-approval policy the session’s next tool step applies: `approval`, else KESOKU_TOOL_APPROVAL, else the channel’s default (`writes` for `api` and the chat channels; for the terminal client’s `cli` `off` in the token-less local operator’s sessions, `writes` in any other principal’s). `off`: nothing asks; `writes`: shell commands and file writes ask; `all`: every tool call asks.',
    ),
  approve_patterns: z
    .strictObject({
      session: z.array(z.string()).describe('Added to this session by `always` decisions, oldest first.'),
      configured: z.array(z.string()).describe('KESOKU_TOOL_AUTO_APPROVE: approve in every session.'),
    })
    .describe(
      'Patterns that approve, without asking, a tool call the policy in force would ask about (globs on the call’s subject, as in `pending_approvals[].subject`; docs/message-model.md §3.3).',
    ),
  pending_approvals: z
    .array(pendingApprovalSchema)
    .describe('Tool calls waiting for a person’s decision, oldest first.'),
  plan: sessionPlanSchema
    .nullable()
    .optional()
    .describe(
      'The session’s active plan (the model’s `update_plan`, docs/memory.md); null: none. Only in `GET /v1/sessions/{sessionId}`.',
    ),
});

export const memoryEntrySchema = z.strictObject({
  id: z.string(),
  text: z.string().max(2000),
  author: z.string().describe('Who was speaking when it was remembered.'),
  shared: z
    .boolean()
    .describe(
      'True for an entry of a shared scope (docs/memory.md "Shared scope"), which everyone there recalls; false for a person’s own.',
    ),
  session_id: z.string().nullable().describe('The session it was remembered in.'),
  source_message_id: z.string().nullable().describe('The user message whose turn remembered it.'),
  revision: z.int().min(1).describe('Counts the entry’s writes.'),
  created_at: isoTime,
  updated_at: isoTime,
});

export const memoryListSchema = z.strictObject({ entries: z.array(memoryEntrySchema) });

/** `DELETE /v1/memory/{entryId}`. */
export const forgottenMemorySchema = z.strictObject({ forgotten: memoryEntrySchema });

export const personLinkSchema = z.strictObject({
  chatbot_id: z.string().describe('The chat channel the user is on (a chatbot id of the channel registry).'),
  user_id: z.string().describe('The platform’s user id.'),
  linked_at: isoTime,
});

export const meSchema = z.strictObject({
  principal: z.string(),
  admin: z.boolean(),
  timezone: z
    .string()
    .nullable()
    .describe(
      'The caller’s IANA time zone: the zone of a new schedule in one of its sessions that names none when the session has none.',
    ),
  person: z.string().describe('The key the caller’s memory is kept under (`principal:<name>`).'),
  links: z.array(personLinkSchema).describe('Chat users linked to the caller.'),
});

export const sessionPromptSchema = z.strictObject({
  session_id: z.string(),
  turn_id: z.string(),
  step: z.int().min(0),
  created_at: isoTime,
  // A plain object in the document: the model input's shape is the provider-neutral one of activities/llm.
  input: z.unknown().meta({
    type: 'object',
    description:
      'The provider-neutral model input: `system` (the system prompt) and `messages` (history, then the last user message with its runtime context). Image bytes are shown as their size.',
  }),
});

export const approvalDecisionResultSchema = z.strictObject({
  call_id: z.string(),
  decision: z.enum(APPROVAL_DECISIONS),
  by: z.string().describe('Who decided, as recorded: `api:<principal>`.'),
});

export const approvalRequestedEventSchema = z
  .strictObject({
    session_id: z.string(),
    turn_id: z.string(),
    step: z.int().min(0),
    call_id: z.string(),
    tool_name: z.string(),
    subject: z.string(),
    expires_at: z.string(),
  })
  .describe(
    'SSE `event: approval_requested`: a tool call now waits for a decision (POST …/tool-calls/{call_id}/approval). A stream that opens gets one for every call still waiting.',
  );

export const scheduleRunSchema = z
  .strictObject({
    scheduled_at: zonedTime.describe("The tick's scheduled time (a manual run: when it was triggered)."),
    fired_at: zonedTime.nullable().describe('When the session accepted the prompt; null when not fired.'),
    turn_id: z.string().describe("The cron message's id, which is also its turn's id."),
    outcome: z
      .enum(['queued', 'running', 'processed', 'interrupted', 'error', 'missed', 'rejected'])
      .describe(
        '`queued`: waiting behind another turn; `missed`: later than the catch-up window, not fired; `rejected`: the session refused the prompt.',
      ),
    delivered: z.boolean().describe("Whether the turn's reply reached the session's channel."),
    detail: z.string().nullable(),
  })
  .describe('One tick of a schedule, with what became of its turn.');

export const scheduleSchema = z.strictObject({
  id: z.string().regex(SCHEDULE_ID_PATTERN),
  session_id: z.string(),
  prompt: z.string(),
  kind: z.enum(SCHEDULE_KINDS),
  spec: z
    .string()
    .describe(
      'The timing: the cron expression, the interval (`10s`), the UTC instant (`at`) or the delay (`in`).',
    ),
  timezone: z.string().describe('IANA time zone; every time of this schedule is shown in it.'),
  paused: z.boolean(),
  next_run_at: zonedTime
    .nullable()
    .describe("The next run at the zone's wall time; null when paused or when a one-time schedule has run."),
  created_at: zonedTime,
  runs: z.array(scheduleRunSchema).describe('The newest runs first (at most 5).'),
});

export const scheduleListSchema = z.strictObject({ schedules: z.array(scheduleSchema) });

export const scheduleDeletedSchema = z.strictObject({ deleted: z.literal(true), schedule_id: z.string() });

export const scheduleTriggeredSchema = z.strictObject({
  triggered: z.literal(true),
  schedule_id: z.string(),
});

export const jobSchema = z
  .strictObject({
    id: z.string().regex(/^job_[0-9a-f]{16}$/),
    session_id: z.string(),
    command: z.string(),
    state: z.enum(JOB_STATES),
    exit_code: z.int().describe('The shell’s exit code; null when killed, timed out or lost.').nullable(),
    summary: z.string().describe('One line saying how it ended; null while running.').nullable(),
    timeout_s: z.int().describe('Seconds after which it is killed and ends `timed_out`.'),
    started_at: isoTime,
    ended_at: isoTime.nullable(),
    output_tail: z
      .string()
      .describe('The end of stdout and stderr (`=== STDOUT ===` … `=== STDERR ===` …); null while running.')
      .nullable(),
  })
  .describe(
    'A background job: a `run_shell_command` the agent started with `background: true` (docs/tools.md "Background jobs").',
  );

export const jobListSchema = z.strictObject({
  jobs: z.array(jobSchema).describe('Newest first, at most 100.'),
});

export const killedJobSchema = z.strictObject({ job: jobSchema });

/** `POST /v1/sessions/{sessionId}/deliveries`. */
export const deliveriesResultSchema = z.strictObject({
  revision: z.int().min(0).describe("The session's history revision after the call."),
  messages: z
    .array(z.strictObject({ id: z.string(), status: z.enum(STATUSES) }))
    .describe(
      'Each acknowledged message (duplicates once, in request order) with its status after the call: `delivered`, ' +
        'or the status it kept (a user message, a hidden kind, a tool call that ended `interrupted`).',
    ),
});

/** The codec server's request and answer (Temporal Web UI protocol; api/routes/codec.ts). */
export const codecPayloadsSchema = z.object({
  payloads: z
    .array(
      z
        .object({
          metadata: z.record(z.string(), z.string()).optional(),
          data: z.string().optional(),
        })
        .describe(
          'A temporal.api.common.v1.Payload in protobuf JSON form: metadata values and data in base64.',
        ),
    )
    .max(1000),
});

/** `GET /livez`. */
export const livenessSchema = z.strictObject({ status: z.literal('ok') });

const bothAnswer = { status: z.literal('ok'), temporal: z.literal(true), postgres: z.literal(true) };

/** `GET /readyz`. */
export const readinessSchema = z.strictObject(bothAnswer).describe('Temporal and Postgres both answer.');

/** `GET /healthz`. */
export const healthSchema = z.strictObject({
  ...bothAnswer,
  components: z
    .record(z.string(), z.object({ ok: z.boolean() }))
    .optional()
    .describe(
      "Present where the process runs other components: each one's state by name, e.g. a chat channel's `{ ok, gateway, pingMs }` where its ingress runs (`npm start` with the channel configured).",
    ),
  mcp: z
    .record(z.string(), z.strictObject({ state: z.enum(MCP_STATES), last_error: z.string().nullable() }))
    .optional()
    .describe(
      "Present when workers report MCP servers: each server's state and last error by name (GET /v1/mcp has the details). A server that is down does not make the check fail.",
    ),
  sandbox: z
    .strictObject({
      mode: z.enum(['auto', 'required', 'off']),
      state: z.enum(['bwrap', 'off', 'unavailable']),
      reason: z.string().optional(),
      seccomp: z.boolean(),
      limits: z.string().describe('`cgroup v1`, `cgroup v2` or `rlimit`.'),
      network: z.enum(['off', 'on']),
    })
    .optional()
    .describe(
      "Present where a worker runs in the same process (`npm start`): its tools' sandbox (docs/sandbox.md). `state` `bwrap` (sandboxed), `off` (KESOKU_SANDBOX=off: tools run unsandboxed) or `unavailable` (no working sandbox: every tool call is refused); informational, it does not make the check fail.",
    ),
});

/** One tool call of a running turn's snapshot (api/live-turns.ts). */
export const toolProgressSchema = z.strictObject({
  call_id: z.string(),
  name: z.string(),
  status: z.enum(['running', 'ok', 'error']),
  summary: z.string().optional(),
  started_at: isoTime.describe('When the API saw the call start (absent when it did not see it).').optional(),
  finished_at: isoTime.describe('When the API saw the call finish.').optional(),
  output_tail: z
    .string()
    .optional()
    .describe(
      "While the call runs: the last lines of its command's output (at most 5 lines of 200 characters), refreshed about once a second while output comes. Absent before any output and once the call finished; control sequences are not removed.",
    ),
});

export const turnCommittedEventSchema = z
  .strictObject({
    session_id: z.string(),
    revision: z.int().min(0),
    previous_revision: z.int().min(0),
    messages: z.array(messageSchema),
  })
  .describe(
    "SSE `event: turn.committed`, `id: <revision>` (docs/message-flow.md §11): the messages committed with revision in (previous_revision, revision], phased order. Chains exactly per stream: each event's previous_revision is the last event's revision.",
  );

export const turnUpdatedEventSchema = z
  .strictObject({
    session_id: z.string(),
    turn_id: z.string(),
    step: z.int().min(0),
    status: z.enum(['started', 'thinking', 'running_tools', 'finished']),
    text: z.string(),
    text_offset: z.int().min(1).optional(),
    tools: z.array(toolProgressSchema),
    plan: z
      .strictObject({
        steps: z.array(planStepSchema),
        revision: z.int().min(1).describe('Counts the plan’s updates.'),
      })
      .optional()
      .describe(
        'Present once the turn called `update_plan`: the session’s active plan as that call left it (kept from step to step of the turn; `GET /v1/sessions/{sessionId}` has it between turns). Titles may be cut to 40 characters when the whole plan is too long for one event.',
      ),
    outcome: z.enum(['processed', 'interrupted', 'error']).optional(),
    notices: z.array(z.string()).optional(),
  })
  .describe(
    'SSE `event: turn.updated`: a snapshot of the running turn, at most ~10 per second per session (the latest is always sent). `text` is the text streamed so far in this step; a `finished` snapshot with `outcome` follows the commit that ends the turn. ' +
      "A stream opened while a turn runs gets its whole snapshot first (after the commits and the calls waiting for approval), so a client rebuilds the streamed text from its start; `text_offset` (present when the API did not see the start of the step, e.g. it started mid-step) is the character offset of the step's text where `text` begins. " +
      '`notices` (present once the turn has one): the texts of the turn\'s system notices committed so far, in order (docs/message-model.md §5.3 "system interaction log", live on REST) — the automatic compaction notice, and on the `finished` snapshot of a stopped turn why it stopped ("⏹️ Stopped.").',
  );

export const pairedUserSchema = z.strictObject({
  chatbot_id: z.string(),
  user_id: z.string().describe("The chat platform's id of the user."),
  user_name: z.string().nullable(),
  approved_by: z.enum(['cli', 'api']),
  approved_at: isoTime,
});

export const pendingPairingSchema = z.strictObject({
  code: z.string(),
  chatbot_id: z.string(),
  user_id: z.string(),
  user_name: z.string().nullable(),
  channel_id: z.string().nullable(),
  created_at: isoTime,
  expires_at: isoTime,
});

export const pairingListSchema = z.strictObject({
  pending: z.array(pendingPairingSchema),
  paired: z.array(pairedUserSchema),
});

export const pairingApprovalSchema = z.strictObject({
  approved: pairedUserSchema,
  already_approved: z.boolean(),
});

export const mcpServerSchema = z
  .strictObject({
    name: z.string().describe('The key in `mcpServers`.'),
    transport: z.enum(['stdio', 'http']),
    state: z.enum(MCP_STATES),
    tools: z.array(
      z.strictObject({
        name: z.string().describe('The name the model calls it by, `mcp__<server>__<tool>`.'),
        tool: z.string().describe("The tool's own name on its server."),
        description: z.string(),
      }),
    ),
    last_error: z.string().nullable(),
    last_error_at: isoTime.nullable(),
    workers: z.array(
      z.strictObject({
        worker_id: z.string(),
        state: z.enum(MCP_STATES),
        last_error: z.string().nullable(),
        updated_at: isoTime,
      }),
    ),
  })
  .describe(
    'An MCP server of the workers (docs/mcp.md), from their reports of the last 90 s: `state` is `ready` when a worker has it connected, else `connecting`, `failed` or `idle` (it connects when its tools are first needed); `tools` as a connected worker lists them; `last_error` the latest any worker recorded.',
  );

export const mcpServerListSchema = z.strictObject({ servers: z.array(mcpServerSchema) });

/** The response bodies' types, as the route handlers answer them and the terminal client reads them. */
export type StoredAttachment = z.output<typeof storedAttachmentSchema>;
export type MessageMetadataBody = z.output<typeof messageMetadataSchema>;
export type MessageBody = z.output<typeof messageSchema>;
export type MessageAccepted = z.output<typeof messageAcceptedSchema>;
export type TurnResult = z.output<typeof turnResultSchema>;
export type TurnWaitingForApproval = z.output<typeof turnWaitingForApprovalSchema>;
export type HistoryBody = z.output<typeof historySchema>;
export type SessionBody = z.output<typeof sessionSchema>;
export type SessionList = z.output<typeof sessionListSchema>;
export type SessionPlanBody = z.output<typeof sessionPlanSchema>;
export type PendingApprovalBody = z.output<typeof pendingApprovalSchema>;
export type ApprovalDecisionResult = z.output<typeof approvalDecisionResultSchema>;
export type ProblemBody = z.output<typeof problemSchema>;
export type DeliveriesResult = z.output<typeof deliveriesResultSchema>;
export type StopResult = z.output<typeof stopResultSchema>;
export type CompactResult = z.output<typeof compactResultSchema>;
export type ToolProgressBody = z.output<typeof toolProgressSchema>;
export type TurnCommittedEvent = z.output<typeof turnCommittedEventSchema>;
export type TurnUpdatedEvent = z.output<typeof turnUpdatedEventSchema>;
export type ApprovalRequestedEvent = z.output<typeof approvalRequestedEventSchema>;
export type JobBody = z.output<typeof jobSchema>;
export type ScheduleBody = z.output<typeof scheduleSchema>;
export type ScheduleRunBody = z.output<typeof scheduleRunSchema>;
export type McpServerBody = z.output<typeof mcpServerSchema>;
export type MeBody = z.output<typeof meSchema>;
export type MemoryEntryBody = z.output<typeof memoryEntrySchema>;
export type MemoryListBody = z.output<typeof memoryListSchema>;
export type ForgottenMemory = z.output<typeof forgottenMemorySchema>;
export type PersonLinkBody = z.output<typeof personLinkSchema>;
export type SessionPromptBody = z.output<typeof sessionPromptSchema>;
export type PairingListBody = z.output<typeof pairingListSchema>;
export type HealthBody = z.output<typeof healthSchema>;
export type Liveness = z.output<typeof livenessSchema>;
export type Readiness = z.output<typeof readinessSchema>;
export type PairingApproval = z.output<typeof pairingApprovalSchema>;
export type CodecPayloads = z.output<typeof codecPayloadsSchema>;
export type JobList = z.output<typeof jobListSchema>;
export type KilledJob = z.output<typeof killedJobSchema>;
export type McpServerList = z.output<typeof mcpServerListSchema>;
export type ScheduleList = z.output<typeof scheduleListSchema>;
export type ScheduleDeleted = z.output<typeof scheduleDeletedSchema>;
export type ScheduleTriggered = z.output<typeof scheduleTriggeredSchema>;

/**
 * The OpenAPI 3.1 document of REST API v1 (docs/architecture.md "REST API v1"), served at `GET /openapi.json`.
 *
 * The Message schema takes its enums from domain/message.ts (docs/message-model.md §2); request bodies, and the
 * response bodies defined in zod so far (session summary and list, stop and compact results), are rendered from
 * the zod schemas in api/schemas.ts; the event stream's payloads are described as `TurnCommittedEvent` /
 * `TurnUpdatedEvent`, so this document cannot drift from the code it describes. api/openapi.test.ts holds it to
 * the recorded v1 document.
 */
import { z } from 'zod';
import { MESSAGE_TYPES, ROLES, STATUSES } from '../domain/message.ts';
import { ID_PATTERN, LIMITS } from '../domain/inbound.ts';
import { SCHEDULE_ID_PATTERN, SCHEDULE_KINDS, SCHEDULE_LIMITS } from '../domain/schedules.ts';
import { JOB_STATES } from '../domain/jobs.ts';
import { PROBLEM_CONTENT_TYPE } from './problems.ts';
import {
  API_LIMITS,
  DELIVERIES_MAX_IDS,
  approvalDecisionSchema,
  compactResultSchema,
  createScheduleSchema,
  deliveriesSchema,
  patchScheduleSchema,
  patchSessionSchema,
  postMessageSchema,
  sessionListSchema,
  sessionSummarySchema,
  stopResultSchema,
} from './schemas.ts';
import { APPROVAL_DECISIONS, APPROVAL_POLICIES } from '../domain/tool-approval.ts';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
const json = (schema: Json): Json => ({ 'application/json': { schema } });

/** A zod schema as a JSON Schema 2020-12 object, without its `$schema` marker. */
function fromZod(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  return rest;
}

/** Response schemas that are components of their own: inside another response schema, each is a `$ref`. */
const RESPONSE_COMPONENTS = new Map<unknown, string>([[sessionSummarySchema, 'SessionSummary']]);

/**
 * A response body's zod schema (api/schemas.ts) as a JSON Schema 2020-12 object, without its `$schema` marker:
 * the output shape; a component of {@link RESPONSE_COMPONENTS} used inside it becomes a `$ref`, and integers
 * carry no safe-integer bounds (they say nothing a client needs).
 */
function responseSchema(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
    io: 'output',
    override: ({ zodSchema, jsonSchema }) => {
      const js = jsonSchema as Json;
      const component = (zodSchema as unknown) === schema ? undefined : RESPONSE_COMPONENTS.get(zodSchema);
      if (component) {
        for (const key of Object.keys(js)) delete js[key];
        js.$ref = `#/components/schemas/${component}`;
        return;
      }
      if (js.type === 'integer' && js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
      if (js.type === 'integer' && js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
    },
  }) as Json;
  return rest;
}

const isoTime: Json = { type: 'string', format: 'date-time' };
/** A time at a schedule's zone: ISO 8601 with the zone's offset, e.g. `2026-12-01T09:00:00+09:00`. */
const zonedTime: Json = {
  type: 'string',
  format: 'date-time',
  description: "ISO 8601 with the zone's offset.",
};
const MCP_STATES = ['idle', 'connecting', 'ready', 'failed'];

/** The fields every session answer has (api/schemas.ts sessionSummarySchema). */
const SESSION_SUMMARY_PROPS = responseSchema(sessionSummarySchema).properties as Record<string, Json>;

function schemas(waitMaxS: number): Record<string, Json> {
  return {
    Problem: {
      type: 'object',
      description:
        'RFC 9457 problem details. `type` is `urn:kesoku:problem:<kind>`; extension members may be present.',
      required: ['type', 'title', 'status', 'detail'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string' },
        request_id: {
          type: 'string',
          description: 'The request id (also in the `x-request-id` header and every log line).',
        },
        field: { type: 'string', description: 'On validation problems: the offending field (dotted path).' },
        message_id: {
          type: 'string',
          description: 'On 504: the accepted message that is still being processed.',
        },
        pending_approvals: {
          type: 'array',
          description:
            "On 504: the session's tool calls waiting for approval (as in GET session); the turn goes on once they are decided with POST …/tool-calls/{callId}/approval.",
          items: ref('PendingApproval'),
        },
        temporal: { type: 'boolean', description: 'On 503: whether Temporal answered.' },
        postgres: { type: 'boolean', description: 'On 503: whether Postgres answered.' },
      },
      additionalProperties: true,
    },
    Attachment: {
      type: 'object',
      description: 'An attachment recorded on a user message (docs/message-model.md §3 `attachments`).',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        content_type: { type: 'string' },
        size: { type: 'integer', minimum: 0, description: 'Bytes.' },
        path: { type: 'string' },
        url: { type: 'string' },
      },
      additionalProperties: true,
    },
    TurnMetrics: {
      type: 'object',
      description: 'docs/message-model.md §3 `turn_metrics` on a final reply. `turn_time` is in seconds.',
      required: ['session_turns', 'context_tokens', 'turn_tool_calls', 'turn_tokens', 'turn_time'],
      properties: {
        session_turns: { type: 'integer', minimum: 0 },
        context_tokens: { type: 'integer', minimum: 0 },
        turn_tool_calls: { type: 'integer', minimum: 0 },
        turn_tokens: { type: 'integer', minimum: 0 },
        turn_time: { type: 'number', minimum: 0 },
      },
      additionalProperties: true,
    },
    MessageMetadata: {
      type: 'object',
      description:
        'docs/message-model.md §3 metadata keys, plus Kesoku additions. Keys absent when not applicable.',
      properties: {
        discord_message_id: { type: 'string' },
        attachments: { type: 'array', items: ref('Attachment') },
        is_cronjob: { type: 'boolean' },
        is_compaction: { type: 'boolean' },
        turn_metrics: ref('TurnMetrics'),
        tool_name: { type: 'string' },
        tool_arguments: { type: 'object', additionalProperties: true },
        tool_result: { type: 'string', description: 'Short summary of a tool run.' },
        tool_call_id: { type: 'string' },
        synthetic: { type: 'boolean' },
        reply_to: { type: 'string' },
        channel_context: {},
        sender_id: { type: 'string', description: "On a user question: the sender's platform id." },
        compacted_through_seq: { type: 'integer' },
        failure_kind: { type: 'string' },
        full_output_path: { type: 'string' },
      },
      additionalProperties: true,
    },
    Message: {
      type: 'object',
      description:
        'A stored Kesoku message (docs/message-model.md §2-§3, snake_case field names) plus ordering and sync fields. Timestamps are ISO 8601.',
      required: [
        'id',
        'session_id',
        'parent_id',
        'chatbot_id',
        'channel_id',
        'sender',
        'role',
        'type',
        'status',
        'content',
        'metadata',
        'turn_id',
        'step',
        'seq',
        'revision',
        'received_at',
        'created_at',
        'updated_at',
      ],
      properties: {
        id: { type: 'string' },
        session_id: { type: 'string' },
        parent_id: { type: ['string', 'null'] },
        chatbot_id: {
          type: 'string',
          description:
            'The session\'s chatbot: "api" or "cli" for sessions created through this API (`channel` of the first message).',
        },
        channel_id: { type: 'string' },
        sender: { type: 'string' },
        role: { type: 'string', enum: [...ROLES] },
        type: { type: 'string', enum: [...MESSAGE_TYPES] },
        status: { type: 'string', enum: [...STATUSES] },
        content: { type: 'string' },
        metadata: nullable(ref('MessageMetadata')),
        turn_id: { type: ['string', 'null'], description: "The trigger message's id; a trigger's own id." },
        step: { type: ['integer', 'null'], minimum: 0, description: 'Model step within the turn, from 0.' },
        seq: { type: 'integer', description: 'Global insertion sequence.' },
        revision: {
          type: 'integer',
          minimum: 0,
          description: "The session's history revision at which this message was last committed.",
        },
        received_at: { oneOf: [isoTime, { type: 'null' }] },
        created_at: isoTime,
        updated_at: isoTime,
      },
      additionalProperties: false,
    },
    PostMessageRequest: fromZod(postMessageSchema(waitMaxS)),
    PatchSessionRequest: { ...fromZod(patchSessionSchema), minProperties: 1 },
    MessageAccepted: {
      type: 'object',
      required: ['message', 'queue_position'],
      properties: {
        message: ref('Message'),
        queue_position: {
          type: 'integer',
          minimum: 0,
          description: 'Turns ahead of this message (the running one included).',
        },
        duplicate: {
          type: 'boolean',
          description: 'True when this id had been accepted before; nothing new was queued.',
        },
      },
      additionalProperties: false,
    },
    TurnResult: {
      type: 'object',
      description:
        'The message in its final status (processed | interrupted | error; `interrupted`: the turn was stopped or superseded) and its answer: the final reply, the crash notice, or the partial reply an interrupted turn kept; null when the turn ended without one (a stopped turn usually). ' +
        '`notices`: the texts of the turn\'s system notices, in order — why a stopped turn ended ("⏹️ Stopped."), the automatic compaction notice. ' +
        'They are the "system interaction log" of docs/message-model.md §5.3, which REST clients get live with the turn (here and in the `turn.updated` snapshot), not as a reply; ' +
        'the Notification messages themselves are in the session history.',
      required: ['message', 'reply', 'notices'],
      properties: {
        message: ref('Message'),
        reply: nullable(ref('Message')),
        notices: { type: 'array', items: { type: 'string' } },
        duplicate: {
          type: 'boolean',
          description: 'True when this id had been accepted before (a retry); nothing new was queued.',
        },
      },
      additionalProperties: false,
    },
    TurnWaitingForApproval: {
      type: 'object',
      description:
        'With `wait`: the turn has not ended but waits for a person to decide a tool call (tool approval policy `writes` or `all`), so the wait ends at once instead of running out. ' +
        'Decide each call with POST …/tool-calls/{call_id}/approval (add `wait` there to get the rest of the turn); `detail` names the first call and that route.',
      required: ['state', 'message', 'pending_approvals', 'detail'],
      properties: {
        state: { type: 'string', const: 'waiting_for_approval' },
        message: ref('Message'),
        pending_approvals: {
          type: 'array',
          minItems: 1,
          items: ref('PendingApproval'),
          description: 'The turn’s tool calls waiting for a decision, oldest first.',
        },
        detail: { type: 'string' },
      },
      additionalProperties: false,
    },
    History: {
      type: 'object',
      required: ['revision', 'messages'],
      properties: {
        revision: {
          type: 'integer',
          minimum: 0,
          description: 'The revision the client holds after applying `messages`.',
        },
        messages: {
          type: 'array',
          items: ref('Message'),
          description: 'Phased order (docs/message-model.md §5.1).',
        },
        has_more: {
          type: 'boolean',
          description:
            'With after_revision: true when `limit` cut the delta (read again with after_revision=revision). Without it: true when older messages exist (read them with before_seq).',
        },
      },
      additionalProperties: false,
    },
    SessionSummary: responseSchema(sessionSummarySchema),
    Session: {
      type: 'object',
      required: [
        ...Object.keys(SESSION_SUMMARY_PROPS),
        'status',
        'queue_length',
        'timezone',
        'approval',
        'approval_in_force',
        'approve_patterns',
        'pending_approvals',
      ],
      properties: {
        ...SESSION_SUMMARY_PROPS,
        status: { type: 'string', enum: ['idle', 'processing'] },
        queue_length: { type: 'integer', minimum: 0, description: 'Messages waiting (pending_agent).' },
        timezone: {
          type: ['string', 'null'],
          description:
            'The session’s own IANA time zone (`PATCH {"timezone"}`), the zone of its new schedules that name none; null: none (KESOKU_TIMEZONE, else the server’s zone).',
        },
        approval: {
          type: ['string', 'null'],
          enum: [...APPROVAL_POLICIES, null],
          description:
            'The session’s own tool-approval policy; null: KESOKU_TOOL_APPROVAL or the channel’s default.',
        },
        approval_in_force: {
          type: 'string',
          enum: [...APPROVAL_POLICIES],
          description:
            'The tool-approval policy the session’s next tool step applies: `approval`, else KESOKU_TOOL_APPROVAL, else the channel’s default (`writes` for `api` and the chat channels; for the terminal client’s `cli` `off` in the token-less local operator’s sessions, `writes` in any other principal’s). `off`: nothing asks; `writes`: shell commands and file writes ask; `all`: every tool call asks.',
        },
        approve_patterns: {
          type: 'object',
          required: ['session', 'configured'],
          description:
            'Patterns that approve, without asking, a tool call the policy in force would ask about (globs on the call’s subject, as in `pending_approvals[].subject`; docs/message-model.md §3.3).',
          properties: {
            session: {
              type: 'array',
              items: { type: 'string' },
              description: 'Added to this session by `always` decisions, oldest first.',
            },
            configured: {
              type: 'array',
              items: { type: 'string' },
              description: 'KESOKU_TOOL_AUTO_APPROVE: approve in every session.',
            },
          },
          additionalProperties: false,
        },
        pending_approvals: {
          type: 'array',
          items: ref('PendingApproval'),
          description: 'Tool calls waiting for a person’s decision, oldest first.',
        },
        plan: {
          ...nullable(ref('SessionPlan')),
          description:
            'The session’s active plan (the model’s `update_plan`, docs/memory.md); null: none. Only in `GET /v1/sessions/{sessionId}`.',
        },
      },
      additionalProperties: false,
    },
    SessionPlan: {
      type: 'object',
      required: ['steps', 'revision', 'updated_at'],
      properties: {
        steps: { type: 'array', items: ref('PlanStep') },
        revision: { type: 'integer', minimum: 1, description: 'Counts the plan’s updates.' },
        updated_at: isoTime,
      },
      additionalProperties: false,
    },
    PlanStep: {
      type: 'object',
      required: ['title', 'status'],
      properties: {
        title: { type: 'string' },
        status: { type: 'string', enum: ['pending', 'in_progress', 'done'] },
      },
      additionalProperties: false,
    },
    MemoryEntry: {
      type: 'object',
      required: [
        'id',
        'text',
        'author',
        'session_id',
        'source_message_id',
        'revision',
        'created_at',
        'updated_at',
      ],
      properties: {
        id: { type: 'string' },
        text: { type: 'string', maxLength: 2000 },
        author: { type: 'string', description: 'Who was speaking when it was remembered.' },
        session_id: { type: ['string', 'null'], description: 'The session it was remembered in.' },
        source_message_id: {
          type: ['string', 'null'],
          description: 'The user message whose turn remembered it.',
        },
        revision: { type: 'integer', minimum: 1, description: 'Counts the entry’s writes.' },
        created_at: isoTime,
        updated_at: isoTime,
      },
      additionalProperties: false,
    },
    MemoryList: {
      type: 'object',
      required: ['entries'],
      properties: { entries: { type: 'array', items: ref('MemoryEntry') } },
      additionalProperties: false,
    },
    Me: {
      type: 'object',
      required: ['principal', 'admin', 'person', 'timezone', 'links'],
      properties: {
        principal: { type: 'string' },
        admin: { type: 'boolean' },
        timezone: {
          type: ['string', 'null'],
          description:
            'The caller’s IANA time zone: the zone of a new schedule in one of its sessions that names none when the session has none.',
        },
        person: {
          type: 'string',
          description: 'The key the caller’s memory is kept under (`principal:<name>`).',
        },
        links: { type: 'array', items: ref('PersonLink'), description: 'Chat users linked to the caller.' },
      },
      additionalProperties: false,
    },
    PersonLink: {
      type: 'object',
      required: ['chatbot_id', 'user_id', 'linked_at'],
      properties: {
        chatbot_id: {
          type: 'string',
          description: 'The chat channel the user is on (a chatbot id of the channel registry).',
        },
        user_id: { type: 'string', description: 'The platform’s user id.' },
        linked_at: isoTime,
      },
      additionalProperties: false,
    },
    MePatch: {
      type: 'object',
      required: ['timezone'],
      properties: {
        timezone: {
          type: ['string', 'null'],
          description: 'An IANA zone (stored canonical: `asia/tokyo` → `Asia/Tokyo`), or null to clear it.',
        },
      },
      additionalProperties: false,
    },
    LinkRequest: {
      type: 'object',
      required: ['code'],
      properties: { code: { type: 'string', description: 'The code `/link` answered in the chat.' } },
      additionalProperties: false,
    },
    SessionPrompt: {
      type: 'object',
      required: ['session_id', 'turn_id', 'step', 'created_at', 'input'],
      properties: {
        session_id: { type: 'string' },
        turn_id: { type: 'string' },
        step: { type: 'integer', minimum: 0 },
        created_at: isoTime,
        input: {
          type: 'object',
          description:
            'The provider-neutral model input: `system` (the system prompt) and `messages` (history, then the last user message with its runtime context). Image bytes are shown as their size.',
        },
      },
      additionalProperties: false,
    },
    PendingApproval: {
      type: 'object',
      required: ['call_id', 'turn_id', 'tool_name', 'subject', 'requested_at', 'expires_at'],
      properties: {
        call_id: {
          type: 'string',
          description: 'The tool_call message’s id (the `callId` of the approval route).',
        },
        turn_id: { type: ['string', 'null'] },
        tool_name: { type: 'string' },
        subject: { type: 'string', description: 'What is asked about: the command, or `write_file <path>`.' },
        requested_at: { type: 'string' },
        expires_at: {
          type: ['string', 'null'],
          description: 'When the wait ends as timed out (counts as deny).',
        },
      },
      additionalProperties: false,
    },
    ApprovalDecisionRequest: fromZod(approvalDecisionSchema(waitMaxS)),
    ApprovalDecisionResult: {
      type: 'object',
      required: ['call_id', 'decision', 'by'],
      properties: {
        call_id: { type: 'string' },
        decision: { type: 'string', enum: [...APPROVAL_DECISIONS] },
        by: { type: 'string', description: 'Who decided, as recorded: `api:<principal>`.' },
      },
      additionalProperties: false,
    },
    ApprovalRequestedEvent: {
      type: 'object',
      description:
        'SSE `event: approval_requested`: a tool call now waits for a decision (POST …/tool-calls/{call_id}/approval). A stream that opens gets one for every call still waiting.',
      required: ['session_id', 'turn_id', 'step', 'call_id', 'tool_name', 'subject', 'expires_at'],
      properties: {
        session_id: { type: 'string' },
        turn_id: { type: 'string' },
        step: { type: 'integer', minimum: 0 },
        call_id: { type: 'string' },
        tool_name: { type: 'string' },
        subject: { type: 'string' },
        expires_at: { type: 'string' },
      },
      additionalProperties: false,
    },
    SessionList: responseSchema(sessionListSchema),
    ScheduleCreate: fromZod(createScheduleSchema),
    SchedulePatch: fromZod(patchScheduleSchema),
    ScheduleRun: {
      type: 'object',
      description: 'One tick of a schedule, with what became of its turn.',
      required: ['scheduled_at', 'fired_at', 'turn_id', 'outcome', 'delivered', 'detail'],
      properties: {
        scheduled_at: {
          ...zonedTime,
          description: "The tick's scheduled time (a manual run: when it was triggered).",
        },
        fired_at: {
          ...nullable(zonedTime),
          description: 'When the session accepted the prompt; null when not fired.',
        },
        turn_id: { type: 'string', description: "The cron message's id, which is also its turn's id." },
        outcome: {
          type: 'string',
          enum: ['queued', 'running', 'processed', 'interrupted', 'error', 'missed', 'rejected'],
          description:
            '`queued`: waiting behind another turn; `missed`: later than the catch-up window, not fired; `rejected`: the session refused the prompt.',
        },
        delivered: {
          type: 'boolean',
          description: "Whether the turn's reply reached the session's channel.",
        },
        detail: { type: ['string', 'null'] },
      },
      additionalProperties: false,
    },
    Schedule: {
      type: 'object',
      required: [
        'id',
        'session_id',
        'prompt',
        'kind',
        'spec',
        'timezone',
        'paused',
        'next_run_at',
        'created_at',
        'runs',
      ],
      properties: {
        id: { type: 'string', pattern: SCHEDULE_ID_PATTERN.source },
        session_id: { type: 'string' },
        prompt: { type: 'string' },
        kind: { type: 'string', enum: [...SCHEDULE_KINDS] },
        spec: {
          type: 'string',
          description:
            'The timing: the cron expression, the interval (`10s`), the UTC instant (`at`) or the delay (`in`).',
        },
        timezone: {
          type: 'string',
          description: 'IANA time zone; every time of this schedule is shown in it.',
        },
        paused: { type: 'boolean' },
        next_run_at: {
          ...nullable(zonedTime),
          description:
            "The next run at the zone's wall time; null when paused or when a one-time schedule has run.",
        },
        created_at: zonedTime,
        runs: { type: 'array', items: ref('ScheduleRun'), description: 'The newest runs first (at most 5).' },
      },
      additionalProperties: false,
    },
    ScheduleList: {
      type: 'object',
      required: ['schedules'],
      properties: { schedules: { type: 'array', items: ref('Schedule') } },
      additionalProperties: false,
    },
    ScheduleDeleted: {
      type: 'object',
      required: ['deleted', 'schedule_id'],
      properties: { deleted: { const: true }, schedule_id: { type: 'string' } },
      additionalProperties: false,
    },
    ScheduleTriggered: {
      type: 'object',
      required: ['triggered', 'schedule_id'],
      properties: { triggered: { const: true }, schedule_id: { type: 'string' } },
      additionalProperties: false,
    },
    Job: {
      type: 'object',
      description:
        'A background job: a `run_shell_command` the agent started with `background: true` (docs/tools.md "Background jobs").',
      required: [
        'id',
        'session_id',
        'command',
        'state',
        'exit_code',
        'summary',
        'timeout_s',
        'started_at',
        'ended_at',
        'output_tail',
      ],
      properties: {
        id: { type: 'string', pattern: '^job_[0-9a-f]{16}$' },
        session_id: { type: 'string' },
        command: { type: 'string' },
        state: { type: 'string', enum: [...JOB_STATES] },
        exit_code: nullable({
          type: 'integer',
          description: 'The shell’s exit code; null when killed, timed out or lost.',
        }),
        summary: nullable({
          type: 'string',
          description: 'One line saying how it ended; null while running.',
        }),
        timeout_s: { type: 'integer', description: 'Seconds after which it is killed and ends `timed_out`.' },
        started_at: isoTime,
        ended_at: nullable(isoTime),
        output_tail: nullable({
          type: 'string',
          description:
            'The end of stdout and stderr (`=== STDOUT ===` … `=== STDERR ===` …); null while running.',
        }),
      },
      additionalProperties: false,
    },
    JobList: {
      type: 'object',
      required: ['jobs'],
      properties: { jobs: { type: 'array', items: ref('Job'), description: 'Newest first, at most 100.' } },
      additionalProperties: false,
    },
    KilledJob: {
      type: 'object',
      required: ['job'],
      properties: { job: ref('Job') },
      additionalProperties: false,
    },
    StopResult: responseSchema(stopResultSchema),
    DeliveriesRequest: fromZod(deliveriesSchema),
    DeliveriesResult: {
      type: 'object',
      required: ['revision', 'messages'],
      properties: {
        revision: {
          type: 'integer',
          minimum: 0,
          description: "The session's history revision after the call.",
        },
        messages: {
          type: 'array',
          description:
            'Each acknowledged message (duplicates once, in request order) with its status after the call: `delivered`, ' +
            'or the status it kept (a user message, a hidden kind, a tool call that ended `interrupted`).',
          items: {
            type: 'object',
            required: ['id', 'status'],
            properties: { id: { type: 'string' }, status: { type: 'string', enum: [...STATUSES] } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    CompactResult: responseSchema(compactResultSchema),
    CodecPayloads: {
      type: 'object',
      required: ['payloads'],
      properties: {
        payloads: {
          type: 'array',
          maxItems: 1000,
          items: {
            type: 'object',
            description:
              'A temporal.api.common.v1.Payload in protobuf JSON form: metadata values and data in base64.',
            properties: {
              metadata: { type: 'object', additionalProperties: { type: 'string' } },
              data: { type: 'string' },
            },
          },
        },
      },
    },
    Readiness: {
      type: 'object',
      description: 'Temporal and Postgres both answer.',
      required: ['status', 'temporal', 'postgres'],
      properties: { status: { const: 'ok' }, temporal: { const: true }, postgres: { const: true } },
      additionalProperties: false,
    },
    Health: {
      type: 'object',
      required: ['status', 'temporal', 'postgres'],
      properties: {
        status: { const: 'ok' },
        temporal: { const: true },
        postgres: { const: true },
        components: {
          type: 'object',
          description:
            "Present where the process runs other components: each one's state by name, e.g. a chat channel's `{ ok, gateway, pingMs }` where its ingress runs (`npm start` with the channel configured).",
          additionalProperties: {
            type: 'object',
            required: ['ok'],
            properties: { ok: { type: 'boolean' } },
          },
        },
        mcp: {
          type: 'object',
          description:
            "Present when workers report MCP servers: each server's state and last error by name (GET /v1/mcp has the details). A server that is down does not make the check fail.",
          additionalProperties: {
            type: 'object',
            required: ['state', 'last_error'],
            properties: {
              state: { type: 'string', enum: MCP_STATES },
              last_error: { type: ['string', 'null'] },
            },
            additionalProperties: false,
          },
        },
        sandbox: {
          type: 'object',
          description:
            "Present where a worker runs in the same process (`npm start`): its tools' sandbox (docs/sandbox.md). `state` `bwrap` (sandboxed), `off` (KESOKU_SANDBOX=off: tools run unsandboxed) or `unavailable` (no working sandbox: every tool call is refused); informational, it does not make the check fail.",
          required: ['mode', 'state', 'seccomp', 'limits', 'network'],
          properties: {
            mode: { enum: ['auto', 'required', 'off'] },
            state: { enum: ['bwrap', 'off', 'unavailable'] },
            reason: { type: 'string' },
            seccomp: { type: 'boolean' },
            limits: { type: 'string', description: '`cgroup v1`, `cgroup v2` or `rlimit`.' },
            network: { enum: ['off', 'on'] },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    ToolProgress: {
      type: 'object',
      required: ['call_id', 'name', 'status'],
      properties: {
        call_id: { type: 'string' },
        name: { type: 'string' },
        status: { type: 'string', enum: ['running', 'ok', 'error'] },
        summary: { type: 'string' },
        started_at: {
          ...isoTime,
          description: 'When the API saw the call start (absent when it did not see it).',
        },
        finished_at: { ...isoTime, description: 'When the API saw the call finish.' },
        output_tail: {
          type: 'string',
          description:
            "While the call runs: the last lines of its command's output (at most 5 lines of 200 characters), refreshed about once a second while output comes. Absent before any output and once the call finished; control sequences are not removed.",
        },
      },
      additionalProperties: false,
    },
    TurnCommittedEvent: {
      type: 'object',
      description:
        "SSE `event: turn.committed`, `id: <revision>` (docs/message-flow.md §11): the messages committed with revision in (previous_revision, revision], phased order. Chains exactly per stream: each event's previous_revision is the last event's revision.",
      required: ['session_id', 'revision', 'previous_revision', 'messages'],
      properties: {
        session_id: { type: 'string' },
        revision: { type: 'integer', minimum: 0 },
        previous_revision: { type: 'integer', minimum: 0 },
        messages: { type: 'array', items: ref('Message') },
      },
      additionalProperties: false,
    },
    PairedUser: {
      type: 'object',
      required: ['chatbot_id', 'user_id', 'user_name', 'approved_by', 'approved_at'],
      properties: {
        chatbot_id: { type: 'string' },
        user_id: { type: 'string', description: "The chat platform's id of the user." },
        user_name: { type: ['string', 'null'] },
        approved_by: { type: 'string', enum: ['cli', 'api'] },
        approved_at: isoTime,
      },
      additionalProperties: false,
    },
    PendingPairing: {
      type: 'object',
      required: ['code', 'chatbot_id', 'user_id', 'user_name', 'channel_id', 'created_at', 'expires_at'],
      properties: {
        code: { type: 'string' },
        chatbot_id: { type: 'string' },
        user_id: { type: 'string' },
        user_name: { type: ['string', 'null'] },
        channel_id: { type: ['string', 'null'] },
        created_at: isoTime,
        expires_at: isoTime,
      },
      additionalProperties: false,
    },
    PairingList: {
      type: 'object',
      required: ['pending', 'paired'],
      properties: {
        pending: { type: 'array', items: ref('PendingPairing') },
        paired: { type: 'array', items: ref('PairedUser') },
      },
      additionalProperties: false,
    },
    McpServer: {
      type: 'object',
      description:
        'An MCP server of the workers (docs/mcp.md), from their reports of the last 90 s: `state` is `ready` when a worker has it connected, else `connecting`, `failed` or `idle` (it connects when its tools are first needed); `tools` as a connected worker lists them; `last_error` the latest any worker recorded.',
      required: ['name', 'transport', 'state', 'tools', 'last_error', 'last_error_at', 'workers'],
      properties: {
        name: { type: 'string', description: 'The key in `mcpServers`.' },
        transport: { type: 'string', enum: ['stdio', 'http'] },
        state: { type: 'string', enum: MCP_STATES },
        tools: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'tool', 'description'],
            properties: {
              name: {
                type: 'string',
                description: 'The name the model calls it by, `mcp__<server>__<tool>`.',
              },
              tool: { type: 'string', description: "The tool's own name on its server." },
              description: { type: 'string' },
            },
            additionalProperties: false,
          },
        },
        last_error: { type: ['string', 'null'] },
        last_error_at: nullable(isoTime),
        workers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['worker_id', 'state', 'last_error', 'updated_at'],
            properties: {
              worker_id: { type: 'string' },
              state: { type: 'string', enum: MCP_STATES },
              last_error: { type: ['string', 'null'] },
              updated_at: isoTime,
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    McpServerList: {
      type: 'object',
      required: ['servers'],
      properties: { servers: { type: 'array', items: ref('McpServer') } },
      additionalProperties: false,
    },
    PairingApproval: {
      type: 'object',
      required: ['approved', 'already_approved'],
      properties: { approved: ref('PairedUser'), already_approved: { type: 'boolean' } },
      additionalProperties: false,
    },
    TurnUpdatedEvent: {
      type: 'object',
      description:
        'SSE `event: turn.updated`: a snapshot of the running turn, at most ~10 per second per session (the latest is always sent). `text` is the text streamed so far in this step; a `finished` snapshot with `outcome` follows the commit that ends the turn. ' +
        "A stream opened while a turn runs gets its whole snapshot first (after the commits and the calls waiting for approval), so a client rebuilds the streamed text from its start; `text_offset` (present when the API did not see the start of the step, e.g. it started mid-step) is the character offset of the step's text where `text` begins. " +
        '`notices` (present once the turn has one): the texts of the turn\'s system notices committed so far, in order (docs/message-model.md §5.3 "system interaction log", live on REST) — the automatic compaction notice, and on the `finished` snapshot of a stopped turn why it stopped ("⏹️ Stopped.").',
      required: ['session_id', 'turn_id', 'step', 'status', 'text', 'tools'],
      properties: {
        session_id: { type: 'string' },
        turn_id: { type: 'string' },
        step: { type: 'integer', minimum: 0 },
        status: { type: 'string', enum: ['started', 'thinking', 'running_tools', 'finished'] },
        text: { type: 'string' },
        text_offset: { type: 'integer', minimum: 1 },
        tools: { type: 'array', items: ref('ToolProgress') },
        plan: {
          type: 'object',
          description:
            'Present once the turn called `update_plan`: the session’s active plan as that call left it (kept from step to step of the turn; `GET /v1/sessions/{sessionId}` has it between turns). Titles may be cut to 40 characters when the whole plan is too long for one event.',
          required: ['steps', 'revision'],
          properties: {
            steps: { type: 'array', items: ref('PlanStep') },
            revision: { type: 'integer', minimum: 1, description: 'Counts the plan’s updates.' },
          },
          additionalProperties: false,
        },
        outcome: { type: 'string', enum: ['processed', 'interrupted', 'error'] },
        notices: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    },
  };
}

/**
 * The Temporal Web UI codec-server endpoints (api/routes/codec.ts), served when the process has a codec token.
 * The token goes in `Authorization: Bearer` or in the path (the dev server's UI cannot send a header).
 */
function codecPaths(): Record<string, Json> {
  const op = (direction: 'encode' | 'decode', inPath: boolean): Json => ({
    post: {
      operationId: `codec${direction === 'encode' ? 'Encode' : 'Decode'}${inPath ? 'WithPathToken' : ''}`,
      summary: `${direction === 'encode' ? 'Encrypt' : 'Decrypt'} Temporal payloads (Temporal Web UI codec-server protocol)`,
      security: inPath ? [] : [{ codec: [] }],
      ...(inPath
        ? {
            parameters: [
              {
                name: 'codecToken',
                in: 'path',
                required: true,
                description: 'The codec token.',
                schema: { type: 'string' },
              },
            ],
          }
        : {}),
      requestBody: { required: true, content: json(ref('CodecPayloads')) },
      responses: {
        '200': {
          description: `The ${direction}d payloads, in the same order.`,
          content: json(ref('CodecPayloads')),
        },
        '400': r('BadRequest'),
        '401': r('Unauthorized'),
        '403': r('Forbidden'),
        '413': r('PayloadTooLarge'),
        '415': r('UnsupportedMediaType'),
        '500': r('InternalError'),
      },
    },
  });
  return {
    '/codec/encode': op('encode', false),
    '/codec/decode': op('decode', false),
    '/codec/{codecToken}/encode': op('encode', true),
    '/codec/{codecToken}/decode': op('decode', true),
  };
}

const problem = (description: string): Json => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('Problem') } },
});

const RESPONSES: Record<string, Json> = {
  BadRequest: problem('Malformed JSON, an invalid session id, or a validation error (`field` names it).'),
  Unauthorized: problem('Missing or wrong bearer token (with `WWW-Authenticate: Bearer`).'),
  Forbidden: problem(
    'Refused before any route ran: without API tokens, a Host header that is not this loopback server ' +
      '(`127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>`), or a cross-origin request that changes state; ' +
      'on the codec endpoint, an origin not in its CORS list.',
  ),
  NotFound: problem(
    "Unknown session, or one the calling principal may not reach (another principal's, or a chat channel's for " +
      'non-admins): both answer the same. A session exists once its first message was accepted (or a PATCH created it).',
  ),
  Conflict: problem(
    'The message id is already used by another session (message ids are unique across the server; the answer does not say whose), or with other content or attachments, ' +
      "or `channel` is not the existing session's chatbot.",
  ),
  PayloadTooLarge: problem(`The body is over ${API_LIMITS.bodyBytes} bytes.`),
  UnsupportedMediaType: problem('The body is not application/json.'),
  TooManyRequests: problem(
    `The session already holds ${LIMITS.queueCapacity} waiting messages (with \`Retry-After\`).`,
  ),
  InternalError: problem('An unexpected error; the log has details under the request id.'),
  Unavailable: problem('Temporal or Postgres is not answering; nothing was accepted.'),
  GatewayTimeout: problem(
    '`wait` ran out; the message stays accepted (`message_id`) and will still be answered. When the session waits for a tool-call approval (of an earlier turn: a wait for its own turn ends with 202), `detail` names the call and `pending_approvals` lists the waiting calls.',
  ),
};

const r = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const SESSION_PARAM: Json = { $ref: '#/components/parameters/SessionId' };
const SCHEDULE_PARAM: Json = { $ref: '#/components/parameters/ScheduleId' };

/** Error responses every `/v1` operation may give. */
/** Every route may answer these; 413 and 415 too, since any request may carry a (JSON) body. */
const COMMON_ERRORS = {
  '400': r('BadRequest'),
  '401': r('Unauthorized'),
  '403': r('Forbidden'),
  '413': r('PayloadTooLarge'),
  '415': r('UnsupportedMediaType'),
  '500': r('InternalError'),
  '503': r('Unavailable'),
};
const withSession = { ...COMMON_ERRORS, '404': r('NotFound') };

function intParam(name: string, description: string, minimum: number, maximum: number, dflt?: number): Json {
  return {
    name,
    in: 'query',
    required: false,
    description,
    schema: { type: 'integer', minimum, maximum, ...(dflt !== undefined ? { default: dflt } : {}) },
  };
}

/**
 * Builds the document. `waitMaxS` is the largest `wait` this server accepts (seconds).
 * @returns a plain JSON object (OpenAPI 3.1, JSON Schema 2020-12 dialect)
 */
export function buildOpenApiDocument(opts: { waitMaxS?: number } = {}): Json {
  const waitMaxS = opts.waitMaxS ?? API_LIMITS.waitMaxS;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kesoku REST API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Talk to the Kesoku agent over HTTP. Errors are application/problem+json. Every response carries `x-request-id`. ' +
        'History sync: GET messages returns a revision; the event stream continues from it (docs/message-flow.md §11).',
    },
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        description: 'npm start on this machine (KESOKU_API_PORT)',
        variables: { port: { default: '3000', description: 'KESOKU_API_PORT' } },
      },
    ],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    paths: {
      '/v1/sessions': {
        get: {
          operationId: 'listSessions',
          summary: 'List sessions, most recently updated first',
          parameters: [
            intParam('limit', 'Page size.', 1, API_LIMITS.sessionsPageMax, API_LIMITS.sessionsPageDefault),
            {
              name: 'cursor',
              in: 'query',
              required: false,
              description: '`next_cursor` of the previous page.',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': { description: 'A page of sessions.', content: json(ref('SessionList')) },
            ...COMMON_ERRORS,
          },
        },
      },
      '/v1/sessions/{sessionId}': {
        parameters: [SESSION_PARAM],
        get: {
          operationId: 'getSession',
          summary: 'A session with its live status',
          responses: {
            '200': { description: 'The session.', content: json(ref('Session')) },
            ...withSession,
          },
        },
        patch: {
          operationId: 'updateSession',
          summary:
            'Rename a session, change its mode (through the session workflow), its locale (en | zh), its tool-approval policy or its time zone',
          description:
            'Before the session’s first message, a PATCH creates the session with the settings given (on `channel`, default `api`), ' +
            'so they apply to its first turn; the id is claimed for the caller, as its first message would claim it. ' +
            "Another principal's or a chat channel's id is a 404.",
          requestBody: { required: true, content: json(ref('PatchSessionRequest')) },
          responses: {
            '200': { description: 'The updated session.', content: json(ref('Session')) },
            ...withSession,
            '409': r('Conflict'),
            '413': r('PayloadTooLarge'),
            '415': r('UnsupportedMediaType'),
          },
        },
      },
      '/v1/sessions/{sessionId}/messages': {
        parameters: [SESSION_PARAM],
        post: {
          operationId: 'postMessage',
          summary: 'Send a message (the first message creates the session)',
          description:
            'Accepted messages are stored as `pending_agent` before the answer, so a GET right after shows them. A repeated `id` with the same ' +
            'content and attachments answers 202 with the stored message (`duplicate: true`) and queues nothing; with other content or attachments it answers 409. With `wait`, the answer comes when the turn ended (200), as soon as it waits for a tool-call approval (202 `TurnWaitingForApproval`) or when the time ran out (504).',
          requestBody: { required: true, content: json(ref('PostMessageRequest')) },
          responses: {
            '200': { description: 'With `wait`: the turn ended.', content: json(ref('TurnResult')) },
            '202': {
              description:
                'Without `wait`: accepted and queued (`MessageAccepted`). With `wait`: the turn waits for a tool-call approval (`TurnWaitingForApproval`).',
              content: json({ oneOf: [ref('MessageAccepted'), ref('TurnWaitingForApproval')] }),
            },
            ...COMMON_ERRORS,
            '404': r('NotFound'),
            '409': r('Conflict'),
            '413': r('PayloadTooLarge'),
            '415': r('UnsupportedMediaType'),
            '429': r('TooManyRequests'),
            '504': r('GatewayTimeout'),
          },
        },
        get: {
          operationId: 'listMessages',
          summary: 'The history, or what changed after a revision',
          description:
            'Without `after_revision`: the newest `limit` messages; `has_more` says older ones exist, read them with `before_seq` = the smallest `seq` of the page (and so on back). ' +
            "With `after_revision`: every message committed after it; `has_more` says `limit` cut the delta, read again with `after_revision` = the answer's `revision`.",
          parameters: [
            intParam(
              'after_revision',
              'Only messages committed (new or changed) after this revision.',
              0,
              Number.MAX_SAFE_INTEGER,
            ),
            intParam(
              'before_seq',
              'Pages back: the newest `limit` messages inserted before the message with this `seq`. Not with `after_revision` (400).',
              1,
              Number.MAX_SAFE_INTEGER,
            ),
            intParam(
              'limit',
              'Maximum messages.',
              1,
              API_LIMITS.messagesPageMax,
              API_LIMITS.messagesPageDefault,
            ),
          ],
          responses: {
            '200': {
              description: 'Messages in phased order and the revision.',
              content: json(ref('History')),
            },
            ...withSession,
          },
        },
      },
      '/v1/sessions/{sessionId}/stop': {
        parameters: [SESSION_PARAM],
        post: {
          operationId: 'stopTurn',
          summary: 'Cancel the running turn (never waits in the queue)',
          description:
            'Before the session has a message, `{"stopped": false}` for an id the caller may create (the id is then claimed for the caller, as its first message would claim it).',
          responses: {
            '200': { description: 'Whether a turn was running.', content: json(ref('StopResult')) },
            ...withSession,
          },
        },
      },
      '/v1/sessions/{sessionId}/schedules': {
        parameters: [SESSION_PARAM],
        post: {
          operationId: 'createSchedule',
          summary:
            'Schedule a prompt: cron, every (interval), at (date-time) or in (delay), in an IANA time zone',
          description:
            'Each run puts the prompt into the session as a cron message (sender "Cronjob", `metadata.is_cronjob`), queued ' +
            'behind a running turn like user input, at most once per tick (docs/schedules.md). Give exactly one of `cron`, ' +
            "`every`, `at`, `in`. `next_run_at` is at the zone's wall time.",
          requestBody: { required: true, content: json(ref('ScheduleCreate')) },
          responses: {
            '201': { description: 'The schedule.', content: json(ref('Schedule')) },
            ...withSession,
            '400': problem(
              'An invalid cron expression, interval or date, an unknown zone, a time in the past, or a prompt over the message limit; `field` names the field.',
            ),
            '429': problem(`The session already holds ${SCHEDULE_LIMITS.perSession} schedules.`),
          },
        },
        get: {
          operationId: 'listSchedules',
          summary:
            "The session's schedules, each with its next run and last runs (fired at, turn id, outcome, delivered)",
          responses: {
            '200': { description: 'The schedules, oldest first.', content: json(ref('ScheduleList')) },
            ...withSession,
          },
        },
      },
      '/v1/sessions/{sessionId}/schedules/{scheduleId}': {
        parameters: [SESSION_PARAM, SCHEDULE_PARAM],
        get: {
          operationId: 'getSchedule',
          summary: 'One schedule',
          responses: {
            '200': { description: 'The schedule.', content: json(ref('Schedule')) },
            ...withSession,
          },
        },
        patch: {
          operationId: 'updateSchedule',
          summary: 'Pause or resume (`paused`), or change the prompt, timing or zone in place',
          requestBody: { required: true, content: json(ref('SchedulePatch')) },
          responses: {
            '200': { description: 'The schedule now.', content: json(ref('Schedule')) },
            ...withSession,
            '409': problem('Resuming a one-time schedule that already ran (give a new `at` or `in`).'),
          },
        },
        delete: {
          operationId: 'deleteSchedule',
          summary: 'Delete a schedule (its Temporal Schedule and its runs)',
          responses: {
            '200': { description: 'Deleted.', content: json(ref('ScheduleDeleted')) },
            ...withSession,
          },
        },
      },
      '/v1/sessions/{sessionId}/schedules/{scheduleId}/trigger': {
        parameters: [SESSION_PARAM, SCHEDULE_PARAM],
        post: {
          operationId: 'triggerSchedule',
          summary: 'Run a schedule now (also a paused one), besides its own timing',
          responses: {
            '202': { description: 'The run is on its way.', content: json(ref('ScheduleTriggered')) },
            ...withSession,
          },
        },
      },
      '/v1/sessions/{sessionId}/deliveries': {
        parameters: [SESSION_PARAM],
        post: {
          operationId: 'acknowledgeDeliveries',
          summary:
            'The terminal client printed these messages: mark them delivered (sessions on channel "cli")',
          description:
            'A "cli" session\'s messages are `delivered` only once a client printed them (docs/message-model.md §5.3): final ' +
            'replies, notifications and crash notices stay `pending`, thoughts and tool messages `responded`, until this call. ' +
            'Idempotent; at most ' +
            `${DELIVERIES_MAX_IDS} ids per call. An id that is not a message of this session is a 400 and nothing changes.`,
          requestBody: { required: true, content: json(ref('DeliveriesRequest')) },
          responses: {
            '200': {
              description: 'The messages and their status now.',
              content: json(ref('DeliveriesResult')),
            },
            ...withSession,
            '409': problem('The session is not on channel "cli": the server delivers its messages itself.'),
          },
        },
      },
      '/v1/sessions/{sessionId}/jobs': {
        parameters: [SESSION_PARAM],
        get: {
          operationId: 'listJobs',
          summary: 'The session’s background jobs, newest first',
          responses: {
            '200': { description: 'The jobs.', content: json(ref('JobList')) },
            ...withSession,
          },
        },
      },
      '/v1/sessions/{sessionId}/jobs/{jobId}': {
        parameters: [
          SESSION_PARAM,
          {
            name: 'jobId',
            in: 'path',
            required: true,
            description: 'The job’s id (`jobs[].id` of GET …/jobs).',
            schema: { type: 'string' },
          },
        ],
        delete: {
          operationId: 'killJob',
          summary: 'Kill a running background job',
          description:
            'Its process group gets SIGKILL; the answer comes once the job has ended `killed`. Its background alert then wakes the session, as for every end. ' +
            '`/stop` does not kill background jobs; this does.',
          responses: {
            '200': { description: 'The job, ended `killed`.', content: json(ref('KilledJob')) },
            ...COMMON_ERRORS,
            '404': problem('No such session, or no job with this id in it.'),
            '409': problem('The job is not running any more; `state` says how it ended.'),
          },
        },
      },
      '/v1/sessions/{sessionId}/compact': {
        parameters: [SESSION_PARAM],
        post: {
          operationId: 'compactSession',
          summary: 'Queue a manual compaction of the conversation',
          responses: {
            '202': { description: 'The compaction prompt was queued.', content: json(ref('CompactResult')) },
            ...withSession,
            '429': r('TooManyRequests'),
          },
        },
      },
      '/v1/sessions/{sessionId}/tool-calls/{callId}/approval': {
        parameters: [
          SESSION_PARAM,
          {
            name: 'callId',
            in: 'path',
            required: true,
            description: 'The tool_call message’s id (`pending_approvals[].call_id` of GET session).',
            schema: { type: 'string' },
          },
        ],
        post: {
          operationId: 'decideApproval',
          summary: 'Approve, deny or always-approve a tool call waiting for approval',
          description:
            'The decision goes to the session workflow (update `decideApproval`); the waiting turn records it as ' +
            '`metadata.approval` on the tool_call message and goes on. 409 when the call is not waiting (decided, timed out, stopped). ' +
            'With `wait`, the answer is that of POST …/messages with `wait` for the call’s turn: 200 `TurnResult`, 202 `TurnWaitingForApproval` (another call waits), 504.',
          requestBody: { required: true, content: json(ref('ApprovalDecisionRequest')) },
          responses: {
            '200': {
              description:
                'The decision was taken (`ApprovalDecisionResult`); with `wait`: the turn ended (`TurnResult`).',
              content: json({ oneOf: [ref('ApprovalDecisionResult'), ref('TurnResult')] }),
            },
            '202': {
              description: 'With `wait`: the decision was taken and the turn waits for another approval.',
              content: json(ref('TurnWaitingForApproval')),
            },
            ...withSession,
            '409': r('Conflict'),
            '504': r('GatewayTimeout'),
          },
        },
      },
      '/v1/sessions/{sessionId}/events': {
        parameters: [SESSION_PARAM],
        get: {
          operationId: 'sessionEvents',
          summary: 'Server-sent events: turn.updated snapshots and turn.committed deltas',
          description:
            'Frames: `event: turn.committed` + `id: <revision>` + `data: TurnCommittedEvent`; `event: turn.updated` + `data: TurnUpdatedEvent`; ' +
            'a `: ping` comment every 15 s. With `Last-Event-ID: N` (or `after_revision=N`) the stream starts with everything committed after N; ' +
            "without it nothing historical is sent (read GET messages first). A `Last-Event-ID` (or `after_revision`) above the session's revision — its data was reset since — " +
            'starts the stream over: the first `turn.committed` has `previous_revision: 0` and carries the whole history, which replaces what the client held. A session id with no message yet can be watched before its first message ' +
            "(the id is claimed for the caller, as its first message would claim it; the stream starts at revision 0); another principal's or a chat channel's id is a 404.",
          parameters: [
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              description: 'Resume after this revision.',
              schema: { type: 'string', pattern: '^\\d+$' },
            },
            intParam(
              'after_revision',
              'Resume after this revision (for clients that cannot set headers).',
              0,
              Number.MAX_SAFE_INTEGER,
            ),
          ],
          responses: {
            '200': {
              description: 'An event stream; data payloads are TurnCommittedEvent and TurnUpdatedEvent.',
              content: {
                'text/event-stream': {
                  // The stream as a whole is text; the JSON in each event's `data:` is one of the payloads.
                  schema: {
                    type: 'string',
                    description:
                      'Server-sent events. `event: turn.committed | turn.updated | approval_requested`, `id:` the revision, `data:` one JSON payload (see x-event-data for which event carries which).',
                    contentMediaType: 'application/json',
                    contentSchema: {
                      oneOf: [
                        ref('TurnCommittedEvent'),
                        ref('TurnUpdatedEvent'),
                        ref('ApprovalRequestedEvent'),
                      ],
                    },
                  },
                  'x-event-data': {
                    'turn.committed': ref('TurnCommittedEvent'),
                    'turn.updated': ref('TurnUpdatedEvent'),
                    approval_requested: ref('ApprovalRequestedEvent'),
                  },
                },
              },
            },
            ...withSession,
          },
        },
      },
      '/v1/admin/pairings': {
        get: {
          operationId: 'listPairings',
          summary: 'Open chat pairing codes and paired chat users (operators)',
          responses: {
            '200': {
              description: 'Open codes and paired users, newest first.',
              content: json(ref('PairingList')),
            },
            ...COMMON_ERRORS,
          },
        },
      },
      '/v1/admin/pairings/{code}/approve': {
        parameters: [
          {
            name: 'code',
            in: 'path',
            required: true,
            description: 'The pairing code a chat user was given (case and dashes do not matter).',
            schema: { type: 'string' },
          },
        ],
        post: {
          operationId: 'approvePairing',
          summary: 'Approve a chat pairing code: its user may talk to the agent from now on (operators)',
          responses: {
            '200': { description: 'The paired user.', content: json(ref('PairingApproval')) },
            ...COMMON_ERRORS,
            '404': problem('There is no pairing request with this code (`reason: unknown_code`).'),
            '409': problem(
              'The code has expired (`reason: expired`); the user gets a new one by writing again.',
            ),
          },
        },
      },
      '/v1/me': {
        get: {
          operationId: 'getMe',
          summary: 'The caller: its principal and the chat users linked to it (docs/memory.md "People")',
          responses: { '200': { description: 'The caller.', content: json(ref('Me')) }, ...COMMON_ERRORS },
        },
        patch: {
          operationId: 'patchMe',
          summary: 'Set or clear the caller’s time zone (the schedule zone fallback after the session’s)',
          requestBody: { required: true, content: json(ref('MePatch')) },
          responses: {
            '200': { description: 'The caller.', content: json(ref('Me')) },
            ...COMMON_ERRORS,
            '415': r('UnsupportedMediaType'),
          },
        },
      },
      '/v1/me/links': {
        post: {
          operationId: 'confirmLink',
          summary: 'Link a chat user to the caller with the one-time code `/link` gave them',
          description:
            'From then on the chat user’s memory is the caller’s, on every channel. A code works once and for 15 minutes.',
          requestBody: { required: true, content: json(ref('LinkRequest')) },
          responses: {
            '200': { description: 'The new link.', content: json(ref('PersonLink')) },
            ...COMMON_ERRORS,
            '404': problem('No such code was issued (`reason: unknown_code`).'),
            '409': problem('The code has expired (`reason: expired`) or was used already (`reason: used`).'),
            '415': r('UnsupportedMediaType'),
          },
        },
      },
      '/v1/memory': {
        get: {
          operationId: 'listMemory',
          summary:
            'The caller’s remembered entries (its own and its linked chat users’), newest first or searched',
          parameters: [
            {
              name: 'q',
              in: 'query',
              required: false,
              description: 'Words to search for (any of them; best match first).',
              schema: { type: 'string', maxLength: 500 },
            },
            intParam('limit', 'Most entries returned.', 1, 200, 50),
          ],
          responses: {
            '200': { description: 'The entries.', content: json(ref('MemoryList')) },
            ...COMMON_ERRORS,
          },
        },
      },
      '/v1/memory/{entryId}': {
        parameters: [
          {
            name: 'entryId',
            in: 'path',
            required: true,
            description: 'The entry id.',
            schema: { type: 'string' },
          },
        ],
        delete: {
          operationId: 'forgetMemory',
          summary: 'Forget one of the caller’s entries (kept as forgotten for the audit, never shown again)',
          responses: {
            '200': {
              description: 'The forgotten entry.',
              content: json({
                type: 'object',
                required: ['forgotten'],
                properties: { forgotten: ref('MemoryEntry') },
                additionalProperties: false,
              }),
            },
            ...COMMON_ERRORS,
            '404': problem('The caller has no such entry (another person’s entry is the same 404).'),
          },
        },
      },
      '/v1/admin/sessions/{sessionId}/prompt': {
        parameters: [SESSION_PARAM],
        get: {
          operationId: 'getSessionPrompt',
          summary: 'The exact model input of the session’s latest step (operators; terminal `/prompt`)',
          responses: {
            '200': { description: 'The prompt.', content: json(ref('SessionPrompt')) },
            ...COMMON_ERRORS,
            '404': problem('The session has had no model step.'),
          },
        },
      },
      '/v1/mcp': {
        get: {
          operationId: 'listMcpServers',
          summary: 'The MCP servers the agent takes tools from: state, tools, last error (operators)',
          responses: {
            '200': { description: 'The servers, by name.', content: json(ref('McpServerList')) },
            ...COMMON_ERRORS,
          },
        },
      },
      '/livez': {
        get: {
          operationId: 'live',
          summary: 'The API process is up (a liveness probe; checks nothing else)',
          security: [],
          responses: {
            '200': {
              description: 'The process answers.',
              content: json({
                type: 'object',
                required: ['status'],
                properties: { status: { const: 'ok' } },
                additionalProperties: false,
              }),
            },
            '403': r('Forbidden'),
          },
        },
      },
      '/readyz': {
        get: {
          operationId: 'ready',
          summary: 'Whether Temporal and Postgres answer (a readiness probe)',
          security: [],
          responses: {
            '200': { description: 'Both answer.', content: json(ref('Readiness')) },
            '403': r('Forbidden'),
            '503': r('Unavailable'),
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'health',
          summary: "Whether Temporal, Postgres and the process's components answer",
          security: [],
          responses: {
            '200': { description: 'Both answer.', content: json(ref('Health')) },
            '403': r('Forbidden'),
            '503': r('Unavailable'),
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          security: [],
          responses: {
            '200': { description: 'The OpenAPI 3.1 document.', content: json({ type: 'object' }) },
            '403': r('Forbidden'),
          },
        },
      },
      ...codecPaths(),
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The token of a principal (KESOKU_API_TOKENS `name:token`, or KESOKU_API_TOKENS_FILE). A principal reaches the ' +
            'sessions it created; admins (name `admin`, or listed in KESOKU_API_ADMINS) reach every session. Not needed ' +
            'when no tokens are configured (the API then serves loopback only).',
        },
        codec: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The codec token (KESOKU_CODEC_TOKEN or <data dir>/codec-token); or put it in the path.',
        },
      },
      parameters: {
        SessionId: {
          name: 'sessionId',
          in: 'path',
          required: true,
          description:
            'REST sessions use chatbot_id "api" (or "cli", chosen by the first message) and channel_id = the session id.',
          schema: { type: 'string', pattern: ID_PATTERN.source },
        },
        ScheduleId: {
          name: 'scheduleId',
          in: 'path',
          required: true,
          description: 'A schedule id as creation answered it (`sch-` and 12 hex digits).',
          schema: { type: 'string' },
        },
      },
      responses: RESPONSES,
      schemas: schemas(waitMaxS),
    },
  };
}

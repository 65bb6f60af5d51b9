/**
 * Request validation: the API's limits, the zod schemas of request bodies (also rendered into the OpenAPI
 * document with `z.toJSONSchema`, so the documentation cannot drift from the checks), and query parsers.
 * Every failure is a 400 problem naming the field.
 */
import { APPROVAL_DECISIONS, APPROVAL_POLICIES } from '../domain/tool-approval.ts';
import { z } from 'zod';
import { MESSAGE_TYPES, ROLES, STATUSES } from '../domain/message.ts';
import { JOB_STATES } from '../domain/jobs.ts';
import { SESSION_LOCALES } from '../domain/failures.ts';
import {
  ID_PATTERN,
  MESSAGE_ID_PATTERN,
  LIMITS,
  inboundFieldProblem,
  type InboundMessage,
} from '../domain/inbound.ts';
import { SESSION_MODES, TITLE_MAX_CHARS, hasLineControls, titleProblem } from '../domain/session-settings.ts';
import { SCHEDULE_ID_PATTERN, SCHEDULE_KINDS, canonicalZone } from '../domain/schedules.ts';
import { REST_CHATBOTS } from './access.ts';
import { chatMessageIdPrefixes } from '../adapters/registry.ts';
import { HttpProblem, validationProblem } from './problems.ts';

/** Limits of the REST API (sizes in bytes, durations in seconds). */
export const API_LIMITS = {
  /** Largest accepted request body (256 KiB). */
  bodyBytes: 256 * 1024,
  /** Longest `wait` a client may ask for, in seconds. */
  waitMaxS: 300,
  messagesPageDefault: 1000,
  /** Largest page of messages one request reads (a longer history is paged with `before_seq`). */
  messagesPageMax: 1000,
  sessionsPageDefault: 20,
  sessionsPageMax: 100,
  /** Same bound as the session workflow's `setTitle` validator. */
  titleMaxLength: TITLE_MAX_CHARS,
  /**
   * Largest attachment sent inline as `data`, decoded bytes (180 KiB: its base64 text still fits the body limit;
   * all attachments of one request share that limit).
   */
  attachmentDataMaxBytes: 180 * 1024,
} as const;

/** The default sender of messages posted through the API. */
export const API_SENDER = 'api';

export const attachmentSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(255)
      .describe('File name shown to people and used in the history placeholder.'),
    content_type: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        'MIME type, when known; images (image/png, image/jpeg, image/gif, image/webp) are shown to the model.',
      ),
    size: z
      .int()
      .min(0)
      .optional()
      .describe('Size in bytes, when known (with `data`: the decoded size is used).'),
    url: z
      .url()
      .max(2048)
      .optional()
      .describe('Where the file can be fetched (a reference only; Kesoku does not download it).'),
    data: z
      .base64()
      .max(Math.ceil(API_LIMITS.attachmentDataMaxBytes / 3) * 4)
      .optional()
      .describe(
        `The file itself, base64 (at most ${API_LIMITS.attachmentDataMaxBytes} bytes decoded). It is stored in the session's ` +
          'workspace (attachments/<message id>/) where the agent can read it, and given to the model in full for this turn.',
      ),
  })
  .refine((a) => a.data === undefined || a.url === undefined, {
    message: 'give data or url, not both',
    path: ['data'],
  });

/** Body of `POST /v1/sessions/{sessionId}/messages`; `waitMaxS` bounds `wait` (seconds). */
export function postMessageSchema(waitMaxS: number = API_LIMITS.waitMaxS) {
  return z.strictObject({
    content: z
      .string()
      .describe(
        `The message text: at most ${LIMITS.maxContentBytes} bytes of UTF-8; may be empty only with attachments.`,
      ),
    id: z
      .string()
      .regex(MESSAGE_ID_PATTERN, 'must be 1-128 characters of A-Z a-z 0-9 _ . @ - (not "." or "..")')
      .refine(
        (id) => !chatMessageIdPrefixes().some((p) => id.toLowerCase().startsWith(p)),
        `must not start with a chat channel's message id prefix (${chatMessageIdPrefixes().join(', ')}): those ids are the channels'`,
      )
      .optional()
      .describe(
        'Client-chosen message id, the idempotency key: a repeated id with the same content and attachments returns the stored message (`duplicate: true`) and queues nothing; with other content or attachments it is a 409.',
      ),
    sender: z
      .string()
      .min(1)
      .max(LIMITS.maxSenderLength)
      .refine((s) => !hasLineControls(s), 'must be one line without control characters')
      .optional()
      .describe(`Who wrote it; default "${API_SENDER}".`),
    attachments: z.array(attachmentSchema).max(LIMITS.maxAttachments).optional(),
    channel: z
      .enum(REST_CHATBOTS)
      .optional()
      .describe(
        'The chatbot of the session, chosen by its first message: "api" (default) or "cli" (the terminal client: its ' +
          'replies stay `pending` and thoughts and tool messages `responded` until the client acknowledges that it ' +
          'printed them, POST …/deliveries). On an existing session it must be the session’s chatbot (else 409).',
      ),
    wait: z
      .int()
      .min(0)
      .max(waitMaxS)
      .optional()
      .describe(
        'Seconds to wait for the turn to end (0 or absent: answer 202 at once). On time-out: 504, the message stays accepted.',
      ),
  });
}
export type PostMessageBody = z.output<ReturnType<typeof postMessageSchema>>;

/** Longest stored message id: a client-chosen id (128) with Kesoku's suffixes (`:notice`, step ids). */
const MESSAGE_ID_MAX_LENGTH = 256;

/** Most message ids one `POST /v1/sessions/{sessionId}/deliveries` acknowledges. */
export const DELIVERIES_MAX_IDS = 1000;

/** Body of `POST /v1/sessions/{sessionId}/deliveries`: the messages a `cli` client printed. */
export const deliveriesSchema = z.strictObject({
  ids: z
    .array(z.string().min(1).max(MESSAGE_ID_MAX_LENGTH))
    .min(1)
    .max(DELIVERIES_MAX_IDS)
    .describe(
      'Ids of messages of this session the client has printed. Final replies, notifications and crash notices ' +
        '(`pending`) and thoughts, tool calls and tool results (`responded`) become `delivered`; a message already ' +
        '`delivered` stays so (the call is idempotent); any other status is left as it is.',
    ),
});
export type DeliveriesBody = z.output<typeof deliveriesSchema>;

export const patchSessionSchema = z
  .strictObject({
    title: z
      .string()
      .trim()
      .min(1)
      .max(API_LIMITS.titleMaxLength)
      .superRefine((t, ctx) => {
        const problem = titleProblem(t);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .describe('A user-set title; it wins over automatic titles.'),
    mode: z
      .enum(['interrupt', 'queue'])
      .optional()
      .describe('interrupt: a new message cancels the running turn; queue: strictly serial.'),
    locale: z
      .enum(SESSION_LOCALES)
      .optional()
      .describe('Language of the session’s notices and crash notices from now on: en or zh.'),
    approval: z
      .enum(APPROVAL_POLICIES)
      .nullable()
      .optional()
      .describe(
        'Which tool calls wait for a person: off, writes (shell commands and file writes) or all; null: back to the default.',
      ),
    timezone: z
      .string()
      .nullable()
      .optional()
      .transform((zone, ctx) => {
        if (zone === null || zone === undefined) return zone;
        const canonical = canonicalZone(zone);
        if (canonical === null)
          ctx.addIssue({
            code: 'custom',
            message: `"${zone}" is not a known IANA time zone, e.g. "Asia/Tokyo"`,
          });
        return canonical ?? zone;
      })
      .describe(
        'The session’s IANA time zone (e.g. "Europe/Berlin"; stored canonical): the zone of its new schedules that name none. null: none (the server’s KESOKU_TIMEZONE, else its own zone). Existing schedules keep their zone.',
      ),
    channel: z
      .enum(REST_CHATBOTS)
      .optional()
      .describe(
        'Before the session’s first message, a PATCH creates the session with these settings, on this chatbot: ' +
          '"api" (default) or "cli", as the first message’s `channel` would. On an existing session it must be ' +
          'the session’s chatbot (else 409).',
      ),
  })
  .refine(
    (b) =>
      b.title !== undefined ||
      b.mode !== undefined ||
      b.locale !== undefined ||
      b.approval !== undefined ||
      b.timezone !== undefined,
    { message: 'give "title", "mode", "locale", "approval" or "timezone"' },
  );

/** `POST /v1/sessions/{sessionId}/tool-calls/{callId}/approval` body; `waitMaxS` bounds `wait` (seconds). */
export function approvalDecisionSchema(waitMaxS: number = API_LIMITS.waitMaxS) {
  return z.strictObject({
    decision: z
      .enum(APPROVAL_DECISIONS)
      .describe(
        'approve: run this call; deny: do not run it (the model is told); always: run it and approve matching calls in this session from now on.',
      ),
    wait: z
      .int()
      .min(0)
      .max(waitMaxS)
      .optional()
      .describe(
        "Seconds to wait for the call's turn to go on (0 or absent: answer the decision at once). Then the answer is the one of POST …/messages with `wait`: 200 when the turn ended, 202 when it waits for another approval, 504 on time-out.",
      ),
  });
}
export type PatchSessionBody = z.output<typeof patchSessionSchema>;

/**
 * Parses a JSON body with `schema`.
 * @throws HttpProblem validation (400) naming the first offending field
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationProblem('', 'the request body must be a JSON object (Content-Type: application/json)');
  }
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (!issue) throw validationProblem('', 'the request body is invalid');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    throw validationProblem([...issue.path, key].join('.'), 'is not a known field');
  }
  const field = issue.path.map(String).join('.');
  // zod 4 does not report the input of an issue by default: look the value up in the body.
  const value = issue.path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    body,
  );
  const missing = issue.code === 'invalid_type' && value === undefined;
  throw validationProblem(field, missing ? 'is required' : issue.message);
}

/**
 * Applies the session workflow's own inbound rules (shared with its update validator) before submitting, so
 * a bad message is a 400 naming the field without a round trip.
 * @throws HttpProblem validation (400)
 */
export function checkInbound(message: InboundMessage): void {
  const problem = inboundFieldProblem(message);
  if (problem === null) return;
  const detail =
    problem.field && problem.message.startsWith(`${problem.field} `)
      ? problem.message.slice(problem.field.length + 1)
      : problem.message;
  throw validationProblem(problem.field === 'receivedAt' ? '' : problem.field, detail);
}

type QueryValue = string | string[] | undefined | unknown;

/**
 * Reads an optional non-negative integer query parameter within `[min, max]`.
 * @throws HttpProblem validation (400) naming the parameter
 */
export function intQuery(value: QueryValue, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value))
    throw validationProblem(name, `must be an integer between ${min} and ${max}`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw validationProblem(name, `must be an integer between ${min} and ${max}`);
  return n;
}

/**
 * Checks the opaque cursor of `GET /v1/sessions` (base64url JSON `{t, id}` from db/sessions.ts listSessions).
 * @throws HttpProblem validation (400) when it is not one this API issued
 */
export function cursorQuery(value: QueryValue): string | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > 512 ||
    !/^[A-Za-z0-9_-]+$/.test(value)
  ) {
    throw validationProblem('cursor', 'is not a valid cursor');
  }
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as {
      t?: unknown;
      id?: unknown;
    };
    // Only cursors this API issued: an ISO timestamp that round-trips exactly and a valid session id.
    if (
      typeof parsed.t !== 'string' ||
      Number.isNaN(Date.parse(parsed.t)) ||
      !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(parsed.t) ||
      parsed.t.startsWith('0000') ||
      new Date(parsed.t).toISOString() !== parsed.t ||
      typeof parsed.id !== 'string' ||
      !ID_PATTERN.test(parsed.id)
    )
      throw new Error('shape');
  } catch {
    throw validationProblem('cursor', 'is not a valid cursor');
  }
  return value;
}

/**
 * Requires a JSON body when the request has one (`Content-Type: application/json` or `application/*+json`).
 * @throws HttpProblem unsupported_media_type (415)
 */
export function requireJson(req: { is(types: string[]): string | false | null }): void {
  if (req.is(['application/json', 'application/*+json']) === false) {
    throw new HttpProblem('unsupported_media_type', 'send the body as application/json');
  }
}

const scheduleTimingFields = {
  cron: z
    .string()
    .optional()
    .describe(
      "A cron expression (5 fields: minute hour day-of-month month day-of-week), at the zone's wall time.",
    ),
  every: z
    .union([z.string(), z.number().int()])
    .optional()
    .describe(
      'An interval: "10s", "5m", "1h30m", "1d", or seconds; the first run is one interval after creation.',
    ),
  at: z
    .string()
    .optional()
    .describe('One run at an ISO 8601 date-time; without an offset it is a wall time in the zone.'),
  in: z
    .union([z.string(), z.number()])
    .optional()
    .describe('One run after a delay: minutes, or "90s", "5m", "2h".'),
  timezone: z
    .string()
    .optional()
    .describe(
      "IANA time zone; default the session's, else the server's (KESOKU_TIMEZONE). Always stored and shown.",
    ),
  paused: z.boolean().optional().describe('Paused: no tick fires until resumed (`PATCH {"paused": false}`).'),
};

/** `POST /v1/sessions/{sessionId}/schedules`: a prompt and exactly one of `cron`, `every`, `at`, `in`. */
export const createScheduleSchema = z.strictObject({
  prompt: z.string().describe('What is put into the session at each run (a cron message from "Cronjob").'),
  ...scheduleTimingFields,
});

/** `PATCH /v1/sessions/{sessionId}/schedules/{scheduleId}`: pause/resume, a new prompt, timing or zone. */
export const patchScheduleSchema = z.strictObject({
  prompt: z.string().optional().describe('A new prompt.'),
  ...scheduleTimingFields,
});

// ---- response bodies ------------------------------------------------------------------------------------------
// Rendered into the OpenAPI document (api/openapi.ts `responseSchema`), like the request bodies above.

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

export const sessionPlanSchema = z.strictObject({
  steps: z.array(
    z.strictObject({
      title: z.string(),
      status: z.enum(['pending', 'in_progress', 'done']),
    }),
  ),
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
  person: z.string().describe('The key the caller’s memory is kept under (`principal:<name>`).'),
  links: z.array(personLinkSchema).describe('Chat users linked to the caller.'),
});

/** Body of `POST /v1/me/links`. */
export const linkRequestSchema = z.strictObject({
  code: z.string().describe('The code `/link` answered in the chat.'),
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

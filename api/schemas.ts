/**
 * Request validation: the API's limits, the zod schemas of request bodies (also rendered into the OpenAPI
 * document with `z.toJSONSchema`, so the documentation cannot drift from the checks), and query parsers.
 * Every failure is a 400 problem naming the field.
 */
import { APPROVAL_DECISIONS, APPROVAL_POLICIES } from '../domain/tool-approval.ts';
import { z } from 'zod';
import { SESSION_LOCALES } from '../domain/failures.ts';
import {
  ID_PATTERN,
  MESSAGE_ID_PATTERN,
  LIMITS,
  inboundFieldProblem,
  type InboundMessage,
} from '../domain/inbound.ts';
import { TITLE_MAX_CHARS, hasLineControls, titleProblem } from '../domain/session-settings.ts';
import { canonicalZone } from '../domain/schedules.ts';
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

/** Body of `POST /v1/me/links`. */
export const linkRequestSchema = z.strictObject({
  code: z.string().describe('The code `/link` answered in the chat.'),
});

/** Body of `PATCH /v1/me` as the document states it (api/routes/people.ts checks it). */
export const mePatchSchema = z.strictObject({
  timezone: z
    .string()
    .nullable()
    .describe('An IANA zone (stored canonical: `asia/tokyo` → `Asia/Tokyo`), or null to clear it.'),
});

// The response bodies live in api/responses.ts (no server imports, so the terminal client can parse with them).
export * from './responses.ts';

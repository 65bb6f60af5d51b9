/**
 * The OpenAPI 3.1 document of REST API v1 (docs/architecture.md "REST API v1"), served at `GET /openapi.json`.
 *
 * Every request and response body is a zod schema of api/schemas.ts, rendered here with `z.toJSONSchema` (and a
 * few rendering rules, {@link responseSchema}), so this document cannot drift from the checks and the types the
 * routes answer with; what zod cannot say (paths, parameters, status codes, descriptions of the answers) is
 * written here. api/openapi.test.ts holds it to the recorded v1 document.
 */
import { z } from 'zod';
import { ID_PATTERN, LIMITS } from '../domain/inbound.ts';
import { SCHEDULE_LIMITS } from '../domain/schedules.ts';
import { PROBLEM_CONTENT_TYPE } from './problems.ts';
import * as s from './responses.ts';
import {
  API_LIMITS,
  DELIVERIES_MAX_IDS,
  approvalDecisionSchema,
  createScheduleSchema,
  deliveriesSchema,
  linkRequestSchema,
  mePatchSchema,
  patchScheduleSchema,
  patchSessionSchema,
  postMessageSchema,
} from './schemas.ts';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });

/** A zod schema as a JSON Schema 2020-12 object, without its `$schema` marker. */
function fromZod(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  return rest;
}

/**
 * The response bodies (api/responses.ts) by component name, in the document's order. Inside another response
 * schema, each of them is a `$ref` to its component.
 */
const RESPONSE_COMPONENTS = {
  Problem: s.problemSchema,
  Attachment: s.storedAttachmentSchema,
  TurnMetrics: s.turnMetricsSchema,
  MessageMetadata: s.messageMetadataSchema,
  Message: s.messageSchema,
  MessageAccepted: s.messageAcceptedSchema,
  TurnResult: s.turnResultSchema,
  TurnWaitingForApproval: s.turnWaitingForApprovalSchema,
  History: s.historySchema,
  SessionSummary: s.sessionSummarySchema,
  Session: s.sessionSchema,
  SessionPlan: s.sessionPlanSchema,
  PlanStep: s.planStepSchema,
  MemoryEntry: s.memoryEntrySchema,
  MemoryList: s.memoryListSchema,
  Me: s.meSchema,
  PersonLink: s.personLinkSchema,
  SessionPrompt: s.sessionPromptSchema,
  PendingApproval: s.pendingApprovalSchema,
  ApprovalDecisionResult: s.approvalDecisionResultSchema,
  ApprovalRequestedEvent: s.approvalRequestedEventSchema,
  SessionList: s.sessionListSchema,
  ScheduleRun: s.scheduleRunSchema,
  Schedule: s.scheduleSchema,
  ScheduleList: s.scheduleListSchema,
  ScheduleDeleted: s.scheduleDeletedSchema,
  ScheduleTriggered: s.scheduleTriggeredSchema,
  Job: s.jobSchema,
  JobList: s.jobListSchema,
  KilledJob: s.killedJobSchema,
  StopResult: s.stopResultSchema,
  DeliveriesResult: s.deliveriesResultSchema,
  CompactResult: s.compactResultSchema,
  CodecPayloads: s.codecPayloadsSchema,
  Readiness: s.readinessSchema,
  Health: s.healthSchema,
  ToolProgress: s.toolProgressSchema,
  TurnCommittedEvent: s.turnCommittedEventSchema,
  PairedUser: s.pairedUserSchema,
  PendingPairing: s.pendingPairingSchema,
  PairingList: s.pairingListSchema,
  McpServer: s.mcpServerSchema,
  McpServerList: s.mcpServerListSchema,
  PairingApproval: s.pairingApprovalSchema,
  TurnUpdatedEvent: s.turnUpdatedEventSchema,
} satisfies Record<string, z.ZodType>;

const COMPONENT_OF = new Map<unknown, string>(
  Object.entries(RESPONSE_COMPONENTS).map(([name, schema]) => [schema, name]),
);

/** Keywords that only constrain a value: a nullable whose branch has no others is spelled as a `type` list. */
const VALIDATION_KEYWORDS = new Set([
  'type',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
]);

/**
 * A nullable `anyOf: [X, {type: 'null'}]` as the document spells it: `{type: [T, 'null']}` (with `null` in its
 * `enum`) when X only constrains the value, else `oneOf` (X keeps its `$ref`, `format` or `description`).
 */
function spellNullable(js: Json): void {
  const options = js.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return;
  const [branch, none] = options as Json[];
  if (!branch || JSON.stringify(none) !== '{"type":"null"}') return;
  delete js.anyOf;
  if (typeof branch.type === 'string' && Object.keys(branch).every((k) => VALIDATION_KEYWORDS.has(k))) {
    Object.assign(js, branch, { type: [branch.type, 'null'] });
    if (Array.isArray(branch.enum)) js.enum = [...(branch.enum as unknown[]), null];
  } else js.oneOf = [branch, none];
}

/**
 * The document's spelling of what zod writes otherwise, applied to every subschema of zod's output: nullables
 * ({@link spellNullable}); an object with no declared properties has no `properties: {}`, and a record no
 * `propertyNames: {type: 'string'}` (JSON keys are strings).
 */
function spell(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(spell);
  if (value === null || typeof value !== 'object') return;
  const js = value as Json;
  for (const v of Object.values(js)) spell(v);
  spellNullable(js);
  const props = js.properties as Json | undefined;
  if (js.type === 'object' && props && Object.keys(props).length === 0) delete js.properties;
  if (JSON.stringify(js.propertyNames) === '{"type":"string"}') delete js.propertyNames;
}

/**
 * A response body's zod schema (api/responses.ts) as a JSON Schema 2020-12 object, without its `$schema` marker:
 * the output shape; a component of {@link RESPONSE_COMPONENTS} used inside it becomes a `$ref`. Rendering
 * rules for what zod spells otherwise: integers carry no safe-integer bounds (they say nothing a client needs);
 * a literal is a bare `const` (unless its metadata names a `type`); a loose object's extra keys are
 * `additionalProperties: true` and a plain `z.object`'s are left unsaid (strict objects: `false`); then
 * {@link spell}.
 */
function responseSchema(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
    io: 'output',
    override: ({ zodSchema, jsonSchema }) => {
      const js = jsonSchema as Json;
      const component = (zodSchema as unknown) === schema ? undefined : COMPONENT_OF.get(zodSchema);
      if (component) {
        for (const key of Object.keys(js)) delete js[key];
        js.$ref = `#/components/schemas/${component}`;
        return;
      }
      const def = zodSchema._zod.def;
      if (js.type === 'integer' && js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
      if (js.type === 'integer' && js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
      if (def.type === 'literal' && z.globalRegistry.get(zodSchema)?.type === undefined) delete js.type;
      if (def.type === 'object') {
        const catchall = (def as { catchall?: z.ZodType }).catchall;
        if (catchall === undefined) delete js.additionalProperties;
        else if (catchall._zod.def.type === 'unknown') js.additionalProperties = true;
      }
    },
  }) as Json;
  spell(rest);
  return rest;
}

function schemas(waitMaxS: number): Record<string, Json> {
  const responses = Object.fromEntries(
    Object.entries(RESPONSE_COMPONENTS).map(([name, schema]) => [name, responseSchema(schema)]),
  );
  return {
    ...responses,
    PostMessageRequest: fromZod(postMessageSchema(waitMaxS)),
    PatchSessionRequest: { ...fromZod(patchSessionSchema), minProperties: 1 },
    LinkRequest: responseSchema(linkRequestSchema),
    MePatch: responseSchema(mePatchSchema),
    ApprovalDecisionRequest: fromZod(approvalDecisionSchema(waitMaxS)),
    ScheduleCreate: fromZod(createScheduleSchema),
    SchedulePatch: fromZod(patchScheduleSchema),
    DeliveriesRequest: fromZod(deliveriesSchema),
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
/** `?session=` of the memory routes: adds that session's shared memory scope. */
const MEMORY_SESSION_PARAM: Json = {
  name: 'session',
  in: 'query',
  required: false,
  description:
    'A session the caller may see: its shared memory scope, when KESOKU_MEMORY_SHARED_SCOPES gives it one, is included (docs/memory.md "Shared scope"); a session the caller cannot see is a 404.',
  schema: { type: 'string', maxLength: 200 },
};

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
            MEMORY_SESSION_PARAM,
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
            '404': problem('`session` names a session the caller cannot see (or one without messages yet).'),
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
          summary:
            'Forget one of the caller’s entries, or with `session` one of that session’s shared scope (kept as forgotten for the audit, never shown again)',
          parameters: [MEMORY_SESSION_PARAM],
          responses: {
            '200': {
              description: 'The forgotten entry.',
              content: json(responseSchema(s.forgottenMemorySchema)),
            },
            ...COMMON_ERRORS,
            '404': problem(
              'The caller has no such entry (another person’s entry is the same 404), or `session` names a session the caller cannot see.',
            ),
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
              content: json(responseSchema(s.livenessSchema)),
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

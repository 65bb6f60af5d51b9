/**
 * What the REST API is built from (api/app.ts `createApp`), and the same with defaults applied as every router
 * sees it. Types only: the routers, the waits and the submit path import this module, never app.ts.
 */
import type { PayloadCodec } from '@temporalio/common';
import type { Pool } from '../db/pool.ts';
import type { ApprovalPolicy } from '../domain/tool-approval.ts';
import type { HealthStatus } from '../infra/health.ts';
import type { Logger } from '../infra/logger.ts';
import type { ScheduleService } from '../infra/schedules.ts';
import type { SessionClient } from '../infra/session-client.ts';
import type { ApiToken } from './auth.ts';
import type { EventHub } from './event-hub.ts';

/** What the application needs. Durations carry their unit in the name. */
export interface AppDeps {
  pool: Pool;
  sessions: SessionClient;
  events: EventHub;
  logger: Logger;
  /**
   * Principals and their bearer tokens for `/v1/*` (api/auth.ts). Empty: no authentication; the server must
   * then bind to loopback, and the Host and Origin guards apply.
   */
  tokens: ApiToken[];
  /** The Temporal Web UI codec endpoint under `/codec`; absent: not served. */
  codec?: CodecOptions;
  /** Whether Temporal and Postgres answer (see infra/health.ts createHealthCheck). */
  health: () => Promise<HealthStatus>;
  /** Largest `wait` accepted, in seconds (default and maximum 300). */
  waitTimeoutMaxS?: number;
  /** gRPC deadline for each Temporal call, in ms (default 10 000): past it the request answers 503. */
  temporalTimeoutMs?: number;
  /** Fallback poll interval while waiting for a turn, in ms (default 2000). */
  waitPollMs?: number;
  /** Time limit of `health()`, in ms (default 5000). */
  healthTimeoutMs?: number;
  /**
   * Kesoku's data directory: attachments posted with `data` are stored in the session workspaces under it.
   * Unset: such attachments are refused (400).
   */
  dataDir?: string;
  /**
   * The deployment's tool-approval settings (`KESOKU_TOOL_APPROVAL`, `KESOKU_TOOL_AUTO_APPROVE`), for the policy
   * in force and the configured patterns GET/PATCH session report; absent: not set (each channel's default, no
   * patterns).
   */
  approvals?: ApiApprovalSettings;
  /** Locale of a session a PATCH creates before its first message (KESOKU_LOCALE); default `en`. */
  defaultLocale?: string;
  /** Limits per principal (KESOKU_MAX_SESSIONS_PER_PRINCIPAL, KESOKU_MAX_STREAMS_PER_PRINCIPAL). */
  limits?: ApiPrincipalLimits;
  /** Scheduled prompts; default: a service on the session client's Temporal client and task queue. */
  schedules?: ScheduleService;
  /** Zone of schedules that name none when the session has none (KESOKU_TIMEZONE); default the server's. */
  defaultZone?: string;
  /**
   * Sessions and channels with a shared memory scope (KESOKU_MEMORY_SHARED_SCOPES, docs/memory.md "Shared scope"),
   * whose entries `GET /v1/memory?session=` lists and `DELETE /v1/memory/{entryId}?session=` forgets; default none.
   * They must be the workers' to match what the model recalls.
   */
  memorySharedScopes?: readonly string[];
}

/** What one API principal may hold. */
export interface ApiPrincipalLimits {
  /** Sessions a non-admin principal may create (default 1000). */
  sessionsPerPrincipal?: number;
  /** Event streams a principal may hold open at once on this server (default 32). */
  streamsPerPrincipal?: number;
}

/** {@link AppDeps} with defaults applied, as the routers see them. */
export interface ResolvedDeps extends AppDeps {
  limits: Required<ApiPrincipalLimits>;
  schedules: ScheduleService;
  waitMaxS: number;
  temporalTimeoutMs: number;
  waitPollMs: number;
  healthTimeoutMs: number;
}

/**
 * The deployment's approval settings as the API reports them: `KESOKU_TOOL_APPROVAL` (undefined: each channel's
 * default) and `KESOKU_TOOL_AUTO_APPROVE`. They must be the workers' for the report to be right; `npm start`,
 * `npm run api` and `npm run worker` read them from the same configuration.
 */
export interface ApiApprovalSettings {
  policy?: ApprovalPolicy;
  autoApprove?: string[];
}

/** What the codec endpoint needs. */
export interface CodecOptions {
  codec: PayloadCodec;
  /** The codec token (at least 32 characters). */
  token: string;
  /** Origins allowed by CORS, e.g. `http://127.0.0.1:8233` (the Temporal Web UI). */
  origins: readonly string[];
}

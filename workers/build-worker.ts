/**
 * Builds a Kesoku worker: the workflow bundle plus every activity, wired to one pg pool, the model
 * configuration and the channel sinks (the channels' metadata keys from adapters/registry.ts). Used by
 * `npm run worker` (workers/worker.ts), `npm start` (bin/start.ts) and the tests.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  Worker,
  type ActivityInterceptorsFactory,
  type NativeConnection,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createDeliveryActivities, type ChannelSink } from '../activities/delivery.ts';
import { createModelActivities } from '../activities/llm/activities.ts';
import type { LlmConfig } from '../activities/llm/provider.ts';
import { createPersistenceActivities } from '../activities/persistence.ts';
import { approvalDefaultOf, channelSecretKeys, platformMessageIdKeys } from '../adapters/registry.ts';
import { createApprovalActivities, type ApprovalSettings } from '../activities/approvals.ts';
import type { Config } from '../infra/config.ts';
import { createToolActivities, workspaceDirFor } from '../activities/tools/activities.ts';
import { toolSpecs } from '../activities/tools/registry.ts';
import {
  defaultSandboxSettings,
  prepareSandbox,
  sandboxWarning,
  type SandboxSettings,
} from '../activities/tools/sandbox.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';
import type { DataConverter } from '@temporalio/common';

export const WORKFLOWS_PATH = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'workflows',
  'index.ts',
);

export interface WorkerSettings {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  pool: Pool;
  logger: Logger;
  /** Null when the model is not configured: turns then fail with a clear `agent_creation` notice. */
  llm: LlmConfig | null;
  dataDir: string;
  maxSteps: number;
  compactTokens: number;
  shellTimeoutMs: number;
  sinks?: Record<string, ChannelSink>;
  /** Locale of new sessions (KESOKU_LOCALE). Default `en`. */
  defaultLocale?: string;
  /** A pre-built workflow bundle (tests build it once); otherwise the workflows are bundled now. */
  workflowBundle?: { code: string } | { codePath: string };
  /** Batching interval of token deltas, in ms. */
  deltaIntervalMs?: number;
  /**
   * Session workflows kept in memory between turns (Temporal's sticky cache). A session evicted from it is
   * replayed from its history on its next message. Undefined: the SDK's default, sized from the heap limit.
   */
  maxCachedSessions?: number;
  /** Payload encryption (infra/payload-codec.ts dataConverterFor); the same keys as every client's. */
  dataConverter?: DataConverter;
  /**
   * Worker Deployment version (Temporal Worker Versioning). With it the worker polls as
   * `<name>.<buildId>` and receives tasks only once that version is current or ramping in the deployment;
   * every Kesoku workflow (session and title) is AUTO_UPGRADE: it moves to the current version at its next
   * workflow task, so changes to workflow code stay behind `patched()` and are replay-checked before a deploy.
   */
  deployment?: { name: string; buildId: string };
  /** Activity interceptors (metrics); the worker's own list is extended, not replaced. */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /**
   * Seconds a stopping worker keeps running activities (tool commands, model calls) going after it stopped
   * polling; only then are they cancelled. Default 300 (`KESOKU_WORKER_DRAIN_S`).
   */
  drainS?: number;
  /**
   * Longest time the SDK holds back an activity's heartbeat, in ms. Cancellation (/stop) reaches an activity
   * only with a heartbeat's answer, so this bounds how fast /stop kills a command; on Temporal Cloud each
   * heartbeat sent is a billed action. Default 500 (`KESOKU_WORKER_HEARTBEAT_THROTTLE_MS`).
   */
  heartbeatThrottleMs?: number;
  /** Sandbox of shell commands (KESOKU_SANDBOX*, KESOKU_TOOL_ENV); default: `auto` with the documented limits. */
  sandbox?: SandboxSettings;
  /** Approval of tool calls (KESOKU_TOOL_APPROVAL, KESOKU_TOOL_AUTO_APPROVE, KESOKU_APPROVAL_TIMEOUT_S). */
  approvals?: ApprovalSettings;
}

/** The worker's approval settings from the configuration. */
export function approvalSettingsFrom(cfg: Config): ApprovalSettings {
  return {
    ...(cfg.KESOKU_TOOL_APPROVAL ? { policy: cfg.KESOKU_TOOL_APPROVAL } : {}),
    autoApprove: cfg.KESOKU_TOOL_AUTO_APPROVE,
    timeoutS: cfg.KESOKU_APPROVAL_TIMEOUT_S,
  };
}

/** Time after the drain at which a worker that still has not stopped gives up waiting for its activities, in s. */
export const FORCE_STOP_AFTER_DRAIN_S = 60;

/** Bundles the workflow code once (a few seconds), for reuse across workers. */
export async function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: undefined });
}

export async function createKesokuWorker(s: WorkerSettings): Promise<Worker> {
  // Probed once: bubblewrap works here, or a loud warning (or, with KESOKU_SANDBOX=required, no worker).
  const sandbox = await prepareSandbox(s.sandbox ?? defaultSandboxSettings(s.dataDir));
  const warning = sandboxWarning(sandbox);
  if (warning) {
    s.logger.warn({ sandbox: sandbox.reason }, warning);
    if (process.stderr.isTTY) process.stderr.write(`kesoku: ${warning}\n`);
  } else {
    s.logger.info({ network: sandbox.settings.network }, 'tool commands run in a bubblewrap sandbox');
  }
  const activities = {
    ...createPersistenceActivities({
      pool: s.pool,
      logger: s.logger,
      defaultLocale: s.defaultLocale,
      platformMessageIdKeys: platformMessageIdKeys(),
    }),
    ...createModelActivities({
      pool: s.pool,
      logger: s.logger,
      llm: s.llm,
      tools: toolSpecs,
      maxSteps: s.maxSteps,
      compactTokens: s.compactTokens,
      workspaceDirFor: (sessionId) => workspaceDirFor(s.dataDir, sessionId),
      deltaIntervalMs: s.deltaIntervalMs,
    }),
    ...createToolActivities({
      pool: s.pool,
      logger: s.logger,
      dataDir: s.dataDir,
      defaultTimeoutMs: s.shellTimeoutMs,
      sandbox,
      secretNames: channelSecretKeys(),
    }),
    ...createDeliveryActivities({ pool: s.pool, logger: s.logger, sinks: s.sinks ?? {} }),
    ...createApprovalActivities({
      pool: s.pool,
      logger: s.logger,
      settings: s.approvals,
      sinks: s.sinks ?? {},
      approvalDefaultOf,
    }),
  };
  return Worker.create({
    connection: s.connection,
    namespace: s.namespace,
    taskQueue: s.taskQueue,
    ...(s.workflowBundle ? { workflowBundle: s.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities,
    ...(s.dataConverter ? { dataConverter: s.dataConverter } : {}),
    maxConcurrentActivityTaskExecutions: 200,
    maxConcurrentLocalActivityExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: Math.min(100, s.maxCachedSessions ?? 100),
    ...(s.maxCachedSessions ? { maxCachedWorkflows: s.maxCachedSessions } : {}),
    // Cancellation reaches an activity only with a heartbeat's answer: flush heartbeats at least every 500 ms (by
    // default) so /stop kills a tool's process group within 2 s (the SDK's throttle is 80 % of the heartbeat timeout).
    maxHeartbeatThrottleInterval: s.heartbeatThrottleMs ?? 500,
    // Drain: on shutdown the worker stops polling at once, lets running activities finish (they keep heartbeating)
    // for the drain time, then cancels them; a tool command cancelled this way stores an "interrupted" result.
    shutdownGraceTime: (s.drainS ?? 300) * 1000,
    shutdownForceTime: ((s.drainS ?? 300) + FORCE_STOP_AFTER_DRAIN_S) * 1000,
    ...(s.deployment
      ? {
          workerDeploymentOptions: {
            version: { deploymentName: s.deployment.name, buildId: s.deployment.buildId },
            useWorkerVersioning: true,
            defaultVersioningBehavior: 'AUTO_UPGRADE' as const,
          },
        }
      : {}),
    ...(s.activityInterceptors?.length ? { interceptors: { activity: s.activityInterceptors } } : {}),
  });
}

/**
 * Builds a Kesoku worker: the workflow bundle plus every activity, wired to one pg pool, the model
 * configuration and the channel sinks (the channels' metadata keys from adapters/registry.ts). Used by
 * `npm run worker` (bin/worker.ts), `npm start` (bin/start.ts) and the tests.
 */
import { toolTaskQueueOf } from '../workflows/definitions.ts';
import { MAX_HEARTBEAT_THROTTLE_MS } from '../domain/tool-limits.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  Worker,
  type ActivityInterceptorsFactory,
  type NativeConnection,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import {
  createDeliveryActivities,
  createToolOutputPresenter,
  type ChannelSink,
} from '../activities/delivery.ts';
import { createModelActivities } from '../activities/llm/activities.ts';
import type { LlmConfig } from '../activities/llm/provider.ts';
import { createPersistenceActivities } from '../activities/persistence.ts';
import { approvalDefaultOf, channelSecretKeys, platformMessageIdKeys } from '../adapters/registry.ts';
import {
  createApprovalActivities,
  createApprovalJudge,
  type ApprovalSettings,
} from '../activities/approvals.ts';
import type { Config } from '../infra/config.ts';
import { createToolActivities, workspaceDirFor } from '../activities/tools/activities.ts';
import { combineToolSources, toolSpecs } from '../activities/tools/registry.ts';
import { loadSkills } from '../activities/knowledge/skills.ts';
import { KnowledgeTools, knowledgeToolSpecs } from '../activities/knowledge/tools.ts';
import { sweepDataDir } from '../activities/tools/workspace-limits.ts';
import {
  defaultSandboxSettings,
  prepareSandbox,
  reportSandbox,
  sandboxWarning,
  type SandboxSettings,
} from '../activities/tools/sandbox.ts';
import type { McpConfig } from '../activities/mcp/config.ts';
import { createMcpServers } from '../activities/mcp/servers.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';
import type { DataConverter } from '@temporalio/common';
import { Client } from '@temporalio/client';
import { createScheduleActivities } from '../activities/schedules.ts';
import { capabilitiesOf } from '../adapters/registry.ts';
import { ScheduleService } from '../infra/schedules.ts';
import { SCHEDULE_TOOL_SPECS, scheduleTools } from '../activities/tools/schedule-tools.ts';
import { createJobActivities } from '../activities/jobs.ts';
import { BackgroundJobs, type JobLimits } from '../infra/jobs.ts';
import { SessionClient } from '../infra/session-client.ts';

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
   * every Kesoku workflow (session and title) is PINNED: a run stays on the build it started on, so a deploy, a
   * ramp or a rollback never replays a history on other code. Sessions move to the current build by ending idle
   * runs (workflows/session.ts; docs/operations.md "Rolling out new code").
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
  /**
   * MCP servers whose tools the agent may call (KESOKU_MCP_CONFIG, activities/mcp/config.ts loadMcpConfig) and
   * how many are offered by name (KESOKU_MCP_MAX_TOOLS). Their connections are this worker's, closed when it
   * stops.
   */
  mcp?: { config: McpConfig | null; maxListed?: number; connectTimeoutMs?: number };
  /**
   * The session client scheduled prompts are submitted with (and schedules created by the model's tools); its
   * task queue must be this worker's. Default: one on `connection` with this worker's data converter.
   */
  sessions?: SessionClient;
  /** Zone of schedules that name none (KESOKU_TIMEZONE); default the server's. */
  defaultZone?: string;
  /**
   * Activities run at once on the session task queue (model steps, deliveries, writes), and as many local
   * activities. Default 100 (`KESOKU_WORKER_ACTIVITY_SLOTS`).
   */
  activitySlots?: number;
  /** Tool runs at once, on the tool task queue (`toolTaskQueueOf`). Default 40 (`KESOKU_WORKER_TOOL_SLOTS`). */
  toolSlots?: number;
  /**
   * The pool tool runs use (sized to the tool slots), so that tools never hold the connections model steps,
   * deliveries and writes need; default `pool`.
   */
  toolPool?: Pool;
  /** The skills folder (KESOKU_SKILLS_DIR, activities/knowledge/skills.ts); unset: no skills. */
  skillsDir?: string;
  /** Sessions and channels with a shared memory scope (KESOKU_MEMORY_SHARED_SCOPES, domain/people.ts); default none. */
  memorySharedScopes?: readonly string[];
  /** Background job limits (KESOKU_JOB_TIMEOUT_S, KESOKU_JOBS_PER_SESSION); default the configuration's defaults. */
  jobLimits?: JobLimits;
}

/**
 * A Kesoku worker: one Temporal worker on the session task queue (workflows, model steps, deliveries, writes) and
 * one on the tool task queue (tool runs), each with its own slots; started, stopped and observed together.
 */
export class KesokuWorker {
  readonly main: Worker;
  readonly tools: Worker;
  constructor(main: Worker, tools: Worker) {
    this.main = main;
    this.tools = tools;
  }

  /** Runs both until both stopped; when one stops with an error, the other is shut down and the error thrown. */
  async run(): Promise<void> {
    const runs = [this.main, this.tools].map((w) =>
      w.run().catch((err: unknown) => {
        this.shutdown();
        throw err;
      }),
    );
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Begins the graceful shutdown of both (drain, then cancel); `run()` resolves once both stopped. */
  shutdown(): void {
    for (const w of [this.main, this.tools]) if (w.getState() === 'RUNNING') w.shutdown();
  }

  /**
   * The state of the pair: the less advanced of the two workers' states. The SDK's signal handling shuts both
   * down at once, and the session-queue worker, with only short activities, is often STOPPED while the tool
   * worker still drains a command: the pair is then still DRAINING.
   */
  getState(): WorkerState {
    return lessAdvanced(this.main.getState(), this.tools.getState());
  }

  /** Activities (not local ones) running now on both queues. */
  getStatus(): { numInFlightNonLocalActivities: number } {
    return {
      numInFlightNonLocalActivities:
        this.main.getStatus().numInFlightNonLocalActivities +
        this.tools.getStatus().numInFlightNonLocalActivities,
    };
  }
}

type WorkerState = ReturnType<Worker['getState']>;

/** Worker states in the order a worker goes through them; FAILED counts as ended, like STOPPED. */
const STATE_ORDER: readonly WorkerState[] = [
  'INITIALIZED',
  'RUNNING',
  'STOPPING',
  'DRAINING',
  'DRAINED',
  'FAILED',
  'STOPPED',
];

/** Of two worker states, the one earlier in a worker's life (e.g. DRAINING over STOPPED). */
export function lessAdvanced(a: WorkerState, b: WorkerState): WorkerState {
  return STATE_ORDER.indexOf(a) <= STATE_ORDER.indexOf(b) ? a : b;
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

/**
 * Builds the worker pair (see {@link KesokuWorker}): the sandbox probed, MCP servers connected, activities wired.
 * @throws what Worker.create throws (e.g. an unreachable server); MCP connections are closed then
 */
export async function createKesokuWorker(s: WorkerSettings): Promise<KesokuWorker> {
  // Probed once: bubblewrap works here, or a loud warning (or, with KESOKU_SANDBOX=required, no worker).
  const sandbox = await prepareSandbox(s.sandbox ?? defaultSandboxSettings(s.dataDir));
  reportSandbox(sandbox);
  void sweepDataDir(s.dataDir, sandbox.settings.retentionDays);
  const warning = sandboxWarning(sandbox);
  if (warning) {
    s.logger.warn({ sandbox: sandbox.reason }, warning);
    if (process.stderr.isTTY) process.stderr.write(`kesoku: ${warning}\n`);
  } else {
    s.logger.info(
      { network: sandbox.settings.network, seccomp: sandbox.seccompFile !== undefined },
      'tool commands run in a bubblewrap sandbox',
    );
  }
  if (!sandbox.cgroups && sandbox.kind !== 'unavailable')
    s.logger.info(
      { reason: sandbox.cgroupReason },
      'no cgroup for tool commands: memory and processes are limited per process only (docs/sandbox.md "Limits")',
    );
  const mcp = s.mcp?.config?.servers.length
    ? createMcpServers({
        config: s.mcp.config,
        pool: s.pool,
        logger: s.logger,
        dataDir: s.dataDir,
        sandbox,
        secretNames: channelSecretKeys(),
        ...(s.mcp.maxListed !== undefined ? { maxListed: s.mcp.maxListed } : {}),
        ...(s.mcp.connectTimeoutMs ? { connectTimeoutMs: s.mcp.connectTimeoutMs } : {}),
      })
    : undefined;
  const sessions =
    s.sessions ??
    new SessionClient({
      client: new Client({
        connection: s.connection,
        namespace: s.namespace,
        ...(s.dataConverter ? { dataConverter: s.dataConverter } : {}),
      }),
      taskQueue: s.taskQueue,
      capabilities: capabilitiesOf,
    });
  const schedules = new ScheduleService({
    client: sessions.client,
    pool: s.pool,
    taskQueue: sessions.taskQueue,
    logger: s.logger,
    ...(s.defaultZone ? { defaultZone: s.defaultZone } : {}),
  });
  const skills = loadSkills(s.skillsDir);
  for (const p of skills.problems)
    s.logger.warn({ file: p.file, problem: p.problem }, 'skill file skipped (docs/memory.md "Skills")');
  if (s.skillsDir)
    s.logger.info({ dir: s.skillsDir, skills: skills.skills.map((k) => k.name) }, 'skills loaded');
  const sharedMemoryScopes = new Set(s.memorySharedScopes ?? []);
  const knowledge = new KnowledgeTools({ pool: s.pool, skills, sharedScopes: sharedMemoryScopes });
  // Background jobs start their workflows and submit their alerts through a client on the worker's connection.
  const jobClient = new Client({
    connection: s.connection,
    namespace: s.namespace,
    ...(s.dataConverter ? { dataConverter: s.dataConverter } : {}),
  });
  const backgroundJobs = new BackgroundJobs({
    client: jobClient,
    pool: s.pool,
    taskQueue: s.taskQueue,
    ...(s.jobLimits ? { limits: s.jobLimits } : {}),
    logger: s.logger,
  });
  const jobDeps = {
    pool: s.pool,
    logger: s.logger,
    dataDir: s.dataDir,
    sandbox,
    secretNames: channelSecretKeys(),
    sessions: new SessionClient({
      client: jobClient,
      taskQueue: s.taskQueue,
      capabilities: capabilitiesOf,
    }),
  };
  const approvalRules = {
    pool: s.pool,
    settings: s.approvals,
    approvalDefaultOf,
    ...(mcp ? { toolApproval: (name: string) => mcp.tools.approvalOf(name) } : {}),
  };
  const activities = {
    ...createScheduleActivities({ pool: s.pool, logger: s.logger, sessions }),
    // runBackgroundJob stays here too, for job runs started before patch `job-on-tool-queue`.
    ...createJobActivities(jobDeps),
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
      tools: [...toolSpecs, ...knowledgeToolSpecs(skills)],
      skills: skills.skills.map(({ name, description, when_to_use }) => ({ name, description, when_to_use })),
      sharedMemoryScopes,
      // The schedule tools, then the MCP servers' (which are never offered under a host or schedule tool's name).
      extraTools: async (sessionId: string) => [
        ...SCHEDULE_TOOL_SPECS,
        ...(mcp ? await mcp.tools.offered(sessionId) : []),
      ],
      maxSteps: s.maxSteps,
      compactTokens: s.compactTokens,
      workspaceDirFor: (sessionId) => workspaceDirFor(s.dataDir, sessionId),
      deltaIntervalMs: s.deltaIntervalMs,
      approvals: createApprovalJudge(approvalRules),
    }),
    ...createDeliveryActivities({ pool: s.pool, logger: s.logger, sinks: s.sinks ?? {} }),
    ...createApprovalActivities({ ...approvalRules, logger: s.logger, sinks: s.sinks ?? {} }),
  };
  const toolActivities = {
    // A background job's command: hours long, so on the tool queue's own slots (workflows/background-job.ts).
    runBackgroundJob: createJobActivities({ ...jobDeps, pool: s.toolPool ?? s.pool }).runBackgroundJob,
    ...createToolActivities({
      pool: s.toolPool ?? s.pool,
      logger: s.logger,
      dataDir: s.dataDir,
      defaultTimeoutMs: s.shellTimeoutMs,
      sandbox,
      secretNames: channelSecretKeys(),
      extraTools: combineToolSources(scheduleTools(schedules, s.pool), knowledge, mcp?.tools),
      backgroundJobs,
      presentToolOutput: createToolOutputPresenter({ pool: s.pool, logger: s.logger, sinks: s.sinks ?? {} }),
    }),
  };
  const common = {
    connection: s.connection,
    namespace: s.namespace,
    ...(s.dataConverter ? { dataConverter: s.dataConverter } : {}),
    // Cancellation reaches an activity only with a heartbeat's answer: flush heartbeats at least every 500 ms (by
    // default) so /stop kills a tool's process group within 2 s. Never above a quarter of the tool heartbeat
    // timeout, so one slow heartbeat cannot time a running command out.
    maxHeartbeatThrottleInterval: Math.min(s.heartbeatThrottleMs ?? 500, MAX_HEARTBEAT_THROTTLE_MS),
    // Drain: on shutdown the worker stops polling at once, lets running activities finish (they keep heartbeating)
    // for the drain time, then cancels them; a tool command cancelled this way stores an "interrupted" result.
    shutdownGraceTime: (s.drainS ?? 300) * 1000,
    shutdownForceTime: ((s.drainS ?? 300) + FORCE_STOP_AFTER_DRAIN_S) * 1000,
    ...(s.deployment
      ? {
          workerDeploymentOptions: {
            version: { deploymentName: s.deployment.name, buildId: s.deployment.buildId },
            useWorkerVersioning: true as const,
            // Set per worker, not per workflow definition: an unversioned worker refuses workflow tasks that
            // declare a versioning behaviour.
            defaultVersioningBehavior: 'PINNED' as const,
          },
        }
      : {}),
    ...(s.activityInterceptors?.length ? { interceptors: { activity: s.activityInterceptors } } : {}),
  };
  const slots = s.activitySlots ?? 100;
  const worker = await Promise.all([
    Worker.create({
      ...common,
      taskQueue: s.taskQueue,
      ...(s.workflowBundle ? { workflowBundle: s.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
      activities,
      maxConcurrentActivityTaskExecutions: slots,
      maxConcurrentLocalActivityExecutions: slots,
      maxConcurrentWorkflowTaskExecutions: Math.min(100, s.maxCachedSessions ?? 100),
      ...(s.maxCachedSessions ? { maxCachedWorkflows: s.maxCachedSessions } : {}),
    }),
    Worker.create({
      ...common,
      taskQueue: toolTaskQueueOf(s.taskQueue),
      activities: toolActivities,
      maxConcurrentActivityTaskExecutions: s.toolSlots ?? 40,
    }),
  ])
    .then(([main, tools]) => new KesokuWorker(main, tools))
    .catch(async (err: unknown) => {
      await mcp?.close();
      throw err;
    });
  if (mcp) {
    // The MCP connections live as long as the worker runs: closed (stdio servers stopped, HTTP sessions ended)
    // once it has stopped, however it stopped.
    const run = worker.run.bind(worker);
    worker.run = async () => {
      try {
        await run();
      } finally {
        await mcp.close();
      }
    };
  }
  return worker;
}

/**
 * A real Kesoku stack for one test file: the run's Temporal dev server and Postgres database (from
 * test/global-setup.ts), a fake model server on 127.0.0.1 speaking the Chat Completions wire protocol, and an
 * in-process worker on a task queue of its own (so test files running in parallel never share tasks).
 */
import { capabilitiesOf } from '../../adapters/registry.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../infra/temporal-connection.ts';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import type { ChannelSink } from '../../activities/delivery.ts';
import type { ApprovalSettings } from '../../activities/approvals.ts';
import type { LlmConfig } from '../../activities/llm/provider.ts';
import type { McpConfig } from '../../activities/mcp/config.ts';
import type { Message, Status } from '../../domain/message.ts';
import { getMessage, listSessionMessages } from '../../db/messages.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { createLogger } from '../../infra/logger.ts';
import { SessionClient } from '../../infra/session-client.ts';
import type { InboundMessage, SubmitResult } from '../../workflows/definitions.ts';
import { createKesokuWorker, type KesokuWorker } from '../../workers/build-worker.ts';
import {
  startFakeModelServer,
  type FakeModelServer,
  type FakeReply,
  type FakeRequest,
} from '../fakes/model-server.ts';
import { sessionDirName } from '../../activities/tools/activities.ts';
import { AesGcmPayloadCodec, PAYLOAD_KEYS_FILE, resolvePayloadKeys } from '../../infra/payload-codec.ts';
import { writePrivateFileExclusive } from '../../infra/private-files.ts';
import { TEST_PAYLOAD_KEYS } from './histories.ts';

export interface StackOptions {
  /** Model settings; defaults to the fake server with provider openai-compatible. */
  llm?: Partial<LlmConfig> | null;
  apiKey?: string;
  maxSteps?: number;
  compactTokens?: number;
  shellTimeoutMs?: number;
  sinks?: Record<string, ChannelSink>;
  continueAsNewAfterTurns?: number;
  /** History events per run before continue-as-new (KESOKU_CONTINUE_AS_NEW_EVENTS); default the product's. */
  continueAsNewAfterEvents?: number;
  /** Start no worker (the test starts its own, e.g. in a child process). */
  noWorker?: boolean;
  /** Locale of new sessions, as KESOKU_LOCALE sets it. */
  defaultLocale?: string;
  /** Tool-call approval of the worker; default `{policy: 'off'}` (commands run without asking). */
  approvals?: ApprovalSettings;
  /** MCP servers of the worker (test/support/mcp.ts `mcpConfig`) and KESOKU_MCP_MAX_TOOLS. */
  mcp?: { config: McpConfig; maxListed?: number };
  /** Worker slots on the session task queue and on the tool task queue (KESOKU_WORKER_*_SLOTS). */
  activitySlots?: number;
  toolSlots?: number;
  /** The worker's skills folder (KESOKU_SKILLS_DIR). */
  skillsDir?: string;
  /** Sessions and channels with a shared memory scope (KESOKU_MEMORY_SHARED_SCOPES). */
  memorySharedScopes?: string[];
}

export interface Stack {
  pool: Pool;
  client: Client;
  sessions: SessionClient;
  fake: FakeModelServer;
  taskQueue: string;
  dataDir: string;
  databaseUrl: string;
  temporalAddress: string;
  llm: LlmConfig | null;
  /** The payload codec of the stack's client and worker (key TEST_PAYLOAD_KEYS, also in `<dataDir>/payload-keys`). */
  payloadCodec: AesGcmPayloadCodec;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
  /** Submits `content` to `sessionId` as chatbot `api`. */
  submit(sessionId: string, content: string, extra?: Partial<InboundMessage>): Promise<SubmitResult>;
  /** Polls Postgres until message `id` has one of `statuses`. */
  waitForStatus(id: string, statuses: Status[], timeoutMs?: number): Promise<Message>;
  messages(sessionId: string): Promise<Message[]>;
  /**
   * Scripts the fake model's next replies for one session's model steps only (title requests and other
   * sessions are unaffected). Requests are matched by the session's workspace path in the system prompt.
   */
  script(sessionId: string, ...replies: FakeReply[]): void;
  /** Scripts replies for requests `matches` selects (e.g. a title request), ahead of the session scripts. */
  scriptWhen(matches: (r: FakeRequest) => boolean, ...replies: FakeReply[]): void;
  /** The chat requests the fake model received for one session's steps (title requests excluded). */
  requestsOf(sessionId: string): FakeRequest[];
}

let counter = 0;
/** A unique id for sessions and messages in tests. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/**
 * What the integration project's global setup provides (test/global-setup.ts).
 * @throws Error when a test outside that project asks for it: a test that needs the stack is named
 *   `*.stack.test.ts` (or lives under test/), docs/testing.md
 */
export function stackContext(): { databaseUrl: string; temporalAddress: string; workflowBundlePath: string } {
  const databaseUrl = inject('databaseUrl');
  const temporalAddress = inject('temporalAddress');
  const workflowBundlePath = inject('workflowBundlePath');
  if (!databaseUrl || !temporalAddress || !workflowBundlePath)
    throw new Error(
      'this test needs Temporal and Postgres: name it *.stack.test.ts so that it runs in the integration project',
    );
  return { databaseUrl, temporalAddress, workflowBundlePath };
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const { databaseUrl, temporalAddress, workflowBundlePath: bundlePath } = stackContext();
  const logger = createLogger('test', process.env.KESOKU_TEST_LOG ?? 'silent');
  const pool = createPool(databaseUrl);
  const fake = await startFakeModelServer({ apiKey: opts.apiKey });
  const taskQueue = uniqueId('tq');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-stack-'));
  // Payloads are encrypted as in production; the key file lets child processes (stackEnv) use the same key.
  writePrivateFileExclusive(path.join(dataDir, PAYLOAD_KEYS_FILE), `${TEST_PAYLOAD_KEYS}\n`);
  const payloadCodec = new AesGcmPayloadCodec(resolvePayloadKeys({ dataDir, create: false }).keys);
  const dataConverter = { payloadCodecs: [payloadCodec] };
  const connection = await connectTemporal({ address: temporalAddress });
  const client = new Client({ connection, namespace: 'default', dataConverter });
  const sessions = new SessionClient({
    client,
    taskQueue,
    continueAsNewAfterTurns: opts.continueAsNewAfterTurns,
    continueAsNewAfterEvents: opts.continueAsNewAfterEvents,
    modelRequestTimeoutMs: opts.llm?.requestTimeoutMs ?? 10_000,
    capabilities: capabilitiesOf,
  });
  const llm: LlmConfig | null =
    opts.llm === null
      ? null
      : {
          provider: 'openai-compatible',
          baseUrl: fake.url,
          apiKey: opts.apiKey,
          model: 'fake-model',
          requestTimeoutMs: 10_000,
          ...opts.llm,
        };

  const scripts = new Map<string, FakeReply[]>();
  const systemText = (r: FakeRequest) =>
    (r.body?.messages ?? [])
      .filter((m) => m.role === 'system')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n');
  const belongsTo = (r: FakeRequest, sessionId: string) =>
    systemText(r).includes(`${path.sep}workspaces${path.sep}${sessionDirName(sessionId)}.`);
  const predicates: { matches: (r: FakeRequest) => boolean; replies: FakeReply[] }[] = [];
  fake.setRespond((r) => {
    for (const p of predicates) if (p.replies.length > 0 && p.matches(r)) return p.replies.shift();
    for (const [sessionId, queue] of scripts) {
      if (queue.length > 0 && belongsTo(r, sessionId)) return queue.shift();
    }
    return undefined;
  });

  let native: NativeConnection | null = null;
  let worker: KesokuWorker | null = null;
  let running: Promise<void> | null = null;

  const stack: Stack = {
    pool,
    client,
    sessions,
    fake,
    taskQueue,
    dataDir,
    databaseUrl,
    temporalAddress,
    llm,
    payloadCodec,
    async startWorker() {
      native ??= await NativeConnection.connect({ address: temporalAddress });
      worker = await createKesokuWorker({
        connection: native,
        namespace: 'default',
        taskQueue,
        pool,
        logger,
        llm,
        dataDir,
        maxSteps: opts.maxSteps ?? 8,
        compactTokens: opts.compactTokens ?? 64_000,
        shellTimeoutMs: opts.shellTimeoutMs ?? 30_000,
        sinks: opts.sinks,
        defaultLocale: opts.defaultLocale,
        approvals: opts.approvals ?? { policy: 'off' },
        ...(opts.mcp ? { mcp: opts.mcp } : {}),
        ...(opts.activitySlots ? { activitySlots: opts.activitySlots } : {}),
        ...(opts.toolSlots ? { toolSlots: opts.toolSlots } : {}),
        ...(opts.skillsDir ? { skillsDir: opts.skillsDir } : {}),
        ...(opts.memorySharedScopes ? { memorySharedScopes: opts.memorySharedScopes } : {}),
        workflowBundle: { codePath: bundlePath },
        deltaIntervalMs: 50,
        dataConverter,
      });
      running = worker.run();
    },
    async stopWorker() {
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => undefined);
      worker = null;
      running = null;
    },
    async stop() {
      await stack.stopWorker();
      await native?.close().catch(() => undefined);
      await connection.close();
      await fake.close();
      await pool.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    async submit(sessionId, content, extra = {}) {
      return sessions.submit(
        { sessionId, chatbotId: 'api', channelId: sessionId },
        { id: uniqueId('m'), content, sender: 'tester', receivedAt: new Date().toISOString(), ...extra },
      );
    },
    async waitForStatus(id, statuses, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: Message | null = null;
      while (Date.now() < deadline) {
        last = await getMessage(pool, id);
        if (last && statuses.includes(last.status)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(
        `message ${id} did not reach ${statuses.join('|')} within ${timeoutMs} ms (last: ${last?.status ?? 'missing'})`,
      );
    },
    messages: (sessionId) => listSessionMessages(pool, sessionId),
    script(sessionId, ...replies) {
      scripts.set(sessionId, [...(scripts.get(sessionId) ?? []), ...replies]);
    },
    scriptWhen(matches, ...replies) {
      predicates.push({ matches, replies });
    },
    requestsOf: (sessionId) => fake.chatRequests().filter((r) => belongsTo(r, sessionId)),
  };
  if (!opts.noWorker) await stack.startWorker();
  return stack;
}

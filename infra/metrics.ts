/**
 * Prometheus metrics of a Kesoku process, served with `/healthz` on `KESOKU_METRICS_HOST:KESOKU_METRICS_PORT`
 * (see {@link startMetricsServer}). `/metrics` is Kesoku's own series (prom-client, names `kesoku_*`) followed by
 * the Temporal SDK runtime's (its built-in Prometheus exporter, names `temporal_*`, bound to a private loopback
 * port and re-served here so there is one endpoint per process).
 *
 * Kesoku's series (units in the names):
 * - `kesoku_turns_total{outcome}`: turns ended, by final status (processed, interrupted, error);
 * - `kesoku_turn_duration_seconds{outcome}`: from the trigger message's arrival to the turn's end;
 * - `kesoku_model_call_duration_seconds{outcome}` and `kesoku_model_tokens_total{kind}` (input, output);
 * - `kesoku_tool_call_duration_seconds{outcome}`: shell/file tool runs (ok, failed, error);
 * - `kesoku_activity_duration_seconds{activity,outcome}`: every activity this worker ran;
 * - `kesoku_delivery_failures_total`: failed attempts to hand a message to a channel;
 * - `kesoku_queue_depth`: messages waiting for the agent (`pending_agent`), read from Postgres at scrape;
 * - `kesoku_sse_clients`: open `GET …/events` streams on this API process;
 * - Node process metrics (`kesoku_process_*`, `kesoku_nodejs_*`).
 */
import http from 'node:http';
import { currentSandboxHealth } from './sandbox-health.ts';
import type { AddressInfo } from 'node:net';
import type { ActivityInboundCallsInterceptor, ActivityExecuteInput, Next } from '@temporalio/worker';
import type { Context } from '@temporalio/activity';
import client from 'prom-client';
import type { Pool } from '../db/pool.ts';
import type { Logger } from './logger.ts';
import { probeComponents, type ComponentHealth } from './health.ts';

/** The registry of Kesoku's own series (one per process). */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'kesoku_' });

const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

const turns = new client.Counter({
  name: 'kesoku_turns_total',
  help: 'Turns ended, by final status of the trigger message.',
  labelNames: ['outcome'],
  registers: [registry],
});
const turnDuration = new client.Histogram({
  name: 'kesoku_turn_duration_seconds',
  help: 'Time from the trigger message arriving to the turn ending, in seconds.',
  labelNames: ['outcome'],
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});
const modelDuration = new client.Histogram({
  name: 'kesoku_model_call_duration_seconds',
  help: 'Duration of one model step (a streamed model call and its bookkeeping), in seconds.',
  labelNames: ['outcome'],
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});
const modelTokens = new client.Counter({
  name: 'kesoku_model_tokens_total',
  help: 'Tokens the model reported, by kind (input, output).',
  labelNames: ['kind'],
  registers: [registry],
});
const toolDuration = new client.Histogram({
  name: 'kesoku_tool_call_duration_seconds',
  help: 'Duration of one tool call, in seconds; outcome ok, failed (the tool reported failure) or error (the activity failed).',
  labelNames: ['outcome'],
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});
const activityDuration = new client.Histogram({
  name: 'kesoku_activity_duration_seconds',
  help: 'Duration of every activity attempt this worker ran, in seconds, by activity type and outcome (ok, error, cancelled).',
  labelNames: ['activity', 'outcome'],
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});
const deliveryFailures = new client.Counter({
  name: 'kesoku_delivery_failures_total',
  help: 'Failed attempts to hand a message to its channel.',
  registers: [registry],
});
const sseClients = new client.Gauge({
  name: 'kesoku_sse_clients',
  help: 'Open server-sent event streams on this API process.',
  registers: [registry],
});

let queuePool: Pool | null = null;
new client.Gauge({
  name: 'kesoku_queue_depth',
  help: 'Messages waiting for the agent (status pending_agent), across all sessions; read from Postgres at scrape.',
  registers: [registry],
  async collect() {
    if (!queuePool) return;
    try {
      const r = await queuePool.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM messages WHERE status = 'pending_agent'`,
      );
      this.set(Number(r.rows[0]?.n ?? 0));
    } catch {
      // Postgres not answering: keep the last value; /healthz says why.
    }
  },
});

/** Lets the queue-depth gauge read Postgres through `pool` (call once per process). */
export function useMetricsPool(pool: Pool): void {
  queuePool = pool;
}

/**
 * Records a turn's end, once per turn (call where its final status is first committed).
 * @param outcome the trigger's final status
 * @param arrivedAt when the trigger message was stored (ISO string, epoch ms or Date)
 */
export function recordTurn(outcome: string, arrivedAt: string | number | Date): void {
  turns.inc({ outcome });
  const seconds = (Date.now() - new Date(arrivedAt).getTime()) / 1000;
  if (Number.isFinite(seconds) && seconds >= 0) turnDuration.observe({ outcome }, seconds);
}

/** Adds the token counts a model call reported. */
export function recordModelTokens(inputTokens: number | undefined, outputTokens: number | undefined): void {
  if (inputTokens && inputTokens > 0) modelTokens.inc({ kind: 'input' }, inputTokens);
  if (outputTokens && outputTokens > 0) modelTokens.inc({ kind: 'output' }, outputTokens);
}

/** Counts a failed delivery attempt. */
export function recordDeliveryFailure(): void {
  deliveryFailures.inc();
}

/** Counts an open SSE stream until `res` closes. */
export function trackSseClient(res: { once(event: 'close', fn: () => void): unknown }): void {
  sseClients.inc();
  res.once('close', () => sseClients.dec());
}

/** Activity types with a series of their own besides `kesoku_activity_duration_seconds`. */
const MODEL_ACTIVITIES = new Set(['runModelStep', 'compactSession', 'generateTitle']);

/**
 * Times every activity attempt (an activity inbound interceptor; add it to the worker's `interceptors.activity`).
 * Model and tool activities also feed their own histograms; a failed `deliverMessage` counts a delivery failure.
 */
export function activityMetricsInterceptor(ctx: Context): { inbound: ActivityInboundCallsInterceptor } {
  const type = ctx.info.activityType;
  return {
    inbound: {
      async execute(
        input: ActivityExecuteInput,
        next: Next<ActivityInboundCallsInterceptor, 'execute'>,
      ): Promise<unknown> {
        const started = performance.now();
        let outcome = 'ok';
        let result: unknown;
        try {
          result = await next(input);
          return result;
        } catch (err) {
          outcome = ctx.cancellationSignal.aborted ? 'cancelled' : 'error';
          if (type === 'deliverMessage') recordDeliveryFailure();
          throw err;
        } finally {
          const seconds = (performance.now() - started) / 1000;
          activityDuration.observe({ activity: type, outcome }, seconds);
          if (MODEL_ACTIVITIES.has(type)) modelDuration.observe({ outcome }, seconds);
          if (type === 'runToolCall') {
            const ok = (result as { ok?: unknown } | undefined)?.ok;
            toolDuration.observe(
              { outcome: outcome !== 'ok' ? 'error' : ok === false ? 'failed' : 'ok' },
              seconds,
            );
          }
        }
      },
    },
  };
}

export interface MetricsServerOptions {
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  logger: Logger;
  /** The Temporal SDK runtime's Prometheus exporter (`http://127.0.0.1:<port>/metrics`), when installed. */
  coreMetricsUrl?: string;
  /** Component states for `/healthz` (e.g. the Discord gateway). */
  health?: () => Promise<ComponentHealth>;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** The text of `/metrics`: Kesoku's series, then the SDK runtime's (skipped with a comment when unreachable). */
export async function metricsText(coreMetricsUrl?: string): Promise<string> {
  let text = await registry.metrics();
  if (coreMetricsUrl) {
    try {
      const r = await fetch(coreMetricsUrl, { signal: AbortSignal.timeout(3000) });
      text += '\n' + (await r.text());
    } catch (err) {
      text += `\n# Temporal SDK metrics unavailable: ${String(err).replace(/\n/g, ' ')}\n`;
    }
  }
  return text;
}

/**
 * Serves `GET /metrics` (Prometheus text format 0.0.4) and `GET /healthz` (JSON; 503 when a component is down).
 * @throws when the port cannot be bound
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    void (async () => {
      if (req.method === 'GET' && path === '/metrics') {
        const text = await metricsText(opts.coreMetricsUrl);
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(text);
      } else if (req.method === 'GET' && path === '/healthz') {
        const components = opts.health ? await probeComponents(opts.health, 5000) : {};
        const ok = Object.values(components).every((c) => c.ok);
        const sandbox = currentSandboxHealth();
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            status: ok ? 'ok' : 'unavailable',
            ...components,
            ...(sandbox ? { sandbox } : {}),
          }),
        );
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found: try /metrics or /healthz\n');
      }
    })().catch((err: unknown) => {
      opts.logger.warn({ err: String(err) }, 'metrics request failed');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

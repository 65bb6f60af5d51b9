/**
 * Dependency health for `GET /healthz`: does Temporal answer (GetSystemInfo), does Postgres answer (`SELECT 1`),
 * and, where the process runs them, the state of its other components (e.g. the Discord gateway connection),
 * each within a time limit. The same check answers `/healthz` of the API and of the metrics port
 * (metrics.ts).
 */
import { readMcpServers, type McpStatusReport } from '../db/mcp-status.ts';
import type { Pool } from '../db/pool.ts';
import { currentSandboxHealth, type SandboxHealth } from './sandbox-health.ts';
import type { SessionClient } from './session-client.ts';

/** A process's own components by name (e.g. `discord: { ok, gateway, pingMs }`); `ok` false fails the check. */
export type ComponentHealth = Record<string, { ok: boolean; [detail: string]: unknown }>;

/**
 * Whether each dependency answered. `components` is present when the process runs components of its own (by
 * name, e.g. `discord: { ok, gateway, pingMs }`); one with `ok` false makes the whole check fail.
 */
export interface HealthStatus {
  temporal: boolean;
  postgres: boolean;
  components?: ComponentHealth;
  /**
   * The workers' MCP servers by name (db/mcp-status.ts), when any are reported: shown, but a server that is down
   * does not fail the check (its tools are missing, the agent still works).
   */
  mcp?: Record<string, { state: McpStatusReport['state']; last_error: string | null }>;
  /**
   * The tools' sandbox of the worker in this process (absent where no worker runs): `state` `bwrap`, `off`
   * (KESOKU_SANDBOX=off, tools unsandboxed) or `unavailable` (tools refused). Informational: it does not make
   * the check fail, so a worker whose tools are refused keeps answering chats.
   */
  sandbox?: SandboxHealth;
}

/** Resolves to `fallback` if `p` does not settle within `ms` (or rejects). */
export async function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([p.catch(() => fallback), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** True when every dependency and every component answered. */
export function isHealthy(h: HealthStatus): boolean {
  return h.temporal && h.postgres && Object.values(h.components ?? {}).every((c) => c.ok);
}

/**
 * The components' states, bounded by `ms`: a probe that throws or does not answer in time is reported as
 * `{ health: { ok: false, error } }`. @returns never rejects
 */
export async function probeComponents(
  probe: () => Promise<ComponentHealth>,
  ms: number,
): Promise<ComponentHealth> {
  const timedOut: ComponentHealth = { health: { ok: false, error: `no answer within ${ms} ms` } };
  return within(
    probe().catch((err: unknown) => ({ health: { ok: false, error: String(err) } })),
    ms,
    timedOut,
  );
}

/**
 * The default health check. `timeoutMs` (default 3000) bounds each probe; all run in parallel.
 * - `components`: the states of the process's own components (e.g. `discord` where the adapter runs).
 * @returns never rejects
 */
export function createHealthCheck(deps: {
  pool: Pool;
  sessions: SessionClient;
  components?: () => Promise<ComponentHealth>;
  timeoutMs?: number;
}): () => Promise<HealthStatus> {
  const ms = deps.timeoutMs ?? 3000;
  return async () => {
    const connection = deps.sessions.client.connection;
    const [temporal, postgres, components] = await Promise.all([
      within(
        connection
          .withDeadline(Date.now() + ms, () => connection.workflowService.getSystemInfo({}))
          .then(() => true),
        ms + 500,
        false,
      ),
      within(
        deps.pool.query('SELECT 1').then(() => true),
        ms,
        false,
      ),
      deps.components ? probeComponents(deps.components, ms) : undefined,
    ]);
    const servers = postgres ? await within(readMcpServers(deps.pool), ms, []) : [];
    const mcp = Object.fromEntries(
      servers.map((m) => [m.name, { state: m.state, last_error: m.last_error }]),
    );
    const sandbox = currentSandboxHealth();
    return {
      temporal,
      postgres,
      ...(components ? { components } : {}),
      ...(servers.length > 0 ? { mcp } : {}),
      ...(sandbox ? { sandbox } : {}),
    };
  };
}

/**
 * The `mcp_server_status` rows: each worker's view of its MCP servers (state, tools, last error), written by the
 * worker (activities/mcp/status.ts) and read by the API (GET /v1/mcp, /healthz).
 */
import type { Queryable } from './pool.ts';

/** One server as one worker reports it. Times are ISO 8601. */
export interface McpStatusReport {
  name: string;
  transport: 'stdio' | 'http';
  state: 'idle' | 'connecting' | 'ready' | 'failed';
  tools: { name: string; tool: string; description: string }[];
  last_error: string | null;
  last_error_at: string | null;
}

/** A stored report with the worker it came from and when it was last written. */
export interface StoredMcpStatus extends McpStatusReport {
  worker_id: string;
  updated_at: string;
}

/** Seconds after which a report that was not refreshed counts as gone (its worker stopped or died). */
export const MCP_STATUS_FRESH_S = 90;

/** Replaces the reports of `workerId` with `servers` (one transaction). */
export async function writeMcpStatus(
  db: Queryable,
  workerId: string,
  servers: readonly McpStatusReport[],
): Promise<void> {
  await db.query(
    `WITH incoming AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb)
         AS x(name text, transport text, state text, tools jsonb, last_error text, last_error_at timestamptz)
     ), gone AS (
       DELETE FROM mcp_server_status s WHERE s.worker_id = $1 AND s.server NOT IN (SELECT name FROM incoming)
     )
     INSERT INTO mcp_server_status (worker_id, server, transport, state, tools, last_error, last_error_at, updated_at)
     SELECT $1, name, transport, state, tools, last_error, last_error_at, now() FROM incoming
     ON CONFLICT (worker_id, server) DO UPDATE SET transport = EXCLUDED.transport, state = EXCLUDED.state,
       tools = EXCLUDED.tools, last_error = EXCLUDED.last_error, last_error_at = EXCLUDED.last_error_at,
       updated_at = now()`,
    [workerId, JSON.stringify(servers)],
  );
}

/** Deletes the reports of `workerId` (its connections are closed). */
export async function removeMcpStatus(db: Queryable, workerId: string): Promise<void> {
  await db.query(`DELETE FROM mcp_server_status WHERE worker_id = $1`, [workerId]);
}

/** The reports refreshed within {@link MCP_STATUS_FRESH_S}, by server then worker. */
export async function readMcpStatus(db: Queryable): Promise<StoredMcpStatus[]> {
  const res = await db.query<{
    worker_id: string;
    server: string;
    transport: McpStatusReport['transport'];
    state: McpStatusReport['state'];
    tools: McpStatusReport['tools'];
    last_error: string | null;
    last_error_at: Date | null;
    updated_at: Date;
  }>(
    `SELECT * FROM mcp_server_status WHERE updated_at > now() - make_interval(secs => $1)
      ORDER BY server, worker_id`,
    [MCP_STATUS_FRESH_S],
  );
  return res.rows.map((r) => ({
    worker_id: r.worker_id,
    name: r.server,
    transport: r.transport,
    state: r.state,
    tools: r.tools,
    last_error: r.last_error,
    last_error_at: r.last_error_at?.toISOString() ?? null,
    updated_at: r.updated_at.toISOString(),
  }));
}

/** One server as the API shows it: the workers' reports merged. */
export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http';
  /** `ready` when any worker has it connected, else `connecting`, `failed`, `idle` in that order. */
  state: McpStatusReport['state'];
  /** The tools a worker that has it connected lists (else the longest list any worker had). */
  tools: McpStatusReport['tools'];
  /** The most recent error any worker recorded. */
  last_error: string | null;
  last_error_at: string | null;
  workers: {
    worker_id: string;
    state: McpStatusReport['state'];
    last_error: string | null;
    updated_at: string;
  }[];
}

const STATE_RANK: Record<McpStatusReport['state'], number> = { ready: 0, connecting: 1, failed: 2, idle: 3 };

/** The fresh reports merged per server (see {@link McpServerView}), in name order. */
export async function readMcpServers(db: Queryable): Promise<McpServerView[]> {
  const byServer = new Map<string, StoredMcpStatus[]>();
  for (const r of await readMcpStatus(db)) byServer.set(r.name, [...(byServer.get(r.name) ?? []), r]);
  return [...byServer.entries()].map(([name, reports]) => {
    const best = [...reports].sort((a, b) => STATE_RANK[a.state] - STATE_RANK[b.state])[0]!;
    const withTools =
      best.state === 'ready' ? best : [...reports].sort((a, b) => b.tools.length - a.tools.length)[0]!;
    const lastError = reports
      .filter((r) => r.last_error_at !== null)
      .sort((a, b) => (a.last_error_at! < b.last_error_at! ? 1 : -1))[0];
    return {
      name,
      transport: best.transport,
      state: best.state,
      tools: withTools.tools,
      last_error: lastError?.last_error ?? null,
      last_error_at: lastError?.last_error_at ?? null,
      workers: reports.map((r) => ({
        worker_id: r.worker_id,
        state: r.state,
        last_error: r.last_error,
        updated_at: r.updated_at,
      })),
    };
  });
}

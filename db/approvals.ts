/**
 * Storage of tool-call approvals: the record `metadata.approval` on a tool_call message (domain/tool-approval.ts,
 * docs/message-model.md §3.3), a session's own approval policy and its approve patterns.
 *
 * A change of the record is a history change like any commit (db/messages.ts): it bumps the session revision,
 * stamps the message with it and announces it on COMMIT_CHANNEL, so clients that sync by revision see it.
 */
import type { Message } from '../domain/message.ts';
import {
  isApprovalPolicy,
  type ApprovalPolicy,
  type ApprovalState,
  type ToolApproval,
} from '../domain/tool-approval.ts';
import { storableJson } from '../domain/storable-text.ts';
import { getMessage } from './messages.ts';
import { COMMIT_CHANNEL } from './notify.ts';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

/**
 * A session's approval settings: its own policy (null: none set), the patterns `always` added, and the API
 * principal that created it (null: a chat channel's session, or one from before owners were recorded), which
 * decides the terminal client's default (adapters/registry.ts approvalDefaultOf).
 */
export interface SessionApprovalSettings {
  policy: ApprovalPolicy | null;
  patterns: string[];
  owner: string | null;
}

/** The session's approval settings, or null for an unknown session. */
export async function getApprovalSettings(
  q: Queryable,
  sessionId: string,
): Promise<SessionApprovalSettings | null> {
  const r = await q.query<{
    tool_approval: string | null;
    approve_patterns: string[] | null;
    owner: string | null;
  }>(
    `SELECT s.tool_approval, s.approve_patterns, o.principal AS owner
       FROM sessions s LEFT JOIN session_owners o ON o.session_id = s.id WHERE s.id = $1`,
    [sessionId],
  );
  const row = r.rows[0];
  if (!row) return null;
  return {
    policy: isApprovalPolicy(row.tool_approval) ? row.tool_approval : null,
    patterns: row.approve_patterns ?? [],
    owner: row.owner,
  };
}

/** Sets the session's own policy (null: back to the configured default). @returns false for an unknown session */
export async function setApprovalPolicy(
  q: Queryable,
  sessionId: string,
  policy: ApprovalPolicy | null,
): Promise<boolean> {
  const r = await q.query('UPDATE sessions SET tool_approval = $2, updated_at = now() WHERE id = $1', [
    sessionId,
    policy,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** Adds an approve pattern to the session (once). */
export async function addApprovePattern(q: Queryable, sessionId: string, pattern: string): Promise<void> {
  await q.query(
    `UPDATE sessions SET approve_patterns = array_append(approve_patterns, $2::text), updated_at = now()
      WHERE id = $1 AND NOT ($2::text = ANY(approve_patterns))`,
    [sessionId, pattern],
  );
}

/**
 * Writes `metadata.approval` of tool_call `callId` when its current state is one of `from` (null: no record yet),
 * as a commit (revision bump, NOTIFY). @returns the message as stored now and whether this call changed it
 */
export async function writeApproval(
  pool: Pool,
  sessionId: string,
  callId: string,
  approval: ToolApproval,
  from: (ApprovalState | null)[],
): Promise<{ changed: boolean; message: Message | null }> {
  return withTransaction(pool, async (client) => {
    const cur = await client.query<{ state: string | null }>(
      `SELECT metadata -> 'approval' ->> 'state' AS state FROM messages
        WHERE id = $1 AND session_id = $2 AND type = 'tool_call' FOR UPDATE`,
      [callId, sessionId],
    );
    const row = cur.rows[0];
    if (!row) return { changed: false, message: null };
    if (!from.includes(row.state as ApprovalState | null)) {
      return { changed: false, message: await getMessage(client, callId) };
    }
    const rev = await client.query<{ revision: number }>(
      'UPDATE sessions SET revision = revision + 1, updated_at = now() WHERE id = $1 RETURNING revision',
      [sessionId],
    );
    const revision = rev.rows[0]?.revision ?? 0;
    await client.query(
      `UPDATE messages SET metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('approval', $3::jsonb),
              revision = $4, updated_at = now()
        WHERE id = $1 AND session_id = $2`,
      [callId, sessionId, JSON.stringify(storableJson(approval).value), revision],
    );
    await client.query('SELECT pg_notify($1, $2)', [
      COMMIT_CHANNEL,
      JSON.stringify({ s: sessionId, r: revision }),
    ]);
    return { changed: true, message: await getMessage(client, callId) };
  });
}

/**
 * Records every approval of turn `turnId` still `pending` as `cancelled` (by `by`, now): for a turn that ends
 * without its workflow recording the end of the wait (a restart). Idempotent.
 * @returns the ids of the tool calls changed
 */
export async function cancelPendingApprovals(
  pool: Pool,
  sessionId: string,
  turnId: string,
  by: string,
): Promise<string[]> {
  const r = await pool.query<{ id: string; approval: ToolApproval }>(
    `SELECT id, metadata -> 'approval' AS approval FROM messages
      WHERE session_id = $1 AND turn_id = $2 AND type = 'tool_call'
        AND (metadata -> 'approval' ->> 'state') = 'pending'
      ORDER BY seq`,
    [sessionId, turnId],
  );
  const at = new Date().toISOString();
  const changed: string[] = [];
  for (const row of r.rows) {
    const record: ToolApproval = { ...row.approval, state: 'cancelled', at, by };
    if ((await writeApproval(pool, sessionId, row.id, record, ['pending'])).changed) changed.push(row.id);
  }
  return changed;
}

/** A pending approval as the API lists it. */
export interface PendingApprovalRow {
  /** The tool_call message's id (the `callId` of the approval routes and update). */
  call_id: string;
  turn_id: string | null;
  tool_name: string;
  subject: string;
  requested_at: string;
  expires_at: string | null;
}

/** The session's tool calls waiting for a decision (in a turn still `processing`), oldest first. */
export async function listPendingApprovals(q: Queryable, sessionId: string): Promise<PendingApprovalRow[]> {
  const r = await q.query<{
    id: string;
    turn_id: string | null;
    sender: string;
    metadata: { tool_name?: string; approval?: ToolApproval } | null;
  }>(
    // Only calls of a turn still running: a turn that ended without recording the end of its wait (a run
    // terminated or reset while waiting) leaves nothing to decide.
    `SELECT m.id, m.turn_id, m.sender, m.metadata FROM messages m
       JOIN messages t ON t.id = m.turn_id AND t.status = 'processing'
      WHERE m.session_id = $1 AND m.type = 'tool_call' AND (m.metadata -> 'approval' ->> 'state') = 'pending'
      ORDER BY m.seq`,
    [sessionId],
  );
  return r.rows.map((row) => ({
    call_id: row.id,
    turn_id: row.turn_id,
    tool_name: row.metadata?.tool_name ?? row.sender,
    subject: row.metadata?.approval?.subject ?? '',
    requested_at: row.metadata?.approval?.requested_at ?? '',
    expires_at: row.metadata?.approval?.expires_at ?? null,
  }));
}

/**
 * Changes to a queued inbound message that its sender made on the platform before its turn started
 * (docs/architecture.md "Session = one long-running workflow"): an edit replaces the stored content, a deletion
 * withdraws the message (`pending_agent → interrupted`, metadata `withdrawn: true`). Both apply only while the
 * message is `pending_agent`; once a turn claimed it, nothing changes. Like every history change they bump the
 * session's revision and announce it, so event-stream clients see them.
 */
import type { Pool } from './pool.ts';
import { withTransaction } from './pool.ts';
import { commit } from './messages.ts';
import { COMMIT_CHANNEL } from './notify.ts';

/**
 * Replaces the content of queued message `messageId` of session `sessionId` and sets `metadata.edited_at`.
 * @returns true when it was changed; false when the message is no longer `pending_agent` (or unknown)
 */
export async function editPendingInput(
  pool: Pool,
  sessionId: string,
  messageId: string,
  content: string,
  editedAt: string,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const locked = await client.query<{ id: string }>(
      `SELECT id FROM messages WHERE id = $1 AND session_id = $2 AND status = 'pending_agent' FOR UPDATE`,
      [messageId, sessionId],
    );
    if (locked.rows.length === 0) return false;
    const rev = await client.query<{ revision: number }>(
      'UPDATE sessions SET revision = revision + 1, updated_at = now() WHERE id = $1 RETURNING revision',
      [sessionId],
    );
    const revision = rev.rows[0]?.revision;
    if (revision === undefined) throw new Error(`unknown session ${sessionId}`);
    await client.query(
      `UPDATE messages SET content = $3, revision = $4, updated_at = now(),
              metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('edited_at', $5::text)
        WHERE id = $1 AND session_id = $2`,
      [messageId, sessionId, content, revision, editedAt],
    );
    await client.query('SELECT pg_notify($1, $2)', [
      COMMIT_CHANNEL,
      JSON.stringify({ s: sessionId, r: revision }),
    ]);
    return true;
  });
}

/**
 * Withdraws queued message `messageId`: `pending_agent → interrupted` with `metadata.withdrawn = true`.
 * Idempotent (a message already withdrawn stays so). @returns true when it is withdrawn now; false when it had
 * already left the queue another way
 */
export async function withdrawPendingInput(
  pool: Pool,
  sessionId: string,
  messageId: string,
): Promise<boolean> {
  const r = await commit(pool, sessionId, {
    transitions: [{ id: messageId, to: 'interrupted', metadata: { withdrawn: true } }],
  });
  const row = [...r.updated, ...r.unchanged].find((m) => m.id === messageId);
  return row?.status === 'interrupted' && row.metadata?.withdrawn === true;
}

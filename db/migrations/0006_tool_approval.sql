-- Up Migration
-- Human approval of tool calls: a session's own policy (NULL: the worker's KESOKU_TOOL_APPROVAL or the
-- channel's default) and the patterns its "always" answers added. The approval record of each call is
-- `metadata.approval` on its tool_call message; the index finds a session's pending ones.

ALTER TABLE sessions
  ADD COLUMN tool_approval text CHECK (tool_approval IN ('off', 'writes', 'all')),
  ADD COLUMN approve_patterns text[] NOT NULL DEFAULT '{}';

CREATE INDEX messages_pending_approval_idx ON messages (session_id)
  WHERE type = 'tool_call' AND (metadata -> 'approval' ->> 'state') = 'pending';

-- Down Migration
DROP INDEX messages_pending_approval_idx;
ALTER TABLE sessions DROP COLUMN approve_patterns, DROP COLUMN tool_approval;

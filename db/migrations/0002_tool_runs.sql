-- Up Migration
-- One row per started tool call: written before a command is spawned, so a retried tool activity finds that the
-- command already started and does not run it again. `result` keeps the outcome before the tool_result message
-- is committed, so a retry after a failed commit only stores it.

CREATE TABLE tool_runs (
  tool_call_message_id text PRIMARY KEY,
  session_id           text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  tool_name            text NOT NULL,
  -- Worker host that spawned the command (hostname and kernel boot id) and the process it started: the
  -- process group leader's pid, its group id and its start time in clock ticks since boot (from /proc), so a
  -- retry on the same host kills only that group and never a process that reused the pid.
  host_id              text NOT NULL,
  pid                  integer,
  pgid                 integer,
  proc_start_ticks     bigint,
  attempt              integer NOT NULL,
  status               text NOT NULL CHECK (status IN ('started', 'finished', 'interrupted')),
  result               jsonb,
  started_at           timestamptz NOT NULL DEFAULT now(),
  finished_at          timestamptz
);
CREATE INDEX tool_runs_session_idx ON tool_runs (session_id);

-- Down Migration
DROP TABLE tool_runs;

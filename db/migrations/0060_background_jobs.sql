-- Up Migration
-- Background jobs: one row per `run_shell_command` call with `background: true` (docs/tools.md "Background jobs").
-- Written before the job's workflow starts, with the state `running`; the job's activity records the process it
-- spawned (host, pid, start time, as in tool_runs) before the command runs, so a retry after a worker loss knows
-- the command started and never runs it a second time (it ends `lost`). The end state is written once.

CREATE TABLE background_jobs (
  id                   text PRIMARY KEY,
  session_id           text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  -- The tool_call message that started the job (one job per call).
  tool_call_message_id text NOT NULL UNIQUE,
  command              text NOT NULL,
  timeout_s            integer NOT NULL,
  state                text NOT NULL DEFAULT 'running'
                       CHECK (state IN ('running', 'succeeded', 'failed', 'timed_out', 'killed', 'lost')),
  exit_code            integer,
  -- One line saying how it ended (`exit 0 in 5.0s`, `timed out after 30s`, `killed by request`, …).
  summary              text,
  -- The last bytes of stdout and stderr, as the alert shows them.
  output_tail          text,
  -- The attempt of the job's activity that spawned the command, and the process (see tool_runs).
  attempt              integer,
  host_id              text,
  pid                  integer,
  proc_start_ticks     bigint,
  kill_requested_at    timestamptz,
  started_at           timestamptz NOT NULL DEFAULT now(),
  ended_at             timestamptz
);
CREATE INDEX background_jobs_session_idx ON background_jobs (session_id, started_at);
CREATE INDEX background_jobs_running_idx ON background_jobs (session_id) WHERE state = 'running';

-- Down Migration
DROP TABLE background_jobs;

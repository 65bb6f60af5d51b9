-- Up Migration
-- Scheduled prompts (docs/schedules.md). Each row is one Temporal Schedule `kesoku-schedule:<session>:<id>`: the
-- schedule is the clock, this row is the catalogue (prompt, timing as given, zone) that the API lists at once and
-- that the fired workflow reads. A row goes with its session. `schedule_runs` keeps one row per fired tick: the
-- tick's message id is derived from its scheduled time, so a retried action finds the run the first one wrote.

CREATE TABLE schedules (
  id          text PRIMARY KEY,
  session_id  text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  prompt      text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('cron', 'every', 'at', 'in')),
  -- The timing as given: a cron expression, an interval ("10s", "5m"), an ISO date-time, or a delay.
  spec        text NOT NULL,
  timezone    text NOT NULL,
  paused      boolean NOT NULL DEFAULT false,
  -- For `at` / `in`: the one instant it fires at.
  run_at      timestamptz,
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX schedules_session_idx ON schedules (session_id, created_at);

CREATE TABLE schedule_runs (
  schedule_id  text NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
  -- The tick's scheduled time (a manual trigger: the time it was triggered).
  scheduled_at timestamptz NOT NULL,
  -- The cron prompt message this tick put into the session; it is also the id of the turn it starts.
  message_id   text NOT NULL,
  -- When the prompt was accepted by the session (null: not fired, see outcome).
  fired_at     timestamptz,
  -- `fired`, or why not: `missed` (later than the catch-up window), `rejected` (the session refused it).
  outcome      text NOT NULL CHECK (outcome IN ('fired', 'missed', 'rejected')),
  detail       text,
  PRIMARY KEY (schedule_id, scheduled_at)
);
CREATE INDEX schedule_runs_message_idx ON schedule_runs (message_id);

-- A session's own zone, the default of its schedules.
ALTER TABLE sessions ADD COLUMN timezone text;

-- Down Migration
ALTER TABLE sessions DROP COLUMN timezone;
DROP TABLE schedule_runs;
DROP TABLE schedules;

-- Up Migration
-- The command updates (`stop`, `compact`) a session run answered, kept when the run ends idle without
-- continue-as-new (workflows/session.ts): the next run reads them back, so a command delivered again (same update
-- id, derived from the platform's message id) is answered the same and not run a second time. Bounded by the
-- workflow (the last 100); null until a run ends with some.
ALTER TABLE sessions ADD COLUMN seen_commands jsonb;

-- Down Migration
ALTER TABLE sessions DROP COLUMN seen_commands;

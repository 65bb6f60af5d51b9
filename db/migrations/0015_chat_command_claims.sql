-- Up Migration
-- Chat commands typed in a platform message (`/status`, `/new`, `/stop` …) are answered by the adapter and never
-- stored as messages, so a catch-up after a restart (or a second adapter process, or a gateway replay) can see
-- the same command message again. The adapter claims the message here before it runs the command: the first
-- claim runs and answers it, every later delivery finds the row and does nothing (adapters/discord/ingress.ts).
CREATE TABLE chat_command_claims (
  chatbot_id  text NOT NULL,
  -- The platform's id of the message holding the command (a Discord message snowflake).
  message_id  text NOT NULL,
  claimed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chatbot_id, message_id)
);
CREATE INDEX chat_command_claims_claimed_idx ON chat_command_claims (claimed_at);

-- Down Migration
DROP TABLE chat_command_claims;

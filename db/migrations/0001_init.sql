-- Up Migration
-- Kesoku schema v1: sessions, messages (docs/message-model.md §3 fields + ordering/sync fields), committed model steps.

CREATE TABLE sessions (
  id             text PRIMARY KEY,
  chatbot_id     text NOT NULL,
  channel_id     text NOT NULL,
  title          text,
  title_source   text NOT NULL DEFAULT 'default' CHECK (title_source IN ('default', 'auto', 'user')),
  mode           text NOT NULL DEFAULT 'interrupt' CHECK (mode IN ('interrupt', 'queue')),
  locale         text NOT NULL DEFAULT 'en',
  revision       bigint NOT NULL DEFAULT 0,
  turn_count     integer NOT NULL DEFAULT 0,
  channel_context jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_updated_idx ON sessions (updated_at DESC, id DESC);

CREATE TABLE messages (
  id           text PRIMARY KEY,
  session_id   text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  parent_id    text,
  chatbot_id   text NOT NULL,
  channel_id   text NOT NULL,
  sender       text NOT NULL,
  role         text NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
  type         text NOT NULL CHECK (type IN ('text', 'thought', 'tool_call', 'tool_result')),
  status       text NOT NULL CHECK (status IN ('pending_agent', 'processing', 'processed', 'interrupted', 'error',
                                               'pending', 'delivered', 'responded')),
  content      text NOT NULL,
  metadata     jsonb,
  turn_id      text,
  step         integer,
  seq          bigserial NOT NULL UNIQUE,
  revision     bigint NOT NULL,
  received_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_session_seq_idx ON messages (session_id, seq);
CREATE INDEX messages_session_revision_idx ON messages (session_id, revision);
CREATE INDEX messages_turn_idx ON messages (turn_id, step);
CREATE INDEX messages_open_inputs_idx ON messages (session_id, status)
  WHERE status IN ('pending_agent', 'processing');
-- The latest compaction summary of a session bounds how much history a model step reads.
CREATE INDEX messages_compaction_idx ON messages (session_id, seq DESC)
  WHERE metadata ? 'compacted_through_seq';
-- One tool_result per tool call: tool runs are idempotent per tool-call id.
CREATE UNIQUE INDEX messages_one_result_per_call_idx ON messages (parent_id)
  WHERE type = 'tool_result';

-- A committed model step: written in the same transaction as the step's messages, so a retried model
-- activity for (turn_id, step) returns this instead of calling the model again.
CREATE TABLE turn_steps (
  turn_id      text NOT NULL,
  step         integer NOT NULL,
  session_id   text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  result       jsonb NOT NULL,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  context_tokens integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (turn_id, step)
);

-- Down Migration
DROP TABLE turn_steps;
DROP TABLE messages;
DROP TABLE sessions;

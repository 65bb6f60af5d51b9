-- Up Migration
-- What the agent knows (docs/memory.md): who a chat user is (a link to an API principal), what it remembers for
-- each person, and each session's active plan.

-- A chat user linked to an API principal: their memory (and, for the person, their sessions) follow the principal.
CREATE TABLE person_links (
  chatbot_id  text NOT NULL,
  user_id     text NOT NULL,
  principal   text NOT NULL,
  linked_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chatbot_id, user_id)
);
CREATE INDEX person_links_principal_idx ON person_links (principal);

-- One-time codes a chat user got from `/link`, confirmed once by a principal over REST before they expire.
CREATE TABLE person_link_codes (
  code        text PRIMARY KEY,
  chatbot_id  text NOT NULL,
  user_id     text NOT NULL,
  user_name   text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  used_by     text
);
CREATE INDEX person_link_codes_user_idx ON person_link_codes (chatbot_id, user_id);

-- Knowledge memory: one row per remembered entry, scoped to a person key (domain/people.ts). Entries are never
-- overwritten blindly: an edit names the revision it was based on, and a forget keeps the row (forgotten_at) so
-- who remembered and who forgot what stays auditable.
CREATE TABLE memory_entries (
  id                 text PRIMARY KEY,
  person             text NOT NULL,
  text               text NOT NULL,
  tsv                tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
  author             text NOT NULL,
  session_id         text,
  source_message_id  text,
  -- The tool call that wrote the entry: a retried tool activity finds its entry instead of writing a second one.
  source_call_id     text UNIQUE,
  revision           integer NOT NULL DEFAULT 1,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  forgotten_at       timestamptz,
  forgotten_by       text
);
CREATE INDEX memory_entries_person_idx ON memory_entries (person, updated_at DESC) WHERE forgotten_at IS NULL;
CREATE INDEX memory_entries_tsv_idx ON memory_entries USING gin (tsv);

-- The active plan of a session (tool update_plan): the whole list of steps, replaced at each update.
CREATE TABLE session_plans (
  session_id  text PRIMARY KEY,
  steps       jsonb NOT NULL,
  revision    integer NOT NULL DEFAULT 1,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The exact model input of a session's latest step (`/prompt`, GET /v1/admin/sessions/{id}/prompt).
CREATE TABLE session_prompts (
  session_id  text PRIMARY KEY,
  turn_id     text NOT NULL,
  step        integer NOT NULL,
  input       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE session_prompts;
DROP TABLE session_plans;
DROP TABLE memory_entries;
DROP TABLE person_link_codes;
DROP TABLE person_links;

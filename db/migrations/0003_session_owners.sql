-- Up Migration
-- The API principal that created a session through the REST API. Sessions of chat channels (Discord, …) and
-- REST sessions created before this table have no row: only admin principals reach them. No foreign key: the
-- row is written before the session workflow creates the session's own row.

CREATE TABLE session_owners (
  session_id  text PRIMARY KEY,
  principal   text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_owners_principal_idx ON session_owners (principal, session_id);

-- Down Migration
DROP TABLE session_owners;

-- Up Migration
-- Settings of an API principal (a token's name, the owner of the sessions it created): its IANA time zone, the zone
-- of a new schedule in one of its sessions when the schedule names none and the session has none
-- (docs/schedules.md "Kinds and time zones"). Set with `PATCH /v1/me {"timezone": …}`; null: none.
CREATE TABLE principal_settings (
  principal  text PRIMARY KEY,
  timezone   text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE principal_settings;

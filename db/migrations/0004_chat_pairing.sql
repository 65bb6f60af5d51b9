-- Up Migration
-- Chat access by pairing: an unknown chat user gets a one-time code; an operator approves it; approved users are
-- kept here and are then allowed. Rows are per chatbot (discord, and later other chat adapters) and platform user.

-- One open pairing request per chatbot user: the code they were given, until it expires or is approved.
CREATE TABLE chat_pairing_requests (
  chatbot_id        text NOT NULL,
  user_id           text NOT NULL,
  code              text NOT NULL UNIQUE,
  user_name         text,
  -- Where the request came from (a DM channel, a guild channel …), for the operator's listing.
  channel_id        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  -- When the user was last told the code (replies are rate limited).
  last_notified_at  timestamptz,
  -- Set when an operator approved the code (a repeated approval finds it and answers the same).
  approved_at       timestamptz,
  PRIMARY KEY (chatbot_id, user_id)
);
CREATE INDEX chat_pairing_requests_expires_idx ON chat_pairing_requests (expires_at);

-- Users an operator approved: they may talk to the agent through that chatbot.
CREATE TABLE chat_paired_users (
  chatbot_id   text NOT NULL,
  user_id      text NOT NULL,
  user_name    text,
  -- How they were approved: 'cli' or 'api'.
  approved_by  text NOT NULL,
  approved_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chatbot_id, user_id)
);

-- Down Migration
DROP TABLE chat_paired_users;
DROP TABLE chat_pairing_requests;

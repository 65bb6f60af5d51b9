-- Up Migration
-- Delivery records shared by every worker: the fallback send of an undeliverable message (claimed before it is
-- attempted), the platform messages already posted per chunk, a turn's live status, and typing indicators.

-- One row per message whose delivery needed more than the normal send. `fallback_claimed_at` is written before
-- the fallback send is attempted, so a retry never sends a second fallback.
CREATE TABLE delivery_records (
  message_id          text PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
  fallback_claimed_at timestamptz,
  fallback_outcome    text CHECK (fallback_outcome IN ('sent', 'failed', 'unsupported')),
  failure             jsonb,
  updated_at          timestamptz NOT NULL DEFAULT now()
);

-- A platform message posted for chunk `chunk` of what Kesoku sends under `key` (a message id, `fallback:<id>`,
-- or `status:<turn id>` for a live status part). Written right after the platform created it: a retry skips
-- the chunks found here instead of relying on the platform's nonce window.
CREATE TABLE platform_posts (
  key                 text NOT NULL,
  chunk               integer NOT NULL,
  channel_id          text NOT NULL,
  platform_message_id text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key, chunk)
);

-- The live status of a turn (thought and tool lines, which part holds which line, what the platform shows), so
-- that any worker continues the same status messages.
CREATE TABLE live_statuses (
  turn_id      text PRIMARY KEY,
  session_id   text NOT NULL,
  channel_id   text NOT NULL,
  state        jsonb NOT NULL,
  last_edit_at timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_statuses_updated_idx ON live_statuses (updated_at);

-- Whether a channel's typing indicator is wanted. Each start bumps `generation`; a worker's refresh loop stops
-- as soon as the row is inactive or has a newer generation (another worker took over).
CREATE TABLE typing_indicators (
  channel_key text PRIMARY KEY,
  active      boolean NOT NULL,
  generation  bigint NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE typing_indicators;
DROP TABLE live_statuses;
DROP TABLE platform_posts;
DROP TABLE delivery_records;

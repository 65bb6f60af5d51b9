-- Up Migration
-- The current conversation of a chat channel. A channel starts in generation 0 (session `<chatbot>:<channel>`);
-- `/new` moves it to the next generation, whose session starts with an empty history (adapters/discord/
-- conversations.ts). Channels that never used `/new` have no row.
CREATE TABLE chat_conversations (
  chatbot_id  text NOT NULL,
  channel_id  text NOT NULL,
  generation  integer NOT NULL CHECK (generation > 0),
  started_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chatbot_id, channel_id)
);

-- Down Migration
DROP TABLE chat_conversations;

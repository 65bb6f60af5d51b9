-- Up Migration
-- Pushes a chat adapter acknowledged to its platform before they were taken (WeChat: a push whose submission had
-- not gone through within WeChat's 5 s, e.g. while Temporal stalls). The endpoint writes the push here before it
-- answers `success`, so the platform never pushes it again and a restart of the adapter still hands it to the
-- session; the row goes once the handling ended (adapters/wechat/endpoint.ts, db/held-pushes.ts).
CREATE TABLE chat_held_pushes (
  chatbot_id  text NOT NULL,
  -- The platform's de-duplication key of the push (WeChat: MsgId, or sender + time + event).
  push_key    text NOT NULL,
  -- The verified (decrypted) push, as the ingress takes it.
  push        jsonb NOT NULL,
  held_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chatbot_id, push_key)
);

-- Down Migration
DROP TABLE chat_held_pushes;

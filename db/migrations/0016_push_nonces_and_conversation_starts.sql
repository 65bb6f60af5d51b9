-- Up Migration
-- Signed push requests seen by a chat adapter's endpoint (WeChat: the `signature` of token, timestamp and nonce),
-- kept for as long as their signed timestamp would still be accepted. The endpoint claims a request here before it
-- takes the push: a second request with the same signature (a captured request replayed, by any adapter process)
-- finds the row and is refused (adapters/wechat/endpoint.ts). WeChat's own re-push of a message is signed anew.
CREATE TABLE chat_push_nonces (
  chatbot_id  text NOT NULL,
  -- What identifies the signed request (WeChat: its `signature` query parameter).
  nonce_key   text NOT NULL,
  -- When the signed timestamp stops being accepted; the row can go some time after.
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (chatbot_id, nonce_key)
);
CREATE INDEX chat_push_nonces_expires_idx ON chat_push_nonces (expires_at);

-- Conversations a chat user started with `/new`, for the per-user limit (adapters/kit/conversations.ts).
CREATE TABLE chat_conversation_starts (
  chatbot_id  text NOT NULL,
  user_id     text NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_conversation_starts_user_idx ON chat_conversation_starts (chatbot_id, user_id, started_at);

-- Down Migration
DROP TABLE chat_conversation_starts;
DROP TABLE chat_push_nonces;

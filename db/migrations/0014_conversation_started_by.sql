-- Up Migration
-- The command that started a chat channel's current conversation (`/new`: the update id of the typed message or
-- of the slash command). A repeated delivery of the same command (a gateway replay, a catch-up after a restart,
-- a second adapter process) finds its key here and does not start yet another conversation
-- (adapters/discord/conversations.ts).
ALTER TABLE chat_conversations ADD COLUMN started_by text;

-- Down Migration
ALTER TABLE chat_conversations DROP COLUMN started_by;

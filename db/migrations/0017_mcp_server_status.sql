-- Up Migration
-- What each worker sees of its MCP servers (activities/mcp/status.ts): the connections are the workers' own, so
-- the API (GET /v1/mcp, /healthz) reads their reports here. A worker rewrites its rows when a server changes and
-- refreshes them every 30 s; rows not refreshed for 90 s belong to a worker that is gone and are not shown.

CREATE TABLE mcp_server_status (
  worker_id     text NOT NULL,
  server        text NOT NULL,
  transport     text NOT NULL CHECK (transport IN ('stdio', 'http')),
  state         text NOT NULL CHECK (state IN ('idle', 'connecting', 'ready', 'failed')),
  -- [{name, tool, description}]: the offered name, the server's own name, the description.
  tools         jsonb NOT NULL DEFAULT '[]',
  last_error    text,
  last_error_at timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (worker_id, server)
);

-- Down Migration
DROP TABLE mcp_server_status;

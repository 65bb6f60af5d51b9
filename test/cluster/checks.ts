/**
 * What the cluster topology run counts after the fact: how often each shell command really ran (every command
 * appends one line naming its tool call to `runs.txt` in its session's workspace, as in test/chaos/harness.ts,
 * and the `tool_runs` table records each start), and what the fake Discord received for each turn (its live
 * status message, its reply, its typing indicator), with the workers that ran the turn's activities.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Pool } from '../../db/pool.ts';
import { sessionWorkspaceDir } from '../../infra/workspace.ts';
import { sessionWorkflowId } from '../../workflows/definitions.ts';
import type { FakeDiscord } from '../../adapters/discord/test/fake-server.ts';

/** Flags of a live status message: suppress embeds and suppress notifications. */
const STATUS_FLAGS = (1 << 2) | (1 << 12);

/** Commands the model asked for, how often each really ran, and the starts `tool_runs` recorded. */
export interface CommandCounts {
  tool_calls: number;
  /** `tool_runs` rows: calls whose activity recorded a start. */
  tool_runs: number;
  /** Of those, runs a later attempt found started and did not run again (stored as interrupted). */
  tool_runs_interrupted: number;
  /** Lines appended to the sessions' runs.txt: one per command execution. */
  commands_run: number;
  /** Executions beyond the first of one tool call (a repeated line). Must be 0. */
  re_runs: number;
}

/** Counts the tool calls of `sessions` and the command executions in their workspaces. */
export async function countCommands(pool: Pool, dataDir: string, sessions: string[]): Promise<CommandCounts> {
  const r = await pool.query<{ calls: number; runs: number; interrupted: number }>(
    `SELECT count(*)::int AS calls,
            count(r.tool_call_message_id)::int AS runs,
            count(*) FILTER (WHERE r.status = 'interrupted')::int AS interrupted
       FROM messages c LEFT JOIN tool_runs r ON r.tool_call_message_id = c.id
      WHERE c.type = 'tool_call' AND c.session_id = ANY($1)`,
    [sessions],
  );
  const lines: string[] = [];
  for (const s of sessions) {
    const file = path.join(sessionWorkspaceDir(dataDir, s), 'runs.txt');
    if (fs.existsSync(file)) lines.push(...fs.readFileSync(file, 'utf8').split('\n').filter(Boolean));
  }
  return {
    tool_calls: r.rows[0]?.calls ?? 0,
    tool_runs: r.rows[0]?.runs ?? 0,
    tool_runs_interrupted: r.rows[0]?.interrupted ?? 0,
    commands_run: lines.length,
    re_runs: lines.length - new Set(lines).size,
  };
}

/** What Discord shows for one turn, and where its activities ran. */
export interface DiscordTurnView {
  channelId: string;
  /** Live status messages the bot posted in the channel (one per turn expected). */
  statuses: { content: string; edits: number }[];
  /** Bot replies to the user's message. */
  replies: string[];
  /** Whether the channel's typing indicator is still wanted in Postgres. */
  typingActive: boolean;
  /** Worker identities that started the turn's activities (from the workflow history). */
  workers: string[];
}

/** The Discord view of the turn started by Discord message `discordId` in `channelId`. */
export async function discordTurn(
  fake: FakeDiscord,
  pool: Pool,
  client: Client,
  channelId: string,
  discordId: string,
): Promise<DiscordTurnView> {
  const statuses = fake
    .botMessages(channelId)
    .filter((m) => m.flags === STATUS_FLAGS)
    .map((m) => ({ content: m.content, edits: m.history.length - 1 }));
  const replies = fake
    .botMessages(channelId)
    .filter((m) => m.message_reference?.message_id === discordId)
    .map((m) => m.content);
  const typing = await pool.query<{ active: boolean }>(
    'SELECT active FROM typing_indicators WHERE channel_key = $1',
    [`discord:${channelId}`],
  );
  const history = await client.workflow.getHandle(sessionWorkflowId(`discord:${channelId}`)).fetchHistory();
  const workers = new Set<string>();
  for (const e of history.events ?? []) {
    const identity = e.activityTaskStartedEventAttributes?.identity;
    if (identity) workers.add(identity);
  }
  return {
    channelId,
    statuses,
    replies,
    typingActive: typing.rows[0]?.active ?? false,
    workers: [...workers],
  };
}

/** POST /channels/:id/typing calls the fake received for `channelId`. */
export function typingCalls(fake: FakeDiscord, channelId: string): number {
  return fake.callsTo('POST /channels/:id/typing').filter((c) => c.path === `/channels/${channelId}/typing`)
    .length;
}

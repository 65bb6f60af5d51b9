/**
 * The tool activity: runs one stored tool_call and stores its tool_result (seed 1 §3 "工具执行输出").
 * Idempotent per tool call (one result per call, enforced by a unique index); cancellable (the activity's
 * cancellation signal kills the command's process group); heartbeats while the tool runs.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ToolActivities } from '../contracts.ts';
import { toolResult } from '../../domain/factories.ts';
import { failureType } from '../../domain/failures.ts';
import { commit, getMessage } from '../../db/messages.ts';
import { publishTurnEvent } from '../../db/notify.ts';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../infra/logger.ts';
import { isToolError } from './errors.ts';
import { runTool } from './registry.ts';
import type { ToolResult } from './tool.ts';

export interface ToolDeps {
  pool: Pool;
  logger: Logger;
  /** Root for per-session workspaces and full tool output (`<dataDir>/workspaces`, `<dataDir>/tool-output`). */
  dataDir: string;
  /** Timeout of a shell command when the model gives none, in ms. */
  defaultTimeoutMs: number;
  /** Bytes of output the model sees (head and tail). Default 16 KiB. */
  maxModelOutputBytes?: number;
  /** Bytes of output kept in the full-output file. Default 8 MiB. */
  maxStoredOutputBytes?: number;
}

/**
 * A session id as a directory name, one-to-one: `%`-escapes everything but letters, digits, `_`, `-` and `.`
 * (`discord:123` → `discord%3A123`). Session ids cannot be `.` or `..` (ID_PATTERN), so a workspace always lies
 * below `<dataDir>/workspaces`.
 */
export function sessionDirName(sessionId: string): string {
  // Defence in depth: `.` and `..` are not valid session ids, but must never name the parent directory.
  if (/^\.{1,2}$/.test(sessionId)) return sessionId.replaceAll('.', '%2E');
  return sessionId.replace(/[^A-Za-z0-9_.-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export function workspaceDirFor(dataDir: string, sessionId: string): string {
  return path.join(dataDir, 'workspaces', sessionDirName(sessionId));
}

/** The stored result id of a tool call (one per call). */
export const resultIdOf = (toolCallMessageId: string) => `${toolCallMessageId}:result`;

export function createToolActivities(deps: ToolDeps): ToolActivities {
  const { pool, logger } = deps;
  return {
    async runToolCall({ sessionId, turnId, toolCallMessageId }) {
      const call = await getMessage(pool, toolCallMessageId);
      if (!call || call.type !== 'tool_call' || call.session_id !== sessionId) {
        throw ApplicationFailure.nonRetryable(`unknown tool call ${toolCallMessageId}`, failureType('tool'));
      }
      const stored = await pool.query<{ id: string; metadata: { tool_result?: string } | null; content: string }>(
        `SELECT id, metadata, content FROM messages WHERE parent_id = $1 AND type = 'tool_result'`,
        [call.id],
      );
      const prior = stored.rows[0];
      if (prior) return { resultId: prior.id, ok: prior.metadata?.tool_result !== 'interrupted', summary: prior.metadata?.tool_result ?? '' };

      const name = call.metadata?.tool_name ?? call.sender;
      const toolCallId = call.metadata?.tool_call_id ?? call.id;
      const step = call.step ?? 0;
      const ctx = Context.current();
      const event = { s: sessionId, t: turnId, step, call_id: toolCallId, name };
      void publishTurnEvent(pool, { ...event, type: 'tool_started' }).catch(() => undefined);
      const beat = setInterval(() => ctx.heartbeat({ toolCallMessageId }), 1000);
      let result: ToolResult;
      let ok = true;
      try {
        result = await runTool(name, call.metadata?.tool_arguments ?? {}, {
          workspaceDir: workspaceDirFor(deps.dataDir, sessionId),
          signal: ctx.cancellationSignal,
          defaultTimeoutMs: deps.defaultTimeoutMs,
          maxModelOutputBytes: deps.maxModelOutputBytes ?? 16 * 1024,
          maxStoredOutputBytes: deps.maxStoredOutputBytes ?? 8 * 1024 * 1024,
          outputDir: path.join(deps.dataDir, 'tool-output', sessionDirName(sessionId)),
          callId: toolCallId,
        });
        if ('exitCode' in result && (result as { exitCode: number | null }).exitCode !== 0) ok = false;
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('tool run cancelled');
        if (!isToolError(err)) throw err;
        // The model sees what went wrong and can correct itself; this is a result, not a turn failure.
        ok = false;
        result = { content: `Error: ${err.message}`, summary: `error: ${err.message}`.slice(0, 120) };
        if (err.kind === 'execution_failed') logger.warn({ sessionId, toolCallMessageId, err: err.message }, 'tool could not run');
      } finally {
        clearInterval(beat);
      }
      const message = toolResult({
        id: resultIdOf(call.id),
        session_id: sessionId,
        chatbot_id: call.chatbot_id,
        channel_id: call.channel_id,
        turn_id: turnId,
        step,
        parent_id: call.id,
        tool_name: name,
        tool_call_id: toolCallId,
        content: result.content,
        summary: result.summary,
      });
      // Kesoku addition: whether the run succeeded, so sinks render ✅/❌ without parsing the summary.
      message.metadata = { ...message.metadata, tool_ok: ok, ...(result.fullOutputPath ? { full_output_path: result.fullOutputPath } : {}) };
      try {
        await commit(pool, sessionId, { insert: [message] });
      } catch (err) {
        logger.error({ sessionId, toolCallMessageId, err: String(err) }, 'tool result could not be stored');
        throw ApplicationFailure.retryable('the tool result could not be saved', failureType('turn_persistence'));
      }
      const final = await getMessage(pool, message.id);
      void publishTurnEvent(pool, { ...event, type: 'tool_finished', ok, summary: result.summary }).catch(() => undefined);
      return { resultId: final?.id ?? message.id, ok, summary: result.summary };
    },
  };
}

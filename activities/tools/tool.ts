/**
 * What every host tool returns, and the one place tool arguments are checked against their zod schema.
 */
import type { z } from 'zod';
import { ToolInputError } from './errors.ts';
import type { Attachment } from '../../domain/message.ts';

/**
 * The result of one tool run.
 *
 * - `content`: the text given to the model as the tool_result message's content.
 * - `summary`: one short line for `metadata.tool_result` (docs/message-model.md §6.1), at most 120 characters.
 * - `fullOutputPath`: set when the model got a truncated slice and the full output was written to disk
 *   (`metadata.full_output_path`).
 * - `ok`: false when the tool ran and reported a failure (an MCP result with `isError`): stored as a failed
 *   result (`metadata.tool_ok` false, ❌ on channels). Absent: the tool's own rule (a shell command's exit code).
 */
export interface ToolResult {
  content: string;
  summary: string;
  fullOutputPath?: string;
  ok?: boolean;
  /**
   * Images the tool returned, kept in the session's tool-output directory (`metadata.attachments` of the
   * tool_result: name, content_type, size in bytes, path); the model sees them with the current turn's results.
   */
  images?: Attachment[];
}

/** Longest `summary` a tool produces, in characters. */
export const MAX_SUMMARY_CHARS = 120;

/** Shortens `text` to `max` characters (default {@link MAX_SUMMARY_CHARS}), ending with "…" when cut. */
export function clip(text: string, max = MAX_SUMMARY_CHARS): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * Validates `raw` against `schema` for the tool `toolName`.
 *
 * @returns the parsed arguments.
 * @throws {ToolInputError} listing every problem as `<field>: <message>`, e.g.
 *   `invalid arguments for run_shell_command: command: Invalid input: expected string, received undefined`.
 */
export function parseToolArgs<S extends z.ZodType>(schema: S, raw: unknown, toolName: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
    return `${where}: ${issue.message}`;
  });
  throw new ToolInputError(`invalid arguments for ${toolName}: ${problems.join('; ')}`);
}

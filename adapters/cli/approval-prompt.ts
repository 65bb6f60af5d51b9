/**
 * The terminal client's inline approval prompt: tool calls of its session that wait for a decision (SSE
 * `approval_requested`) are asked about one at a time — `approve <command>? [y]es / [n]o / [a]lways` — and the
 * next input line that is such an answer decides the oldest one (POST …/tool-calls/{callId}/approval). A call
 * decided elsewhere (another client, the Web UI, the timeout) leaves the queue when its record is committed.
 */
import type { z } from 'zod';
import { approvalRequestedEventSchema } from '../../api/responses.ts';

/** `event: approval_requested` data (OpenAPI `ApprovalRequestedEvent`); extra keys pass (a newer server). */
export const approvalRequestedSchema = approvalRequestedEventSchema.loose();
export type ApprovalRequested = z.output<typeof approvalRequestedSchema>;

export type PromptDecision = 'approve' | 'deny' | 'always';

/** The decision an input line means (`y`, `yes`, `n`, `no`, `a`, `always`; any case), or null for other text. */
export function parseApprovalAnswer(line: string): PromptDecision | null {
  switch (line.trim().toLowerCase()) {
    case 'y':
    case 'yes':
      return 'approve';
    case 'n':
    case 'no':
      return 'deny';
    case 'a':
    case 'always':
      return 'always';
    default:
      return null;
  }
}

/** The prompt line for a waiting call. */
export function approvalPromptText(a: ApprovalRequested): string {
  const what = a.tool_name === 'run_shell_command' ? `run \`${a.subject}\`` : a.subject;
  // The note's 'warn' style puts the ⚠ in front; the answer is a line, so Enter is named.
  return `approve: ${what}? [y]es / [n]o / [a]lways, then Enter`;
}

/** The calls waiting for this terminal's answer, oldest first. */
export class ApprovalPrompts {
  private readonly queue: ApprovalRequested[] = [];

  /** Adds a waiting call. @returns true when it is now the one asked about */
  add(a: ApprovalRequested): boolean {
    if (this.queue.some((q) => q.call_id === a.call_id)) return false;
    this.queue.push(a);
    return this.queue.length === 1;
  }

  /** The call asked about now. */
  current(): ApprovalRequested | undefined {
    return this.queue[0];
  }

  /** Removes a call (answered here or decided elsewhere). @returns the next one to ask about, if it changed */
  drop(callId: string): ApprovalRequested | undefined {
    const i = this.queue.findIndex((q) => q.call_id === callId);
    if (i < 0) return undefined;
    this.queue.splice(i, 1);
    return i === 0 ? this.queue[0] : undefined;
  }

  clear(): void {
    this.queue.length = 0;
  }
}

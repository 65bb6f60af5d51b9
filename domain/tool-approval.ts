/**
 * Human approval of tool calls: which calls need a person's yes before they run, the auto-approve patterns,
 * and the shape of the approval record kept as `metadata.approval` on the tool_call message
 * (docs/message-model.md §3.3).
 *
 * Policies (`KESOKU_TOOL_APPROVAL`, per-session override):
 * - `off`: nothing asks;
 * - `writes`: `run_shell_command` and `write_file` ask, `read_file` never does;
 * - `all`: every tool call asks.
 *
 * Patterns are globs on a call's subject (the command string of a shell call, `write_file <path>`,
 * `read_file <path>`): `*` matches any run of characters except the shell's control and substitution characters
 * (`; & | < > ` $ ( )` and line breaks), `?` one such character, and a trailing ` *` also matches nothing (the
 * pattern `git status *` approves `git status`). So `ls *` approves `ls -la src` but never `ls; rm -rf ~` or
 * `ls $(rm -rf ~)`: a compound command is approved only by a pattern that spells its operators out.
 *
 * Pure module: safe in the workflow bundle.
 */

export const APPROVAL_POLICIES = ['off', 'writes', 'all'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export const APPROVAL_DECISIONS = ['approve', 'deny', 'always'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/**
 * States of `metadata.approval.state`: `pending` (waiting for a person), `approved`, `denied`, `timed_out` (no
 * decision within the timeout: counts as denied), `cancelled` (the turn ended — `/stop`, an interrupt, a
 * failure — before anyone decided).
 */
export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'timed_out', 'cancelled'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** `metadata.approval` on a tool_call message. Times are ISO 8601. */
export interface ToolApproval {
  state: ApprovalState;
  /** What was asked about: the command of a shell call, `write_file <path>`, … (see {@link approvalSubject}). */
  subject: string;
  requested_at: string;
  /** When a pending approval times out. */
  expires_at?: string;
  /** When it was decided. */
  at?: string;
  /**
   * Who decided: a principal or platform user id (`api:alice`, `discord:1234`), `pattern` (an auto-approve
   * pattern matched), or `timeout`.
   */
  by?: string;
  /** The person's answer, when a person decided. */
  decision?: ApprovalDecision;
  /** The pattern that approved the call (auto-approval), or the one an `always` added to the session. */
  pattern?: string;
}

/** Tools that change something: they ask under the `writes` policy. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['run_shell_command', 'write_file']);

export function isApprovalPolicy(v: unknown): v is ApprovalPolicy {
  return typeof v === 'string' && (APPROVAL_POLICIES as readonly string[]).includes(v);
}

export function isApprovalDecision(v: unknown): v is ApprovalDecision {
  return typeof v === 'string' && (APPROVAL_DECISIONS as readonly string[]).includes(v);
}

/**
 * The policy of a chatbot when neither `KESOKU_TOOL_APPROVAL` nor the session sets one: `writes` when its people
 * can decide an approval where they talk (`decides`: the REST API's approval route, a chat channel whose
 * descriptor has `features.decidesApprovals`, adapters/registry.ts `approvalDefaultOf`) — they may be anyone
 * the operator let in (a token, a pairing, a guild); `off` otherwise: the local terminal (the person at the
 * keyboard runs the agent as themselves and watches every command) and any chatbot where a request could only
 * time out.
 */
export function defaultApprovalPolicy(decides: boolean): ApprovalPolicy {
  return decides ? 'writes' : 'off';
}

/**
 * The policy in force for a session — the one rule the approval activity (activities/approvals.ts), the chat
 * channels' `/approval` and the REST API's `approval_in_force` all apply: the session's own (`/approval`, PATCH
 * `approval`), else the deployment's `KESOKU_TOOL_APPROVAL`, else the channel's default
 * ({@link defaultApprovalPolicy}).
 * @param sessionPolicy the session's own policy (null or undefined: none set)
 * @param configured `KESOKU_TOOL_APPROVAL` (undefined: not set)
 * @param channelDefault the default of the session's chatbot (adapters/registry.ts `approvalDefaultOf`)
 */
export function approvalPolicyInForce(
  sessionPolicy: ApprovalPolicy | null | undefined,
  configured: ApprovalPolicy | undefined,
  channelDefault: ApprovalPolicy,
): ApprovalPolicy {
  return sessionPolicy ?? configured ?? channelDefault;
}

/** Whether `policy` asks before a call of `toolName`. */
export function policyAsks(policy: ApprovalPolicy, toolName: string): boolean {
  if (policy === 'off') return false;
  if (policy === 'all') return true;
  return WRITING_TOOLS.has(toolName);
}

/**
 * What a call is about, as one line for people and for pattern matching: the command of `run_shell_command`,
 * `<tool> <path>` for the file tools, the tool name otherwise. Arguments may be an object or its JSON text.
 */
export function approvalSubject(toolName: string, rawArgs: unknown): string {
  let args: unknown = rawArgs;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      args = {};
    }
  }
  const field = (key: string): string | null => {
    const v = (args as Record<string, unknown> | null)?.[key];
    return typeof v === 'string' ? v : null;
  };
  if (toolName === 'run_shell_command') return field('command') ?? '';
  const p = field('path');
  return p === null ? toolName : `${toolName} ${p}`;
}

/** Characters a `*` or `?` never matches (shell control operators, substitutions, line breaks). */
const SHELL_SPECIAL = /[;&|<>`$()\r\n]/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Whether `pattern` approves `subject` (see the module comment for the glob rules). */
export function matchesPattern(pattern: string, subject: string): boolean {
  const p = pattern.trim();
  const s = subject.trim();
  if (p === '') return false;
  if (p === s) return true;
  let source = '';
  let rest = p;
  const optionalTail = rest.endsWith(' *');
  if (optionalTail) rest = rest.slice(0, -2);
  for (const ch of rest) {
    if (ch === '*') source += '[^;&|<>`$()\\r\\n]*';
    else if (ch === '?') source += '[^;&|<>`$()\\r\\n]';
    else source += escapeRegExp(ch);
  }
  if (optionalTail) source += '(?: [^;&|<>`$()\\r\\n]*)?';
  return new RegExp(`^${source}$`, 's').test(s);
}

/** The first of `patterns` that approves `subject`, or null. */
export function matchingPattern(patterns: readonly string[], subject: string): string | null {
  return patterns.find((p) => matchesPattern(p, subject)) ?? null;
}

/** Programs whose first argument names what they do (`git status`, `npm test`): `always` keeps it. */
const VERB_PROGRAMS: ReadonlySet<string> = new Set([
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'make',
  'pip',
  'uv',
]);

/**
 * The pattern an `always` answer adds to the session for a call: for a shell command its program (and, for
 * programs like `git` or `npm`, the sub-command) followed by ` *` — `git status --short` gives `git status *`,
 * `ls -la` gives `ls *`; a command with shell operators or substitutions gives itself, exactly. For the file
 * tools `<tool> *`.
 */
export function alwaysPatternFor(toolName: string, subject: string): string {
  if (toolName !== 'run_shell_command') return `${toolName} *`;
  const cmd = subject.trim();
  if (cmd === '' || SHELL_SPECIAL.test(cmd) || /[*?]/.test(cmd)) return cmd;
  const words = cmd.split(/\s+/);
  const program = words[0] ?? '';
  const verb = words[1];
  if (VERB_PROGRAMS.has(program) && verb !== undefined && /^[A-Za-z][\w.:-]*$/.test(verb))
    return `${program} ${verb} *`;
  return `${program} *`;
}

/** How a call stands before anyone is asked. */
export type ApprovalNeed =
  { kind: 'not_required' } | { kind: 'auto_approved'; pattern: string } | { kind: 'required' };

/** Whether a call of `toolName` about `subject` needs a person under `policy` and the approve `patterns`. */
export function approvalNeed(
  policy: ApprovalPolicy,
  patterns: readonly string[],
  toolName: string,
  subject: string,
): ApprovalNeed {
  if (!policyAsks(policy, toolName)) return { kind: 'not_required' };
  const pattern = matchingPattern(patterns, subject);
  return pattern === null ? { kind: 'required' } : { kind: 'auto_approved', pattern };
}

/** The tool result the model reads for a call that was denied or timed out (it was not run). */
export function refusedToolResult(
  toolName: string,
  why: 'denied' | 'timed_out',
  timeoutS: number,
): { content: string; summary: string } {
  const what = toolName === 'run_shell_command' ? 'command' : `${toolName} call`;
  return why === 'denied'
    ? {
        content: `Error: the user denied this ${what}; it was not run. Do not run it again unless they ask for it.`,
        summary: 'denied by the user; not run',
      }
    : {
        content: `Error: nobody approved this ${what} within ${timeoutS} seconds; it was not run.`,
        summary: 'approval timed out; not run',
      };
}

/** A one-line description for the Web UI's current details and prompts, at most `max` characters. */
export function describeCall(toolName: string, subject: string, max = 120): string {
  const text = subject === toolName || subject === '' ? toolName : `${toolName}: ${subject}`;
  const chars = Array.from(text.replace(/\s+/g, ' '));
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

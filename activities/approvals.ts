/**
 * The approval activities: which tool calls of a step need a person, the approval record on each tool_call
 * message, and the tool result of a call that was refused. The wait itself is the workflow's
 * (workflows/approvals.ts); the rules are domain/tool-approval.ts.
 *
 * The policy of a session is, first to last: the session's own (PATCH /v1/sessions/{id} `approval`, `/approval`),
 * the worker's `KESOKU_TOOL_APPROVAL`, the channel's default (`approvalDefaultOf`, adapters/registry.ts); one rule,
 * domain/tool-approval.ts `approvalPolicyInForce`.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ApprovalActivities, ApprovalCheck } from '../workflows/activity-contracts.ts';
import { isPermanentSinkError, type ChannelSink } from './sink.ts';
import { resultIdOf } from './tools/activities.ts';
import { toolResult } from '../domain/factories.ts';
import { failureType } from '../domain/failures.ts';
import {
  approvalNeed,
  defaultApprovalPolicy,
  approvalPolicyInForce,
  approvalSubject,
  refusedToolResult,
  type ApprovalNeed,
  type ApprovalPolicy,
  type ToolApproval,
} from '../domain/tool-approval.ts';
import { addApprovePattern, getApprovalSettings, writeApproval } from '../db/approvals.ts';
import { commit, getMessage, getMessages } from '../db/messages.ts';
import type { Message } from '../domain/message.ts';
import { getSession } from '../db/sessions.ts';
import { publishTurnEvent } from '../db/notify.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../infra/logger.ts';

/** The worker's approval settings (infra/config.ts). */
export interface ApprovalSettings {
  /** `KESOKU_TOOL_APPROVAL`; undefined: each channel's default. */
  policy?: ApprovalPolicy;
  /** `KESOKU_TOOL_AUTO_APPROVE`: patterns that approve a call in every session. */
  autoApprove?: string[];
  /** `KESOKU_APPROVAL_TIMEOUT_S`: how long a call waits for a decision before it counts as denied. Default 600. */
  timeoutS?: number;
}

export interface ApprovalDeps {
  pool: Pool;
  logger: Logger;
  settings?: ApprovalSettings;
  /**
   * The channel sinks by chatbot id (as for delivery): a sink with `askApproval` gets each call that waits, so
   * the channel's people can decide where they talk (Discord's buttons), and `showApprovalOutcome` each decision.
   */
  sinks?: Record<string, ChannelSink>;
  /** How long to wait for a decision to be shown before going on, ms. Default {@link OUTCOME_SHOW_WAIT_MS}. */
  outcomeWaitMs?: number;
  /**
   * A chatbot's default policy (adapters/registry.ts `approvalDefaultOf`). Default: `writes` for the REST API
   * (`api`), `off` for any other chatbot.
   */
  approvalDefaultOf?: (chatbotId: string, owner?: string | null) => ApprovalPolicy;
  /**
   * How a tool from elsewhere is approved (an MCP server's, activities/mcp/tools.ts `approvalOf`): `ask` like a
   * writing tool, `auto` like `read_file`; undefined for the host tools (their own rule).
   */
  toolApproval?: (toolName: string) => Promise<'ask' | 'auto' | undefined>;
}

/**
 * What a person is asked about for a tool from elsewhere: its name and its arguments as JSON (they say what the
 * call does), e.g. `mcp__github__create_issue {"title":"…"}`; an `always` then approves the tool (`<name> *`).
 */
function extraToolSubject(name: string, args: unknown): string {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      // shown as given
    }
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? {});
  return text === '{}' ? name : `${name} ${text}`;
}

/**
 * The policy a call of a tool with its own approval (`ask` | `auto`) is judged by: an `ask` tool asks under
 * `writes` as the writing tools do; an `auto` tool, like `read_file`, only under `all`.
 */
function policyForTool(policy: ApprovalPolicy, approval: 'ask' | 'auto' | undefined): ApprovalPolicy {
  return approval === 'ask' && policy === 'writes' ? 'all' : policy;
}

/**
 * How many attempts of `requestApprovals` a channel's failure to post the approval request fails (so the activity
 * is retried and the request is posted later); from this attempt on, the failure is logged and the call waits
 * anyway (it can still be decided over REST, and a channel outage must not fail the turn).
 */
export const APPROVAL_ASK_ATTEMPTS = 4;

/** The attempt number of the running activity; Infinity outside an activity (nothing to retry). */
function activityAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * How long `recordApproval` waits for the channel to show a decision, ms: beyond it the edit goes on in the
 * background (bounded by the sink's own request timeout) and the activity returns, so a slow platform holds up
 * neither the workflow nor a `/stop` that records several cancellations one by one.
 */
export const OUTCOME_SHOW_WAIT_MS = 2000;

/** Default of `KESOKU_APPROVAL_TIMEOUT_S`, in seconds. */
export const DEFAULT_APPROVAL_TIMEOUT_S = 600;

/** A tool call to judge: its tool's name, its arguments and the chatbot it was made in. */
export interface JudgedCall {
  name: string;
  args: unknown;
  chatbotId: string;
}

/** How a judged call stands before anyone is asked, and what a person would be asked about. */
export interface CallVerdict {
  subject: string;
  need: ApprovalNeed;
}

/**
 * The worker's approval rules without the channel: the policy in force for a session (its own, the worker's,
 * the channel's default), the approve patterns (the worker's and the session's) and the tools' own approval.
 * Used by `requestApprovals`, and by the model step, which judges a step's calls as it stores them so that a
 * step none of whose calls waits for a person needs no approval activity.
 */
export interface ApprovalJudge {
  /** Seconds a pending call waits before it counts as denied (`KESOKU_APPROVAL_TIMEOUT_S`). */
  readonly timeoutS: number;
  /**
   * Judges `calls` of session `sessionId` (one Postgres query for the session's settings; none when `calls` is
   * empty and the session is known). @returns one verdict per call, in order; null for an unknown session
   */
  judge(sessionId: string, calls: readonly JudgedCall[]): Promise<CallVerdict[] | null>;
}

/** The approval rules of `deps`, see {@link ApprovalJudge}. */
export function createApprovalJudge(
  deps: Pick<ApprovalDeps, 'pool' | 'settings' | 'approvalDefaultOf' | 'toolApproval'>,
): ApprovalJudge {
  const globalPatterns = deps.settings?.autoApprove ?? [];
  const approvalDefaultOf =
    deps.approvalDefaultOf ?? ((chatbotId: string) => defaultApprovalPolicy(chatbotId === 'api'));
  return {
    timeoutS: deps.settings?.timeoutS ?? DEFAULT_APPROVAL_TIMEOUT_S,
    async judge(sessionId, calls) {
      const settings = await getApprovalSettings(deps.pool, sessionId);
      if (!settings) return null;
      const verdicts: CallVerdict[] = [];
      for (const { name, args, chatbotId } of calls) {
        const own = await deps.toolApproval?.(name);
        const subject = own ? extraToolSubject(name, args) : approvalSubject(name, args);
        const policy = approvalPolicyInForce(
          settings.policy,
          deps.settings?.policy,
          approvalDefaultOf(chatbotId, settings.owner),
        );
        const need = approvalNeed(
          policyForTool(policy, own),
          [...globalPatterns, ...settings.patterns],
          name,
          subject,
        );
        verdicts.push({ subject, need });
      }
      return verdicts;
    },
  };
}

/**
 * The approval record a call is stored with for its verdict `need`, at `now`: approved by the pattern, or pending
 * until `timeoutS` from now; null when the call needs no approval (it gets no record).
 */
export function approvalRecordFor(
  need: ApprovalNeed,
  subject: string,
  timeoutS: number,
  now: Date,
): ToolApproval | null {
  if (need.kind === 'not_required') return null;
  return need.kind === 'auto_approved'
    ? {
        state: 'approved',
        subject,
        requested_at: now.toISOString(),
        at: now.toISOString(),
        by: 'pattern',
        pattern: need.pattern,
      }
    : {
        state: 'pending',
        subject,
        requested_at: now.toISOString(),
        expires_at: new Date(now.getTime() + timeoutS * 1000).toISOString(),
      };
}

export function createApprovalActivities(deps: ApprovalDeps): ApprovalActivities {
  const { pool, logger } = deps;
  const judge = createApprovalJudge(deps);
  const timeoutS = judge.timeoutS;

  /**
   * Posts the approval request of each waiting call in its channel (ChannelSink.askApproval). Why here, in the
   * activity, and not in the adapter on the `approval_requested` NOTIFY: the activity is retried by Temporal on
   * any worker until it succeeds, also after a worker crash or a deploy, while a NOTIFY reaches only the adapter
   * processes listening at that moment (none during a restart; every one of them on a cluster). The sink records
   * the posted message in Postgres (platform_posts, key `approval:<call id>`) and skips what is recorded, so the
   * request goes out once however often this runs (retries, continue-as-new, several workers).
   * @throws ApplicationFailure (retryable) when a transient failure should be retried (early attempts only)
   */
  async function askInChannel(sessionId: string, asked: { call: Message; approval: ToolApproval }[]) {
    if (asked.length === 0) return;
    const session = await getSession(pool, sessionId);
    const sink = session ? deps.sinks?.[session.chatbot_id] : undefined;
    if (!session || !sink?.askApproval) return;
    for (const { call, approval } of asked) {
      try {
        await sink.askApproval(call, approval, session);
      } catch (err) {
        if (!isPermanentSinkError(err) && activityAttempt() < APPROVAL_ASK_ATTEMPTS)
          throw ApplicationFailure.retryable(
            `the approval request of ${call.id} could not be posted: ${err instanceof Error ? err.message : String(err)}`,
            'ApprovalAskFailed',
          );
        logger.warn(
          { sessionId, messageId: call.id, err: String(err) },
          'approval request not posted in the channel; it waits and can be decided over REST',
        );
      }
    }
  }

  /**
   * Shows a decision where the request was posted (ChannelSink.showApprovalOutcome). Best effort and bounded:
   * waits at most {@link OUTCOME_SHOW_WAIT_MS} (`deps.outcomeWaitMs`), then leaves the edit running; never throws.
   */
  async function showOutcome(sessionId: string, call: Message, approval: ToolApproval) {
    const shown = (async () => {
      const session = await getSession(pool, sessionId);
      const sink = session ? deps.sinks?.[session.chatbot_id] : undefined;
      if (session && sink?.showApprovalOutcome) await sink.showApprovalOutcome(call, approval, session);
    })().catch((err: unknown) =>
      logger.warn({ sessionId, messageId: call.id, err: String(err) }, 'approval outcome not shown'),
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), deps.outcomeWaitMs ?? OUTCOME_SHOW_WAIT_MS);
    });
    try {
      if ((await Promise.race([shown, waited])) === 'late')
        logger.info(
          { sessionId, messageId: call.id },
          'approval outcome still being shown; not waiting for it',
        );
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async requestApprovals({ sessionId, turnId, step, callIds }) {
      const calls = (await getMessages(pool, callIds)).filter(
        (c) => c.type === 'tool_call' && c.session_id === sessionId,
      );
      const unjudged = calls.filter((c) => !(c.metadata as { approval?: ToolApproval } | null)?.approval);
      const verdicts = await judge.judge(
        sessionId,
        unjudged.map((c) => ({
          name: c.metadata?.tool_name ?? c.sender,
          args: c.metadata?.tool_arguments ?? {},
          chatbotId: c.chatbot_id,
        })),
      );
      if (!verdicts)
        throw ApplicationFailure.nonRetryable(`unknown session ${sessionId}`, failureType('tool'));
      const verdictOf = new Map(unjudged.map((c, i) => [c.id, verdicts[i]!]));
      const checks: ApprovalCheck[] = [];
      const asked: { call: Message; approval: ToolApproval }[] = [];
      for (const call of calls) {
        const name = call.metadata?.tool_name ?? call.sender;
        const existing = (call.metadata as { approval?: ToolApproval } | null)?.approval;
        if (existing) {
          if (existing.state === 'pending') asked.push({ call, approval: existing });
          checks.push({
            callId: call.id,
            name,
            subject: existing.subject,
            state: existing.state,
            ...(existing.expires_at ? { expiresAt: existing.expires_at } : {}),
          });
          continue;
        }
        const { subject, need } = verdictOf.get(call.id)!;
        const record = approvalRecordFor(need, subject, timeoutS, new Date());
        if (!record) {
          checks.push({ callId: call.id, name, subject, state: 'not_required' });
          continue;
        }
        const { message } = await writeApproval(pool, sessionId, call.id, record, [null]);
        // A concurrent attempt may have written first: its record stands.
        const stored = (message?.metadata as { approval?: ToolApproval } | null)?.approval ?? record;
        checks.push({
          callId: call.id,
          name,
          subject: stored.subject,
          state: stored.state,
          ...(stored.expires_at ? { expiresAt: stored.expires_at } : {}),
        });
        if (stored.state === 'pending') {
          asked.push({ call, approval: stored });
          logger.info({ sessionId, turnId, messageId: call.id, tool: name }, 'tool call waits for approval');
          void publishTurnEvent(pool, {
            s: sessionId,
            t: turnId,
            type: 'approval_requested',
            step,
            call_id: call.id,
            name,
            subject: stored.subject.slice(0, 2000),
            expires_at: stored.expires_at ?? '',
          }).catch(() => undefined);
        }
      }
      await askInChannel(sessionId, asked);
      return { calls: checks, timeoutS };
    },

    async recordApproval({ sessionId, callId, state, by, decision, pattern, addPattern }) {
      const call = await getMessage(pool, callId);
      const prior = (call?.metadata as { approval?: ToolApproval } | null)?.approval;
      if (!call || !prior) return { changed: false };
      if (addPattern) await addApprovePattern(pool, sessionId, addPattern);
      const record: ToolApproval = {
        ...prior,
        state,
        at: new Date().toISOString(),
        by,
        ...(decision ? { decision } : {}),
        ...(pattern ? { pattern } : {}),
      };
      const { changed } = await writeApproval(pool, sessionId, callId, record, ['pending']);
      if (changed) {
        logger.info({ sessionId, messageId: callId, state, by }, 'tool call approval decided');
        await showOutcome(sessionId, call, record);
      } else {
        // A retry of an attempt that wrote the record but did not get to show it (it timed out, the worker died):
        // the same outcome is recorded, so show it again (the edit is idempotent).
        const now = (await getMessage(pool, callId))?.metadata as { approval?: ToolApproval } | null;
        if (now?.approval && now.approval.state === state && now.approval.by === by)
          await showOutcome(sessionId, call, now.approval);
      }
      return { changed };
    },

    async refuseToolCall({ sessionId, turnId, callId, why, timeoutS: waitedS }) {
      const call = await getMessage(pool, callId);
      if (!call || call.type !== 'tool_call' || call.session_id !== sessionId)
        throw ApplicationFailure.nonRetryable(`unknown tool call ${callId}`, failureType('tool'));
      const name = call.metadata?.tool_name ?? call.sender;
      const refused = refusedToolResult(name, why, waitedS);
      const message = toolResult({
        id: resultIdOf(call.id),
        session_id: sessionId,
        chatbot_id: call.chatbot_id,
        channel_id: call.channel_id,
        turn_id: turnId,
        step: call.step ?? 0,
        parent_id: call.id,
        tool_name: name,
        tool_call_id: call.metadata?.tool_call_id ?? call.id,
        content: refused.content,
        summary: refused.summary,
      });
      message.metadata = { ...message.metadata, tool_ok: false };
      await commit(pool, sessionId, { insert: [message] });
      return { resultId: message.id, ok: false, summary: refused.summary };
    },
  };
}

/**
 * The session port every chat channel hands its ingress: the workflow calls of {@link SessionClient} a command
 * needs, `/schedules` (kit/schedules.ts), the row updates `/locale` and `/approval` make, and the policy
 * `/approval` compares with. A channel
 * adds its own members (`/new`, typed approvals, edits of queued messages) beside what this returns.
 */
import { setApprovalPolicy } from '../../db/approvals.ts';
import type { Pool } from '../../db/pool.ts';
import { setLocale } from '../../db/sessions.ts';
import type { SharedScope } from '../../domain/people.ts';
import type { ApprovalPolicy } from '../../domain/tool-approval.ts';
import type { Logger } from '../../infra/logger.ts';
import { SessionClientError, type SessionClient } from '../../infra/session-client.ts';
import { currentApprovalPolicy } from './approval-policy.ts';
import type { ChannelFeatures } from './channel.ts';
import type { CommandSessions } from './command-dispatch.ts';
import { scheduleCommands } from './schedules.ts';
import { createKnowledgeCommands } from './knowledge-commands.ts';
import { jobCommands } from './jobs.ts';

/** The SessionClient calls the port passes on (`state` optional: a test client may lack it). */
export type SessionCalls = Pick<SessionClient, 'submit' | 'stop' | 'compact' | 'setTitle' | 'setMode'> &
  Partial<Pick<SessionClient, 'state' | 'client' | 'taskQueue'>>;

/** What {@link sessionCommands} returns: submit, the command calls, `/locale` and `/approval`. */
export type SessionCommandPort = Pick<SessionClient, 'submit'> &
  CommandSessions &
  Required<Pick<CommandSessions, 'setLocale' | 'setApproval' | 'approvalPolicy'>>;

/**
 * The shared session port of a chat channel.
 * @param o.sessions the process's session client
 * @param o.pool where the session rows are (locale, approval policy, schedules)
 * @param o.logger for the schedule service of `/schedules`
 * @param o.features the channel's descriptor features (`decidesApprovals` gives its default policy)
 * @param o.configured `KESOKU_TOOL_APPROVAL` as the channel's configuration read it (undefined: not set)
 * @param o.chatbotId the channel's chatbot id: whose people `/memory` and `/link` speak for
 * @param o.sharedMemoryScopes the shared memory scopes `/memory` also lists (KESOKU_MEMORY_SHARED_SCOPES); default none
 * @returns also `/memory` and `/link` (kit/knowledge-commands.ts), and `/jobs` and `/kill` (kit/jobs.ts) when
 *   the session client carries its Temporal client and task queue
 * @returns the port; `setLocale`, `setApproval` and `approvalPolicy` throw a SessionClientError `not_found`
 *   for a session that does not exist yet
 */
export function sessionCommands(o: {
  sessions: SessionCalls;
  pool: Pool;
  logger: Logger;
  features: Pick<ChannelFeatures, 'decidesApprovals'>;
  configured?: ApprovalPolicy | undefined;
  chatbotId: string;
  sharedMemoryScopes?: readonly SharedScope[] | undefined;
}): SessionCommandPort {
  const { sessions: s, pool } = o;
  return {
    submit: (...a) => s.submit(...a),
    stop: (...a) => s.stop(...a),
    compact: (...a) => s.compact(...a),
    setTitle: (...a) => s.setTitle(...a),
    setMode: (...a) => s.setMode(...a),
    ...(s.state ? { state: s.state.bind(s) } : {}),
    ...scheduleCommands(s, pool, o.logger),
    async setLocale(sessionId, locale) {
      if (!(await setLocale(pool, sessionId, locale)))
        throw new SessionClientError('not_found', `no session ${sessionId}`);
      return { locale };
    },
    async setApproval(sessionId, policy) {
      if (!(await setApprovalPolicy(pool, sessionId, policy)))
        throw new SessionClientError('not_found', `no session ${sessionId}`);
    },
    approvalPolicy: (sessionId) => currentApprovalPolicy(pool, sessionId, o.features, o.configured),
    knowledge: createKnowledgeCommands(pool, o.chatbotId, new Set(o.sharedMemoryScopes ?? [])),
    ...(s.client && s.taskQueue
      ? { jobs: jobCommands({ client: s.client, taskQueue: s.taskQueue }, pool) }
      : {}),
  };
}

/**
 * `POST /v1/sessions/{sessionId}/deliveries`: the terminal client (chatbot `cli`) says which messages it has
 * printed. docs/message-model.md §5.3 (CLI column: everything a person may see is shown) and §4.2–§4.3: a message
 * is `delivered` once the channel showed it — for the CLI that is the client, not the worker, so a reply stays
 * `pending` (thoughts and tool messages `responded`) until a client printed it.
 *
 * Idempotent: acknowledging a `delivered` message again changes nothing. Only the legal transitions of
 * domain/status-machine.ts are made (`pending → delivered`, `responded → delivered`), and only for messages the
 * CLI column shows (domain/presentation.ts): a hidden kind (empty-reply nudge, system prompt), a user message or
 * a tool call that ended `interrupted` keeps its status, and the answer says so.
 */
import { Router, type Request, type Response } from 'express';
import type { Message } from '../../domain/message.ts';
import { presentationFor } from '../../domain/presentation.ts';
import { IllegalTransitionError } from '../../domain/status-machine.ts';
import { commit, getMessages } from '../../db/messages.ts';
import type { Pool } from '../../db/pool.ts';
import { CLI_CHATBOT, callerOf, requireSessionRowFor } from '../access.ts';
import type { ResolvedDeps } from '../deps.ts';
import { contextOf } from '../context.ts';
import { HttpProblem } from '../problems.ts';
import { deliveriesSchema, parseBody, requireJson, type DeliveriesResult } from '../schemas.ts';
import { checkSessionIdParam } from './common.ts';

type SessionRequest = Request<{ sessionId: string }>;

/** How often a batch is re-read and re-tried when a message changed status between the read and the write. */
const RACE_RETRIES = 3;

/** Routes of the deliveries resource. */
export function deliveriesRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);

  router.post('/v1/sessions/:sessionId/deliveries', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    requireJson(req);
    const body = parseBody(deliveriesSchema, req.body);
    const session = await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    if (session.chatbot_id !== CLI_CHATBOT) {
      throw new HttpProblem(
        'conflict',
        `session ${sessionId} is on channel "${session.chatbot_id}", whose messages are delivered by the server; ` +
          `only "${CLI_CHATBOT}" sessions are acknowledged by their client`,
      );
    }
    const result = await acknowledge(d.pool, sessionId, [...new Set(body.ids)]);
    contextOf(res).log.debug(
      { sessionId, ids: body.ids.length, revision: result.revision },
      'deliveries acknowledged',
    );
    res.status(200).json(result);
  });

  return router;
}

/** True when a client that printed `m` may mark it `delivered` (docs/message-model.md §4.2–§4.3, §5.3). */
function deliverable(m: Message): boolean {
  return (m.status === 'pending' || m.status === 'responded') && presentationFor('cli', m) === 'shown';
}

/**
 * Marks the printed messages `ids` of `sessionId` delivered, in one commit.
 * @throws HttpProblem validation (400, `field: ids.N`) when an id is not a message of this session; nothing is
 *   changed then
 */
async function acknowledge(pool: Pool, sessionId: string, ids: string[]): Promise<DeliveriesResult> {
  for (let attempt = 1; ; attempt++) {
    const found = new Map((await getMessages(pool, ids)).map((m) => [m.id, m]));
    const missing = ids.findIndex((id) => found.get(id)?.session_id !== sessionId);
    if (missing >= 0) {
      throw new HttpProblem('validation', `ids.${missing}: no message ${ids[missing]} in this session`, {
        extensions: { field: `ids.${missing}` },
      });
    }
    const toMark = ids.filter((id) => deliverable(found.get(id) as Message));
    try {
      const r = await commit(pool, sessionId, {
        transitions: toMark.map((id) => ({ id, to: 'delivered' as const })),
      });
      for (const m of [...r.updated, ...r.unchanged]) found.set(m.id, m);
      return {
        revision: r.revision,
        messages: ids.map((id) => ({ id, status: (found.get(id) as Message).status })),
      };
    } catch (err) {
      // A message left `responded`/`pending` meanwhile (a dangling tool call became `interrupted`): read again.
      if (err instanceof IllegalTransitionError && attempt < RACE_RETRIES) continue;
      throw err;
    }
  }
}

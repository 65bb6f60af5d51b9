/**
 * `POST /v1/sessions/{sessionId}/messages` (submit, optionally wait for the turn) and
 * `GET /v1/sessions/{sessionId}/messages` (history or a delta after a revision).
 */
import { Router, type Request, type Response } from 'express';
import { API_CHATBOT, callerOf, requireSessionRowFor } from '../access.ts';
import { contextOf } from '../context.ts';
import type { ResolvedDeps } from '../deps.ts';
import { readHistory } from '../history.ts';
import { validationProblem } from '../problems.ts';
import {
  API_LIMITS,
  intQuery,
  parseBody,
  postMessageSchema,
  requireJson,
  type HistoryBody,
  type MessageAccepted,
} from '../schemas.ts';
import { acceptMessage } from '../submit.ts';
import { answerAfterWait } from '../turn-wait.ts';
import { checkSessionIdParam } from './common.ts';

/** REST sessions live on chatbot "api" (or "cli", chosen by the first message), channel = the session id. */
export { API_CHATBOT };

type SessionRequest = Request<{ sessionId: string }>;

/** Routes of the messages resource. Every Temporal call runs under `temporalTimeoutMs`. */
export function messagesRouter(d: ResolvedDeps): Router {
  const router = Router();
  checkSessionIdParam(router);
  const bodySchema = postMessageSchema(d.waitMaxS);

  router.post('/v1/sessions/:sessionId/messages', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    requireJson(req);
    const body = parseBody(bodySchema, req.body);
    const { inbound, accepted } = await acceptMessage(d, callerOf(res), sessionId, body);
    const log = contextOf(res).log.child({ sessionId, messageId: inbound.id });
    log.info({ queuePosition: accepted.queue_position, duplicate: accepted.duplicate }, 'message accepted');
    if (!body.wait) {
      const { message, queue_position, duplicate } = accepted;
      res.status(202).json({ message, queue_position, duplicate } satisfies MessageAccepted);
      return;
    }
    await answerAfterWait(d, res, log, {
      sessionId,
      messageId: inbound.id,
      waitS: body.wait,
      duplicate: accepted.duplicate,
    });
  });

  router.get('/v1/sessions/:sessionId/messages', async (req: SessionRequest, res: Response) => {
    const { sessionId } = req.params;
    const after = intQuery(req.query.after_revision, 'after_revision', 0, Number.MAX_SAFE_INTEGER);
    const beforeSeq = intQuery(req.query.before_seq, 'before_seq', 1, Number.MAX_SAFE_INTEGER);
    if (after !== undefined && beforeSeq !== undefined)
      throw validationProblem(
        'before_seq',
        'pages back through the history; it cannot be used with after_revision',
      );
    const limit =
      intQuery(req.query.limit, 'limit', 1, API_LIMITS.messagesPageMax) ?? API_LIMITS.messagesPageDefault;
    const session = await requireSessionRowFor(d.pool, callerOf(res), sessionId);
    const delta = await readHistory(d.pool, sessionId, session.revision, after, limit, { beforeSeq });
    res.status(200).json({
      revision: delta.revision,
      messages: delta.messages,
      has_more: !delta.complete,
    } satisfies HistoryBody);
  });

  return router;
}

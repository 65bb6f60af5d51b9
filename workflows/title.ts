/**
 * Title generation off the turn's critical path (seed 2 §12): a child workflow the session starts with
 * ParentClosePolicy ABANDON after its first completed turn. The activity commits the title only while the
 * session's title is still the default, so a title the user set in the meantime always stays.
 */
import * as wf from '@temporalio/workflow';
import type { ModelActivities } from '../activities/contracts.ts';
import { titleChangedSignal } from './definitions.ts';

const model = wf.proxyActivities<ModelActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** @returns the committed title, or null when none was committed (failure only logs: seed 2 §12). */
export async function titleWorkflow(input: { sessionId: string; parentWorkflowId: string }): Promise<string | null> {
  try {
    const { title, committed } = await model.generateTitle({ sessionId: input.sessionId });
    if (!committed || !title) return null;
    try {
      await wf.getExternalWorkflowHandle(input.parentWorkflowId).signal(titleChangedSignal, title);
    } catch (err) {
      wf.log.info('session not told about its title', { error: String(err) });
    }
    return title;
  } catch (err) {
    wf.log.warn('title generation failed', { error: String(err) });
    return null;
  }
}

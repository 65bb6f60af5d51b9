/**
 * Title generation off the turn's critical path: a child workflow the session starts with ParentClosePolicy
 * ABANDON after a processed turn while the session has no title. The activity commits the title only while
 * the session's title is still the default, so a title the user set in the meantime always stays.
 */
import * as wf from '@temporalio/workflow';
import { titleGeneration } from './activity-options.ts';
import { titleChangedSignal } from './definitions.ts';

/**
 * @returns the committed title, or null when none was committed. A failure only logs (a title never changes a
 * turn's status or reaches the user); the session tries again after its next processed turn.
 */
export async function titleWorkflow(input: {
  sessionId: string;
  parentWorkflowId: string;
}): Promise<string | null> {
  try {
    const { title, committed } = await titleGeneration.generateTitle({ sessionId: input.sessionId });
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

/**
 * Background jobs on the real dev server, real Postgres and this host's sandbox, with the fake model: a
 * `run_shell_command` with `background: true` answers with a job id at once, and the job's end wakes the session
 * with the seed's background alert (docs/message-model.md §3 "后台唤醒警报"), once, behind a running turn.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJob, listJobs } from '../../db/jobs.ts';
import { jobAlertMessageId, jobWorkflowId } from '../../domain/jobs.ts';
import type { Message } from '../../domain/message.ts';
import { BackgroundJobs, JobError } from '../../infra/jobs.ts';
import { sessionWorkspaceDir } from '../../infra/workspace.ts';
import { recordHistory } from '../support/histories.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';
import { toolTaskQueueOf } from '../../workflows/definitions.ts';

let stack: Stack;
let jobs: BackgroundJobs;
beforeAll(async () => {
  stack = await startStack();
  jobs = new BackgroundJobs({
    client: stack.client,
    pool: stack.pool,
    taskQueue: stack.taskQueue,
    limits: { defaultTimeoutS: 60, maxTimeoutS: 600, maxRunningPerSession: 4 },
  });
});
afterAll(async () => stack?.stop());

const background = (command: string, extra: Record<string, unknown> = {}) => ({
  kind: 'tool_calls' as const,
  calls: [{ name: 'run_shell_command', arguments: { command, background: true, ...extra } }],
});

/** Starts a job in a new turn of `session`; @returns the job id (from the tool result) */
async function startJob(session: string, command: string, extra: Record<string, unknown> = {}) {
  stack.script(session, background(command, extra), { kind: 'text', text: 'started it' });
  const r = await stack.submit(session, 'start the job');
  const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted']);
  expect(done.status).toBe('processed');
  const result = (await stack.messages(session)).find(
    (m) => m.type === 'tool_result' && m.turn_id === r.message.id,
  );
  const id = /Background job (job_[0-9a-f]{16}) started/.exec(result?.content ?? '')?.[1];
  expect(id, result?.content).toBeDefined();
  return id!;
}

async function alertsOf(session: string): Promise<Message[]> {
  return (await stack.messages(session)).filter((m) => m.role === 'system' && m.sender === 'System');
}

async function waitForJobEnd(jobId: string, timeoutMs = 30_000) {
  await expect
    .poll(async () => (await getJob(stack.pool, jobId))?.state, { timeout: timeoutMs, interval: 100 })
    .not.toBe('running');
  return (await getJob(stack.pool, jobId))!;
}

/** Processes whose command line contains `marker` (the host's /proc also shows those in sandboxes). */
function processesWith(marker: string): string {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l !== '' && !l.includes('pgrep'))
      .join('\n');
  } catch {
    return '';
  }
}

describe('background jobs', () => {
  it('a background `sleep 5 && echo done` answers at once, then its alert wakes the agent, whose reply has `done`', async () => {
    const session = uniqueId('s');
    // The command waits for a file the test writes only once the turn that started it has ended: that turn
    // ended before the command did, however slow the machine.
    const jobId = await startJob(session, 'while [ ! -e go ]; do sleep 0.2; done; sleep 5 && echo done');
    expect((await getJob(stack.pool, jobId))?.state).toBe('running');
    fs.writeFileSync(path.join(sessionWorkspaceDir(stack.dataDir, session), 'go'), '');

    const alertId = jobAlertMessageId(jobId);
    const alert = await stack.waitForStatus(alertId, ['processed'], 30_000);
    expect(alert).toMatchObject({
      role: 'system',
      type: 'text',
      sender: 'System',
      chatbot_id: 'api',
      channel_id: session,
      turn_id: alertId,
      // The seed's row gives the alert no parent: like a user question or a cron prompt it starts its own turn.
      parent_id: null,
      metadata: null,
    });
    expect(alert.content.startsWith(`[System Alert] Background Job ${jobId} finished.\n`)).toBe(true);
    expect(alert.content).toContain('State: succeeded (exit 0)');
    expect(alert.content).toContain('done');

    const reply = (await stack.messages(session)).find(
      (m) => m.turn_id === alertId && m.role === 'assistant' && m.type === 'text',
    );
    expect(reply?.status).toBe('delivered');
    expect(reply?.content).toContain('done');
    // The model got the alert as a user turn (docs/message-model.md §5.4).
    const lastRequest = stack.requestsOf(session).at(-1);
    const lastUser = lastRequest?.body?.messages?.filter((m) => m.role === 'user').at(-1);
    expect(String(lastUser?.content)).toContain(`[System Alert] Background Job ${jobId} finished.`);

    const job = await getJob(stack.pool, jobId);
    expect(job).toMatchObject({ state: 'succeeded', exitCode: 0 });
    expect(job?.outputTail).toContain('done');
    expect(await alertsOf(session)).toHaveLength(1);

    // The command's activity ran on the tool task queue, never taking a session-queue slot.
    const handle = stack.client.workflow.getHandle(jobWorkflowId(jobId));
    await expect
      .poll(async () => (await handle.describe()).status.name, { timeout: 10_000 })
      .toBe('COMPLETED');
    const scheduled = (await handle.fetchHistory()).events
      ?.map((e) => e.activityTaskScheduledEventAttributes)
      .find((a) => a?.activityType?.name === 'runBackgroundJob');
    expect(scheduled?.taskQueue?.name).toBe(toolTaskQueueOf(stack.taskQueue));
    await recordHistory('background-job', stack.client, jobWorkflowId(jobId));
  });

  it('the alert arrives once: submitting it again is acknowledged as a duplicate and starts no turn', async () => {
    const session = uniqueId('s');
    const jobId = await startJob(session, 'echo quick');
    const alertId = jobAlertMessageId(jobId);
    await stack.waitForStatus(alertId, ['processed'], 30_000);
    const before = (await stack.messages(session)).length;
    const again = await stack.sessions.submit(
      { sessionId: session, chatbotId: 'api', channelId: session },
      {
        id: alertId,
        kind: 'background_alert',
        jobId,
        sender: 'System',
        content: 'again',
        receivedAt: new Date().toISOString(),
      },
    );
    expect(again.duplicate).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await stack.messages(session)).length).toBe(before);
    expect(await alertsOf(session)).toHaveLength(1);
  });

  it('a job over its timeout is killed (no process left) and reported timed_out', async () => {
    const session = uniqueId('s');
    const marker = `${31 + Math.floor(Math.random() * 1000)}.25`;
    const jobId = await startJob(session, `sleep ${marker}; echo never`, { timeout_s: 2 });
    const job = await waitForJobEnd(jobId, 20_000);
    expect(job).toMatchObject({ state: 'timed_out', exitCode: null });
    expect(processesWith(`sleep ${marker}`)).toBe('');
    const alert = await stack.waitForStatus(jobAlertMessageId(jobId), ['processed'], 30_000);
    expect(alert.content).toContain('State: timed_out');
    expect(alert.content).toContain('=== STDOUT ===\n\n=== STDERR ===');
  });

  it('kill ends a running job `killed`: its process group is gone, and its alert arrives once', async () => {
    const session = uniqueId('s');
    const marker = `${41 + Math.floor(Math.random() * 1000)}.5`;
    const jobId = await startJob(session, `sleep ${marker} & sleep ${marker}; echo never`);
    await expect.poll(() => processesWith(`sleep ${marker}`), { timeout: 10_000 }).not.toBe('');
    const killed = await jobs.kill(session, jobId);
    expect(killed.state).toBe('killed');
    await expect.poll(() => processesWith(`sleep ${marker}`), { timeout: 5_000 }).toBe('');
    const alert = await stack.waitForStatus(jobAlertMessageId(jobId), ['processed'], 30_000);
    expect(alert.content).toContain('State: killed');
    await expect(jobs.kill(session, jobId)).rejects.toMatchObject({ kind: 'not_running' });
    await expect(jobs.kill(session, 'job_0000000000000000')).rejects.toBeInstanceOf(JobError);
    expect(await alertsOf(session)).toHaveLength(1);
  });

  it('an alert arriving during a running turn waits behind it: the turn is not interrupted, the alert runs next', async () => {
    const session = uniqueId('s');
    const jobId = await startJob(session, 'sleep 1; echo behind');
    const busy = await stack.submit(session, 'sleep: 6');
    const alertId = jobAlertMessageId(jobId);
    // The job ended while the 6-second turn ran.
    await waitForJobEnd(jobId, 10_000);
    expect((await stack.waitForStatus(busy.message.id, ['processed', 'interrupted'], 20_000)).status).toBe(
      'processed',
    );
    const alert = await stack.waitForStatus(alertId, ['processed'], 30_000);
    const msgs = await stack.messages(session);
    const busyReply = msgs.find(
      (m) => m.turn_id === busy.message.id && m.type === 'text' && m.role === 'assistant',
    );
    const alertReply = msgs.find((m) => m.turn_id === alertId && m.type === 'text' && m.role === 'assistant');
    expect(busyReply?.content).toBe('slept 6s');
    expect(alertReply?.content).toContain('behind');
    expect(Date.parse(alertReply!.created_at)).toBeGreaterThan(Date.parse(busyReply!.created_at));
    expect(alert.status).toBe('processed');
  });

  it('a session may run only so many jobs at once: one more is refused to the model, nothing started', async () => {
    const session = uniqueId('s');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await startJob(session, `sleep 20; echo ${i}`));
    stack.script(session, background('echo five'), { kind: 'text', text: 'could not' });
    const r = await stack.submit(session, 'one more');
    await stack.waitForStatus(r.message.id, ['processed']);
    const result = (await stack.messages(session)).find(
      (m) => m.type === 'tool_result' && m.turn_id === r.message.id,
    );
    expect(result?.content).toContain(
      'too many background jobs running: a session may run at most 4 at once',
    );
    expect((await listJobs(stack.pool, session)).length).toBe(4);
    for (const id of ids) await jobs.kill(session, id);
    for (const id of ids) await stack.waitForStatus(jobAlertMessageId(id), ['processed'], 30_000);
  });
});

/**
 * REST `GET /v1/sessions/{sessionId}/jobs` and `DELETE …/jobs/{jobId}` on the real stack: a job the agent started
 * in the background is listed, killed by DELETE (its whole process group gone), and answers 409 / 404 after.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jobAlertMessageId } from '../../domain/jobs.ts';
import { uniqueId } from '../support/stack.ts';
import { expectProblem, useHarness, type Json } from './support.ts';

const h = useHarness();

function processesWith(marker: string): string {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

describe('background jobs over REST', () => {
  it('lists a running job, DELETE kills its process group and ends it killed; then 409, unknown ids 404', async () => {
    const session = uniqueId('s');
    const marker = `${51 + Math.floor(Math.random() * 1000)}.75`;
    h.stack.script(
      session,
      {
        kind: 'tool_calls',
        calls: [
          {
            name: 'run_shell_command',
            arguments: { command: `sleep ${marker} & sleep ${marker} & wait`, background: true },
          },
        ],
      },
      { kind: 'text', text: 'started' },
    );
    const sent = await h.client.post(`/v1/sessions/${session}/messages`, { content: 'go', wait: 30 });
    expect(sent.status).toBe(200);

    const list = await h.client.get<{ jobs: Json[] }>(`/v1/sessions/${session}/jobs`);
    expect(list.status).toBe(200);
    expect(list.body.jobs).toHaveLength(1);
    const job = list.body.jobs[0]!;
    expect(job).toMatchObject({ state: 'running', exit_code: null, ended_at: null, session_id: session });
    await expect.poll(() => processesWith(`sleep ${marker}`), { timeout: 10_000 }).not.toBe('');

    const killed = await h.client.request<{ job: Json }>(
      'DELETE',
      `/v1/sessions/${session}/jobs/${String(job.id)}`,
    );
    expect(killed.status).toBe(200);
    expect(killed.body.job).toMatchObject({ id: job.id, state: 'killed', exit_code: null });
    await expect.poll(() => processesWith(`sleep ${marker}`), { timeout: 5_000 }).toBe('');

    const again = await h.client.request('DELETE', `/v1/sessions/${session}/jobs/${String(job.id)}`);
    expect(expectProblem(again, 409).state).toBe('killed');
    expectProblem(
      await h.client.request('DELETE', `/v1/sessions/${session}/jobs/job_0000000000000000`),
      404,
      'not-found',
    );
    expectProblem(await h.client.get(`/v1/sessions/${uniqueId('nope')}/jobs`), 404);
    await h.stack.waitForStatus(jobAlertMessageId(String(job.id)), ['processed'], 30_000);
  });
});

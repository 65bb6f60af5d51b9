/**
 * The Prometheus endpoints of a worker process and an API process: Kesoku's series and the Temporal SDK
 * runtime's exist, and the turn, model, tool and SSE series move after one turn with a tool call.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
const parts: ChildPart[] = [];
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
});
afterAll(async () => {
  for (const p of parts) await p.kill('SIGTERM');
  await stack?.stop();
});

/** The value of one series (name plus exact label set as printed), or 0 when absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line
    ? Number(
        line
          .slice(series.length + 1)
          .trim()
          .split(' ')[0],
      )
    : 0;
}

async function scrape(url: string): Promise<string> {
  const r = await fetch(`${url}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toContain('text/plain');
  return r.text();
}

function urlFrom(part: ChildPart, prefix: string): string {
  const m = new RegExp(`${prefix} (http://[0-9.:]+)`).exec(part.output());
  if (!m) throw new Error(`no "${prefix}" line in:\n${part.output()}`);
  return m[1] as string;
}

describe('metrics', () => {
  it('the main series exist on the worker and the API and move after one turn', async () => {
    const worker = startPart('bin/worker.ts', stackEnv(stack, { KESOKU_METRICS_PORT: '0' }));
    const api = startPart('bin/api.ts', stackEnv(stack, { KESOKU_METRICS_PORT: '0', KESOKU_API_PORT: '0' }));
    parts.push(worker, api);
    await Promise.all([
      worker.waitFor('kesoku metrics on', 200_000),
      api.waitFor('kesoku metrics on', 200_000),
    ]);
    const workerMetrics = urlFrom(worker, 'kesoku metrics on');
    const apiMetrics = urlFrom(api, 'kesoku metrics on');
    const apiUrl = urlFrom(api, 'kesoku API listening on');

    const before = await scrape(workerMetrics);
    for (const name of [
      'kesoku_turns_total',
      'kesoku_turn_duration_seconds',
      'kesoku_model_call_duration_seconds',
      'kesoku_model_tokens_total',
      'kesoku_tool_call_duration_seconds',
      'kesoku_delivery_failures_total',
      'kesoku_queue_depth',
      'kesoku_process_cpu_seconds_total',
    ]) {
      expect(before).toContain(`# TYPE ${name} `);
    }
    // The Temporal SDK runtime's own exporter, re-served on the same endpoint.
    expect(before).toMatch(/^temporal_[a-z_]+/m);
    expect(await scrape(apiMetrics)).toContain('# TYPE kesoku_sse_clients gauge');

    const session = uniqueId('s');
    const post = await fetch(`${apiUrl}/v1/sessions/${session}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'run: echo metrics-turn', wait: 60 }),
    });
    expect(post.status).toBe(200);
    expect(((await post.json()) as { message: { status: string } }).message.status).toBe('processed');

    // The turn's series are recorded when the workflow ends the turn, a moment after the reply the POST waited
    // for: scrape until the turn is counted (or give up and let the assertion below say what is missing).
    const processedBefore = value(before, 'kesoku_turns_total{outcome="processed"}');
    let after = await scrape(workerMetrics);
    for (
      let i = 0;
      i < 100 && value(after, 'kesoku_turns_total{outcome="processed"}') <= processedBefore;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 200));
      after = await scrape(workerMetrics);
    }
    expect(value(after, 'kesoku_turns_total{outcome="processed"}')).toBe(processedBefore + 1);
    expect(value(after, 'kesoku_turn_duration_seconds_count{outcome="processed"}')).toBe(1);
    expect(value(after, 'kesoku_model_call_duration_seconds_count{outcome="ok"}')).toBeGreaterThanOrEqual(2);
    expect(value(after, 'kesoku_model_tokens_total{kind="input"}')).toBeGreaterThan(0);
    expect(value(after, 'kesoku_model_tokens_total{kind="output"}')).toBeGreaterThan(0);
    expect(value(after, 'kesoku_tool_call_duration_seconds_count{outcome="ok"}')).toBe(1);
    expect(value(after, 'kesoku_activity_duration_seconds_count{activity="runToolCall",outcome="ok"}')).toBe(
      1,
    );
    // kesoku_queue_depth counts waiting messages of every session in the database, which other test files share
    // while this one runs: its presence is checked above, its value is not predictable here.
    expect(after).toMatch(
      /^temporal_activity_execution_latency_seconds_count\{.*activity_type="runToolCall".*\} 1$/m,
    );

    // An SSE client on the API is counted while it is connected.
    const sse = http.get(`${apiUrl}/v1/sessions/${session}/events`);
    await new Promise<void>((resolve, reject) => {
      sse.once('response', (res) => res.once('data', () => resolve()));
      sse.once('error', reject);
    });
    expect(value(await scrape(apiMetrics), 'kesoku_sse_clients')).toBe(1);
    sse.destroy();
    await expect
      .poll(async () => value(await scrape(apiMetrics), 'kesoku_sse_clients'), { timeout: 5000 })
      .toBe(0);

    const health = await fetch(`${workerMetrics}/healthz`);
    expect(health.status).toBe(200);
  }, 300_000);
});

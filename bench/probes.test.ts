// The bench's counting helpers: Prometheus parsing and histogram deltas, the statement log, CPU-profile grouping.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { category, selfTimes } from './cpu-profile.ts';
import { instrumentQuery, StatementLog } from './pg-probe.ts';
import { histogramDeltas, parsePrometheus } from './probes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('bench probes', () => {
  it('parses Prometheus samples with labels and takes per-series count and mean of SDK histograms', () => {
    const scrape = (count: number, sum: number, other: number) =>
      parsePrometheus(
        [
          '# HELP temporal_workflow_task_schedule_to_start_latency_seconds x',
          `temporal_workflow_task_schedule_to_start_latency_seconds_bucket{task_queue="bench-1",le="0.01"} ${count}`,
          `temporal_workflow_task_schedule_to_start_latency_seconds_sum{namespace="default",task_queue="bench-1"} ${sum}`,
          `temporal_workflow_task_schedule_to_start_latency_seconds_count{namespace="default",task_queue="bench-1"} ${count}`,
          `temporal_activity_execution_latency_seconds_sum{activity_type="runModelStep",task_queue="bench-1"} ${other}`,
          `temporal_activity_execution_latency_seconds_count{activity_type="runModelStep",task_queue="bench-1"} 4`,
          'kesoku_turns_total{outcome="processed"} 3',
        ].join('\n'),
      );
    const before = scrape(10, 0.05, 1);
    expect(before.find((s) => s.name === 'kesoku_turns_total')).toEqual({
      name: 'kesoku_turns_total',
      labels: { outcome: 'processed' },
      value: 3,
    });
    const after = scrape(14, 0.09, 1);
    // 4 more tasks, 40 ms more in all: 10 ms each; the unchanged activity series is left out.
    expect(histogramDeltas(before, after, 'bench-1')).toEqual({
      'workflow_task_schedule_to_start_latency{main}': { count: 4, mean_ms: 10 },
    });
  });

  it('counts every query call of an instrumented client, with its SQL start, and keeps the newest records', () => {
    const log = new StatementLog(4);
    const calls: unknown[] = [];
    const client = { query: (q: unknown) => calls.push(q) };
    instrumentQuery(client, log);
    client.query('SELECT   1\n  FROM t');
    client.query({ text: 'BEGIN' });
    for (let i = 0; i < 4; i++) client.query('COMMIT');
    expect(calls).toHaveLength(6);
    expect(log.total).toBe(6);
    // At most 4 kept: on overflow the oldest are dropped down to half, newest last.
    expect(log.since(0).map((r) => r.seq)).toEqual([4, 5, 6]);
    expect(new StatementLog().since(0)).toEqual([]);
    const fresh = new StatementLog();
    const other = { query: (_q: unknown) => undefined };
    instrumentQuery(other, fresh);
    other.query('SELECT   1\n  FROM t');
    other.query({ text: 'BEGIN' });
    expect(fresh.since(0).map((r) => r.sql)).toEqual(['SELECT 1 FROM t', 'BEGIN']);
    expect(fresh.since(1).map((r) => r.seq)).toEqual([2]);
  });

  it('groups profile frames by package or Kesoku folder and charges Node internals to their caller', () => {
    expect(category(`file://${ROOT}/node_modules/pg/lib/client.js`, 'query')).toBe('pg');
    expect(category(`file://${ROOT}/node_modules/@temporalio/worker/lib/worker.js`, 'x')).toBe(
      '@temporalio/worker',
    );
    expect(category(`file://${ROOT}/activities/persistence.ts`, 'acceptInbound')).toBe('kesoku activities/');
    expect(category('node:internal/net', 'writev')).toBe('node internals');
    expect(category('', '(garbage collector)')).toBe('(garbage collector)');
    const frame = (id: number, url: string, functionName: string, children: number[] = []) => ({
      id,
      callFrame: { functionName, url, lineNumber: 0 },
      children,
    });
    const profile = {
      nodes: [
        frame(1, '', '(root)', [2]),
        frame(2, `file://${ROOT}/db/messages.ts`, 'getMessage', [3]),
        frame(3, 'node:net', 'write'),
      ],
      startTime: 0,
      endTime: 4000,
      samples: [2, 3, 3, 3],
      timeDeltas: [1000, 1000, 1000, 1000],
    };
    const all = selfTimes(profile);
    expect(all.total).toBe(4);
    expect(all.byCategory.get('node internals')).toBe(3);
    expect(all.byCaller.get('kesoku db/')).toBe(4);
    // A window of ms after the start: the samples at 2 and 3 ms.
    expect(selfTimes(profile, 1.5, 3).total).toBe(2);
  });
});

/**
 * What the bench reads off a run besides times: the counts of a session workflow's history (across its
 * continue-as-new chain), the Temporal SDK's Prometheus series of the worker, and CPU time of processes.
 */
import fs from 'node:fs';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { EventType } = proto.temporal.api.enums.v1;

/** Counts of one workflow's history, summed over its runs. `by_type`: events per type (`WORKFLOW_TASK_COMPLETED`…). */
export interface HistoryCounts {
  events: number;
  /** Workflow tasks completed (speculative tasks of accepted updates included: they are persisted). */
  workflow_tasks: number;
  /** Workflow tasks that failed or timed out (0 in a healthy run). */
  workflow_tasks_failed: number;
  /** Activities scheduled (eager ones included). */
  activities: number;
  /** Local activities (`core_local_activity` markers). */
  local_activities: number;
  /** Child workflows started. */
  children: number;
  /** Runs in the chain (1 + continue-as-new). */
  runs: number;
  /** Bytes of payload data (encrypted, as stored). */
  payload_bytes: number;
  by_type: Record<string, number>;
}

type HistoryEvent = NonNullable<proto.temporal.api.history.v1.IHistory['events']>[number];

/**
 * The counts of workflow `workflowId`: its latest run and every run it continued from.
 * @throws what `fetchHistory` throws (e.g. the workflow does not exist)
 */
export async function historyCounts(client: Client, workflowId: string): Promise<HistoryCounts> {
  const total: HistoryCounts = {
    events: 0,
    workflow_tasks: 0,
    workflow_tasks_failed: 0,
    activities: 0,
    local_activities: 0,
    children: 0,
    runs: 0,
    payload_bytes: 0,
    by_type: {},
  };
  let runId: string | undefined;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = (history.events ?? []) as HistoryEvent[];
    total.runs += 1;
    total.payload_bytes += payloadBytes(history);
    for (const e of events) {
      const type = (EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');
      total.events += 1;
      total.by_type[type] = (total.by_type[type] ?? 0) + 1;
      if (type === 'WORKFLOW_TASK_COMPLETED') total.workflow_tasks += 1;
      if (type === 'WORKFLOW_TASK_FAILED' || type === 'WORKFLOW_TASK_TIMED_OUT')
        total.workflow_tasks_failed += 1;
      if (type === 'ACTIVITY_TASK_SCHEDULED') total.activities += 1;
      if (type === 'START_CHILD_WORKFLOW_EXECUTION_INITIATED') total.children += 1;
      if (type === 'MARKER_RECORDED' && e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
        total.local_activities += 1;
    }
    const previous = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return total;
    runId = previous;
  }
}

/** `after` − `before`, field by field, divided by `turns` (per-turn counts; `runs` stays the difference). */
export function perTurn(after: HistoryCounts, before: HistoryCounts, turns: number): Record<string, unknown> {
  const d = (a: number, b: number) => Math.round(((a - b) / turns) * 100) / 100;
  const byType: Record<string, number> = {};
  for (const k of new Set([...Object.keys(after.by_type), ...Object.keys(before.by_type)])) {
    const v = d(after.by_type[k] ?? 0, before.by_type[k] ?? 0);
    if (v !== 0) byType[k] = v;
  }
  return {
    workflow_tasks: d(after.workflow_tasks, before.workflow_tasks),
    workflow_tasks_failed: d(after.workflow_tasks_failed, before.workflow_tasks_failed),
    activities: d(after.activities, before.activities),
    local_activities: d(after.local_activities, before.local_activities),
    children: d(after.children, before.children),
    events: d(after.events, before.events),
    payload_bytes: Math.round((after.payload_bytes - before.payload_bytes) / turns),
    continue_as_new: after.runs - before.runs,
    events_by_type: byType,
  };
}

function payloadBytes(history: unknown): number {
  let bytes = 0;
  const walk = (o: unknown) => {
    if (!o || typeof o !== 'object') return;
    const p = o as { data?: unknown; metadata?: unknown };
    if (p.data instanceof Uint8Array && p.metadata) {
      bytes += p.data.length;
      return;
    }
    for (const v of Object.values(o)) walk(v);
  };
  walk(history);
  return bytes;
}

/** One Prometheus sample: metric name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (comments skipped). */
export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = l[2] as string;
    out.push({ name: m[1] as string, labels, value: Number(m[4]) });
  }
  return out;
}

/**
 * Reads the worker's `/metrics` (Kesoku's and the Temporal SDK's series).
 * @throws when the endpoint does not answer
 */
export async function scrape(url: string): Promise<Sample[]> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url} answered ${r.status}`);
  return parsePrometheus(await r.text());
}

/** Which labels of a `temporal_*` histogram name one series in the summary. */
const KEY_LABELS = ['task_queue', 'activity_type', 'workflow_type', 'operation'];

/** Count and mean (ms) of one histogram series over a section. */
export interface HistogramDelta {
  count: number;
  mean_ms: number;
}

/**
 * The SDK histograms (`temporal_*_seconds`) between two scrapes: count and mean in ms per series, keyed
 * `<metric without temporal_ and _seconds>{task_queue,activity_type,workflow_type}`. Series with no new samples
 * are left out. The bench's own task queue name is shortened to `main`, its sticky queues to `sticky`.
 */
export function histogramDeltas(
  before: Sample[],
  after: Sample[],
  taskQueue: string,
): Record<string, HistogramDelta> {
  const key = (s: Sample) => {
    const parts = KEY_LABELS.filter((l) => s.labels[l]).map((l) => {
      const v = s.labels[l] as string;
      return l === 'task_queue'
        ? v === taskQueue
          ? 'main'
          : v.includes(taskQueue) || /sticky|-[0-9a-f]{32}$/.test(v)
            ? 'sticky'
            : v
        : v;
    });
    const metric = s.name.replace(/^temporal_/, '').replace(/_seconds_(sum|count)$/, '');
    return `${metric}{${parts.join(',')}}`;
  };
  const sums = (samples: Sample[]) => {
    const m = new Map<string, { sum: number; count: number }>();
    for (const s of samples) {
      if (!s.name.startsWith('temporal_') || !/_seconds_(sum|count)$/.test(s.name)) continue;
      const k = key(s);
      const e = m.get(k) ?? { sum: 0, count: 0 };
      if (s.name.endsWith('_sum')) e.sum += s.value;
      else e.count += s.value;
      m.set(k, e);
    }
    return m;
  };
  const b = sums(before);
  const out: Record<string, HistogramDelta> = {};
  for (const [k, a] of sums(after)) {
    const count = a.count - (b.get(k)?.count ?? 0);
    if (count <= 0) continue;
    const sum = a.sum - (b.get(k)?.sum ?? 0);
    out[k] = { count, mean_ms: Math.round((sum / count) * 1000 * 10) / 10 };
  }
  return out;
}

/** User + system CPU seconds of process `pid` so far (0 when it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Resident memory of process `pid` in MB (0 when it is gone). */
export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Pids of the direct children of process `parent` whose command name (`comm`) matches `name`. */
export function childPids(parent: number, name: RegExp): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && name.test(comm)) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** One step of a turn's median timeline: what happened, and when (ms after the turn's message was sent). */
export interface TimelineStep {
  at_ms: number;
  what: string;
}

/** Epoch ms of an event's `eventTime` (a protobuf Timestamp). */
function eventMs(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : NaN;
}

function describe(e: HistoryEvent, scheduled: Map<string, string>): string {
  const type = (EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');
  const a = e.activityTaskScheduledEventAttributes;
  if (a?.activityType?.name) {
    scheduled.set(String(e.eventId), a.activityType.name);
    return `${type} ${a.activityType.name}`;
  }
  const id =
    e.activityTaskStartedEventAttributes?.scheduledEventId ??
    e.activityTaskCompletedEventAttributes?.scheduledEventId;
  if (id !== undefined && id !== null) return `${type} ${scheduled.get(String(id)) ?? ''}`.trim();
  if (e.markerRecordedEventAttributes?.markerName)
    return `${type} ${e.markerRecordedEventAttributes.markerName}`;
  return type;
}

/**
 * The median timeline of a section's turns from the events the server recorded (its clock is this machine's): the
 * events after the first `skip` of the latest run of `workflowId` are cut into turns at each accepted update (a turn
 * starts with the workflow task that accepted it), and turn i is timed from `sentAt[i]` (`runId`: that run instead). Steps are the most common
 * event sequence's events; `at_ms` is the median over the turns with that sequence. Empty when the run
 * continued as new during the section.
 */
export async function turnTimeline(
  client: Client,
  workflowId: string,
  skip: number,
  sentAt: number[],
  runId?: string,
): Promise<{ turns: number; steps: TimelineStep[] }> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events = ((history.events ?? []) as HistoryEvent[]).slice(skip);
  const scheduled = new Map<string, string>();
  for (const e of (history.events ?? []) as HistoryEvent[]) describe(e, scheduled);
  const starts: number[] = [];
  events.forEach((e, i) => {
    if (EventType[e.eventType ?? 0] !== 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED') return;
    let j = i;
    while (j > 0 && EventType[events[j]?.eventType ?? 0] !== 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') j--;
    starts.push(j);
  });
  if (starts.length !== sentAt.length) return { turns: 0, steps: [] };
  const turns = starts.map((s, i) => {
    const slice = events.slice(s, starts[i + 1] ?? events.length);
    return {
      key: slice.map((e) => describe(e, scheduled)).join('|'),
      what: slice.map((e) => describe(e, scheduled)),
      at: slice.map((e) => eventMs(e) - (sentAt[i] as number)),
    };
  });
  const byKey = new Map<string, typeof turns>();
  for (const t of turns) byKey.set(t.key, [...(byKey.get(t.key) ?? []), t]);
  const common = [...byKey.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  const first = common[0];
  if (!first) return { turns: 0, steps: [] };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return {
    turns: common.length,
    steps: first.what.map((what, k) => ({ what, at_ms: median(common.map((t) => t.at[k] as number)) })),
  };
}

/**
 * CPU seconds so far of process `pid`'s threads, summed by thread name (`comm`: the main thread has the process's
 * name, Node's worker threads, libuv's pool, V8's platform threads and the SDK core's tokio threads have their
 * own). Threads that ended are not counted.
 */
export function threadCpuSeconds(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = tid === String(pid) ? 'main thread' : comm.replace(/[-_ ]?\d+$/, '');
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // The thread ended while we looked.
    }
  }
  return out;
}

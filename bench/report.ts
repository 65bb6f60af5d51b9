/**
 * The Markdown form of a bench report (bench/run.ts writes the JSON; bench/README.md explains the columns): per
 * Temporal store, the summary table (with the targets), the per-turn counts, CPU per process and the SDK's
 * latencies per task queue.
 */

export type AnyRec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The per-turn rows of a store's results: label and the measured object (with its counters). */
function turnRows(r: AnyRec): [string, AnyRec][] {
  const rows: [string, AnyRec][] = [];
  if (r.a_overhead) rows.push([`a. REST plain (session client), ${r.a_overhead.turns} turns`, r.a_overhead]);
  if (r.d_history?.plain_turn)
    rows.push([`d. REST plain (API), ${r.d_history.plain_turn.turns} turns`, r.d_history.plain_turn]);
  if (r.d_history?.tool_turn)
    rows.push([`d. REST tool (API), ${r.d_history.tool_turn.turns} turns`, r.d_history.tool_turn]);
  if (r.f_discord?.plain_turn)
    rows.push([`f. Discord plain, ${r.f_discord.plain_turn.turns} turns`, r.f_discord.plain_turn]);
  if (r.f_discord?.tool_turn)
    rows.push([`f. Discord tool, ${r.f_discord.tool_turn.turns} turns`, r.f_discord.tool_turn]);
  for (const b of (r.b_throughput ?? []) as AnyRec[])
    rows.push([`b. ${b.sessions} sessions, ${b.turns} turns`, b]);
  if (r.c_long_session) rows.push([`c. one long session, ${r.c_long_session.turns} turns`, r.c_long_session]);
  return rows;
}

const v = (x: unknown, unit = '') =>
  x === undefined || x === null || Number.isNaN(x) ? '–' : `${x as string}${unit}`;

function summaryTable(r: AnyRec, kind: string): string[] {
  const cluster = kind === 'cluster';
  const lines = ['| measure | result | target |', '|---|---|---|'];
  if (r.a_overhead) {
    const a = r.a_overhead;
    lines.push(
      `| a. overhead per turn p50 / p99 (${a.turns} turns) | ${a.kesoku_ms.p50} ms / ${a.kesoku_ms.p99} ms | |`,
    );
    if (a.kesoku_ms.p50_by_tenth)
      lines.push(`| a. overhead p50 per tenth of the run | ${a.kesoku_ms.p50_by_tenth.join(', ')} ms | |`);
    lines.push(`| a. in-process baseline p50 / p99 | ${a.baseline_ms.p50} ms / ${a.baseline_ms.p99} ms | |`);
    if (a.baseline_ms.p50_by_tenth)
      lines.push(`| a. baseline p50 per tenth of the run | ${a.baseline_ms.p50_by_tenth.join(', ')} ms | |`);
    lines.push(
      `| a. ratio to baseline p50 / p99 | ${a.ratio_p50}× / ${a.ratio_p99}× | ≤ ${cluster ? '3× / 4×' : '2× / 3×'} |`,
    );
    if (a.to_model_request_ms) {
      const t = a.to_model_request_ms;
      lines.push(
        `| a. accepted → model request p50 / p99 | ${t.from_accepted.p50} ms / ${t.from_accepted.p99} ms | ${cluster ? '' : '≤ 30 ms p50'} |`,
      );
      lines.push(`| a. sent → model request p50 / p99 | ${t.from_sent.p50} ms / ${t.from_sent.p99} ms | |`);
      const b = a.baseline_to_model_request_ms;
      lines.push(
        `| a. baseline accepted → model request p50 / p99; ratio p50 | ${b.from_accepted.p50} ms / ${b.from_accepted.p99} ms; ${a.ratio_to_model_request_p50}× | |`,
      );
    }
  }
  for (const b of (r.b_throughput ?? []) as AnyRec[])
    lines.push(
      `| b. throughput, ${b.sessions} sessions (${b.turns} turns) | ${b.turns_per_s} turns/s | ≥ 100 turns/s |`,
    );
  if (r.c_long_session) {
    const c = r.c_long_session;
    const marks = Object.keys(c).filter((k) => /^turn_\d+_ms$/.test(k));
    lines.push(
      `| c. one session: ${marks.map((k) => k.replace('turn_', 'turn ').replace('_ms', '')).join(', ')} (p50 of 10 turns each) | ${marks.map((k) => `${c[k]} ms`).join(', ')}; ${c.runs} runs | last within 10 % of first |`,
    );
    lines.push(`| c. last / first | ${c.last_vs_first}× | ≤ 1.1× |`);
  }
  if (r.d_history) {
    const d = r.d_history;
    // Older reports (before the counts) had {events, payload_bytes} here.
    const h = (t: AnyRec) => t.history_per_turn ?? t;
    lines.push(
      `| d. history per plain turn | ${h(d.plain_turn ?? d.simple_turn).events} events, ${h(d.plain_turn ?? d.simple_turn).payload_bytes} payload bytes | ≤ 11 events (13 with search attributes) |`,
    );
    lines.push(
      `| d. history per tool turn | ${h(d.tool_turn).events} events, ${h(d.tool_turn).payload_bytes} payload bytes | |`,
    );
  }
  if (r.e_idle) {
    const e = r.e_idle;
    const cache = e.cached_sessions === undefined ? '' : `, cache ${e.cached_sessions}`;
    lines.push(
      `| e. worker with ${e.sessions} idle sessions${cache} | ${e.worker_rss_mb} MB RSS, ${e.worker_cpu_percent_idle} % CPU idle | < 1 GB, no CPU |`,
    );
  }
  if (r.g_schedule_fire) {
    const g = r.g_schedule_fire;
    lines.push(
      g.not_run
        ? `| g. schedule fire → model request | not run: ${g.not_run} | ≤ 2 s p99 |`
        : `| g. schedule fire → model request p50 / p99 (${g.fires} fires${g.missing ? `, ${g.missing} missing` : ''}) | ${g.fire_to_model_request_ms.p50} ms / ${g.fire_to_model_request_ms.p99} ms | ≤ 2 s p99 |`,
    );
    if (!g.not_run && g.fire_to_accepted_ms)
      lines.push(
        `| g. schedule fire → prompt accepted p50 / p99 | ${g.fire_to_accepted_ms.p50} ms / ${g.fire_to_accepted_ms.p99} ms | – |`,
      );
  }
  if (r.h_restart) {
    const h = r.h_restart;
    const row = (k: string, what: string, target: string) => {
      const x = h[k];
      if (!x) return;
      lines.push(
        `| h. ${what}, end to end p50 (${h.restarts} restarts) | ${x.after_restart.end_to_end_ms.p50} ms; steady ${x.steady.end_to_end_ms.p50} ms: ${x.ratio_end_to_end_p50}× | ${target} |`,
      );
    };
    row('first', 'first turn after a restart', '≤ 2×');
    row('other', "another session's first turn after it", '');
    row(
      'long',
      `first turn of a session with ${h.long_session_turns} turns (${h.long_session_run_events ?? h.long_session_history_events} events in its run)`,
      '',
    );
  }
  return lines;
}

function countsTable(rows: [string, AnyRec][]): string[] {
  if (rows.length === 0) return [];
  const lines = [
    '| turn | WFT | act | LA | events | payload B | pg stmts | pg before model | sent → model p50 | accepted → model p50 | model → model p50 | overhead p50 | end to end p50 | reply → idle p50 |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [label, x] of rows) {
    const h = x.history_per_turn ?? {};
    const pg = x.pg_statements_per_turn ?? {};
    const before = x.pg_statements_before_model ?? {};
    const t = x.to_model_request_ms;
    const parts = (o: AnyRec) =>
      Object.keys(o).length === 0
        ? '–'
        : `${o.total}${
            Object.keys(o).filter((k) => k !== 'total').length > 1
              ? ` (${Object.entries(o)
                  .filter(([k]) => k !== 'total')
                  .map(([k, n]) => `${k} ${n as number}`)
                  .join(', ')})`
              : ''
          }`;
    const overhead = x.kesoku_ms?.p50 ?? x.overhead_ms?.p50;
    const e2e = x.kesoku_ms?.end_to_end_p50 ?? x.end_to_end_ms?.p50;
    lines.push(
      `| ${label} | ${v(h.workflow_tasks)} | ${v(h.activities)} | ${v(h.local_activities)} | ${v(h.events)} | ${v(h.payload_bytes)} | ${parts(pg)} | ${parts(before)} | ${v(t?.from_sent?.p50, ' ms')} | ${v(t?.from_accepted?.p50, ' ms')} | ${v(x.model_to_model_ms?.p50, ' ms')} | ${v(overhead, ' ms')} | ${v(e2e, ' ms')} | ${v(x.delivered_to_idle_ms?.p50, ' ms')} |`,
    );
  }
  if (rows[0]?.[1].baseline_pg_statements_per_turn) {
    const b = rows[0][1].baseline_pg_statements_per_turn;
    const t = rows[0][1].baseline_to_model_request_ms;
    lines.push(
      `| a. in-process baseline (same turns, no Temporal) | – | – | – | – | – | ${b.total} | ${b.before_model} | – | ${v(t?.from_accepted?.p50, ' ms')} | – | ${v(rows[0][1].baseline_ms?.p50, ' ms')} | – | – |`,
    );
  }
  return lines;
}

function cpuTable(rows: [string, AnyRec][]): string[] {
  const withCpu = rows.filter(([, x]) => x.cpu_ms_per_turn);
  if (withCpu.length === 0) return [];
  const procs = [...new Set(withCpu.flatMap(([, x]) => Object.keys(x.cpu_ms_per_turn as AnyRec)))];
  const lines = [
    `| turn | load 1 min (start → end) | ${procs.join(' | ')} |`,
    `|---|---|${procs.map(() => '---').join('|')}|`,
  ];
  for (const [label, x] of withCpu)
    lines.push(
      `| ${label} | ${x.load_avg_1m?.join(' → ') ?? '–'} | ${procs.map((p) => v(x.cpu_ms_per_turn[p])).join(' | ')} |`,
    );
  const threads = [
    ...new Set(withCpu.flatMap(([, x]) => Object.keys((x.worker_thread_cpu_ms_per_turn ?? {}) as AnyRec))),
  ];
  if (threads.length > 0) {
    lines.push(
      '',
      `| worker CPU ms per turn by thread | ${threads.join(' | ')} |`,
      `|---|${threads.map(() => '---').join('|')}|`,
    );
    for (const [label, x] of withCpu)
      lines.push(`| ${label} | ${threads.map((t) => v(x.worker_thread_cpu_ms_per_turn?.[t])).join(' | ')} |`);
  }
  const xacts = withCpu.filter(([, x]) => x.temporal_pg_xacts_per_turn);
  if (xacts.length > 0) {
    lines.push('', '| turn | Temporal server Postgres transactions per turn |', '|---|---|');
    for (const [label, x] of xacts)
      lines.push(
        `| ${label} | ${Object.entries(x.temporal_pg_xacts_per_turn as AnyRec)
          .map(([db, n]) => `${db} ${n as number}`)
          .join(', ')} |`,
      );
  }
  return lines;
}

/** SDK series shown in the latency table (the rest stays in the JSON). */
const SDK_SERIES = [
  /^workflow_task_schedule_to_start_latency/,
  /^workflow_task_execution_latency/,
  /^workflow_task_replay_latency/,
  /^activity_schedule_to_start_latency/,
  /^activity_execution_latency/,
  /^local_activity_execution_latency/,
  /^request_latency\{.*Respond/,
];

function sdkTable(rows: [string, AnyRec][]): string[] {
  const withSdk = rows.filter(([, x]) => x.sdk_latency && Object.keys(x.sdk_latency as AnyRec).length > 0);
  if (withSdk.length === 0) return [];
  const series = [...new Set(withSdk.flatMap(([, x]) => Object.keys(x.sdk_latency as AnyRec)))]
    .filter((k) => SDK_SERIES.some((re) => re.test(k)))
    .sort(
      (a, b) =>
        SDK_SERIES.findIndex((re) => re.test(a)) - SDK_SERIES.findIndex((re) => re.test(b)) ||
        a.localeCompare(b),
    );
  const lines = [
    `| SDK series (mean ms, per turn) | ${withSdk.map(([l]) => l.replace(/, \d+ turns$/, '')).join(' | ')} |`,
    `|---|${withSdk.map(() => '---').join('|')}|`,
  ];
  for (const s of series)
    lines.push(
      `| ${s} | ${withSdk
        .map(([, x]) => {
          const h = x.sdk_latency[s];
          return h ? `${h.mean_ms} (${Math.round((h.count / x.turns) * 100) / 100})` : '–';
        })
        .join(' | ')} |`,
    );
  return lines;
}

/** The report as Markdown: a header, then per store its four tables. */
export function renderMarkdown(report: AnyRec): string {
  const m = report.machine;
  const load = (l: AnyRec | undefined) => (l ? `${l.load_avg.join(' / ')} (${l.at})` : '–');
  const lines = [
    `# Kesoku benchmark ${report.date}${report.quick ? ' (quick)' : ''}${report.name ? ` — ${report.name}` : ''}`,
    '',
    `Machine: ${m.cpus} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}; Postgres ${report.postgres ?? '–'}. Arguments: \`${(report.argv ?? []).join(' ')}\`${
      Object.keys(report.settings ?? {}).length > 0
        ? `; settings: ${Object.entries(report.settings as AnyRec)
            .map(([k, x]) => `${k}=${x as string}`)
            .join(', ')}`
        : ''
    }.`,
    '',
    `Load average 1 / 5 / 15 min at start: ${load(report.load_start)}; at end: ${load(report.load_end)}. Column meanings: bench/README.md.`,
    '',
  ];
  for (const s of (report.stores ?? []) as AnyRec[]) {
    const r = (s.results ?? {}) as AnyRec;
    lines.push(`## Temporal: ${s.store?.name ?? 'not started'}`, '');
    lines.push(`Load at start: ${load(s.load_start)}; at end: ${load(s.load_end)}.`, '');
    lines.push(...summaryTable(r, s.store?.kind), '');
    const rows = turnRows(r);
    const counts = countsTable(rows);
    if (counts.length > 0) lines.push('### Per turn', '', ...counts, '');
    const cpu = cpuTable(rows);
    if (cpu.length > 0) lines.push('### CPU ms per turn, by process', '', ...cpu, '');
    const sdk = sdkTable(rows);
    if (sdk.length > 0) lines.push('### Temporal SDK latencies (worker /metrics)', '', ...sdk, '');
    const timelines = rows.filter(([, x]) => x.timeline?.steps?.length);
    if (timelines.length > 0) {
      lines.push(
        '### Median turn timelines (ms after the message was sent; server events and bench marks)',
        '',
      );
      for (const [label, x] of timelines)
        lines.push(
          `${label} (${x.timeline.turns} turns with this sequence):`,
          '',
          '```',
          ...(x.timeline.steps as AnyRec[]).map(
            (st) => `${String(st.at_ms).padStart(7)}  ${st.what as string}`,
          ),
          '```',
          '',
        );
    }
    const h = r.h_restart;
    const restartKinds: [string, string][] = [
      ['first', 'h. first turn after a restart'],
      ['other', "h. another session's first turn after it"],
      ['long', `h. first turn of the session with ${h?.long_session_turns} turns`],
    ];
    for (const [k, label] of restartKinds) {
      const steps = h?.[k]?.timeline as AnyRec[] | undefined;
      if (!steps?.length) continue;
      lines.push(
        `${label} (median of ${h.restarts} restarts; ms after sending):`,
        '',
        '```',
        ...steps.map((st) => `${String(st.at_ms).padStart(7)}  ${st.what as string}`),
        '```',
        '',
      );
    }
    const before = rows.find(([, x]) => x.pg_statements_before_model_sql?.length);
    if (before)
      lines.push(
        `### Statements before the model request (${before[0]}, median turn)`,
        '',
        '```',
        ...(before[1].pg_statements_before_model_sql as string[]),
        '```',
        '',
      );
  }
  return lines.join('\n');
}

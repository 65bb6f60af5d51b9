/**
 * The open session's background jobs (docs/tools.md "Background jobs": a `run_shell_command` the agent started
 * with `background: true`): each with its id, command, state (running, succeeded, failed, timed_out, killed,
 * lost), exit code, when it started and ended, how it ended, and the end of its output (collapsed); a running one
 * has a Kill button (`DELETE /v1/sessions/{id}/jobs/{jobId}`).
 *
 * The event stream has no job events, so the list is read when the session opens, after each commit of the
 * session (a job's start commits its tool result; its end commits the turn its background alert wakes), after a
 * kill, and every few seconds while one of its jobs runs — so a job shows its end even before the alert's turn
 * has committed, and nothing is read while none runs.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatSeconds } from '../../../domain/presentation.ts';
import { ApiError, type JobState, type JobView, type KesokuClient } from './api.ts';
import { usePolledList } from './polled-list.tsx';

/** How often the list is read again while one of the jobs runs, in ms. */
const POLL_MS = 3000;

/** The jobs of one session, kept fresh. `reload` reads them now; `running` counts the running ones. */
export interface JobsState {
  jobs: JobView[];
  running: number;
  loaded: boolean;
  error: string | null;
  reload: () => void;
  /** Puts a job as an answer returned it (a kill) into the list before the next read. */
  replace: (job: JobView) => void;
}

/**
 * Reads the jobs of `sessionId` on open, when `revision` moves, and every {@link POLL_MS} while one runs.
 * A 401 calls `onUnauthorized`.
 */
export function useJobs(
  client: KesokuClient,
  sessionId: string,
  revision: number,
  onUnauthorized: () => void,
): JobsState {
  // Whether to poll depends on the list the poll reads: the count of the last answer, kept as state.
  const [running, setRunning] = useState(0);
  const l = usePolledList(
    client,
    sessionId,
    readJobs,
    revision,
    running > 0 ? POLL_MS : null,
    onUnauthorized,
  );
  const nowRunning = l.items.filter((j) => j.state === 'running').length;
  useEffect(() => setRunning(nowRunning), [nowRunning]);
  const { update } = l;
  const replace = useCallback(
    (job: JobView) => update((list) => list.map((j) => (j.id === job.id ? job : j))),
    [update],
  );
  return { jobs: l.items, running: nowRunning, loaded: l.loaded, error: l.error, reload: l.reload, replace };
}

const readJobs = (client: KesokuClient, sessionId: string) => client.listJobs(sessionId);

/** The mark before each state, as the terminal client's tool lines have them. */
export const JOB_MARK: Readonly<Record<JobState, string>> = {
  running: '⏳',
  succeeded: '✅',
  failed: '❌',
  timed_out: '⌛',
  killed: '⏹️',
  lost: '❓',
};

/** An ISO 8601 time as this browser's local wall time: `2026-12-02 17:40:05`. */
export function localTimeText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** The seconds from `startIso` to `endIso` (to `nowMs` while it runs), as `formatSeconds` writes them. */
function durationText(startIso: string, endIso: string | null, nowMs: number): string {
  const end = endIso === null ? nowMs : Date.parse(endIso);
  return formatSeconds(Math.max(0, end - Date.parse(startIso)) / 1000);
}

/** A timeout in seconds as people say it: `90s`, `5m`, `1h`, `1h 30m`. */
export function limitText(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', s > 0 ? `${s}s` : ''].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(' ') : '0s';
}

export interface JobsPanelProps {
  client: KesokuClient;
  sessionId: string;
  state: JobsState;
  now: number;
  onUnauthorized: () => void;
  onClose: () => void;
}

/** The panel beside the transcript: the session's jobs, newest first. */
export function JobsPanel(props: JobsPanelProps) {
  const { state } = props;
  return (
    <aside class="side-panel jobs" id="jobs-panel" aria-label="Background jobs">
      <div class="side-panel-head">
        <h2>⚙ Background jobs</h2>
        <button type="button" class="link" onClick={props.onClose} aria-label="Close background jobs">
          Close
        </button>
      </div>
      {state.error && (
        <p class="problem" role="alert">
          {state.error}
        </p>
      )}
      {state.loaded && state.jobs.length === 0 && (
        <p class="dim">
          No background jobs in this session. The agent starts one with a command run in the background.
        </p>
      )}
      <ul class="job-list">
        {state.jobs.map((j) => (
          <JobItem key={j.id} {...props} job={j} />
        ))}
      </ul>
    </aside>
  );
}

function JobItem(props: JobsPanelProps & { job: JobView }) {
  const { client, sessionId, job: j, state, now } = props;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const kill = async () => {
    setBusy(true);
    setProblem(null);
    try {
      state.replace(await client.killJob(sessionId, j.id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return props.onUnauthorized();
      setProblem(`Not killed: ${err instanceof ApiError ? err.detail : String(err)}`);
    } finally {
      setBusy(false);
      state.reload();
    }
  };
  const tail = (j.output_tail ?? '').trimEnd();
  return (
    <li class={`job ${j.state}`} data-job={j.id} data-state={j.state} aria-label={`Job ${j.id}: ${j.state}`}>
      <p class="job-head">
        <span class="state" role="status">
          {JOB_MARK[j.state]} {j.state}
          {j.exit_code !== null && <span class="exit"> · exit {j.exit_code}</span>}
        </span>
        <code class="id">{j.id}</code>
      </p>
      <pre class="command" aria-label="Command">
        $ {j.command}
      </pre>
      <p class="times dim">
        started <time dateTime={j.started_at}>{localTimeText(j.started_at)}</time>
        {j.ended_at !== null ? (
          <>
            {' '}
            · ended <time dateTime={j.ended_at}>{localTimeText(j.ended_at)}</time> (
            {durationText(j.started_at, j.ended_at, now)})
          </>
        ) : (
          <>
            {' '}
            · running for <span class="elapsed">{durationText(j.started_at, null, now)}</span> (killed after{' '}
            {limitText(j.timeout_s)})
          </>
        )}
      </p>
      {j.summary && <p class="summary">{j.summary}</p>}
      {tail !== '' && (
        <details class="panel job-output">
          <summary>Output (its last lines)</summary>
          <pre class="tail">{tail}</pre>
        </details>
      )}
      {j.state === 'running' && (
        <div class="buttons">
          <button
            type="button"
            class="danger"
            disabled={busy}
            aria-label={`Kill job ${j.id}`}
            onClick={() => void kill()}
          >
            {busy ? 'Killing…' : 'Kill'}
          </button>
        </div>
      )}
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}

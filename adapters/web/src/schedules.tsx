/**
 * The open session's scheduled prompts (docs/schedules.md): each with its timing and zone, its next run at that
 * zone's wall time (and how far off it is), its last runs (outcome, whether the reply was delivered), and Pause /
 * Resume, Run now and Delete; below them a small form to create one (prompt, one of cron / every / at / in, an
 * optional IANA zone), and the session's own zone, the default of new schedules (`PATCH /v1/sessions/{id}
 * {timezone}`). A refusal shows the API's problem detail, which names the field.
 *
 * The list is read when the session opens, after each commit of the session (a run's outcome moves with its
 * turn), after every change made here, and every few seconds while the panel is open (next runs move on).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ScheduleKind } from '../../../domain/schedules.ts';
import { ApiError, type KesokuClient, type NewSchedule, type ScheduleView } from './api.ts';
import { usePolledList } from './polled-list.tsx';

/** How often an open panel reads the list again, in ms. */
const POLL_MS = 4000;

/** The schedules of one session, kept fresh. `reload` reads them now. */
export interface SchedulesState {
  schedules: ScheduleView[];
  loaded: boolean;
  error: string | null;
  reload: () => void;
}

/**
 * Reads the schedules of `sessionId` on open, when `revision` moves, and every {@link POLL_MS} while `open`.
 * A 401 calls `onUnauthorized`.
 */
export function useSchedules(
  client: KesokuClient,
  sessionId: string,
  revision: number,
  open: boolean,
  onUnauthorized: () => void,
): SchedulesState {
  const l = usePolledList(client, sessionId, readSchedules, revision, open ? POLL_MS : null, onUnauthorized);
  return { schedules: l.items, loaded: l.loaded, error: l.error, reload: l.reload };
}

const readSchedules = (client: KesokuClient, sessionId: string) => client.listSchedules(sessionId);

/** "in 3s", "in 2m 5s", "in 3h 10m", "in 4d 2h"; "due" when it is now or past. */
export function untilText(atMs: number, nowMs: number): string {
  const s = Math.round((atMs - nowMs) / 1000);
  if (s <= 0) return 'due';
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return `in ${parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(' ')}`;
}

/** An ISO 8601 time with its offset as people read it: `2026-12-01 09:30:00 +09:00` (the zone's wall time). */
export function wallText(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!m) return iso;
  return `${m[1]} ${m[2]} ${m[3] === 'Z' ? '+00:00' : m[3]}`;
}

function timingText(s: ScheduleView): string {
  switch (s.kind) {
    case 'cron':
      return `cron ${s.spec}`;
    case 'every':
      return `every ${s.spec}`;
    case 'in':
      return `once, in ${s.spec}`;
    case 'at':
      return `once, at ${s.spec}`;
  }
}

const OUTCOME_MARK: Record<string, string> = {
  queued: '⏳',
  running: '●',
  processed: '✅',
  interrupted: '⏹️',
  error: '❌',
  missed: '⤼',
  rejected: '⛔',
};

/** The problem detail of a failed call, for a person. */
const detailOf = (err: unknown) => (err instanceof ApiError ? err.detail : String(err));

export interface SchedulesPanelProps {
  client: KesokuClient;
  sessionId: string;
  state: SchedulesState;
  /** The session's own zone, the default of a new schedule (null: the server's default). */
  sessionZone: string | null;
  now: number;
  onUnauthorized: () => void;
  onClose: () => void;
  /** Sets the session's zone (null clears it); resolves to the problem detail of a refusal, or null. */
  onSessionZone: (zone: string | null) => Promise<string | null>;
}

/** The panel beside the transcript: the list, then the create form. */
export function SchedulesPanel(props: SchedulesPanelProps) {
  const { state } = props;
  return (
    <aside class="side-panel schedules" id="schedules-panel" aria-label="Schedules">
      <div class="side-panel-head">
        <h2>⏰ Schedules</h2>
        <button type="button" class="link" onClick={props.onClose} aria-label="Close schedules">
          Close
        </button>
      </div>
      {state.error && (
        <p class="problem" role="alert">
          {state.error}
        </p>
      )}
      {state.loaded && state.schedules.length === 0 && (
        <p class="dim">No scheduled prompts in this session.</p>
      )}
      <ul class="schedule-list">
        {state.schedules.map((s) => (
          <ScheduleItem key={s.id} {...props} schedule={s} />
        ))}
      </ul>
      <CreateSchedule {...props} />
      <SessionZone {...props} />
    </aside>
  );
}

function ScheduleItem(props: SchedulesPanelProps & { schedule: ScheduleView }) {
  const { client, sessionId, schedule: s, state, now } = props;
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const act = async (what: () => Promise<unknown>, done: string | null) => {
    setBusy(true);
    setResult(null);
    try {
      await what();
      if (done) setResult({ text: done, error: false });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return props.onUnauthorized();
      setResult({ text: detailOf(err), error: true });
    } finally {
      setBusy(false);
      setConfirming(false);
      state.reload();
    }
  };
  const next = s.next_run_at;
  return (
    <li class={`schedule${s.paused ? ' paused' : ''}`} data-schedule={s.id} aria-label={`Schedule ${s.id}`}>
      <p class="prompt">{s.prompt}</p>
      <p class="timing dim">
        {timingText(s)} · <span class="zone">{s.timezone}</span>
      </p>
      <p class="next">
        {s.paused ? (
          <span class="badge waiting">paused</span>
        ) : next ? (
          <>
            next <time dateTime={next}>{wallText(next)}</time>{' '}
            <span class="dim">({untilText(Date.parse(next), now)})</span>
          </>
        ) : (
          <span class="dim">no next run</span>
        )}
      </p>
      {s.runs.length > 0 && (
        <ol class="runs" aria-label="Last runs">
          {s.runs.map((r) => (
            <li key={r.turn_id} class={`run ${r.outcome}`} data-outcome={r.outcome}>
              <span aria-hidden="true">{OUTCOME_MARK[r.outcome] ?? '·'}</span>{' '}
              <time dateTime={r.fired_at ?? r.scheduled_at}>{wallText(r.fired_at ?? r.scheduled_at)}</time> ·{' '}
              {r.outcome}
              {r.delivered ? ' · delivered' : ''}
              {r.detail && <span class="dim"> · {r.detail}</span>}
            </li>
          ))}
        </ol>
      )}
      <div class="buttons">
        <button
          type="button"
          disabled={busy}
          onClick={() => void act(() => client.pauseSchedule(sessionId, s.id, !s.paused), null)}
        >
          {s.paused ? 'Resume' : 'Pause'}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => void act(() => client.triggerSchedule(sessionId, s.id), 'Triggered: it runs now.')}
        >
          Run now
        </button>
        {confirming ? (
          <>
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => void act(() => client.deleteSchedule(sessionId, s.id), null)}
            >
              Delete for good
            </button>
            <button type="button" class="link" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" disabled={busy} onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
      {result && (
        <p class={result.error ? 'problem' : 'dim'} role={result.error ? 'alert' : 'status'}>
          {result.text}
        </p>
      )}
    </li>
  );
}

const KIND_HINT: Record<ScheduleKind, string> = {
  in: 'minutes, or 90s, 5m, 2h',
  every: '10s, 5m, 1h30m, 1d',
  cron: '0 9 * * 1-5',
  at: '2026-12-24T09:00',
};

/** The zone this browser is in, offered as an example. */
const browserZone = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
})();

function CreateSchedule(props: SchedulesPanelProps) {
  const { client, sessionId, state } = props;
  const [prompt, setPrompt] = useState('');
  const [kind, setKind] = useState<ScheduleKind>('in');
  const [when, setWhen] = useState('');
  const [zone, setZone] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const submit = async () => {
    const value = when.trim();
    // A bare number of `every` is seconds (a bare number of `in` is minutes either way).
    const body: NewSchedule =
      kind === 'every' && /^\d+$/.test(value) ? { prompt, every: Number(value) } : { prompt, [kind]: value };
    if (zone.trim() !== '') body.timezone = zone.trim();
    setBusy(true);
    setResult(null);
    try {
      const made = await client.createSchedule(sessionId, body);
      setPrompt('');
      setWhen('');
      setResult({
        text: `Created ${made.id}${made.next_run_at ? `: next run ${wallText(made.next_run_at)} (${made.timezone})` : ''}.`,
        error: false,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return props.onUnauthorized();
      setResult({ text: detailOf(err), error: true });
    } finally {
      setBusy(false);
      state.reload();
    }
  };
  return (
    <form
      class="new-schedule"
      aria-label="New schedule"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3>New schedule</h3>
      <label>
        Prompt
        <textarea
          rows={2}
          value={prompt}
          required
          onInput={(e) => setPrompt(e.currentTarget.value)}
          aria-label="Schedule prompt"
        />
      </label>
      <div class="when">
        <label>
          When
          <select
            aria-label="Schedule kind"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as ScheduleKind)}
          >
            <option value="in">in</option>
            <option value="every">every</option>
            <option value="cron">cron</option>
            <option value="at">at</option>
          </select>
        </label>
        <input
          aria-label="Schedule timing"
          value={when}
          required
          placeholder={KIND_HINT[kind]}
          onInput={(e) => setWhen(e.currentTarget.value)}
        />
      </div>
      <label>
        Time zone
        <input
          aria-label="Schedule time zone"
          value={zone}
          placeholder={
            props.sessionZone ? `${props.sessionZone} (the session's)` : `default, e.g. ${browserZone}`
          }
          onInput={(e) => setZone(e.currentTarget.value)}
        />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Create
      </button>
      {result && (
        <p class={result.error ? 'problem' : 'dim'} role={result.error ? 'alert' : 'status'}>
          {result.text}
        </p>
      )}
    </form>
  );
}

function SessionZone(props: SchedulesPanelProps) {
  const [draft, setDraft] = useState(props.sessionZone ?? '');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => setDraft(props.sessionZone ?? ''), [props.sessionZone]);
  return (
    <form
      class="session-zone"
      aria-label="Session zone setting"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setProblem(await props.onSessionZone(draft.trim() === '' ? null : draft.trim()));
        setBusy(false);
      }}
    >
      <label>
        Session time zone (for new schedules without one)
        <span class="when">
          <input
            aria-label="Session time zone"
            value={draft}
            placeholder={`none: the server's; e.g. ${browserZone}`}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Set
          </button>
        </span>
      </label>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

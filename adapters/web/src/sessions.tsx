/**
 * The sessions this token reaches (`GET /v1/sessions`, newest first): title, channel, status and unread marks,
 * kept live by reading the list every few seconds and, for a session whose revision moved, the session itself
 * (its status and the calls waiting for approval — every change of either comes with a new revision, so nothing
 * else needs reading). A session is unread when its revision passed the one this browser last showed
 * (adapters/web/src/storage.ts `seenStore`); a session seen for the first time counts as read. The search box
 * filters by title (and id) over every session, reading further pages while it is used.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type KesokuClient, type SessionSummary } from './api.ts';
import { seenStore } from './storage.tsx';

/** A session in the list, with what its own read adds. */
export interface ListedSession extends SessionSummary {
  status?: 'idle' | 'processing';
  waiting?: number;
}

/** Sessions read per page; pages read at most while searching. */
const PAGE = 100;
const MAX_PAGES = 20;
/** How many of the newest sessions get their status read. */
const DETAILED = 40;

export interface SessionsState {
  sessions: ListedSession[];
  /** Why the list could not be read, or null. */
  problem: string | null;
  /** True once the list was read once. */
  loaded: boolean;
  /** Reads the list again now. */
  refresh: () => void;
}

/** Reads and refreshes the list every `everyMs`; all pages while `searching`. */
export function useSessions(
  client: KesokuClient,
  opts: { everyMs?: number; searching: boolean; onUnauthorized: () => void },
): SessionsState {
  const [sessions, setSessions] = useState<ListedSession[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const known = useRef(new Map<string, ListedSession>());
  const wake = useRef<() => void>(() => undefined);
  const latest = useRef(opts);
  latest.current = opts;

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const read = async () => {
      if (timer) clearTimeout(timer);
      timer = null;
      try {
        const pages: SessionSummary[] = [];
        let cursor: string | null = null;
        for (let i = 0; i < (latest.current.searching ? MAX_PAGES : 1); i++) {
          const page: { sessions: SessionSummary[]; next_cursor: string | null } = await client.listSessions({
            cursor,
            limit: PAGE,
          });
          pages.push(...page.sessions);
          cursor = page.next_cursor;
          if (!cursor) break;
        }
        const next: ListedSession[] = [];
        const detail: Promise<void>[] = [];
        pages.forEach((s, i) => {
          const before = known.current.get(s.id);
          const merged: ListedSession = { ...before, ...s };
          next.push(merged);
          if (i < DETAILED && (!before || before.revision !== s.revision || before.status === undefined))
            detail.push(
              client.getSession(s.id).then(
                (info) => {
                  if (!info) return;
                  merged.status = info.status;
                  merged.waiting = info.pending_approvals.length;
                },
                () => undefined,
              ),
            );
        });
        await Promise.all(detail);
        if (stopped) return;
        known.current = new Map(next.map((s) => [s.id, s]));
        setSessions(next);
        setProblem(null);
        setLoaded(true);
      } catch (err) {
        if (stopped) return;
        if (err instanceof ApiError && err.status === 401) {
          latest.current.onUnauthorized();
          return;
        }
        setProblem(
          err instanceof ApiError && err.kind === 'unreachable'
            ? 'the Kesoku API is not reachable'
            : String(err),
        );
      }
      if (!stopped) timer = setTimeout(() => void read(), latest.current.everyMs ?? 4000);
    };
    wake.current = () => void read();
    void read();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [client]);

  useEffect(() => {
    if (opts.searching) wake.current();
  }, [opts.searching]);

  return { sessions, problem, loaded, refresh: () => wake.current() };
}

/** The title people read: the session's title, else its id. */
export function titleOf(s: Pick<SessionSummary, 'id' | 'title'>): string {
  return s.title && s.title.trim() !== '' ? s.title : s.id;
}

export interface SessionListProps {
  state: SessionsState;
  current: string | null;
  /** The revision this tab holds of the open session (it is read). */
  currentRevision: number;
  /** The open session's status as its view knows it (fresher than the list's). */
  currentStatus: { busy: boolean; waiting: number };
  query: string;
  onQuery: (q: string) => void;
  onOpen: (id: string) => void;
  onNew: () => void;
}

export function SessionList(props: SessionListProps) {
  const { state, current, currentRevision, query, onQuery, onOpen, onNew } = props;
  const seen = seenStore.all();
  const q = query.trim().toLowerCase();
  const shown = state.sessions.filter(
    (s) => q === '' || titleOf(s).toLowerCase().includes(q) || s.id.toLowerCase().includes(q),
  );
  useEffect(() => {
    // A session seen for the first time is read as it stands.
    const all = seenStore.all();
    for (const s of state.sessions) if (all[s.id] === undefined) seenStore.set(s.id, s.revision);
  }, [state.sessions]);
  return (
    <nav class="sessions" aria-label="Sessions">
      <div class="sessions-head">
        <button type="button" class="primary new" onClick={onNew}>
          + New session
        </button>
        <input
          type="search"
          aria-label="Search sessions by title"
          placeholder="Search by title"
          value={query}
          onInput={(e) => onQuery(e.currentTarget.value)}
        />
      </div>
      {state.problem && (
        <p class="problem" role="status">
          Sessions not refreshed: {state.problem}
        </p>
      )}
      <ul>
        {shown.map((listed) => {
          const open = listed.id === current;
          const s: ListedSession = open
            ? {
                ...listed,
                status: props.currentStatus.busy ? 'processing' : 'idle',
                waiting: props.currentStatus.waiting,
              }
            : listed;
          const held = open ? Math.max(currentRevision, seen[s.id] ?? 0) : (seen[s.id] ?? s.revision);
          const unread = !open && s.revision > held;
          return (
            <li key={s.id}>
              <button
                type="button"
                class={`session${open ? ' current' : ''}${unread ? ' unread' : ''}`}
                aria-current={open ? 'page' : undefined}
                data-session={s.id}
                aria-label={`${titleOf(s)}${unread ? ', unread' : ''}${s.waiting ? ', waiting for approval' : ''}${s.status === 'processing' ? ', working' : ''}`}
                onClick={() => onOpen(s.id)}
              >
                <span class="name">{titleOf(s)}</span>
                <span class="meta">
                  <span class="badge channel">{s.chatbot_id}</span>
                  {s.waiting ? <span class="badge waiting">✋ approval</span> : null}
                  {s.status === 'processing' ? <span class="badge busy">● working</span> : null}
                  {unread && (
                    <span class="unread-dot" aria-hidden="true">
                      ●
                    </span>
                  )}
                </span>
              </button>
            </li>
          );
        })}
        {shown.length === 0 && state.sessions.length > 0 && (
          <li class="dim">No session title matches “{query}”.</li>
        )}
        {state.sessions.length === 0 && !state.problem && <li class="dim">No sessions yet.</li>}
      </ul>
    </nav>
  );
}
